"""Retrieval-quality features of search: Porter stems (FTS5 tokenizer + Python re-scoring), the date prior, the
time-reference prior, the informative-row prior and the context window."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memoryd.domain import KIND_TRANSCRIPT, MemoryRow, ScoredRow
from memoryd.read.search import MemorySearch, SearchSettings
from memoryd.retrieval.dates import Window, date_windows
from memoryd.retrieval.hybrid import AgentCorpus, bm25_scores
from memoryd.retrieval.stem import stem
from memoryd.retrieval.terms import query_terms, term_counts, tokens
from memoryd.retrieval.turn_neighbours import with_context
from memoryd.storage import migrations
from memoryd.storage.db import Database
from memoryd.storage.store import open_store

# Porter's own examples plus everyday chat words, with digits and non-ASCII tokens (FTS5 stems their bytes).
_WORDS = """
caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned
falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer
conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness
hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical
hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement
adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate rate
cease controll roll generalizations running painting paintings painted studies studying adopting adoption agencies
counseling volunteering shelter homeless dancing dancers studio grand opening 1900s 3rd 2023 mp3 café noël naïve
überraschung straße tokyo yoga hiking hiked hikes camping campfire marshmallows pottery potteries beaches went goes
""".split()  # noqa: SIM905 - a word list reads better as text


def _fts5_stems(words: list[str]) -> dict[str, str]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO f (rowid, x) VALUES (?, ?)", list(enumerate(words, 1)))
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')")
    by_row = {int(doc): str(term) for term, doc in db.execute("SELECT term, doc FROM v")}
    return {word: by_row[i] for i, word in enumerate(words, 1)}


def test_stem_is_exactly_what_fts5_porter_indexes() -> None:
    words = sorted({token for word in _WORDS for token in tokens(word)})
    expected = _fts5_stems(words)
    assert {w: stem(w) for w in words} == expected
    assert stem("paintings") == stem("painted") == stem("painting") == "paint"


def test_query_terms_keep_one_surface_word_per_stem() -> None:
    # Surface words, not stems: FTS5 stems queries itself, and Porter is not idempotent ("agreed" → "agre" → "agr").
    assert query_terms("Paintings? She painted a sunset") == ["paintings", "sunset"]
    assert stem(stem("agreed")) != stem("agreed")
    assert term_counts("She paints paintings")["paint"] == 2


def test_bm25_counts_stems_of_query_words() -> None:
    docs = {1: "two paintings of sunsets", 2: "a lake at noon"}
    scores = bm25_scores(["painting", "sunset"], docs, AgentCorpus(rows=10, mean_chars=20.0), lambda _t: 1)
    assert scores[1] > 0 and scores[2] == 0


def _ms(year: int, month: int, day: int) -> int:
    return int(datetime(year, month, day, tzinfo=UTC).timestamp() * 1000)


def test_date_windows_read_absolute_dates_only() -> None:
    day = 86_400_000
    (july7,) = date_windows("What did Maria plan on 7 July, 2023?")
    assert july7 == Window(
        _ms(2023, 7, 7) - day, _ms(2023, 7, 8) + day
    )  # one day of time-zone slack each side
    assert date_windows("the week before August 3, 2023") == [
        Window(_ms(2023, 8, 3) - day, _ms(2023, 8, 4) + day)
    ]
    assert date_windows("on 2023-07-07") == [july7]
    assert date_windows("on the 7th of July 2023 and on Jul 7th, 2023") == [july7]  # duplicates dropped
    (may,) = date_windows("What did John host in May 2023?")
    assert may == Window(_ms(2023, 5, 1) - day, _ms(2023, 6, 1) + day)
    (december,) = date_windows("in December 2023")
    assert december.end_ms == _ms(2024, 1, 1) + day
    (february,) = date_windows("31 February, 2023")  # no such day: its month is still read
    assert february == Window(_ms(2023, 2, 1) - day, _ms(2023, 3, 1) + day)
    for text in ("I may go in 2023", "May I ask?", "on 2023-13-40", "last week", "in 2023", ""):
        assert date_windows(text) == [], text


def _search_store(tmp_path: Path) -> MemorySearch:
    store = open_store(tmp_path / "memory.sqlite")
    rows = [
        ("s1", 0, "Maria: We had dinner at the harbour, lovely evening", _ms(2023, 6, 2)),
        ("s1", 1, "John: Dinner at the harbour sounds lovely", _ms(2023, 6, 2)),
        ("s2", 0, "Maria: Off to eat with some friends from the gym tonight", _ms(2023, 7, 7)),
        ("s2", 1, "John: Enjoy the evening!", _ms(2023, 7, 7)),
        ("s3", 0, "Maria: Another dinner, this time pizza", _ms(2023, 8, 1)),
    ]
    with store.db.write():
        store.agents.ensure("maria")
        for conversation, chunk, text, at in rows:
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
                "created_at_ms) VALUES ('maria', ?, ?, 'user', ?, 10, ?)",
                (conversation, chunk, text, at),
            )
    return MemorySearch(store)


def test_date_prior_brings_up_a_turn_of_the_named_day(tmp_path: Path) -> None:
    search = _search_store(tmp_path)
    try:
        query = "What were Maria's dinner plans for the evening of 7 July, 2023?"
        july7 = _ms(2023, 7, 7)
        # The date prior alone (the informative-row prior would rank "Enjoy the evening!" below June's dinner).
        search.settings = SearchSettings(length_exponent=0.0)
        with_date = search.search("maria", KIND_TRANSCRIPT, query, 5).hits
        assert [h.row.occurred_at_ms for h in with_date[:2]] == [july7, july7]  # that day's turns come first
        assert "Maria: Off to eat with some friends from the gym tonight" in {h.row.text for h in with_date}
        search.settings = SearchSettings(date_weight=0.0, length_exponent=0.0)
        without = search.search("maria", KIND_TRANSCRIPT, query, 5).hits
        assert without[0].row.occurred_at_ms != july7  # on words alone, the June dinner wins
        # The date prior only reorders this agent's rows.
        assert search.search("someone-else", KIND_TRANSCRIPT, query, 5).hits == ()
    finally:
        search.close()


def test_stemmed_search_finds_other_word_forms(tmp_path: Path) -> None:
    search = _search_store(tmp_path)
    try:
        hits = search.search("maria", KIND_TRANSCRIPT, "dinners", 5).hits
        assert {h.row.text for h in hits} >= {"Maria: Another dinner, this time pizza"}
    finally:
        search.close()


def test_migration_4_reindexes_an_older_store_with_stems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "memory.sqlite"
    db = Database(path)
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:3])
    migrations.migrate(db)  # the store as memoryd wrote it before stems
    db.execute(
        "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
        "VALUES ('a', 'c', 0, 'user', 'She showed me her paintings', 1)"
    )
    match = "SELECT count(*) FROM fts_transcript WHERE fts_transcript MATCH ?"
    assert db.scalar(match, ('"painting"',)) == 0  # unicode61 alone: no stems
    db.close()
    monkeypatch.undo()
    store = open_store(path)
    assert store.schema_version == migrations.LATEST_VERSION >= 4
    sql = store.db.scalar("SELECT sql FROM sqlite_master WHERE name = 'fts_transcript'")
    assert "tokenize='porter unicode61 remove_diacritics 2'" in sql
    assert store.db.scalar(match, ('"painting"',)) == 1  # the old row was re-indexed
    with store.db.write():  # the sync triggers were re-created with the mirror
        store.db.execute(
            "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
            "VALUES ('a', 'c', 1, 'user', 'We went hiking', 2)"
        )
    assert store.db.scalar(match, ('"hikes"',)) == 1
    with store.db.write():
        store.db.execute("DELETE FROM transcript WHERE chunk_index = 1")
    assert store.db.scalar(match, ('"hikes"',)) == 0
    assert all(healthy for *_rest, healthy in store.fts.health())
    store.close()


def test_agent_keys_stay_exact_under_the_porter_tokenizer(tmp_path: Path) -> None:
    # The agent key ('a' + hex) is tokenized too; "~" is 0x7E, so a key can end in "e", which Porter strips. Stripped
    # keys have even length and real keys odd, so no two agents can share a key: each sees only its own rows.
    store = open_store(tmp_path / "memory.sqlite")
    with store.db.write():
        for agent in ("mary~", "mary", "mar"):
            store.agents.ensure(agent)
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
                "created_at_ms) VALUES (?, 'c', 0, 'user', ?, 5, 1)",
                (agent, f"heron sighted by {agent}"),
            )
    search = MemorySearch(store)
    try:
        for agent in ("mary~", "mary", "mar"):
            hits = search.search(agent, KIND_TRANSCRIPT, "heron", 10).hits
            assert [h.row.agent_id for h in hits] == [agent]
    finally:
        search.close()


def _transcript_store(tmp_path: Path, texts: list[str]) -> MemorySearch:
    """One agent "a", each text its own conversation (so neighbour and conversation priors stay neutral)."""
    store = open_store(tmp_path / "memory.sqlite")
    with store.db.write():
        store.agents.ensure("a")
        for n, text in enumerate(texts):
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
                "created_at_ms) VALUES ('a', ?, 0, 'user', ?, 10, ?)",
                (f"c{n}", text, _ms(2023, 5, 1 + n)),
            )
    return MemorySearch(store)


def test_time_reference_prior_answers_when_questions_with_turns_that_say_when(tmp_path: Path) -> None:
    undated = "Maria: volunteering at the shelter is rewarding"
    dated = "Maria: I joined the shelter as a volunteer last month"
    search = _transcript_store(tmp_path, [undated, dated, "John: the weather is nice"])
    try:
        question = "When did Maria start volunteering at the shelter?"
        search.settings = SearchSettings(time_reference_weight=0.0)
        assert search.search("a", KIND_TRANSCRIPT, question, 3).hits[0].row.text == undated  # words alone
        search.settings = SearchSettings()
        assert search.search("a", KIND_TRANSCRIPT, question, 3).hits[0].row.text == dated
        # Not a "when" question: the prior stays out of it.
        other = "Why did Maria start volunteering at the shelter?"
        assert search.search("a", KIND_TRANSCRIPT, other, 3).hits[0].row.text == undated
    finally:
        search.close()


def test_informative_prior_ranks_a_telling_turn_above_a_short_reaction(tmp_path: Path) -> None:
    reaction = "Ana: Pottery class!"
    telling = "Ana: I signed up for a pottery class yesterday, it is like therapy and lets me get creative"
    search = _transcript_store(tmp_path, [reaction, telling, "John: the weather is nice"])
    try:
        search.settings = SearchSettings(length_exponent=0.0)
        assert (
            search.search("a", KIND_TRANSCRIPT, "pottery class", 3).hits[0].row.text == reaction
        )  # BM25 length norm
        search.settings = SearchSettings()
        assert search.search("a", KIND_TRANSCRIPT, "pottery class", 3).hits[0].row.text == telling
    finally:
        search.close()


def _row(row_id: int, conversation: str = "c", chunk: int = 0) -> MemoryRow:
    return MemoryRow(
        kind=KIND_TRANSCRIPT,
        id=row_id,
        agent_id="a",
        text=f"t{row_id}",
        conversation_id=conversation,
        occurred_at_ms=0,
        role="user",
        salience=0.0,
        topics=(),
        chunk_index=chunk,
        entities=(),
    )


def test_context_window_goes_after_the_first_hits_without_duplicates() -> None:
    hits = [ScoredRow(_row(i), 1.0 - i / 100) for i in range(1, 8)]
    out = with_context(hits, [_row(3), _row(20), _row(6), _row(21)], after=4, limit=7)
    assert [h.row.id for h in out] == [
        1,
        2,
        3,
        4,
        20,
        6,
        21,
    ]  # 3 is already in the head; 6 moves up, 5 and 7 drop
    assert [h.score for h in out[4:]] == [hits[3].score] * 3  # the score of the hit they follow
    assert [h.row.id for h in with_context(hits, [_row(20)], after=8, limit=7)] == list(
        range(1, 8)
    )  # too few hits
    assert [h.row.id for h in with_context(hits, [_row(20)], after=0, limit=3)] == [1, 2, 3]  # off


def test_neighbours_are_the_nearest_turns_of_the_same_conversation_and_agent(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    try:
        ids: dict[tuple[str, str, int], int] = {}
        with store.db.write():
            for agent in ("a", "b"):
                store.agents.ensure(agent)
                for conversation in ("c1", "c2"):
                    for chunk in range(6):
                        ids[(agent, conversation, chunk)] = store.db.execute(
                            "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, "
                            "token_count, created_at_ms) VALUES (?, ?, ?, 'user', 'x', 1, 0)",
                            (agent, conversation, chunk),
                        ).lastrowid
        near = store.rows.neighbours("a", "c1", 2, 2)
        assert near == [ids[("a", "c1", c)] for c in (1, 3, 0, 4)]  # nearest first, earlier first on a tie
        assert store.rows.neighbours("a", "c1", 0, 1) == [
            ids[("a", "c1", 1)]
        ]  # the first turn has no turn before
        assert store.rows.neighbours("a", "c1", 2, 0) == []
    finally:
        store.close()


def test_search_shows_the_reply_next_to_the_best_hit_after_the_first_hits(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    mention = "Ana: Got sneakers at the outlet!"
    reply = "Bo: Love that purple color! For walking or running?"
    with store.db.write():
        for agent in ("a", "b"):
            store.agents.ensure(agent)
        turns = [("a", "c0", 0, "Ana: The dogs are playful"), ("a", "c0", 1, mention), ("a", "c0", 2, reply)]
        turns += [("a", f"c{n}", 0, f"Ana: I walked past the outlet on day {n}") for n in range(1, 14)]
        turns += [("b", "c0", 2, "Bo: another agent's turn in a conversation of the same id")]
        for agent, conversation, chunk, text in turns:
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
                "created_at_ms) VALUES (?, ?, ?, 'user', ?, 10, 0)",
                (agent, conversation, chunk, text),
            )
    search = MemorySearch(store)
    try:
        question = "What are the sneakers from the outlet for?"
        short = search.search("a", KIND_TRANSCRIPT, question, 10).hits
        assert short[0].row.text == mention and reply not in [h.row.text for h in short]  # no word in common
        long = [h.row for h in search.search("a", KIND_TRANSCRIPT, question, 14).hits]
        assert [r.text for r in long[:10]] == [h.row.text for h in short]  # the top is unchanged
        assert {r.text for r in long[10:12]} == {
            reply,
            "Ana: The dogs are playful",
        }  # then the best hit's context
        assert {r.agent_id for r in long} == {"a"} and len(long) == 14
        search.settings = SearchSettings(context_hits=0)
        assert reply not in [h.row.text for h in search.search("a", KIND_TRANSCRIPT, question, 14).hits]
    finally:
        search.close()
