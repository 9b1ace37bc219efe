"""Finds near-duplicate episodes of one agent: exact Jaccard join (prefix filtering) plus embedding cosine."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt

#: Spec: episodes whose summary+topics word sets have Jaccard >= 0.9 are near-duplicates.
MERGE_JACCARD = 0.9
#: Cosine of unit embeddings at or above this is a near-duplicate too (paraphrases the word sets miss).
MERGE_COSINE = 0.95
#: The vector comparison covers an agent's most recent episodes only, and pairs at most VECTOR_BAND_DAYS apart in
#: conversation time (Jaccard covers every pair).
VECTOR_WINDOW = 5000
VECTOR_BAND_DAYS = 30
_DAY_MS = 86_400_000
_BLOCK = 64


@dataclass(frozen=True)
class EpisodeFeature:
    """What the merge compares: id, time (older wins), folded words, and whether it is new since the last pass."""

    id: int
    at_ms: int
    words: frozenset[str]
    is_new: bool


@dataclass(frozen=True)
class MergePair:
    """Fold `duplicate_id` into `survivor_id` (the older episode), then delete the duplicate."""

    survivor_id: int
    duplicate_id: int
    jaccard: float
    cosine: float | None


def _prefix_length(size: int, threshold: float) -> int:
    """Tokens of a set (in global order) that any set with Jaccard >= threshold must share one of."""
    return size - math.ceil(threshold * size - 1e-9) + 1


def _cosine_neighbours(
    order: Sequence[EpisodeFeature],
    vectors: Mapping[int, npt.NDArray[np.float32]],
    threshold: float,
    window: int,
    band_ms: int,
) -> dict[int, dict[int, float]]:
    """For each position, the earlier positions whose vector cosine >= threshold: pairs with a new episode, at
    most `band_ms` apart in conversation time (a repeated session is near in time; this keeps the all-pairs
    product from growing with the square of an agent's history)."""
    positions = [p for p, item in enumerate(order) if item.id in vectors][-window:]
    result: dict[int, dict[int, float]] = {}
    new_rows = [i for i, p in enumerate(positions) if order[p].is_new]
    if not new_rows:
        return result
    matrix = np.vstack([vectors[order[p].id] for p in positions]).astype(np.float32, copy=False)
    times = np.asarray([order[p].at_ms for p in positions], dtype=np.int64)
    for start in range(0, len(new_rows), _BLOCK):
        rows = new_rows[start : start + _BLOCK]
        low = int(np.searchsorted(times, times[rows[0]] - band_ms, side="left"))
        high = int(np.searchsorted(times, times[rows[-1]] + band_ms, side="right"))
        # einsum, not matmul: a multi-threaded BLAS leaves worker threads spinning on the other core after each
        # call, which is what request threads need; this stays on the pass's own thread.
        scores = np.einsum("ij,kj->ik", matrix[rows], matrix[low:high], optimize=False)
        near = np.abs(times[rows][:, np.newaxis] - times[np.newaxis, low:high]) <= band_ms
        hit_rows, hit_cols = np.nonzero((scores >= threshold) & near)
        for r, c in zip(hit_rows.tolist(), hit_cols.tolist(), strict=True):
            a, b = positions[rows[r]], positions[low + c]
            if a == b:
                continue
            later, earlier = max(a, b), min(a, b)
            result.setdefault(later, {})[earlier] = float(scores[r, c])
    return result


def find_duplicates(
    items: Sequence[EpisodeFeature],
    vectors: Mapping[int, npt.NDArray[np.float32]] | None = None,
    *,
    jaccard_min: float = MERGE_JACCARD,
    cosine_min: float = MERGE_COSINE,
    vector_window: int = VECTOR_WINDOW,
    vector_band_days: float = VECTOR_BAND_DAYS,
    breathe: Callable[[], None] | None = None,
) -> list[MergePair]:
    """Merges to apply, oldest survivor first. Only pairs involving a new episode are considered (old pairs were
    compared by an earlier pass). A duplicate folds into the best-matching older episode still alive."""
    order = sorted(items, key=lambda e: (e.at_ms, e.id))
    # Words become ints numbered rarest first: a set's prefix is then its smallest ints.
    counts = Counter(chain.from_iterable(item.words for item in order))
    number = {word: i for i, (word, _) in enumerate(sorted(counts.items(), key=lambda wc: (wc[1], wc[0])))}
    sets = [frozenset(map(number.__getitem__, item.words)) for item in order]
    prefixes = [sorted(words)[: _prefix_length(len(words), jaccard_min)] if words else [] for words in sets]
    band_ms = int(vector_band_days * _DAY_MS)
    cosine = _cosine_neighbours(order, vectors, cosine_min, vector_window, band_ms) if vectors else {}
    alive = [True] * len(order)
    index: dict[int, list[int]] = {}
    pairs: list[MergePair] = []
    for pos, item in enumerate(order):
        if breathe is not None:
            breathe()
        words = sets[pos]
        candidates: set[int] = set(cosine.get(pos, {}))
        for word in prefixes[pos]:
            candidates.update(index.get(word, ()))
        best: tuple[float, int, float, float | None] | None = None
        for other in candidates:
            earlier = order[other]
            if not alive[other] or other >= pos or not (item.is_new or earlier.is_new):
                continue
            union = len(words | sets[other])
            similarity = len(words & sets[other]) / union if union else 0.0
            cos = cosine.get(pos, {}).get(other)
            if similarity < jaccard_min and (cos is None or cos < cosine_min):
                continue
            score = max(similarity, cos or 0.0)
            if best is None or score > best[0] or (score == best[0] and other < best[1]):
                best = (score, other, similarity, cos)
        if best is not None:
            _, other, similarity, cos = best
            alive[pos] = False
            pairs.append(MergePair(order[other].id, item.id, similarity, cos))
        else:
            for word in prefixes[pos]:
                index.setdefault(word, []).append(pos)
    return pairs
