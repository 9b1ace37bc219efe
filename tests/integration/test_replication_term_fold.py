"""Each replica folds the lexeme-count deltas in the background (memoryd/replication/term_fold.py, started with its
Replication): turns buffered through two replicas of one store leave no pending delta a few seconds later, and the
folded counts equal counting the rows."""

from __future__ import annotations

import time

from memoryd.domain import KIND_TRANSCRIPT, TurnInput, now_ms
from memoryd.storage import pg_term_stats
from memoryd.storage.pg_fts import PgFtsIndex
from memoryd.storage.store import Store
from memoryd.wiring.replication import Replication
from tests.support.replicas import pg, replicas  # noqa: F401  (fixtures)


def test_turns_written_through_two_replicas_are_folded_in_the_background(
    replicas: list[tuple[Store, Replication]],  # noqa: F811
) -> None:
    for i in range(40):
        store, _ = replicas[i % 2]
        store.turns.buffer(
            TurnInput("agent", f"c{i % 3}", f"the heron stood by pond {i}", "a heron reply", now_ms())
        )
    store, _ = replicas[0]
    pending = f"SELECT count(*) FROM {pg_term_stats.DELTAS}"
    assert store.db.scalar(pending) > 0
    for _, replication in replicas:
        replication.start()
    deadline = time.monotonic() + 20
    while store.db.scalar(pending) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert store.db.scalar(pending) == 0
    folded = sum(replication.folder.folded for _, replication in replicas if replication.folder is not None)
    assert folded > 0
    fts = PgFtsIndex(store.db.percent_queries(), "memory")  # type: ignore[attr-defined]
    terms = ["heron", "pond", "reply", "stood", "17"]
    assert fts.doc_frequencies(KIND_TRANSCRIPT, "agent", terms) == fts.counted_doc_frequencies(
        KIND_TRANSCRIPT, "agent", terms
    )
    assert fts.doc_frequencies(KIND_TRANSCRIPT, "agent", ["heron"]) == {"heron": 80}
