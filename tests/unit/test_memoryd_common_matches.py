"""Kept FTS5 rankings of common-term matches (read/common_matches.py): served again without ranking the match again,
topped up with the rows added since, dropped when the agent grew past the tolerance or changed; only for the
transcript on SQLite, and only for a query whose terms are all common."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memoryd.domain import KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.common_matches import GROWTH_TOLERANCE, CommonMatches
from memoryd.read.search import MemorySearch, SearchSettings
from memoryd.storage.fts import FtsIndex
from memoryd.storage.store import Store, open_store


class CountingFts(FtsIndex):
    """An FtsIndex over the real store that counts full rankings."""

    def __init__(self, store: Store) -> None:
        super().__init__(store.db)
        self.ranked = 0

    def search(
        self, kind: str, agent_id: str, terms: Sequence[str], limit: int, *, agent_in_match: bool = True
    ) -> list[tuple[int, float]]:
        self.ranked += 1
        return super().search(kind, agent_id, terms, limit, agent_in_match=agent_in_match)


def _add(store: Store, agent: str, texts: Sequence[str], table: str = "transcript") -> list[int]:
    ids = []
    with store.db.write():
        for i, text in enumerate(texts):
            if table == "transcript":
                sql = (
                    "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
                    "VALUES (?, 'c', ?, 'user', ?, 1)"
                )
                ids.append(int(store.db.execute(sql, (agent, i, text)).lastrowid or 0))
            else:
                sql = "INSERT INTO pinned_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, ?, 1, 1)"
                ids.append(int(store.db.execute(sql, (agent, text)).lastrowid or 0))
    return ids


def _meetings(n: int) -> list[str]:
    return [f"the meeting {'about budgets ' * (i % 5)}went on" for i in range(n)]


def test_a_kept_ranking_is_served_again_without_ranking_the_match(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    _add(store, "a", _meetings(40))
    fts = CountingFts(store)
    kept = CommonMatches(fts)
    first = kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 40)
    again = kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 40)
    assert first == again == store.fts.search(KIND_TRANSCRIPT, "a", ["meeting"], 10)
    assert fts.ranked == 1
    # Another limit, other terms or the other way of restricting to the agent are other rankings.
    kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 5, 40)
    kept.search(KIND_TRANSCRIPT, "a", ["meeting", "budgets"], 10, 40)
    kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 40, agent_in_match=False)
    assert fts.ranked == 4
    store.close()


def test_rows_added_since_are_ranked_and_merged_in(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    _add(store, "a", _meetings(200))
    fts = CountingFts(store)
    kept = CommonMatches(fts)
    kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 200)
    # Shorter than every kept row: it ranks first. Another agent's new row is never served.
    (short,) = _add(store, "a", ["meeting"])
    _add(store, "b", ["meeting"])
    (long,) = _add(store, "a", ["the meeting " + "and a very long digression " * 20])
    topped = kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 202)
    assert fts.ranked == 1
    assert topped[0][0] == short and long not in [row_id for row_id, _ in topped]
    # The same rows in the same order as ranking again (the kept rows' scores are those of the statistics they were
    # ranked under: an IDF three rows older).
    fresh = store.fts.search(KIND_TRANSCRIPT, "a", ["meeting"], 10)
    assert [row_id for row_id, _ in topped] == [row_id for row_id, _ in fresh]
    store.close()


def test_an_agent_grown_past_the_tolerance_or_changed_is_ranked_again(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    ids = _add(store, "a", _meetings(100))
    fts = CountingFts(store)
    kept = CommonMatches(fts)
    kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 100)
    kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, int(100 * (1 + GROWTH_TOLERANCE)))
    assert fts.ranked == 1
    kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, int(100 * (1 + 2 * GROWTH_TOLERANCE)) + 2)
    assert fts.ranked == 2
    kept.search(
        KIND_TRANSCRIPT, "a", ["meeting"], 10, 99
    )  # fewer rows than when ranked: something was deleted
    assert fts.ranked == 3
    best = kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 99)
    with store.db.write():
        store.db.execute("DELETE FROM transcript WHERE id = ?", (best[0][0],))
    kept.invalidate("b")  # another agent's change keeps this agent's rankings
    assert kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 99) == best
    kept.invalidate("a")
    after = kept.search(KIND_TRANSCRIPT, "a", ["meeting"], 10, 99)
    assert fts.ranked == 4 and best[0][0] not in [row_id for row_id, _ in after] and ids
    store.close()


def test_other_kinds_are_ranked_on_every_call(tmp_path: Path) -> None:
    # Pinned facts change status (superseded, disabled) without new ids: never kept.
    store = open_store(tmp_path / "memory.sqlite")
    _add(store, "a", _meetings(20), table="pinned_facts")
    fts = CountingFts(store)
    kept = CommonMatches(fts)
    assert kept.search(KIND_PINNED, "a", ["meeting"], 5, 20) == kept.search(
        KIND_PINNED, "a", ["meeting"], 5, 20
    )
    assert fts.ranked == 2
    store.close()


def test_the_search_keeps_only_matches_of_common_terms(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    _add(store, "a", [*_meetings(120), "the meeting about the heron"])
    search = MemorySearch(store, settings=SearchSettings(use_vectors=False))
    kept = search.keyword_stats.common_matches
    try:
        # 'meeting' is in every row (above the floor of 50): common only, kept.
        common = search.search("a", KIND_TRANSCRIPT, "meeting", 5).hits
        assert len(kept._kept) == 1
        # 'heron' is rare: FTS5 is asked for it alone, as before, and nothing more is kept.
        rare = search.search("a", KIND_TRANSCRIPT, "heron meeting", 5).hits
        assert len(kept._kept) == 1
        assert rare[0].row.text == "the meeting about the heron"
        assert len(common) == 5
        search.keyword_stats.invalidate("a")
        assert len(kept._kept) == 0
    finally:
        search.close()
        store.close()
