"""Plugin manifests: name, version, entry point, requested permissions and agents, parsed and validated."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plugin_host.sdk import Permission

#: File name of a folder plugin's manifest.
MANIFEST_FILE = "plugin.json"
#: An agent list entry meaning "any agent the operator grants".
ANY_AGENT = "*"

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_ENTRY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
_AGENT = re.compile(r"^[^\s\x00-\x1f\x7f]{1,128}$")
_KNOWN_KEYS = frozenset(
    {"name", "version", "description", "entry_point", "permissions", "agents", "commands"}
)


class ManifestError(ValueError):
    """A manifest is missing a field or has a bad value; the message names the field."""


@dataclass(frozen=True)
class Manifest:
    """What a plugin says about itself."""

    name: str
    version: str
    entry_point: str
    permissions: tuple[Permission, ...]
    agents: tuple[str, ...]
    description: str = ""


def parse_manifest(data: Mapping[str, Any]) -> Manifest:
    """Validate a decoded plugin.json (or a --manifest probe) and return the Manifest. Raises ManifestError."""
    if not isinstance(data, Mapping):
        raise ManifestError("the manifest must be a JSON object")
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise ManifestError(f"unknown manifest keys: {', '.join(unknown)}")
    name = _text(data, "name")
    if not _NAME.match(name):
        raise ManifestError(f"name {name!r} must match {_NAME.pattern}")
    entry_point = _text(data, "entry_point")
    if not _ENTRY.match(entry_point):
        raise ManifestError("entry_point must look like 'package.module:Attribute'")
    version = _text(data, "version", default="0.0.0")
    permissions = tuple(_permission(p) for p in _list(data, "permissions"))
    agents = tuple(_agent(a) for a in _list(data, "agents", default=[ANY_AGENT]))
    description = _text(data, "description", default="")
    return Manifest(
        name,
        version,
        entry_point,
        tuple(dict.fromkeys(permissions)),
        tuple(dict.fromkeys(agents)),
        description,
    )


def _text(data: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if value is None:
        raise ManifestError(f"{key} is required")
    if not isinstance(value, str):
        raise ManifestError(f"{key} must be a string")
    if len(value) > 1000:
        raise ManifestError(f"{key} is longer than 1000 characters")
    return value


def _list(data: Mapping[str, Any], key: str, default: list[str] | None = None) -> list[str]:
    value = data.get(key, default if default is not None else [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{key} must be a list of strings")
    return value


def _permission(value: str) -> Permission:
    try:
        return Permission(value)
    except ValueError:
        allowed = ", ".join(p.value for p in Permission)
        raise ManifestError(f"unknown permission {value!r}; expected one of {allowed}") from None


def _agent(value: str) -> str:
    if value != ANY_AGENT and not _AGENT.match(value):
        raise ManifestError(f"agent id {value!r} must be 1-128 printable characters without whitespace")
    return value
