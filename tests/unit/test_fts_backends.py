"""FtsIndex (SQLite FTS5) and PgFtsIndex (PostgreSQL tsvector + GIN) keep one contract, tested on both: only the
agent's rows, higher scores better, accent folding and stemming, the writer's updates and deletes followed, the LIKE
last resort, per-agent statistics; then what only PostgreSQL has (five languages, plain-text tsqueries, the DDL)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.retrieval.terms import query_terms
from memoryd.storage.fts import MIRRORS, FtsIndex
from memoryd.storage.pg_fts import PgFtsIndex
from memoryd.storage.pg_search_schema import search_ddl
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.store import open_store
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)

_REQUIRED: dict[str, dict[str, object]] = {
    "transcript": {"conversation_id": "c", "chunk_index": 0, "role": "user", "created_at_ms": 1},
    "episodes": {"conversation_id": "c", "conversation_at_ms": 1, "created_at_ms": 1},
    "pinned_facts": {"created_at_ms": 1, "updated_at_ms": 1},
}


@dataclass
class Backend:
    name: str
    fts: FtsIndex | PgFtsIndex
    #: (table, columns) → new row id
    insert: Callable[[str, dict[str, object]], int]
    #: (sql with {t} for the table and ? for parameters, table, params)
    run: Callable[[str, str, tuple[Any, ...]], None]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        store = open_store(tmp_path / "memory.sqlite")

        def insert(table: str, columns: dict[str, object]) -> int:
            values = {**_REQUIRED[table], **columns}
            sql = f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})"
            with store.db.write():
                return int(store.db.execute(sql, tuple(values.values())).lastrowid or 0)

        def run(sql: str, table: str, params: tuple[Any, ...]) -> None:
            with store.db.write():
                store.db.execute(sql.format(t=table), params)

        yield Backend("sqlite", store.fts, insert, run)
        store.close()
        return
    db: PgSql = request.getfixturevalue("pg")
    schema = new_search_schema(db)

    def pg_insert(table: str, columns: dict[str, object]) -> int:
        values = {**_REQUIRED[table], **columns}
        sql = (
            f'INSERT INTO "{schema}".{table} ({", ".join(values)}) VALUES ({", ".join(["%s"] * len(values))}) '
            f"RETURNING id"
        )
        return int(db.scalar(sql, tuple(values.values())))

    def pg_run(sql: str, table: str, params: tuple[Any, ...]) -> None:
        db.execute(sql.format(t=f'"{schema}".{table}').replace("?", "%s"), params)

    yield Backend("postgres", PgFtsIndex(db, schema), pg_insert, pg_run)


def _ids(hits: list[tuple[int, float]]) -> list[int]:
    return [row_id for row_id, _ in hits]


def test_only_the_agents_own_rows_are_found_and_counted(backend: Backend) -> None:
    mine = backend.insert("transcript", {"agent_id": "a", "content": "The heron stood in the pond"})
    theirs = backend.insert("transcript", {"agent_id": "b", "content": "The heron stood in the pond"})
    backend.insert("transcript", {"agent_id": "b", "content": "A heron again, and another heron"})
    assert _ids(backend.fts.search(KIND_TRANSCRIPT, "a", ["heron"], 10)) == [mine]
    assert _ids(backend.fts.search(KIND_TRANSCRIPT, "a", ["heron"], 10, agent_in_match=False)) == [mine]
    assert theirs in _ids(backend.fts.search(KIND_TRANSCRIPT, "b", ["heron"], 10))
    assert backend.fts.doc_frequencies(KIND_TRANSCRIPT, "a", ["heron", "pond", "egret"]) == {
        "heron": 1,
        "pond": 1,
        "egret": 0,
    }
    assert backend.fts.doc_frequency(KIND_TRANSCRIPT, "b", "heron") == 2
    assert backend.fts.agent_text_stats(KIND_TRANSCRIPT, "a") == (
        1,
        float(len("The heron stood in the pond")),
    )
    assert backend.fts.table_rows(KIND_TRANSCRIPT) == 3
    assert backend.fts.search(KIND_TRANSCRIPT, "nobody", ["heron"], 10) == []
    for kind in (KIND_TRANSCRIPT, KIND_EPISODE):
        assert backend.fts.search(kind, "a", ["heron"], 0) == []  # LIMIT 0 (a literal in PostgreSQL's text)


def test_a_row_matching_more_of_the_query_scores_higher(backend: Backend) -> None:
    one = backend.insert(
        "transcript", {"agent_id": "a", "content": "we walked to the lighthouse on sunday morning"}
    )
    both = backend.insert(
        "transcript", {"agent_id": "a", "content": "the lighthouse keeper sang a sea shanty"}
    )
    hits = backend.fts.search(KIND_TRANSCRIPT, "a", ["lighthouse", "shanty"], 10)
    assert _ids(hits) == [both, one]
    assert hits[0][1] > hits[1][1]


def test_accents_are_folded_and_words_stemmed(backend: Backend) -> None:
    row = backend.insert(
        "transcript", {"agent_id": "a", "content": "Crème brûlée at the Café Noël, we were running"}
    )
    assert _ids(backend.fts.search(KIND_TRANSCRIPT, "a", query_terms("creme brulee noel"), 10)) == [row]
    assert _ids(backend.fts.search(KIND_TRANSCRIPT, "a", query_terms("CAFÉ"), 10)) == [row]
    assert _ids(backend.fts.search(KIND_TRANSCRIPT, "a", ["runs"], 10)) == [row]


def test_inactive_rows_are_not_found_but_still_counted(backend: Backend) -> None:
    active = backend.insert("pinned_facts", {"agent_id": "a", "content": "Likes green tea"})
    gone = backend.insert(
        "pinned_facts", {"agent_id": "a", "content": "Likes black tea", "status": "superseded"}
    )
    assert _ids(backend.fts.search(KIND_PINNED, "a", ["tea"], 10)) == [active]
    assert gone not in _ids(backend.fts.search(KIND_PINNED, "a", ["black"], 10))
    assert backend.fts.doc_frequency(KIND_PINNED, "a", "tea") == 2
    assert backend.fts.agent_text_stats(KIND_PINNED, "a")[0] == 1


def test_updates_and_deletes_of_the_source_rows_are_followed(backend: Backend) -> None:
    row = backend.insert("transcript", {"agent_id": "a", "content": "The heron stood in the pond"})
    backend.run("UPDATE {t} SET content = 'The egret stood in the pond' WHERE id = ?", "transcript", (row,))
    assert not backend.fts.search(KIND_TRANSCRIPT, "a", ["heron"], 10)
    assert _ids(backend.fts.search(KIND_TRANSCRIPT, "a", ["egret"], 10)) == [row]
    backend.run("DELETE FROM {t} WHERE id = ?", "transcript", (row,))
    assert not backend.fts.search(KIND_TRANSCRIPT, "a", ["egret"], 10)
    assert all(healthy for *_rest, healthy in backend.fts.health())
    backend.fts.rebuild()
    assert all(healthy for *_rest, healthy in backend.fts.health())


def test_episode_topics_weigh_more_than_the_summary(backend: Backend) -> None:
    in_summary = backend.insert(
        "episodes",
        {"agent_id": "a", "summary": "We talked about pastry for a while", "topics_csv": "weather"},
    )
    in_topics = backend.insert(
        "episodes", {"agent_id": "a", "summary": "We talked about things for a while", "topics_csv": "pastry"}
    )
    assert _ids(backend.fts.search(KIND_EPISODE, "a", ["pastry"], 10)) == [in_topics, in_summary]


def test_like_is_a_literal_case_insensitive_substring_of_the_agents_rows(backend: Backend) -> None:
    first = backend.insert(
        "transcript", {"agent_id": "a", "content": "100% sure: snake_case ?!", "created_at_ms": 1}
    )
    backend.insert("transcript", {"agent_id": "a", "content": "1000 sure snakeXcase", "created_at_ms": 2})
    backend.insert("transcript", {"agent_id": "b", "content": "100% SURE: snake_case ?!", "created_at_ms": 3})
    assert _ids(backend.fts.like(KIND_TRANSCRIPT, "a", "100% SURE", 10)) == [first]
    assert _ids(backend.fts.like(KIND_TRANSCRIPT, "a", "snake_case", 10)) == [first]
    assert backend.fts.like(KIND_TRANSCRIPT, "a", "?!", 10) == [(first, 1.0)]


def test_the_pre_join_ranking_gives_the_joined_ranking_or_defers_to_it(tmp_path: Path) -> None:
    """SQLite: search(agent_in_match=False) first ranks only FTS5's best OVERFETCH * limit matches of the whole
    table (_prefiltered) and gives exactly the joined statement's rows and scores, best first, for the agent that holds
    most rows and for the one that holds few, for every limit; when the best matches hold too few of the agent's rows
    to prove its best ones, it defers (None) to the joined statement. Another agent's row never comes back."""
    store = open_store(tmp_path / "memory.sqlite")
    fts: FtsIndex = store.fts
    words = ["heron", "pond", "reed", "egret", "marsh"]
    with store.db.write():
        for i in range(90):
            text = " ".join(words[j % len(words)] for j in range(i % 7 + 1)) + " and filler" * (i % 5)
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, created_at_ms, content) "
                "VALUES (?, 'c', ?, 'user', 1, ?)",
                ("b" if i % 9 == 0 else "a", i, text),
            )
    joined_sql = (
        "SELECT f.rowid, f.rank FROM fts_transcript AS f JOIN transcript AS s ON s.id = f.rowid "
        "WHERE fts_transcript MATCH ? AND f.rank MATCH 'bm25(1, 0)' AND +s.agent_id = ? ORDER BY f.rank LIMIT ?"
    )
    for agent in ("a", "b"):
        for terms in (["heron"], ["pond", "egret"], ["marsh", "reed", "heron"], ["absent"]):
            for limit in (1, 5, 100):
                expression = " OR ".join(f'"{t}"' for t in terms)
                joined = [
                    (int(r), -float(s))
                    for r, s in store.db.query(joined_sql, (f"content : ({expression})", agent, limit))
                ]
                assert fts.search(KIND_TRANSCRIPT, agent, terms, limit, agent_in_match=False) == joined
    transcript = MIRRORS[KIND_TRANSCRIPT]
    proven = fts._prefiltered(transcript, "a", ["heron"], 5)
    assert proven is not None and len(proven) == 5
    assert fts._prefiltered(transcript, "a", ["absent"], 5) == []
    # b holds 10 of 90 rows: its best 3 are not proven by the table's best 12 matches.
    assert fts._prefiltered(transcript, "b", ["heron"], 3) is None
    b_rows = {int(r[0]) for r in store.db.query("SELECT id FROM transcript WHERE agent_id = 'b'")}
    assert not b_rows & set(_ids(fts.search(KIND_TRANSCRIPT, "a", ["heron"], 100, agent_in_match=False)))
    store.close()


