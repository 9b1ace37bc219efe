"""A small JSON Schema subset: check a schema is supported, validate an instance, build a minimal valid instance.

Covers what constrained decoding and remote structured output need (type, properties, required,
additionalProperties, items, enum, const, min/max, min/maxLength, min/maxItems, anyOf/oneOf, $ref to $defs).
No third-party validator is in the lock; this keeps inferd's "output always validates" promise checkable.
"""

from __future__ import annotations

import math
from typing import Any

_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
_KNOWN = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "anyOf", "oneOf",
    "$ref", "$defs", "definitions", "title", "description", "default", "examples", "$schema", "$id", "format",
    "pattern", "x-guidance",
}  # fmt: skip


class SchemaError(ValueError):
    """The schema is not a JSON object schema this module (and the constrained decoder) understands."""


#: Largest minLength / minItems accepted, and the largest minimal instance (in JSON characters, estimated): a schema
#: asking for more cannot be answered within any reply limit, and building its minimal instance (the fake
#: backend's reply) took 100 MB for one `minLength`.
MAX_MIN_LENGTH = 100_000
MAX_MIN_ITEMS = 10_000
MAX_MINIMAL_CHARS = 1_000_000
_MAX_DEPTH = 64


def check_schema(schema: Any) -> None:
    """Raise SchemaError if the schema uses shapes or keywords outside the supported subset, or asks for what no
    instance can satisfy (an empty enum, minimum above maximum) or for an instance too large to produce."""
    if not isinstance(schema, dict):
        raise SchemaError("a JSON schema must be a JSON object")
    _check(schema, "#", schema)
    if _minimal_chars(schema, schema, 0) > MAX_MINIMAL_CHARS:
        raise SchemaError(f"#: the smallest valid instance is larger than {MAX_MINIMAL_CHARS} characters")


def _count(node: dict[str, Any], key: str, where: str, cap: int) -> int | None:
    if key not in node:
        return None
    value = node[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"{where}/{key} must be a non-negative integer")
    if key.startswith("min") and value > cap:
        raise SchemaError(f"{where}/{key} is {value}; at most {cap} is supported")
    return value


