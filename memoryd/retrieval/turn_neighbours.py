"""Context window for transcript hits: the turns just before and after the best hit follow the first hits.

Why: in a chat, the turn that matches a question is often not the one that answers it. "What was the poetry
reading about?" matches the turn that asks about it; the answer is the reply after it. "Love that purple color!
For walking or running?" answers "what are the new shoes for?" only next to the turn that mentions the shoes.
Such a neighbour shares no word with the query and its vector is far from it, so neither side of the hybrid
search ranks it (on the LoCoMo dev split 7 of the 19 single-hop misses sat within two turns of the top hit, 4
of them outside the best 200).

The window goes after the first `after` hits, so the top of the ranking (recall@5, @10) is unchanged and a caller
asking for fewer hits never sees it; a caller that packs a token budget from a longer list gets the exchange around
the best match before the long tail of weak matches. With the best hit's two turns either side, after the tenth
hit, recall within 800 tokens on the dev split rose from 84.1% to 85.5% (bench/bench_search.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memoryd.domain import MemoryRow, ScoredRow


def with_context(
    hits: Sequence[ScoredRow], context: Iterable[MemoryRow], after: int, limit: int
) -> tuple[ScoredRow, ...]:
    """`hits` with the `context` rows not among the first `after` hits moved in right after them, cut to `limit`.

    A context row takes the score of the hit it follows. A context row that was already a later hit moves up instead
    of appearing twice.
    """
    if after <= 0 or len(hits) < after:
        return tuple(hits[:limit])
    head = list(hits[:after])
    seen = {hit.row.id for hit in head}
    inserted: list[ScoredRow] = []
    for row in context:
        if row.id not in seen:
            seen.add(row.id)
            inserted.append(ScoredRow(row, head[-1].score))
    tail = [hit for hit in hits[after:] if hit.row.id not in seen]
    return tuple((head + inserted + tail)[:limit])
