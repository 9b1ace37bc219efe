"""Retrieval evidence of one section for a query: calibrated keyword and vector scores the relevance gate reads."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memoryd.retrieval.answer_kinds import value_kinds
from memoryd.retrieval.hybrid import K1, idf
from memoryd.retrieval.terms import index_term, term_counts

#: Keyword candidates whose coverage is measured (the best few by per-agent BM25 are enough: the gate asks whether
#: ANY row covers the query, not how many do).
COVERAGE_DOCS = 5
#: Nearest vectors averaged for the "mean of the top three" cosine.
COSINE_TOP = 3
#: Ranks COSINE_TOP+1 .. COSINE_BACKGROUND of the nearest vectors are the "background": how close this agent's rows
#: are to ANY query like this one. An English-trained encoder puts every non-English text close to every other, so
#: the raw cosine says little; the gap between the nearest row and the background says whether one row stands out.
COSINE_BACKGROUND = 10
#: Top rows described one by one (gate-v6): the best few by per-agent BM25 and the nearest few by cosine, which are
#: what the section's block would open with.
TOP_ROWS = 3


@dataclass(frozen=True)
class SectionEvidence:
    """What one section of one agent's memory holds for a query, in units comparable across agents and queries.

    rows: the agent's active rows of the section. terms: the query's search terms. term_df: rows of the agent
    containing each term (0 = the agent never wrote it). bm25_top: the best per-agent BM25 among the keyword
    candidates; bm25_norm: the same divided by its ceiling for this query ((k1 + 1) x the sum of the terms' IDFs),
    so 1.0 means a row holding every term. coverage_top: the largest IDF-weighted share of the query's terms one
    candidate row contains (0-1); matched_top: the largest unweighted share. cosine_top / cosine_mean3: the nearest
    vector's cosine and the mean of the nearest three (None when no vector search ran); cosine_gap: the nearest
    cosine minus the mean of ranks 4-10 (0 with fewer than two rows). candidates: keyword candidates from FTS5.
    note: how the measurement ran when it matters ("fts_only:<why>", as NotedHits.note), else "".
    top_terms / top_kinds (gate-v6): for each top row (the TOP_ROWS best by BM25, then the TOP_ROWS nearest by
    cosine not already among them), the query's terms it holds and the kinds of value it holds
    (answer_kinds.value_kinds): whether the rows that name the query's thing also carry what it asks.
    """

    rows: int = 0
    terms: tuple[str, ...] = ()
    term_df: Mapping[str, int] = field(default_factory=dict)
    bm25_top: float = 0.0
    bm25_norm: float = 0.0
    coverage_top: float = 0.0
    matched_top: float = 0.0
    cosine_top: float | None = None
    cosine_mean3: float | None = None
    cosine_gap: float = 0.0
    candidates: int = 0
    note: str = ""
    top_terms: tuple[tuple[str, ...], ...] = ()
    top_kinds: tuple[tuple[str, ...], ...] = ()


def keyword_evidence(
    terms: Sequence[str],
    dfs: Mapping[str, int],
    rows: int,
    scores: Mapping[int, float],
    docs: Mapping[int, str],
) -> tuple[float, float, float, float]:
    """(bm25_top, bm25_norm, coverage_top, matched_top) of the keyword candidates `scores` (ids → per-agent BM25).

    Terms the agent never wrote get the largest IDF, so a query whose rare words are absent scores low coverage
    even when its common words match.
    """
    if not terms or rows <= 0:
        return 0.0, 0.0, 0.0, 0.0
    weights = {index_term(t): idf(rows, min(dfs.get(t, 0), rows)) for t in terms}
    total = sum(weights.values())
    top = max(scores.values(), default=0.0)
    norm = top / ((K1 + 1) * total) if total > 0 else 0.0
    coverage = matched = 0.0
    best = sorted(scores, key=lambda i: -scores[i])[:COVERAGE_DOCS]
    for doc_id in best:
        text = docs.get(doc_id)
        if text is None:
            continue
        counts = term_counts(text)
        present = [term for term in weights if counts.get(term, 0)]
        if total > 0:
            coverage = max(coverage, sum(weights[t] for t in present) / total)
        matched = max(matched, len(present) / len(weights))
    return top, norm, coverage, matched


def vector_evidence(scored: Sequence[tuple[int, float]]) -> tuple[float | None, float | None, float]:
    """(cosine_top, cosine_mean3, cosine_gap) of nearest-first (id, cosine) pairs; (None, None, 0) when empty."""
    cosines = [c for _, c in scored if math.isfinite(c)][:COSINE_BACKGROUND]
    if not cosines:
        return None, None, 0.0
    head = cosines[:COSINE_TOP]
    background = cosines[COSINE_TOP:] or cosines[1:]
    gap = cosines[0] - sum(background) / len(background) if background else 0.0
    return cosines[0], sum(head) / len(head), gap


def top_rows(
    terms: Sequence[str], ranking: Sequence[int], nearest: Sequence[int], texts: Mapping[int, str]
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """(top_terms, top_kinds) of SectionEvidence: the TOP_ROWS best keyword rows, then the TOP_ROWS nearest rows not
    among them (ids without a text are skipped)."""
    ids = list(dict.fromkeys([*ranking[:TOP_ROWS], *nearest[:TOP_ROWS]]))
    held_terms: list[tuple[str, ...]] = []
    held_kinds: list[tuple[str, ...]] = []
    wanted = {term: index_term(term) for term in terms}
    for row_id in ids:
        text = texts.get(row_id)
        if text is None:
            continue
        counts = term_counts(text)
        held = tuple(term for term, key in wanted.items() if counts.get(key, 0))
        held_terms.append(held)
        # The gate reads the kinds of rows holding a query term only (gate_answer), so the others are not read.
        held_kinds.append(tuple(sorted(value_kinds(text))) if held else ())
    return tuple(held_terms), tuple(held_kinds)


__all__ = [
    "COSINE_BACKGROUND",
    "COSINE_TOP",
    "COVERAGE_DOCS",
    "TOP_ROWS",
    "SectionEvidence",
    "keyword_evidence",
    "top_rows",
    "vector_evidence",
]
