"""osaurus.memory.v1.MemoryConsoleService servicer (admin surface); GetConfig / UpdateConfig so far."""

from __future__ import annotations

from typing import Any

import grpc

from memoryd.config import KEYS_BY_ATTR, ConfigStore, MemoryConfig, validate_changes
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from servicekit.errors import FieldViolation, InvalidArgumentError
from servicekit.planned import planned_rpcs

# Proto enum numbers ↔ memory.json strings. UNSPECIFIED (0) maps to nothing: it is rejected when named.
_ENUMS: dict[str, dict[int, str]] = {
    "embedding_backend": {cpb.EMBEDDING_BACKEND_MLX: "mlx", cpb.EMBEDDING_BACKEND_NONE: "none"},
    "extraction_mode": {cpb.EXTRACTION_MODE_SESSION_END: "sessionEnd", cpb.EXTRACTION_MODE_MANUAL: "manual"},
    "relevance_gate_mode": {
        cpb.RELEVANCE_GATE_MODE_OFF: "off",
        cpb.RELEVANCE_GATE_MODE_HEURISTIC: "heuristic",
        cpb.RELEVANCE_GATE_MODE_LLM: "llm",
    },
}
_ENUM_TYPES = {
    "embedding_backend": cpb.EmbeddingBackend.DESCRIPTOR,
    "extraction_mode": cpb.ExtractionMode.DESCRIPTOR,
    "relevance_gate_mode": cpb.RelevanceGateMode.DESCRIPTOR,
}


def config_to_proto(config: MemoryConfig) -> cpb.MemoryConfig:
    """MemoryConfig → proto."""
    values: dict[str, Any] = {}
    for attr in KEYS_BY_ATTR:
        value = getattr(config, attr)
        if attr in _ENUMS:
            value = {text: number for number, text in _ENUMS[attr].items()}[value]
        values[attr] = value
    return cpb.MemoryConfig(**values)


def changes_from_proto(request: cpb.UpdateConfigRequest) -> dict[str, Any]:
    """Attribute → new value for the masked fields (or the non-default fields when the mask is empty).

    Raises INVALID_ARGUMENT with one field violation per bad field; nothing is applied then.
    """
    incoming = request.config
    paths = list(request.update_mask.paths)
    violations: list[FieldViolation] = []
    if paths:
        for path in paths:
            name = path.removeprefix("config.")
            if name not in KEYS_BY_ATTR:
                violations.append(FieldViolation(f"update_mask.{path}", "is not a MemoryConfig field", "UNKNOWN_FIELD"))
        named = [p.removeprefix("config.") for p in paths if p.removeprefix("config.") in KEYS_BY_ATTR]
    else:
        # proto3 cannot tell "unset" from a zero value, so an empty mask applies every non-zero field; clearing a
        # field (enabled=false, salience_floor=0, core_model="") needs an explicit mask.
        named = [attr for attr in KEYS_BY_ATTR if getattr(incoming, attr)]
    changes: dict[str, Any] = {}
    for attr in named:
        value = getattr(incoming, attr)
        if attr in _ENUMS:
            if value not in _ENUMS[attr]:
                known = value in _ENUM_TYPES[attr].values_by_number
                violations.append(
                    FieldViolation(
                        f"config.{attr}",
                        "must not be UNSPECIFIED" if known else f"unknown {_ENUM_TYPES[attr].name} value {value}",
                        "INVALID_ENUM",
                    )
                )
                continue
            value = _ENUMS[attr][value]
        changes[attr] = value
    for problem in validate_changes(changes):
        violations.append(FieldViolation(f"config.{problem.attr}", problem.description, problem.reason))
    if violations:
        reasons = {v.reason for v in violations}
        reason = "CONFIG_OUT_OF_RANGE" if "CONFIG_OUT_OF_RANGE" in reasons else violations[0].reason
        summary = "; ".join(f"{v.field} {v.description}" for v in violations)
        raise InvalidArgumentError(reason, f"invalid configuration: {summary}", field_violations=violations)
    return changes


@planned_rpcs(cpb_grpc.MemoryConsoleServiceServicer, "osaurus.memory.v1.MemoryConsoleService")
class MemoryConsoleService(cpb_grpc.MemoryConsoleServiceServicer):  # type: ignore[misc]
    """Operator API. RPCs not defined here answer UNIMPLEMENTED / NOT_YET_AVAILABLE."""

    def __init__(self, config: ConfigStore) -> None:
        self._config = config

    def GetConfig(self, request: cpb.GetConfigRequest, context: grpc.ServicerContext) -> cpb.GetConfigResponse:
        return cpb.GetConfigResponse(config=config_to_proto(self._config.get()))

    def UpdateConfig(
        self, request: cpb.UpdateConfigRequest, context: grpc.ServicerContext
    ) -> cpb.UpdateConfigResponse:
        changes = changes_from_proto(request)
        updated = self._config.update(changes) if changes else self._config.get()
        return cpb.UpdateConfigResponse(config=config_to_proto(updated))