def test_ranking_after_an_id_gives_the_newer_rows_as_the_whole_ranking_scores_them(tmp_path: Path) -> None:
    """SQLite: search_after() ranks only the agent's rows above an id, with the scores and order the whole ranking
    gives them (both ways of restricting to the agent); last_id() is the table's highest id."""
    store = open_store(tmp_path / "memory.sqlite")
    fts: FtsIndex = store.fts
    assert fts.last_id(KIND_TRANSCRIPT) == 0
    ids = []
    with store.db.write():
        for i in range(30):
            text = "heron " * (i % 3 + 1) + "and filler " * (i % 4)
            cursor = store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, created_at_ms, content) "
                "VALUES (?, 'c', ?, 'user', 1, ?)",
                ("b" if i % 5 == 0 else "a", i, text),
            )
            ids.append(int(cursor.lastrowid or 0))
    assert fts.last_id(KIND_TRANSCRIPT) == ids[-1]
    after = ids[19]
    for in_match in (True, False):
        whole = fts.search(KIND_TRANSCRIPT, "a", ["heron"], 100, agent_in_match=in_match)
        newer = fts.search_after(KIND_TRANSCRIPT, "a", ["heron"], 100, after, agent_in_match=in_match)
        assert newer and sorted(newer) == sorted(hit for hit in whole if hit[0] > after)
        assert [s for _, s in newer] == sorted((s for _, s in newer), reverse=True)
        assert (
            fts.search_after(KIND_TRANSCRIPT, "a", ["heron"], 2, after, agent_in_match=in_match) == newer[:2]
        )
    assert fts.search_after(KIND_TRANSCRIPT, "a", ["heron"], 5, ids[-1]) == []
    store.close()


