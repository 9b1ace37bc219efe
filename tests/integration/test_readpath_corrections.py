"""A corrected value stays out of the block (issue 17 probes, kind correction), through a real memoryd: the older
transcript turn stating it is left out of recall, and quoted again only when the user asks for the literal turn."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import MemorydHandle
from tests.support.transcript_memoryd import memoryd_with_transcript

AGENT = "corrections-agent"
TURNS = [
    ("Falcon launches on September 22, put it in the plan", "Noted: Falcon launches on September 22."),
    ("Bad news, Falcon slipped: it launches on October 6 now", "Understood, the Falcon launch is October 6."),
    ("The Falcon budget is 240k for the launch", "Got it, 240k for Falcon."),
]


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with memoryd_with_transcript(tmp_path, AGENT, TURNS, index=False) as handle:
        yield handle


def _supersede(handle: MemorydHandle, old: str, new: str) -> None:
    """A correction as the writer records it: the old fact superseded by the new, active one."""
    now_ms = int(time.time() * 1000)
    conn = handle.app.store.db.pw.connection()
    with handle.app.store.db.write():
        sql = (
            "INSERT INTO pinned_facts (agent_id, content, salience, status, created_at_ms, updated_at_ms)"
            " VALUES (?, ?, 0.6, ?, ?, ?)"
        )
        new_id = conn.execute(sql, (AGENT, new, "active", now_ms, now_ms)).lastrowid
        old_id = conn.execute(sql, (AGENT, old, "superseded", now_ms, now_ms)).lastrowid
        conn.execute("UPDATE pinned_facts SET superseded_by = ? WHERE id = ?", (new_id, old_id))
    handle.app.indexer.run_once()
    handle.app.read_path.invalidate(AGENT)


def _block(handle: MemorydHandle, query: str) -> str:
    reply: mpb.AssembleContextResponse = handle.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=AGENT, query=query), timeout=10
    )
    return reply.block


def test_without_a_correction_every_turn_may_be_recalled(memoryd: MemorydHandle) -> None:
    block = _block(memoryd, "what exactly did I say about the Falcon launch?")
    assert "September 22" in block and "October 6" in block


def test_recall_after_a_correction_gives_the_new_value_only(memoryd: MemorydHandle) -> None:
    _supersede(memoryd, "Falcon launches on September 22", "Falcon launches on October 6")
    block = _block(memoryd, "When does Falcon launch?")
    assert "October 6" in block
    assert "September 22" not in block


def test_the_literal_turn_is_still_quoted_when_asked_for(memoryd: MemorydHandle) -> None:
    _supersede(memoryd, "Falcon launches on September 22", "Falcon launches on October 6")
    block = _block(memoryd, "what exactly did I say about the Falcon launch?")
    assert "September 22" in block


def test_other_values_are_untouched(memoryd: MemorydHandle) -> None:
    _supersede(memoryd, "Falcon launches on September 22", "Falcon launches on October 6")
    assert "240k" in _block(memoryd, "what exactly did I say about the Falcon budget?")
