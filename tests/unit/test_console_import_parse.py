"""Import validation against a real schema, and the storage-error ring Diagnose reads."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.console.export import FORMAT_NAME
from memoryd.console.import_parse import ImportReader
from memoryd.console.recent_errors import StorageErrorLog
from memoryd.storage.store import Store, open_store
from servicekit.errors import InvalidArgumentError


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


HEADER = json.dumps({"type": "header", "format": FORMAT_NAME, "version": 1})
TURN = {
    "type": "transcript",
    "id": 4,
    "agent_id": "a",
    "conversation_id": "c",
    "chunk_index": 0,
    "role": "user",
    "content": "secret plans",
    "token_count": 3,
    "title": None,
    "created_at_ms": 5,
}


def _read(store: Store, *records: Any) -> Any:
    reader = ImportReader(store.transfer)
    for record in records:
        reader.feed(record if isinstance(record, str) else json.dumps(record))
    return reader.finish()


def _error(store: Store, *records: Any) -> InvalidArgumentError:
    with pytest.raises(InvalidArgumentError) as caught:
        _read(store, *records)
    return caught.value


def test_a_valid_file_becomes_a_plan(store: Store) -> None:
    vector = base64.b64encode(b"\x00" * 16).decode()
    plan = _read(
        store,
        HEADER,
        {"type": "identity", "content": "n", "overrides": [{"id": "o1", "text": "t", "created_at_ms": 1}]},
        TURN,
        "",
        {
            "type": "embedding",
            "kind": "transcript",
            "row_id": 4,
            "agent_id": "a",
            "model": "m",
            "dimension": 4,
            "vector": vector,
        },
        {"type": "end", "counts": {"identity": 1, "transcript": 1, "embedding": 1}},
    )
    assert plan.counts() == {"identity": 1, "transcript": 1, "embedding": 1}
    assert plan.rows["transcript"][0]["content"] == "secret plans"
    assert plan.vectors[0].blob == b"\x00" * 16


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({**TURN, "chunk_index": "0"}, "IMPORT_INVALID_FIELD"),
        ({**TURN, "agent_id": "has space"}, "IMPORT_INVALID_FIELD"),
        ({**TURN, "surprise": 1}, "IMPORT_INVALID_FIELD"),
        ({k: v for k, v in TURN.items() if k != "content"}, "IMPORT_MISSING_FIELD"),
        ({**TURN, "id": -1}, "IMPORT_INVALID_FIELD"),
        (
            {
                "type": "pinned_fact",
                "agent_id": "a",
                "content": "c",
                "status": "zombie",
                "created_at_ms": 1,
                "updated_at_ms": 1,
            },
            "IMPORT_INVALID_FIELD",
        ),
        (
            {
                "type": "embedding",
                "kind": "transcript",
                "row_id": 1,
                "agent_id": "a",
                "model": "m",
                "dimension": 4,
                "vector": "AAAA",
            },
            "IMPORT_INVALID_FIELD",
        ),
        ({"type": "identity", "overrides": "nope"}, "IMPORT_INVALID_FIELD"),
        ({"type": "unheard-of"}, "IMPORT_UNKNOWN_RECORD_TYPE"),
        ("[1, 2]", "IMPORT_INVALID_RECORD"),
        ("{broken", "IMPORT_INVALID_JSON"),
    ],
)
def test_bad_records_are_rejected_by_line_without_content(store: Store, record: Any, reason: str) -> None:
    error = _error(store, HEADER, record)
    assert error.reason == reason
    assert error.field_violations[0].field == "line[2]"
    assert "secret plans" not in error.message


def test_header_end_and_counts_are_enforced(store: Store) -> None:
    assert _error(store, TURN).reason == "IMPORT_MISSING_HEADER"
    assert _error(store).reason == "IMPORT_MISSING_HEADER"
    assert (
        _error(store, {"type": "header", "format": FORMAT_NAME, "version": 2}).reason
        == "IMPORT_UNSUPPORTED_VERSION"
    )
    assert (
        _error(store, HEADER, TURN, {"type": "end", "counts": {"transcript": 2}}).reason == "IMPORT_TRUNCATED"
    )
    assert _error(store, HEADER, {"type": "end", "counts": {}}, TURN).reason == "IMPORT_INVALID_RECORD"
    many = _error(store, HEADER, *(["{bad"] * 30))
    assert len(many.field_violations) == 10  # capped


def test_storage_error_log_keeps_recent_redacted_failures() -> None:
    log = StorageErrorLog(capacity=3).attach()
    try:
        logging.getLogger("memoryd.storage.db").warning("write failed for carol@example.com")
        logging.getLogger("memoryd.writer").warning("a writer warning is not a storage error")
        logging.getLogger("memoryd.writer").error("writer store failed")
        logging.getLogger("memoryd.vectors").info("info is ignored")
        log.report("console.forget", "explicit")
        recent = log.recent()
        assert [e.operation for e in recent] == ["console.forget", "memoryd.writer", "memoryd.storage.db"]
        assert recent[2].message == "write failed for [redacted email]"
        for n in range(5):
            log.report("x", str(n))
        assert [e.message for e in log.recent()] == ["4", "3", "2"]
    finally:
        log.close()
    logging.getLogger("memoryd.storage").error("after close")
    assert [e.message for e in log.recent()] == ["4", "3", "2"]
