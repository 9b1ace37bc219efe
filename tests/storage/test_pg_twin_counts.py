"""bench/pg_twin.py's PostgreSQL copy of a SQLite store is what memoryd serves from: every lexeme-count delta its
copy appended is folded (memoryd's TermFolder folds them within 2 s; a copy nothing folds left every count pending,
and every reader of the counts unnested all of them: bench_pg_search's slow PostgreSQL cell, docs/postgres_search.md
eighth pass), and the folded counts equal counting the rows."""

from __future__ import annotations

from pathlib import Path

from bench.pg_twin import pg_twin
from memoryd.domain import KIND_TRANSCRIPT, TurnInput
from memoryd.storage import pg_term_stats
from memoryd.storage.pg_fts import PgFtsIndex
from memoryd.storage.store import open_store
from tests.support.pg_stores import fresh_schema, pg_url

_WORDS = [
    "heron",
    "pond",
    "herons",
    "stood",
    "étang",
    "bleu",
    "zebra",
    "grazed",
    "river",
    "rivers",
    "walked",
    "walking",
    "budget",
    "meeting",
]


def test_the_twin_has_no_pending_deltas_and_counts_equal_counting_the_rows(tmp_path: Path) -> None:
    src = open_store(tmp_path / "memory.sqlite")
    try:
        # More turns than one copy batch (1,000 rows), so the copy appends several delta rows per table.
        for i in range(2_300):
            words = " ".join(_WORDS[(i * 7 + j) % len(_WORDS)] for j in range(1 + i % 6))
            src.turns.buffer(TurnInput("agent-a" if i % 3 else "agent-b", f"c{i % 17}", words, "", 1_000 + i))
        schema = fresh_schema()
        twin = pg_twin(src, pg_url(), schema, "none", 4)
        try:
            db = twin.db.percent_queries()
            assert twin.rows["transcript"] == 2_300
            assert db.scalar(f"SELECT count(*) FROM {schema}.{pg_term_stats.DELTAS}") == 0
            assert int(db.scalar(f"SELECT count(*) FROM {schema}.{pg_term_stats.TABLE}") or 0) > 0
            fts = PgFtsIndex(db, schema)
            for agent in ("agent-a", "agent-b"):
                terms = list(_WORDS)
                assert fts.doc_frequencies(KIND_TRANSCRIPT, agent, terms) == fts.counted_doc_frequencies(
                    KIND_TRANSCRIPT, agent, terms
                )
                rows = db.scalar(f"SELECT count(*) FROM {schema}.transcript WHERE agent_id = %s", (agent,))
                assert fts.agent_text_stats(KIND_TRANSCRIPT, agent)[0] == rows
        finally:
            twin.store.close()
    finally:
        src.close()
