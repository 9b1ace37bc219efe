"""memoryctl output: aligned text tables, key/value blocks, JSON, item references and times."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TextIO

from memoryd.domain import KIND_EPISODE, KIND_IDENTITY_FACT, KIND_PINNED, KIND_TRANSCRIPT

#: Item reference prefixes accepted on the command line → kinds; the first name per kind is printed.
REF_PREFIXES = {
    "pinned": KIND_PINNED,
    "pinned_fact": KIND_PINNED,
    "fact": KIND_PINNED,
    "episode": KIND_EPISODE,
    "transcript": KIND_TRANSCRIPT,
    "turn": KIND_TRANSCRIPT,
    "identity_fact": KIND_IDENTITY_FACT,
    "identity": KIND_IDENTITY_FACT,
}
_REF_NAME = {
    KIND_PINNED: "pinned",
    KIND_EPISODE: "episode",
    KIND_TRANSCRIPT: "transcript",
    KIND_IDENTITY_FACT: "identity_fact",
}
MAX_CELL_CHARS = 72


def parse_ref(text: str) -> tuple[str, int]:
    """ "pinned:12" → (kind, 12); ValueError with the accepted forms otherwise."""
    prefix, _, number = text.partition(":")
    kind = REF_PREFIXES.get(prefix.strip().lower())
    if kind is None or not number.strip().isdigit() or int(number) <= 0:
        raise ValueError(
            f"bad item reference {text!r}: use pinned:ID, episode:ID, transcript:ID or identity_fact:ID"
        )
    return kind, int(number)


def ref(kind: str, row_id: int) -> str:
    """(kind, id) → "pinned:12"."""
    return f"{_REF_NAME.get(kind, kind)}:{row_id}"


def when(ms: int) -> str:
    """Epoch ms → "2024-03-15 10:30:00Z" ("-" for 0)."""
    if not ms:
        return "-"
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def size(n_bytes: int) -> str:
    """Bytes → "1.2 MiB"."""
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n_bytes} B"


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    text = " ".join(text.split())  # one line per row
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def table(
    out: TextIO, headers: Sequence[str], rows: Sequence[Sequence[object]], empty: str = "(none)"
) -> None:
    """Left-aligned columns, two spaces apart, with a header row."""
    if not rows:
        print(empty, file=out)
        return
    cells = [[_cell(h) for h in headers], *[[_cell(v) for v in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for line in cells:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip(), file=out)


def pairs(out: TextIO, items: Sequence[tuple[str, object]]) -> None:
    """ "key: value" lines with aligned values."""
    width = max((len(k) for k, _ in items), default=0)
    for key, value in items:
        print(f"{key + ':':<{width + 1}} {value}", file=out)


def to_jsonable(value: Any) -> Any:
    """Dataclasses, tuples and dicts → JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


def dump_json(out: TextIO, value: Any) -> None:
    """One JSON document on stdout."""
    print(json.dumps(to_jsonable(value), ensure_ascii=False, indent=2, sort_keys=True), file=out)


__all__ = ["REF_PREFIXES", "dump_json", "pairs", "parse_ref", "ref", "size", "table", "to_jsonable", "when"]
