"""Life domains as gate evidence: which domains a query is about, and which domains this agent's memory holds.

Why (issue 17): most questions the gate missed on held-out profiles share no word with the item that answers them
("suggest a dinner recipe" → "I am vegetarian"; "should I book the 7am train?" → a standing instruction about
mornings). The query and the item do share a domain (food; travel), and a small set of domain prototypes — MiniLM
embeddings of short descriptions in our five languages, built by bench/build_domains.py and shipped in
domain_prototypes_v1.json next to this module — puts both in it, where their direct cosine does not.

Two measurements, both in the query's vector space (nothing is stored per row):
- the query's cosine to each prototype (one D x 384 product);
- per section, how strongly the agent's rows occupy each domain: the nearest row's cosine to each prototype,
  found by searching the section's own vector index with the prototype as the query (D searches, cached per agent,
  section and store generation by the caller).
gate_features turns them into a domain-match score per section (the query's domain distribution against the
section's occupancy, calibrated by the section's average occupancy) that the gate model weighs.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

#: The embedding model the shipped prototypes were made with (memoryd's default).
MODEL = "all-minilm-l6-v2"
DEFAULT_PATH = Path(__file__).resolve().parent / "domain_prototypes_v1.json"
#: Softmax temperature turning the query's prototype cosines into a distribution over domains.
TEMPERATURE = 0.05


class DomainFileError(ValueError):
    """The prototypes file is inconsistent."""


@dataclass(frozen=True)
class DomainPrototypes:
    """Unit prototype vectors (D x dim) of named domains, in the space of `model`."""

    version: str
    model: str
    names: tuple[str, ...]
    vectors: npt.NDArray[np.float32]

    def query_cosines(self, vector: npt.NDArray[np.float32]) -> tuple[float, ...]:
        """The query's cosine to each prototype (vector: unit, in the same space)."""
        v = np.asarray(vector, dtype=np.float32).reshape(-1)
        if v.shape[0] != self.vectors.shape[1]:
            return ()
        return tuple(float(c) for c in self.vectors @ v)

    def occupancy(self, nearest: Callable[[npt.NDArray[np.float32]], float | None]) -> tuple[float, ...]:
        """Per domain, the cosine of the section's row nearest to its prototype (`nearest` searches the section;
        None or an empty section counts 0)."""
        out = []
        for row in self.vectors:
            found = nearest(row)
            out.append(0.0 if found is None or not math.isfinite(found) else float(found))
        return tuple(out)


def distribution(cosines: Sequence[float]) -> list[float]:
    """softmax(cosines / TEMPERATURE): how much of the query is about each domain."""
    if not cosines:
        return []
    top = max(cosines)
    exps = [math.exp((c - top) / TEMPERATURE) for c in cosines]
    total = sum(exps)
    return [e / total for e in exps]


def match(query_cosines: Sequence[float], occupancy: Sequence[float]) -> tuple[float, float]:
    """(match, calibrated match) of a query against a section: the section's occupancy of the query's domains
    (expected over the query's domain distribution), and the same minus the section's mean occupancy over all
    domains (an agent whose rows sit close to every prototype gains nothing). (0, 0) when either is missing."""
    if not query_cosines or len(query_cosines) != len(occupancy) or not any(occupancy):
        return 0.0, 0.0
    weights = distribution(query_cosines)
    expected = sum(w * o for w, o in zip(weights, occupancy, strict=True))
    return expected, expected - sum(occupancy) / len(occupancy)


def parse(text: str) -> DomainPrototypes:
    """DomainPrototypes from the file's JSON; DomainFileError when its shapes disagree."""
    raw = json.loads(text)
    if not isinstance(raw, dict):
        raise DomainFileError("the prototypes file must hold an object")
    names = tuple(str(n) for n in raw.get("domains", []))
    vectors = np.asarray(raw.get("vectors", []), dtype=np.float32)
    if not names or vectors.ndim != 2 or vectors.shape[0] != len(names) or vectors.shape[1] == 0:
        raise DomainFileError("one vector per domain is required")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return DomainPrototypes(
        str(raw.get("version", "")), str(raw.get("model", "")), names, vectors / np.maximum(norms, 1e-9)
    )


@functools.lru_cache(maxsize=4)
def load(path: Path = DEFAULT_PATH) -> DomainPrototypes | None:
    """The prototypes at `path` (read once), or None when there is no file (no domain evidence then)."""
    if not path.exists():
        return None
    return parse(path.read_text(encoding="utf-8"))


__all__ = [
    "DEFAULT_PATH",
    "MODEL",
    "TEMPERATURE",
    "DomainFileError",
    "DomainPrototypes",
    "distribution",
    "load",
    "match",
    "parse",
]
