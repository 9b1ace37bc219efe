"""The numpy query path of the MiniLM embedder (bert_numpy.py) against the MLX batch path, on the real model."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from inferd.backends.blas import ensure_openblas
from inferd.backends.mlx_embed import FAST_PATH_MAX_TOKENS, MlxEmbedder, load_mlx_embedder
from inferd.config import MINILM_SOURCE
from inferd.loaders import resolve_source

pytestmark = pytest.mark.model

_SENTENCE = (
    "the user prefers dark roast coffee and green tea project Falcon ships on Friday Alice owns the billing "
    "migration budget review moved to March Lisbon office cycling on weekends allergic to peanuts"
)
_WORDS = _SENTENCE.split(" ")


@pytest.fixture(scope="module")
def embedder() -> Iterator[MlxEmbedder]:
    ensure_openblas()
    model = load_mlx_embedder(resolve_source(MINILM_SOURCE), {})
    yield model
    model.close()


def _texts() -> list[str]:
    rng = random.Random(17)
    texts = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 45))) for _ in range(24)]
    return [*texts, "a", "Zoë, naïve café in 東京 🙂", "What did we discuss about the budget last week? #12"]


def test_query_path_matches_the_batch_path_elementwise(embedder: MlxEmbedder) -> None:
    texts = _texts()
    counts = embedder.count_tokens(texts)
    assert min(counts) <= 4 and max(counts) <= FAST_PATH_MAX_TOKENS and max(counts) > 40
    singles = [embedder.embed_inline([text]) for text in texts]
    assert all(vector is not None and vector.shape == (1, 384) for vector in singles)
    fast = np.vstack([v for v in singles if v is not None])
    batch = embedder.embed([*texts, "another text, so that every text goes through MLX"])[: len(texts)]
    assert fast.dtype == np.float32
    assert np.abs(fast - batch).max() <= 1e-5
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)


def test_query_path_is_deterministic_and_leaves_its_weights_alone(embedder: MlxEmbedder) -> None:
    text = "Do you remember my Lisbon plans with Alice?"
    first = embedder.embed_inline([text])
    for other in _texts()[:5]:
        embedder.embed_inline([other])
    again = embedder.embed_inline([text])
    assert first is not None and again is not None
    assert np.array_equal(first, again)  # in-place ops never touch the shared weights


def test_single_text_over_the_fast_path_limit_goes_to_mlx(embedder: MlxEmbedder) -> None:
    long_text = " ".join(["the quarterly budget review with Alice and Bob about the Lisbon office"] * 8)
    assert embedder.count_tokens([long_text])[0] > FAST_PATH_MAX_TOKENS
    assert embedder.embed_inline([long_text]) is None
    assert embedder.embed_inline(["one", "two"]) is None  # batches are the model thread's job
    single = embedder.embed([long_text])
    paired = embedder.embed([long_text, "short"])
    assert np.allclose(single[0], paired[0], atol=1e-5)
