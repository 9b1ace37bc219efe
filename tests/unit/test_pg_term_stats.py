"""The per-agent lexeme counts PostgreSQL keeps for BM25's document frequencies (storage/pg_term_stats.py): every
kind of write keeps them equal to counting the rows, each agent's are its own, and a store created before them gets
them, filled from its rows, when it is opened. Also PgFtsIndex.search's shortcut (rows holding two of the query's
lexemes, or one lexeme more than once, ranked first) returns what ranking the whole match returns."""

from __future__ import annotations

import random

import pytest

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage import pg_fts
from memoryd.storage.pg_fts import PgFtsIndex
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.store import open_store
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)

_TERMS = ["heron", "herons", "pond", "ponds", "stood", "the", "chats", "bleu", "zebra", "étang", "etang"]


def _turn(db: PgSql, schema: str, agent: str, content: str, at: int = 1) -> int:
    return int(
        db.scalar(
            f'INSERT INTO "{schema}".transcript (agent_id, conversation_id, chunk_index, role, content, '
            f"created_at_ms) VALUES (%s, 'c', 0, 'user', %s, %s) RETURNING id",
            (agent, content, at),
        )
    )


def _same_as_counted(fts: PgFtsIndex, kind: str, agent: str) -> dict[str, int]:
    kept = fts.doc_frequencies(kind, agent, _TERMS)
    assert kept == fts.counted_doc_frequencies(kind, agent, _TERMS)
    return kept


