"""One distilled session committed straight through a writer store (an episode, its facts, its identity facts and
the facts it replaced), for storage tests of supersession that need no model and no memoryd."""

from __future__ import annotations

from memoryd.storage.distillation import SqliteWriterStore
from memoryd.write.store_protocol import (
    DistillationWrite,
    LogEntry,
    NewEpisode,
    NewFact,
    NewIdentityFact,
    ReplacedFact,
)


def commit_session(
    writer: SqliteWriterStore,
    agent: str,
    conversation: str,
    facts: tuple[NewFact, ...] = (),
    identity: tuple[NewIdentityFact, ...] = (),
    kept: tuple[tuple[ReplacedFact, str, bool], ...] = (),
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Commit one session's distillation; returns the new pinned and identity fact ids."""
    episode = NewEpisode(agent, conversation, f"summary of {conversation}", (), (), (), (), 0.5, 10, "m", 0)
    result = writer.commit_distillation(
        DistillationWrite(episode, (), facts, (), identity, (), LogEntry(agent, "success", "t"), kept)
    )
    return result.fact_ids, result.identity_fact_ids
