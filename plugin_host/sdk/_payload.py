"""A small, dependency-free check of a command payload against the top level of its JSON Schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plugin_host.sdk._errors import InvalidPayloadError

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def check_payload(payload: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Check `required` keys and the `type` of each declared property; raise InvalidPayloadError on the first miss.

    This is deliberately shallow (no nesting, formats or patterns): commands validate the rest themselves.
    """
    for key in schema.get("required", ()):
        if key not in payload:
            raise InvalidPayloadError(f"payload field {key!r} is required")
    properties: Mapping[str, Any] = schema.get("properties", {})
    for key, value in payload.items():
        declared = properties.get(key)
        if declared is None:
            if schema.get("additionalProperties") is False:
                raise InvalidPayloadError(f"payload field {key!r} is not allowed")
            continue
        expected = declared.get("type")
        if expected is None:
            continue
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_is_type(value, name) for name in names):
            raise InvalidPayloadError(f"payload field {key!r} must be {' or '.join(names)}")
        if isinstance(value, str) and "maxLength" in declared and len(value) > int(declared["maxLength"]):
            raise InvalidPayloadError(
                f"payload field {key!r} is longer than {declared['maxLength']} characters"
            )


def _is_type(value: Any, name: str) -> bool:
    kinds = _TYPES.get(name)
    if kinds is None:
        return True
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, kinds)
