"""The MiniLM vectors of the gate fitting queries (gate_v2 and gate_v3), for the query prior (issue 17, gate-v4).

Embedded in-process with inferd's own all-MiniLM-L6-v2 on the path a search query takes in inferd (one short text
through the numpy forward, bert_numpy.py; the MLX batch path for a text over its token limit), after memoryd's own
whitespace normalisation, so each vector is the one the read path's evidence pass gets for that query. Cached under
$TMPDIR by the queries' hash (about 10 s to make). gate_v4 is never read here.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memoryd.vectors.embedding import normalise_query

BENCH = Path(__file__).resolve().parent
FITTING_SETS = ("gate_v2", "gate_v3")


def fitting_queries() -> dict[str, str]:
    """Query id → text of every fitting query."""
    out: dict[str, str] = {}
    for name in FITTING_SETS:
        for line in (BENCH / name / "queries.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                out[str(raw["id"])] = str(raw["query"])
    return out


def embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    """Unit vectors of `texts` (n x 384), one at a time as inferd embeds a query."""
    from inferd.backends.blas import ensure_openblas

    ensure_openblas()
    from inferd.backends.mlx_embed import load_mlx_embedder
    from inferd.config import builtin_models
    from inferd.loaders import resolve_source

    spec = next(s for s in builtin_models() if s.name == "all-minilm-l6-v2")
    model = load_mlx_embedder(resolve_source(spec.source), dict(spec.options))
    try:
        rows = []
        for text in texts:
            vector = model.embed_inline([text])
            rows.append((vector if vector is not None else model.embed([text]))[0])
        return np.vstack(rows).astype(np.float32)
    finally:
        model.close()


def query_vectors() -> dict[str, npt.NDArray[np.float32]]:
    """Query id → vector of every fitting query (cached)."""
    queries = fitting_queries()
    ids = sorted(queries)
    texts = [normalise_query(queries[i]) for i in ids]
    digest = hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / f"osaurus-gate-query-vectors-{digest}.npy"
    if cache.exists():
        vectors = np.load(cache)
    else:
        vectors = embed(texts)
        np.save(cache, vectors)
    return dict(zip(ids, vectors, strict=True))


__all__ = ["fitting_queries", "query_vectors"]