def test_inserts_updates_deletes_and_truncate_keep_the_counts(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    fts = PgFtsIndex(pg, schema)
    first = _turn(pg, schema, "a", "The heron stood in the pond")
    _turn(pg, schema, "a", "Herons and ponds, the chats bleu")
    _turn(pg, schema, "b", "A heron, another agent's heron")
    pg.executemany(
        f'INSERT INTO "{schema}".transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) '
        "VALUES (%s, 'c', %s, 'user', %s, 1)",
        [("a", i, f"L'étang numéro {i} du héron") for i in range(3)],
    )
    kept = _same_as_counted(fts, KIND_TRANSCRIPT, "a")
    assert kept["heron"] == 5 and kept["zebra"] == 0
    assert _same_as_counted(fts, KIND_TRANSCRIPT, "b")["heron"] == 1

    pg.execute(f'UPDATE "{schema}".transcript SET content = %s WHERE id = %s', ("A zebra grazed", first))
    pg.execute(
        f'UPDATE "{schema}".transcript SET token_count = 7 WHERE agent_id = %s', ("a",)
    )  # text unchanged
    kept = _same_as_counted(fts, KIND_TRANSCRIPT, "a")
    assert kept["zebra"] == 1 and kept["heron"] == 4
    pg.execute(f'UPDATE "{schema}".transcript SET agent_id = %s WHERE id = %s', ("b", first))
    assert _same_as_counted(fts, KIND_TRANSCRIPT, "a")["zebra"] == 0
    assert _same_as_counted(fts, KIND_TRANSCRIPT, "b")["zebra"] == 1

    pg.execute(f'DELETE FROM "{schema}".transcript WHERE agent_id = %s AND content LIKE %s', ("a", "%étang%"))
    assert _same_as_counted(fts, KIND_TRANSCRIPT, "a")["heron"] == 1
    pg.execute(f'TRUNCATE "{schema}".transcript')
    assert fts.doc_frequencies(KIND_TRANSCRIPT, "a", _TERMS) == dict.fromkeys(_TERMS, 0)
    assert not pg.scalar(f'SELECT count(*) FROM "{schema}".search_terms WHERE source = %s', ("transcript",))


def test_facts_and_episodes_are_counted_per_table(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    fts = PgFtsIndex(pg, schema)
    pg.execute(
        f'INSERT INTO "{schema}".pinned_facts (agent_id, content, created_at_ms, updated_at_ms) '
        "VALUES ('a', 'The heron likes the pond', 1, 1)"
    )
    pg.execute(
        f'INSERT INTO "{schema}".episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, '
        "conversation_at_ms, created_at_ms) VALUES ('a', 'c', 'A walk by the ponds', 'herons', 'Zebra', 1, 1)"
    )
    assert _same_as_counted(fts, KIND_PINNED, "a")["pond"] == 1
    episodes = _same_as_counted(fts, KIND_EPISODE, "a")
    assert episodes["heron"] == 1 and episodes["zebra"] == 1
    assert _same_as_counted(fts, KIND_TRANSCRIPT, "a")["heron"] == 0


def test_a_store_without_the_counts_and_repeats_index_gets_them_when_opened(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    fts = PgFtsIndex(pg, schema)
    for text in ("The heron stood in the pond", "Two herons", "Ponds everywhere"):
        _turn(pg, schema, "a", text)
    pg.execute(f'DROP TABLE "{schema}".search_terms CASCADE')
    for table in ("transcript", "episodes", "pinned_facts"):
        for suffix in ("ai", "ad", "au", "at"):
            pg.execute(f'DROP TRIGGER {table}_terms_{suffix} ON "{schema}".{table}')
    for table in ("transcript", "pinned_facts"):
        pg.execute(f'DROP INDEX "{schema}".{table}_repeats_gin')
    _turn(pg, schema, "a", "A heron written while the counts did not exist")
    store = open_store(pg.dsn, schema=schema)  # the upgrade
    store.close()
    for table in ("transcript", "pinned_facts"):
        assert pg.scalar("SELECT to_regclass(%s) IS NOT NULL", (f'"{schema}".{table}_repeats_gin',))
    assert _same_as_counted(fts, KIND_TRANSCRIPT, "a")["heron"] == 3
    _turn(pg, schema, "a", "And one more heron")  # the triggers are back
    assert _same_as_counted(fts, KIND_TRANSCRIPT, "a")["heron"] == 4


def _ranked_everything(db: PgSql, schema: str, fts: PgFtsIndex, terms: list[str]) -> list[tuple[int, float]]:
    """Every match ranked by ts_rank, as the search ranked before rows with two lexemes were taken first."""
    sql = (
        f"SELECT s.id, ts_rank('{{0, 0, 0.6667, 1.0}}', s.search_vector, q.q) AS score "
        f'FROM "{schema}".transcript AS s, (SELECT {fts.term_query(len(terms))} AS q) AS q '
        f"WHERE s.agent_id = %s AND s.search_vector @@ q.q ORDER BY score DESC, s.id DESC"
    )
    return [(int(i), float(score)) for i, score in db.query(sql, (*terms, "a"))]


@pytest.mark.parametrize("large_match", [1000, 0])
def test_a_large_match_ranked_from_its_strong_rows_ranks_as_the_whole_match(
    pg: PgSql,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    large_match: int,
) -> None:
    monkeypatch.setattr(pg_fts, "LARGE_MATCH", large_match)  # 0: every match counts as large here
    schema = new_search_schema(pg)
    fts = PgFtsIndex(pg, schema)
    texts = [f"heron heron heron heron heron number {i}" for i in range(6)]  # one lexeme, many times
    texts += [f"heron heron, number {i}" for i in range(6)]  # one lexeme twice
    texts += [f"the pond {i}" for i in range(12)]  # one lexeme once
    texts += [f"a heron at the pond, take {i}" for i in range(8)]  # both lexemes once
    texts += [f"herons by the ponds and the heron's pond, {i}" for i in range(4)]
    for text in random_order(texts):
        _turn(pg, schema, "a", text)
    _turn(pg, schema, "b", "heron pond heron pond")  # another agent's row never comes back
    for terms in (["heron", "pond"], ["heron"], ["pond"], ["ponds", "zebra"]):
        every = _ranked_everything(pg, schema, fts, terms)
        for limit in (5, 12, 13, 20, 40):
            found = fts.search(KIND_TRANSCRIPT, "a", terms, limit)
            assert [i for i, _ in found] == [i for i, _ in every[:limit]], (terms, limit)
            assert [round(s, 6) for _, s in found] == [round(s, 6) for _, s in every[:limit]]


def random_order(texts: list[str]) -> list[str]:
    """The texts in a fixed shuffled order (ids then do not follow the groups)."""
    shuffled = list(texts)
    random.Random(21).shuffle(shuffled)
    return shuffled


@pytest.mark.parametrize("newest_match", [True, False])
def test_the_newest_weak_rows_from_a_window_of_ids_are_those_of_the_whole_match(
    pg: PgSql,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    newest_match: bool,
) -> None:
    """A large match's newest rows come from a window of the newest ids (pg_fts.WEAK_WINDOW) when it holds enough of
    them, and from the older rows as well when it does not (the newest turns do not match): the same rows either
    way, as ranking the whole match, and as reading the whole match for them (weak_window None)."""
    monkeypatch.setattr(pg_fts, "LARGE_MATCH", 0)  # every match counts as large here
    schema = new_search_schema(pg)
    fts = PgFtsIndex(pg, schema)
    whole = PgFtsIndex(pg, schema, weak_window=None)
    texts = [f"the pond {i}" for i in range(150)] + [f"a heron by the pond {i}" for i in range(5)]
    later = [f"a zebra grazed {i}" for i in range(120)]
    for i, text in enumerate(
        random_order(texts) + later if not newest_match else later + random_order(texts)
    ):
        _turn(pg, schema, "a" if i % 7 else "b", text)
    for terms in (["pond"], ["heron", "pond"]):
        every = _ranked_everything(pg, schema, fts, terms)
        for limit in (5, 20, 60):
            found = fts.search(KIND_TRANSCRIPT, "a", terms, limit)
            assert found == whole.search(KIND_TRANSCRIPT, "a", terms, limit)
            assert [i for i, _ in found] == [i for i, _ in every[:limit]], (terms, limit)