def test_rows_in_five_languages_are_stemmed_in_their_own(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    fts = PgFtsIndex(pg, schema)
    texts = {
        "fr": "Les élèves mangeaient des pommes dans la cour de l'école",
        "es": "Los niños comían manzanas en el patio de la escuela",
        "de": "Die Kinder aßen die Äpfel auf dem Hof der Schule",
        "pt": "As crianças comiam maçãs no pátio da escola",
        "en": "The children were eating apples in the school yard",
    }
    ids = {}
    for language, text in texts.items():
        ids[language] = int(
            pg.scalar(
                f'INSERT INTO "{schema}".transcript (agent_id, content, conversation_id, chunk_index, role, '
                "created_at_ms) VALUES (%s, %s, 'c', 0, 'user', 1) RETURNING id",
                ("a", text),
            )
        )
        assert pg.scalar(f'SELECT "{schema}".search_language(%s)', (text,)) == language
    # Inflected forms that differ from the stored ones: only the language's own stemmer brings them together.
    queries = {
        "fr": "élève pomme",
        "es": "manzana escuelas",
        "de": "Schulen",
        "pt": "maçã escolas",
        "en": "apple",
    }
    for language, query in queries.items():
        assert ids[language] in _ids(fts.search(KIND_TRANSCRIPT, "a", query_terms(query), 10)), language


def test_tsquery_syntax_in_terms_is_read_as_plain_words(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    fts = PgFtsIndex(pg, schema)
    row = int(
        pg.scalar(
            f'INSERT INTO "{schema}".transcript (agent_id, content, conversation_id, chunk_index, role, created_at_ms) '
            "VALUES ('a', 'heron and egret', 'c', 0, 'user', 1) RETURNING id"
        )
    )
    pond = int(
        pg.scalar(
            f'INSERT INTO "{schema}".transcript (agent_id, content, conversation_id, chunk_index, role, created_at_ms) '
            "VALUES ('a', 'pond', 'c', 0, 'user', 1) RETURNING id"
        )
    )
    # A term holding tsquery syntax finds what its words find (any of them), nothing else, and never fails.
    for hostile in ("heron & !egret", "egret:*", "heron <-> egret | pond", "')) OR 1=1 --", "!!!", "'\\"):
        words = query_terms(hostile)
        expected = sorted(_ids(fts.search(KIND_TRANSCRIPT, "a", words, 10))) if words else []
        assert sorted(_ids(fts.search(KIND_TRANSCRIPT, "a", [hostile], 10))) == expected, hostile
    assert _ids(fts.search(KIND_TRANSCRIPT, "a", ["!pond"], 10)) == [pond]  # "!" is no negation
    assert _ids(fts.search(KIND_TRANSCRIPT, "a", ["heron & !egret"], 10)) == [row]  # nor "&" a conjunction
    assert fts.doc_frequencies(KIND_TRANSCRIPT, "a", ["egret:*", "!!!"]) == {"egret:*": 1, "!!!": 0}


def test_search_ddl_runs_twice_and_refuses_unsafe_schema_names(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    for statement in search_ddl(schema):
        pg.execute(statement)
    with pytest.raises(ValueError, match="schema names"):
        search_ddl('x"; DROP TABLE transcript; --')
    with pytest.raises(ValueError, match="schema names"):
        search_ddl("Upper")
