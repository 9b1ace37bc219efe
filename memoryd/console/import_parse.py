"""Import, step 1: read and validate JSON Lines export records before anything is written.

Every record is checked against the live schema (column names, types, NOT NULL) so a bad file is rejected whole
with INVALID_ARGUMENT naming the line and field — never the content.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from memoryd.console.export import FORMAT_NAME, FORMAT_VERSION, IDENTITY_COLUMNS, ROW_TABLES
from memoryd.domain import KINDS, MAX_AGENT_ID_CHARS
from memoryd.storage.transfer import TransferStore
from servicekit.errors import FieldViolation, InvalidArgumentError

MAX_LINE_CHARS = 4 * 1024 * 1024
_MAX_VIOLATIONS = 10
_AGENT_ID = re.compile(rf"^[^\s\x00-\x1f\x7f]{{1,{MAX_AGENT_ID_CHARS}}}$")
_STATUSES = {
    "episode": {"active", "disabled"},
    "pinned_fact": {"active", "disabled"},
    "identity_fact": {"active", "disabled"},
    "pending_signal": {"pending", "processed", "dead_letter"},
}


@dataclass(frozen=True)
class VectorRecord:
    """One stored vector from the file: which row (file ids), model, dimension and float32 bytes."""

    kind: str
    row_id: int
    agent_id: str
    model: str
    dimension: int
    blob: bytes
    created_at_ms: int


@dataclass
class ImportPlan:
    """Everything a valid file holds, grouped by record type, ready to apply."""

    header: dict[str, Any] = field(default_factory=dict)
    identity: dict[str, Any] | None = None
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {t: [] for t in ROW_TABLES})
    vectors: list[VectorRecord] = field(default_factory=list)
    declared_counts: dict[str, int] | None = None

    def counts(self) -> dict[str, int]:
        """Records held per type (as the end record counts them)."""
        counts = {t: len(rows) for t, rows in self.rows.items() if rows}
        if self.identity is not None:
            counts["identity"] = 1
        if self.vectors:
            counts["embedding"] = len(self.vectors)
        return counts


def _is_int64(value: Any) -> bool:
    """An integer SQLite can store (a bigger Python int would fail the insert with OverflowError)."""
    return isinstance(value, int) and -(2**63) <= value < 2**63


def _type_ok(value: Any, decl: str, nullable: bool) -> bool:
    if value is None:
        return nullable
    if "INT" in decl:
        return _is_int64(value)
    if "REAL" in decl or "FLOA" in decl or "DOUB" in decl:
        # json.loads accepts NaN and Infinity; SQLite stores NaN as NULL.
        return _is_int64(value) or (isinstance(value, float) and math.isfinite(value))
    if "TEXT" in decl or "CHAR" in decl:
        return isinstance(value, str)
    return True


class ImportReader:
    """Feed lines in order, then call finish(); raises InvalidArgumentError listing the bad lines."""

    def __init__(self, store: TransferStore) -> None:
        self._columns = {t: store.columns(t) for t in ROW_TABLES}
        self._plan = ImportPlan()
        self._violations: list[FieldViolation] = []
        self._has_header = False
        self._is_ended = False
        self._line = 0

    def _bad(self, reason: str, description: str) -> None:
        self._violations.append(FieldViolation(f"line[{self._line}]", description, reason))
        if len(self._violations) >= _MAX_VIOLATIONS:
            self._raise()

    def _raise(self) -> None:
        first = self._violations[0]
        summary = "; ".join(f"{v.field}: {v.description}" for v in self._violations[:3])
        raise InvalidArgumentError(
            first.reason, f"invalid import: {summary}", field_violations=self._violations
        )

    def feed(self, line: str) -> None:
        """Validate one line (blank lines are ignored)."""
        self._line += 1
        if not line.strip():
            return
        if len(line) > MAX_LINE_CHARS:
            self._bad("IMPORT_LINE_TOO_LONG", f"is longer than {MAX_LINE_CHARS} characters")
            return
        try:
            record = json.loads(line)
        except ValueError:
            self._bad("IMPORT_INVALID_JSON", "is not a JSON object")
            return
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            self._bad("IMPORT_INVALID_RECORD", "is not an object with a string 'type'")
            return
        kind = record.pop("type")
        if self._is_ended:
            self._bad("IMPORT_INVALID_RECORD", "follows the end record")
        elif not self._has_header:
            self._header(kind, record)
        elif kind == "identity":
            self._identity(record)
        elif kind in ROW_TABLES:
            self._row(kind, record)
        elif kind == "embedding":
            self._vector(record)
        elif kind == "end":
            self._end(record)
        else:
            self._bad("IMPORT_UNKNOWN_RECORD_TYPE", f"has unknown record type {kind[:40]!r}")

    def _header(self, kind: str, record: dict[str, Any]) -> None:
        if kind != "header" or record.get("format") != FORMAT_NAME:
            self._bad("IMPORT_MISSING_HEADER", f"the first record must be a {FORMAT_NAME} header")
            return
        version = record.get("version")
        if not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
            self._bad(
                "IMPORT_UNSUPPORTED_VERSION",
                f"format version {version!r} is not supported (1-{FORMAT_VERSION})",
            )
            return
        self._has_header = True
        self._plan.header = record

    def _identity(self, record: dict[str, Any]) -> None:
        unknown = set(record) - set(IDENTITY_COLUMNS)
        overrides = record.get("overrides", [])
        if unknown:
            self._bad("IMPORT_INVALID_FIELD", f"identity has unknown fields {sorted(unknown)[:5]}")
        elif not isinstance(record.get("content", ""), str) or not isinstance(record.get("model", ""), str):
            self._bad("IMPORT_INVALID_FIELD", "identity content and model must be strings")
        elif not all(_is_int64(record.get(k, 0)) for k in ("token_count", "version", "generated_at_ms")):
            self._bad("IMPORT_INVALID_FIELD", "identity counters and times must be integers")
        elif not isinstance(overrides, list) or not all(
            isinstance(o, dict) and isinstance(o.get("text"), str) and isinstance(o.get("id", ""), str)
            for o in overrides
        ):
            self._bad("IMPORT_INVALID_FIELD", "identity overrides must be objects with string id and text")
        elif self._plan.identity is not None:
            self._bad("IMPORT_INVALID_RECORD", "is a second identity record")
        else:
            self._plan.identity = record

    def _row(self, kind: str, record: dict[str, Any]) -> None:
        columns = {name: (decl, required, nullable) for name, decl, required, nullable in self._columns[kind]}
        for name in record:
            if name not in columns:
                self._bad("IMPORT_INVALID_FIELD", f"{kind} has unknown field {name[:40]!r}")
                return
        for name, (decl, required, nullable) in columns.items():
            if name not in record:
                if required:
                    self._bad("IMPORT_MISSING_FIELD", f"{kind} is missing field {name!r}")
                    return
                continue
            if not _type_ok(record[name], decl, nullable or name == "id"):
                self._bad(
                    "IMPORT_INVALID_FIELD", f"{kind} field {name!r} must be {decl.lower() or 'a value'}"
                )
                return
        if not _AGENT_ID.match(str(record.get("agent_id", ""))):
            self._bad("IMPORT_INVALID_FIELD", f"{kind} field 'agent_id' is not a valid agent id")
            return
        row_id = record.get("id")
        if kind != "agent" and row_id is not None and row_id <= 0:
            self._bad("IMPORT_INVALID_FIELD", f"{kind} field 'id' must be positive")
            return
        status = record.get("status")
        if kind in _STATUSES and status is not None and status not in _STATUSES[kind]:
            self._bad(
                "IMPORT_INVALID_FIELD", f"{kind} field 'status' must be one of {sorted(_STATUSES[kind])}"
            )
            return
        self._plan.rows[kind].append(record)

    def _vector(self, record: dict[str, Any]) -> None:
        try:
            kind, row_id, agent = record["kind"], record["row_id"], record["agent_id"]
            model, dimension = record["model"], record["dimension"]
            blob = base64.b64decode(record["vector"], validate=True)
        except (KeyError, TypeError, binascii.Error, ValueError):
            self._bad(
                "IMPORT_INVALID_FIELD",
                "embedding needs kind, row_id, agent_id, model, dimension, base64 vector",
            )
            return
        if kind not in KINDS or not isinstance(row_id, int) or not isinstance(model, str) or not model:
            self._bad("IMPORT_INVALID_FIELD", "embedding kind, row_id or model is invalid")
        elif not isinstance(dimension, int) or dimension <= 0 or len(blob) != 4 * dimension:
            self._bad("IMPORT_INVALID_FIELD", "embedding vector does not have `dimension` float32 values")
        elif not isinstance(agent, str) or not _AGENT_ID.match(agent):
            self._bad("IMPORT_INVALID_FIELD", "embedding agent_id is not a valid agent id")
        else:
            created = record.get("created_at_ms", 0)
            self._plan.vectors.append(
                VectorRecord(
                    kind, row_id, agent, model, dimension, blob, created if isinstance(created, int) else 0
                )
            )

    def _end(self, record: dict[str, Any]) -> None:
        counts = record.get("counts")
        if not isinstance(counts, dict) or not all(isinstance(v, int) for v in counts.values()):
            self._bad("IMPORT_INVALID_RECORD", "end record needs integer counts")
            return
        self._is_ended = True
        self._plan.declared_counts = {str(k): int(v) for k, v in counts.items()}

    def finish(self) -> ImportPlan:
        """The validated plan; INVALID_ARGUMENT when the file was bad, headerless or truncated."""
        if not self._has_header and not self._violations:
            self._line += 1
            self._bad("IMPORT_MISSING_HEADER", f"no {FORMAT_NAME} header record")
        if not self._violations and self._plan.declared_counts is not None:
            declared = {k: v for k, v in self._plan.declared_counts.items() if v}
            if declared != self._plan.counts():
                self._bad(
                    "IMPORT_TRUNCATED", "record counts differ from the end record (truncated or edited file)"
                )
        if self._violations:
            self._raise()
        return self._plan


__all__ = ["ImportPlan", "ImportReader", "VectorRecord"]
