"""Loads a plugin from its entry point ("package.module:Attribute") inside the plugin process."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from plugin_host.sdk import Plugin


class PluginLoadError(Exception):
    """The entry point does not name a Plugin subclass or instance."""


def load_plugin(entry_point: str, paths: Sequence[str] = ()) -> Plugin:
    """Import `module:attr` (after putting `paths` first on sys.path) and return the plugin object it names.

    The attribute may be a Plugin subclass (instantiated without arguments) or a Plugin instance.
    """
    module_name, sep, attr = entry_point.partition(":")
    if not sep or not module_name or not attr:
        raise PluginLoadError(f"entry point {entry_point!r} must look like 'package.module:Attribute'")
    for path in reversed(paths):
        if path not in sys.path:
            sys.path.insert(0, path)
    target: object = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    if isinstance(target, Plugin):
        return target
    if isinstance(target, type) and issubclass(target, Plugin):
        return target()
    raise PluginLoadError(f"entry point {entry_point!r} is a {type(target).__name__}, not a Plugin")
