"""Plugin base class and the @command decorator that declares a plugin's commands."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from plugin_host.sdk._context import Context
from plugin_host.sdk._errors import InvalidPayloadError
from plugin_host.sdk._payload import check_payload
from plugin_host.sdk._types import Permission

#: A command's payload: the decoded JSON object of InvokePlugin.payload_json.
Payload = dict[str, Any]
#: A command method: (self, ctx, payload) -> anything json.dumps accepts.
CommandMethod = Callable[[Any, Context, Payload], Any]
F = TypeVar("F", bound=CommandMethod)

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_COMMAND_ATTR = "__osaurus_command__"


@dataclass(frozen=True)
class CommandSpec:
    """One declared command."""

    name: str
    """Command name, as passed to InvokePlugin."""
    description: str
    """What it does (defaults to the first line of the method's docstring)."""
    payload_schema: Mapping[str, Any] | None
    """JSON Schema of the payload; top-level `required` and property types are checked before the call."""
    method_name: str
    """Name of the method that implements it."""


def command(
    name: str | None = None,
    *,
    description: str | None = None,
    payload_schema: Mapping[str, Any] | None = None,
) -> Callable[[F], F]:
    """Declare a method `(self, ctx, payload) -> result` as a command.

    The result must be JSON-serialisable; it reaches the caller as InvokePluginResponse.result_json.
    """

    if name is not None:
        _check_command_name(name)

    def decorate(method: F) -> F:
        command_name = name or method.__name__.replace("_", "-")
        _check_command_name(command_name)
        doc = inspect.getdoc(method) or ""
        spec = CommandSpec(
            name=command_name,
            description=description if description is not None else doc.split("\n", 1)[0],
            payload_schema=payload_schema,
            method_name=method.__name__,
        )
        setattr(method, _COMMAND_ATTR, spec)
        return method

    return decorate


def _check_command_name(name: str) -> None:
    if not _NAME.match(name):
        raise ValueError(f"command name {name!r} must match {_NAME.pattern}")


class Plugin:
    """Base class of a plugin. Subclass it, set the manifest attributes, and declare commands with @command.

    Manifest attributes (a folder plugin's plugin.json, when present, is authoritative for the host):
      name         unique plugin name, lower case: letters, digits, ".", "_" or "-"
      version      the plugin's version string
      description  one line
      permissions  what it asks for: Permission.INFERENCE, Permission.MEMORY_SEARCH
      agents       the agent ids it wants to act for, or ("*",) for any agent the operator grants
    """

    name: ClassVar[str] = ""
    version: ClassVar[str] = "0.0.0"
    description: ClassVar[str] = ""
    permissions: ClassVar[tuple[Permission, ...]] = ()
    agents: ClassVar[tuple[str, ...]] = ("*",)

    def setup(self, data_dir: Path) -> None:
        """Called once when the plugin process starts, before any command. Raising here fails the start."""

    @classmethod
    def command_specs(cls) -> dict[str, CommandSpec]:
        """Every declared command by name."""
        specs: dict[str, CommandSpec] = {}
        for klass in reversed(cls.__mro__):
            for member in vars(klass).values():
                spec = getattr(member, _COMMAND_ATTR, None)
                if isinstance(spec, CommandSpec):
                    specs[spec.name] = spec
        return specs

    @classmethod
    def manifest(cls) -> dict[str, Any]:
        """The manifest as a JSON-ready dict (what `python -m plugin_host.runner --manifest` prints)."""
        if not _NAME.match(cls.name):
            raise ValueError(f"{cls.__name__}.name {cls.name!r} must match {_NAME.pattern}")
        return {
            "name": cls.name,
            "version": cls.version,
            "description": cls.description,
            "permissions": [Permission(p).value for p in cls.permissions],
            "agents": list(cls.agents),
        }

    def invoke(self, ctx: Context, command_name: str, payload: Payload) -> Any:
        """Run one command: check the payload against its schema, call it, return its JSON-ready result.

        Raises KeyError for an unknown command and InvalidPayloadError for a bad payload.
        """
        spec = self.command_specs().get(command_name)
        if spec is None:
            raise KeyError(command_name)
        if spec.payload_schema is not None:
            check_payload(payload, spec.payload_schema)
        return getattr(self, spec.method_name)(ctx, payload)


def encode_result(result: Any) -> str:
    """A command's result as JSON text. A result json cannot encode raises TypeError or ValueError (a plugin bug)."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def decode_payload(payload_json: str) -> Payload:
    """InvokePlugin.payload_json as a dict; empty means {}. Raises InvalidPayloadError."""
    if not payload_json.strip():
        return {}
    try:
        value = json.loads(payload_json)
    except ValueError as error:
        raise InvalidPayloadError(f"payload_json is not valid JSON (line {_line(error)})") from None
    if not isinstance(value, dict):
        raise InvalidPayloadError(f"payload_json must be a JSON object, not {type(value).__name__}")
    return value


def _line(error: ValueError) -> int:
    return int(getattr(error, "lineno", 0))
