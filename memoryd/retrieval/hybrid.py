"""Pure ranking functions: per-agent BM25 re-scoring of FTS candidates and reciprocal-rank fusion with vectors.

Why RRF: BM25 scores are unbounded and depend on query length and corpus; cosine similarities of MiniLM sit in a
narrow band that moves with the model. A weighted sum of the two (the reference app's 0.5·cos + 0.5·min(bm25/10,1))
needs per-corpus calibration; RRF uses only ranks, has one constant (k = 60, from Cormack et al. 2009, the same value
the LoCoMo baseline used) and degrades gracefully when one side is missing: with no vectors it is exactly the BM25
order. It is what docs/references.md (LoCoMo baselines) measured as the best hybrid at k >= 10.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from memoryd.retrieval.terms import index_term, term_counts

#: Okapi BM25 constants (Lucene defaults).
K1 = 1.2
B = 0.75
#: RRF damping constant.
RRF_K = 60


@dataclass(frozen=True)
class AgentCorpus:
    """Keyword statistics of one agent's rows of one kind: row count and mean indexed length in characters."""

    rows: int
    mean_chars: float


def candidate_terms(
    terms: Sequence[str],
    dfs: Mapping[str, int],
    rows: int,
    max_fraction: float = 0.02,
    floor: int = 50,
    keep: int = 2,
) -> list[str]:
    """Terms worth sending to FTS5: present in the agent's rows and selective (df <= max(2% of rows, 50)).

    Very common terms add almost nothing to BM25 (IDF ~ ln 2) but make FTS5 score most of the table; they still
    count when the candidates are re-scored. If every term is common, the `keep` rarest are used.
    """
    present = [t for t in terms if dfs.get(t, 0) > 0]
    limit = common_limit(rows, max_fraction, floor)
    selective = [t for t in present if dfs[t] <= limit]
    return selective or sorted(present, key=lambda t: dfs[t])[:keep]


def common_limit(rows: int, max_fraction: float = 0.02, floor: int = 50) -> float:
    """The document frequency above which a term is common in an agent's `rows` rows: max(fraction x rows, floor)."""
    return max(max_fraction * rows, floor)


def idf(rows: int, df: int) -> float:
    """Lucene's BM25 IDF: ln(1 + (N - df + 0.5) / (df + 0.5)); always positive."""
    return math.log(1.0 + (rows - df + 0.5) / (df + 0.5))


def bm25_scores(
    terms: Sequence[str],
    docs: Mapping[int, str],
    corpus: AgentCorpus,
    doc_frequency: Callable[[str], int],
) -> dict[int, float]:
    """BM25 of each candidate with the agent's own statistics (IDF from the agent's rows, not the whole table).

    Document length is measured in characters on both sides (dl / avgdl is a ratio, so the unit cancels). Terms are
    surface words (what FTS5 was asked); a document counts their stems, as the FTS index does.
    """
    if not terms or not docs:
        return {}
    rows = max(corpus.rows, len(docs))
    weights = {index_term(t): idf(rows, min(doc_frequency(t), rows)) for t in terms}
    avg_chars = corpus.mean_chars if corpus.mean_chars > 0 else 1.0
    scores: dict[int, float] = {}
    for doc_id, text in docs.items():
        counts = term_counts(text)
        norm = K1 * (1 - B + B * len(text) / avg_chars)
        score = 0.0
        for term, weight in weights.items():
            tf = counts.get(term, 0)
            if tf:
                score += weight * tf * (K1 + 1) / (tf + norm)
        scores[doc_id] = score
    return scores


def ranked(scores: Mapping[int, float]) -> list[int]:
    """Ids by descending score; ties keep insertion order (stable sort)."""
    return [doc_id for doc_id, _ in sorted(scores.items(), key=lambda item: -item[1])]


def rrf(
    rankings: Sequence[Sequence[int]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> dict[int, float]:
    """Reciprocal rank fusion: sum over rankings of weight / (k + rank), rank starting at 1."""
    fused: dict[int, float] = {}
    for position, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[position]
        for rank, doc_id in enumerate(ranking, start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + weight / (k + rank)
    return fused
