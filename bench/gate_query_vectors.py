"""MiniLM vectors made as the read path makes a query's (bench/build_domains.py embeds the domain descriptions).

Embedded in-process with inferd's own all-MiniLM-L6-v2 on the path a search query takes in inferd (one short text
through the numpy forward, bert_numpy.py; the MLX batch path for a text over its token limit); callers normalise the
text as memoryd does first (memoryd.vectors.embedding.normalise_query).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

BENCH = Path(__file__).resolve().parent
FITTING_SETS = ("gate_v2", "gate_v3")


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


__all__ = ["embed"]
