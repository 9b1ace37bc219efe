"""FTS5's ranking of a match of common terms only, kept per agent and topped up with the rows added since.

When every term of a query is common in an agent's transcript (candidate_terms keeps the rarest two, each in more
than 2% of the rows), FTS5 scores every row of the match to rank it: at 100k turns 9-18k rows, 8-15 ms, the slowest
tenth of a cache-miss AssembleContext (issue 17 item 4, fastctx8's trace). Such matches recur: the terms are common
because the agent's conversations keep using them, and the same one or two words make the match whatever else the
query says. The ranking is therefore kept (the terms, the limit and how the agent is restricted make the key) with
the table's highest row id when it was ranked; reused, only the rows added since are ranked (FTS5 seeks to them by
rowid) and merged in by score. Transcript rows are never edited and their ids only grow (AUTOINCREMENT), so with no
row added the answer is exactly the one FTS5 gives; with rows added, the kept rows keep the scores of the statistics
they were ranked under, as the keyword statistics keep their document frequencies (keyword_stats.py): a kept ranking
serves while the agent grew by less than GROWTH_TOLERANCE since, and any invalidation (deletes, re-ingests, an agent
changed) drops the agent's rankings. A turn deleted before its invalidation arrives (a consolidation pass calls it once
the pass is done) is still listed until then, and dropped where the search reads its candidates' rows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from memoryd.domain import KIND_TRANSCRIPT
from memoryd.storage.fts import FtsIndex

#: A kept ranking serves while the agent's rows grew by less than this fraction since it was ranked (as the
#: document frequencies, keyword_stats.GROWTH_TOLERANCE).
GROWTH_TOLERANCE = 0.02
#: Rankings kept at most (least recently used dropped first); a match of common terms only has few keys per agent.
MAX_KEPT = 256
#: The kinds whose rows are never edited and whose ids only grow: the rows added since a ranking are those above
#: the id it was ranked at.
APPEND_ONLY_KINDS = frozenset({KIND_TRANSCRIPT})

_Key = tuple[str, str, tuple[str, ...], int, bool]


@dataclass(frozen=True)
class _Kept:
    """One ranking: (row id, score) best first, the table's highest id before it was ranked, the agent's rows then."""

    hits: list[tuple[int, float]]
    last_id: int
    rows: int


class CommonMatches:
    """FtsIndex.search for a match of common terms only, from a kept ranking when one serves."""

    def __init__(self, fts: FtsIndex, max_kept: int = MAX_KEPT) -> None:
        self._fts = fts
        # PostgreSQL's index (pg_fts.py) ranks a large match from its strong rows itself, and other replicas' rows
        # arrive without this process's invalidations in order: kept only on SQLite.
        self._enabled = isinstance(fts, FtsIndex)
        self._max_kept = max_kept
        self._lock = threading.Lock()
        self._epoch = 0
        self._kept: OrderedDict[_Key, _Kept] = OrderedDict()

    def search(
        self,
        kind: str,
        agent_id: str,
        terms: Sequence[str],
        limit: int,
        rows_now: int,
        *,
        agent_in_match: bool = True,
    ) -> list[tuple[int, float]]:
        """The agent's best `limit` rows for `terms` (FtsIndex.search's answer), `rows_now` the agent's row count."""
        if kind not in APPEND_ONLY_KINDS or not self._enabled:
            return self._fts.search(kind, agent_id, terms, limit, agent_in_match=agent_in_match)
        key = (kind, agent_id, tuple(terms), limit, agent_in_match)
        with self._lock:
            kept = self._kept.get(key)
            epoch = self._epoch
            if kept is not None:
                self._kept.move_to_end(key)
        if kept is not None and kept.rows <= rows_now <= kept.rows * (1 + GROWTH_TOLERANCE) + 1:
            return self._topped_up(kind, agent_id, terms, limit, kept, agent_in_match)
        # The highest id is read first: a row added between the two statements is ranked again by the next top-up
        # (the merge keeps one copy), never missed.
        last_id = self._fts.last_id(kind)
        hits = self._fts.search(kind, agent_id, terms, limit, agent_in_match=agent_in_match)
        self._keep(key, _Kept(hits, last_id, rows_now), epoch)
        return list(hits)

    def _topped_up(
        self,
        kind: str,
        agent_id: str,
        terms: Sequence[str],
        limit: int,
        kept: _Kept,
        agent_in_match: bool,
    ) -> list[tuple[int, float]]:
        """The kept ranking with the rows added since it was ranked merged in by score (kept rows first on a tie,
        as FTS5 orders equal scores by rowid)."""
        newer = self._fts.search_after(
            kind, agent_id, terms, limit, kept.last_id, agent_in_match=agent_in_match
        )
        if not newer:
            return list(kept.hits)
        added = {row_id for row_id, _ in newer}
        merged = [hit for hit in kept.hits if hit[0] not in added] + newer
        return sorted(merged, key=lambda hit: -hit[1])[:limit]

    def _keep(self, key: _Key, kept: _Kept, epoch: int) -> None:
        with self._lock:
            if epoch != self._epoch:  # an invalidation meanwhile: this ranking may predate it
                return
            self._kept[key] = kept
            self._kept.move_to_end(key)
            while len(self._kept) > self._max_kept:
                self._kept.popitem(last=False)

    def invalidate(self, agent_id: str | None = None) -> None:
        """Forget the kept rankings of one agent (None: every agent's)."""
        with self._lock:
            self._epoch += 1
            for key in [k for k in self._kept if agent_id is None or k[1] == agent_id]:
                del self._kept[key]