def _check_bounds(node: dict[str, Any], where: str) -> None:
    """Keyword values: an enum with members, numeric bounds that leave some number, lengths that leave some size."""
    if "enum" in node and (not isinstance(node["enum"], list) or not node["enum"]):
        raise SchemaError(f"{where}/enum must be a non-empty array")
    numbers: dict[str, float] = {}
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in node:
            value = node[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise SchemaError(f"{where}/{key} must be a finite number")
            numbers[key] = float(value)
    low = max((numbers[k] for k in ("minimum", "exclusiveMinimum") if k in numbers), default=-math.inf)
    high = min((numbers[k] for k in ("maximum", "exclusiveMaximum") if k in numbers), default=math.inf)
    exclusive = "exclusiveMinimum" in numbers or "exclusiveMaximum" in numbers
    if low > high or (exclusive and low >= high):
        raise SchemaError(f"{where}: no number satisfies the minimum and maximum")
    for low_key, high_key, cap in (
        ("minLength", "maxLength", MAX_MIN_LENGTH),
        ("minItems", "maxItems", MAX_MIN_ITEMS),
    ):
        least, most = _count(node, low_key, where, cap), _count(node, high_key, where, cap)
        if least is not None and most is not None and least > most:
            raise SchemaError(f"{where}: {low_key} is above {high_key}")


def _minimal_chars(node: Any, root: dict[str, Any], depth: int) -> float:
    """An upper estimate of the minimal instance's JSON size (what minimal_instance builds)."""
    if depth > _MAX_DEPTH:
        raise SchemaError("#: the schema nests (or refers to itself) too deeply")
    if not isinstance(node, dict):
        return 4
    if "$ref" in node:
        return _minimal_chars(_resolve(node["$ref"], root), root, depth + 1)
    if "const" in node or "enum" in node:
        return 64
    for key in ("anyOf", "oneOf"):
        if key in node and isinstance(node[key], list) and node[key]:
            return _minimal_chars(node[key][0], root, depth + 1)
    kind = node.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind or "object"
    if kind == "object":
        props = node.get("properties", {})
        names = node.get("required", list(props))
        return 2 + sum(
            len(str(name)) + 4 + _minimal_chars(props.get(name, True), root, depth + 1) for name in names
        )
    if kind == "array":
        items = int(node.get("minItems", 0))
        return 2 + items * (1 + _minimal_chars(node.get("items", True), root, depth + 1))
    if kind == "string":
        return 2 + max(64, int(node.get("minLength", 0)))
    return 24


def _check(node: Any, where: str, root: dict[str, Any]) -> None:
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        raise SchemaError(f"{where}: a schema must be an object or a boolean")
    unknown = sorted(set(node) - _KNOWN)
    if unknown:
        raise SchemaError(f"{where}: unsupported keyword(s) {', '.join(unknown)}")
    _check_bounds(node, where)
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for k in kinds:
        if k not in _TYPES:
            raise SchemaError(f"{where}: unknown type {k!r}")
    if "$ref" in node:
        _resolve(node["$ref"], root)
    for key in ("properties", "$defs", "definitions"):
        children = node.get(key, {})
        if not isinstance(children, dict):
            raise SchemaError(f"{where}/{key} must be an object")
        for name, child in children.items():
            _check(child, f"{where}/{key}/{name}", root)
    for key in ("items", "additionalProperties"):
        if key in node:
            _check(node[key], f"{where}/{key}", root)
    for key in ("anyOf", "oneOf"):
        if key in node:
            if not isinstance(node[key], list) or not node[key]:
                raise SchemaError(f"{where}/{key} must be a non-empty array")
            for i, child in enumerate(node[key]):
                _check(child, f"{where}/{key}/{i}", root)


def _resolve(ref: Any, root: dict[str, Any]) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise SchemaError(f"only local $ref like '#/$defs/Name' are supported, not {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        if not isinstance(node, dict) or part not in node:
            raise SchemaError(f"$ref {ref!r} does not resolve")
        node = node[part]
    return node


def validate(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Every way `instance` breaks `schema`, as short messages with a JSON pointer; empty means valid."""
    errors: list[str] = []
    _validate(instance, schema, "", schema, errors)
    return errors


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if kind == "integer":
        return isinstance(value, int) or (math.isfinite(value) and float(value).is_integer())
    return math.isfinite(value)


def _validate(value: Any, node: Any, path: str, root: dict[str, Any], errors: list[str]) -> None:
    if node is True:
        return
    if node is False:
        errors.append(f"{path or '/'}: no value is allowed here")
        return
    if "$ref" in node:
        _validate(value, _resolve(node["$ref"], root), path, root, errors)
    where = path or "/"
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    if kinds and not any(_type_ok(value, k) for k in kinds):
        errors.append(f"{where}: expected {'/'.join(kinds)}")
        return
    if "const" in node and value != node["const"]:
        errors.append(f"{where}: must equal the schema's const")
    if "enum" in node and value not in node["enum"]:
        errors.append(f"{where}: not one of the allowed values")
    for key in ("anyOf", "oneOf"):
        if key in node:
            passing = sum(1 for option in node[key] if not validate_sub(value, option, root))
            if passing == 0 or (key == "oneOf" and passing > 1):
                errors.append(f"{where}: matches {passing} of the {key} options")
    if isinstance(value, dict):
        _validate_object(value, node, path, root, errors)
    elif isinstance(value, list):
        if len(value) < node.get("minItems", 0):
            errors.append(f"{where}: fewer than {node['minItems']} items")
        if "maxItems" in node and len(value) > node["maxItems"]:
            errors.append(f"{where}: more than {node['maxItems']} items")
        if "items" in node:
            for i, item in enumerate(value):
                _validate(item, node["items"], f"{path}/{i}", root, errors)
    elif isinstance(value, str):
        if len(value) < node.get("minLength", 0):
            errors.append(f"{where}: shorter than {node['minLength']} characters")
        if "maxLength" in node and len(value) > node["maxLength"]:
            errors.append(f"{where}: longer than {node['maxLength']} characters")
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _validate_number(value, node, where, errors)


def validate_sub(value: Any, node: Any, root: dict[str, Any]) -> list[str]:
    """Validate against a sub-schema that may $ref into `root`."""
    errors: list[str] = []
    _validate(value, node, "", root, errors)
    return errors


def _validate_object(
    value: dict[str, Any], node: dict[str, Any], path: str, root: dict[str, Any], errors: list[str]
) -> None:
    props: dict[str, Any] = node.get("properties", {})
    for name in node.get("required", []):
        if name not in value:
            errors.append(f"{path or '/'}: missing required property {name!r}")
    extra = node.get("additionalProperties", True)
    for name, item in value.items():
        if name in props:
            _validate(item, props[name], f"{path}/{name}", root, errors)
        elif extra is False:
            errors.append(f"{path or '/'}: unexpected property {name!r}")
        elif isinstance(extra, dict):
            _validate(item, extra, f"{path}/{name}", root, errors)


def _validate_number(value: float, node: dict[str, Any], where: str, errors: list[str]) -> None:
    if "minimum" in node and value < node["minimum"]:
        errors.append(f"{where}: below the minimum {node['minimum']}")
    if "maximum" in node and value > node["maximum"]:
        errors.append(f"{where}: above the maximum {node['maximum']}")
    if "exclusiveMinimum" in node and value <= node["exclusiveMinimum"]:
        errors.append(f"{where}: not above {node['exclusiveMinimum']}")
    if "exclusiveMaximum" in node and value >= node["exclusiveMaximum"]:
        errors.append(f"{where}: not below {node['exclusiveMaximum']}")


def minimal_instance(schema: dict[str, Any], hint: str = "") -> Any:
    """A small deterministic instance that validates (strings use `hint`, cut to fit their bounds)."""
    return _minimal(schema, schema, hint)


def _minimal(node: Any, root: dict[str, Any], hint: str) -> Any:
    if node is True or not isinstance(node, dict):
        return None
    if "$ref" in node:
        return _minimal(_resolve(node["$ref"], root), root, hint)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in node:
            return _minimal(node[key][0], root, hint)
    kind = node.get("type")
    kind = kind[0] if isinstance(kind, list) else kind or "object"
    if kind == "object":
        props: dict[str, Any] = node.get("properties", {})
        return {
            name: _minimal(props.get(name, True), root, hint) for name in node.get("required", list(props))
        }
    if kind == "array":
        return [_minimal(node.get("items", True), root, hint) for _ in range(node.get("minItems", 0))]
    if kind == "string":
        text = hint or "x"
        text = (text * (node.get("minLength", 0) // max(1, len(text)) + 1))[
            : max(len(text), node.get("minLength", 0))
        ]
        return text[: node["maxLength"]] if "maxLength" in node else text
    if kind in ("number", "integer"):
        low = _bound(node, ("minimum", "exclusiveMinimum"), 0.0)
        high = _bound(node, ("maximum", "exclusiveMaximum"), low + 1)
        middle = (low + high) / 2
        return int(middle) if kind == "integer" and low <= int(middle) <= high else middle
    if kind == "boolean":
        return False
    return None


def _bound(node: dict[str, Any], keys: tuple[str, ...], default: float) -> float:
    return next((float(node[key]) for key in keys if key in node), default)


__all__ = ["SchemaError", "check_schema", "minimal_instance", "validate"]
