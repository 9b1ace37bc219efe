"""BERT-family sentence encoder in MLX (all-MiniLM-L6-v2 by default): mean pooling and L2 normalisation."""

# mlx.nn ships incomplete type stubs (no Linear/LayerNorm/Embedding), so these checks cannot pass here.
# mypy: disable-error-code="name-defined,misc,attr-defined,no-any-return"

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, cast

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import numpy.typing as npt
from mlx.utils import tree_flatten
from tokenizers import Tokenizer

from inferd.backends.base import LoadedInfo, ModelLoadError
from inferd.backends.bert_numpy import NumpyBert, use_one_blas_thread

_log = logging.getLogger("inferd.mlx_embed")

#: One text of at most this many tokens takes the numpy query path (bert_numpy.py); longer ones and batches use MLX.
#: Measured on the 2-core box: 12 tokens numpy 6.4 ms (1 BLAS thread, steady under load) vs MLX 6.5 ms quiet and
#: 20-50 ms when the other core is busy; at 62 tokens both ~16 ms; beyond that MLX's two threads win when quiet.
FAST_PATH_MAX_TOKENS = 64


# Eigen's rational erf approximation (|error| < 1e-6 in float32): MLX's CPU erf/exp are scalar libm calls and made
# exact GELU ~40% of the encoder's time; multiplies and adds vectorise and fuse under mx.compile.
_ERF_P = (-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04, -5.69250639462346e-05,
          -2.10102402082508e-06, 2.77068142495902e-08, -2.72614225801306e-10)  # fmt: skip
_ERF_Q = (-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03, -2.13374055278905e-04,
          -1.45660718464996e-05)  # fmt: skip


def _erf(x: mx.array) -> mx.array:
    x = mx.clip(x, -4.0, 4.0)
    x2 = x * x
    p = mx.array(_ERF_P[-1], dtype=x.dtype)
    for c in reversed(_ERF_P[:-1]):
        p = p * x2 + c
    q = mx.array(_ERF_Q[-1], dtype=x.dtype)
    for c in reversed(_ERF_Q[:-1]):
        q = q * x2 + c
    return x * p / q


@partial(mx.compile, shapeless=True)
def gelu(x: mx.array) -> mx.array:
    """Exact (erf) GELU, as BERT uses, with a fast erf."""
    return 0.5 * x * (1.0 + _erf(x * 0.7071067811865476))


class _Layer(nn.Module):
    """One post-norm BERT encoder layer."""

    def __init__(self, hidden: int, heads: int, intermediate: int, eps: float) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)  # query/key/value fused into one matmul
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=eps)
        self.ffn_in = nn.Linear(hidden, intermediate)
        self.ffn_out = nn.Linear(intermediate, hidden)
        self.ffn_norm = nn.LayerNorm(hidden, eps=eps)

    def __call__(self, x: mx.array, mask: mx.array) -> mx.array:
        batch, length, hidden = x.shape
        head_dim = hidden // self.heads
        qkv = self.qkv(x).reshape(batch, length, 3, self.heads, head_dim).transpose(2, 0, 3, 1, 4)
        attended = mx.fast.scaled_dot_product_attention(
            qkv[0], qkv[1], qkv[2], scale=1.0 / math.sqrt(head_dim), mask=mask
        )
        attended = attended.transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = self.attn_norm(x + self.attn_out(attended))
        return self.ffn_norm(x + self.ffn_out(gelu(self.ffn_in(x))))


class BertEncoder(nn.Module):
    """Token, position and type embeddings, then N encoder layers; returns the last hidden states."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        super().__init__()
        hidden, eps = int(config["hidden_size"]), float(config.get("layer_norm_eps", 1e-12))
        self.word = nn.Embedding(int(config["vocab_size"]), hidden)
        self.position = nn.Embedding(int(config["max_position_embeddings"]), hidden)
        self.token_type = nn.Embedding(int(config.get("type_vocab_size", 2)), hidden)
        self.norm = nn.LayerNorm(hidden, eps=eps)
        self.layers = [
            _Layer(hidden, int(config["num_attention_heads"]), int(config["intermediate_size"]), eps)
            for _ in range(int(config["num_hidden_layers"]))
        ]

    def __call__(self, ids: mx.array, mask: mx.array) -> mx.array:
        positions = mx.arange(ids.shape[1])
        x = self.norm(self.word(ids) + self.position(positions) + self.token_type.weight[0])
        for layer in self.layers:
            x = layer(x, mask)
        return x


def _bert_weights(raw: Mapping[str, mx.array], layers: int) -> dict[str, mx.array]:
    """Hugging Face BertModel names → ours (query/key/value fused)."""
    out = {
        "word.weight": raw["embeddings.word_embeddings.weight"],
        "position.weight": raw["embeddings.position_embeddings.weight"],
        "token_type.weight": raw["embeddings.token_type_embeddings.weight"],
        "norm.weight": raw["embeddings.LayerNorm.weight"],
        "norm.bias": raw["embeddings.LayerNorm.bias"],
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for kind in ("weight", "bias"):
            out[f"layers.{i}.qkv.{kind}"] = mx.concatenate(
                [raw[f"{p}attention.self.{name}.{kind}"] for name in ("query", "key", "value")], axis=0
            )
            out[f"layers.{i}.attn_out.{kind}"] = raw[f"{p}attention.output.dense.{kind}"]
            out[f"layers.{i}.attn_norm.{kind}"] = raw[f"{p}attention.output.LayerNorm.{kind}"]
            out[f"layers.{i}.ffn_in.{kind}"] = raw[f"{p}intermediate.dense.{kind}"]
            out[f"layers.{i}.ffn_out.{kind}"] = raw[f"{p}output.dense.{kind}"]
            out[f"layers.{i}.ffn_norm.{kind}"] = raw[f"{p}output.LayerNorm.{kind}"]
    return out


def load_mlx_embedder(folder: Path, options: Mapping[str, Any]) -> MlxEmbedder:
    """Load a sentence-transformers BERT folder (config.json, model.safetensors, tokenizer.json)."""
    started = time.monotonic()
    try:
        config = json.loads((folder / "config.json").read_text())
        raw = mx.load(str(folder / "model.safetensors"))
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    except (OSError, ValueError, RuntimeError) as error:
        raise ModelLoadError(f"cannot load embedding model from {folder}: {error}") from error
    if config.get("model_type") != "bert":
        raise ModelLoadError(
            f"{folder} is a {config.get('model_type')!r} model; only BERT encoders are supported"
        )
    assert isinstance(raw, dict)
    raw = {k.removeprefix("bert."): v for k, v in raw.items()}
    max_tokens = int(
        options.get("max_seq_length") or _st_max_length(folder) or config["max_position_embeddings"]
    )
    model = BertEncoder(config)
    try:
        model.load_weights(list(_bert_weights(raw, int(config["num_hidden_layers"])).items()))
    except (KeyError, ValueError) as error:
        raise ModelLoadError(f"{folder}: weights do not match a BERT encoder ({error})") from error
    model.eval()
    mx.eval(model.parameters())
    fast = None
    if not options.get("disable_fast_path", False):
        # numpy views of the same fp32 weights; NumpyBert keeps its own transposed copy of the matrices (42 MB for
        # MiniLM), which makes the query path's matmuls ~1.6x faster (bert_numpy.py).
        flat = cast(list[tuple[str, mx.array]], tree_flatten(model.parameters()))
        params = {name: np.array(value, copy=False) for name, value in flat}
        fast = NumpyBert(
            params,
            int(config["num_hidden_layers"]),
            int(config["num_attention_heads"]),
            float(config.get("layer_norm_eps", 1e-12)),
        )
    _log.info("loaded embedding model from %s in %.2fs", folder, time.monotonic() - started)
    return MlxEmbedder(model, tokenizer, int(config["hidden_size"]), max_tokens, fast)


def _st_max_length(folder: Path) -> int:
    try:
        return int(json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, ValueError, KeyError):
        return 0


class MlxEmbedder:
    """Embeds texts in length-sorted batches with little padding; rows come back in input order, unit length."""

    def __init__(
        self,
        model: BertEncoder,
        tokenizer: Tokenizer,
        dimension: int,
        max_tokens: int,
        fast: NumpyBert | None = None,
    ) -> None:
        self._model = model
        self._dimension = dimension
        self._max_tokens = max_tokens
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_tokens)
        self._tokenizer = tokenizer
        self._forward = self._pooled
        self._fast = fast

    def info(self) -> LoadedInfo:
        return LoadedInfo(context_window_tokens=self._max_tokens, embedding_dimension=self._dimension)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]

    def close(self) -> None:
        self._fast = None  # its matrices are its own copies, the rest views of the model's
        self._model = None  # type: ignore[assignment]
        mx.clear_cache()

    def _pooled(self, ids: mx.array, keep: mx.array) -> mx.array:
        mask = mx.where(keep[:, None, None, :], 0.0, -1e9).astype(mx.float32)
        hidden = self._model(ids, mask)
        weights = keep.astype(hidden.dtype)[..., None]
        pooled = (hidden * weights).sum(axis=1) / mx.maximum(weights.sum(axis=1), 1e-9)
        return pooled / mx.maximum(mx.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)

    def embed_inline(self, texts: Sequence[str]) -> npt.NDArray[np.float32] | None:
        """The query fast path, safe on any thread: (1, d) for one short text, None when it does not apply.

        inferd calls it on the request thread, so a query does not wait behind an indexing batch in the queue.
        """
        if len(texts) != 1 or self._fast is None:
            return None
        return self._fast_vector(self._tokenizer.encode(texts[0]).ids)

    def _fast_vector(self, ids: Sequence[int]) -> npt.NDArray[np.float32] | None:
        # One short text skips MLX's graph and small-matmul overhead (see bert_numpy.py). Read once: close() may
        # drop it meanwhile, and the arrays stay alive through this reference.
        fast = self._fast
        if fast is None or len(ids) > FAST_PATH_MAX_TOKENS:
            return None
        use_one_blas_thread()  # the calling thread only; cheap, so set on every call
        return fast.encode(ids)[None, :]

    def embed(
        self, texts: Sequence[str], batch_tokens: int = 4096, max_stretch: float = 1.6
    ) -> npt.NDArray[np.float32]:
        if len(texts) == 1:
            single = self._tokenizer.encode(texts[0]).ids
            fast = self._fast_vector(single)
            if fast is not None:
                return fast
            encodings = [single]
        else:
            encodings = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i]))
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        start = 0
        while start < len(order):
            # Grow the batch while its padded size stays under batch_tokens and its longest text is at most
            # max_stretch times its shortest (lengths ascend): one long text must not pad a batch of short ones.
            end = start + 1
            limit = max(8.0, max_stretch * len(encodings[order[start]]))
            while (
                end < len(order)
                and len(encodings[order[end]]) <= limit
                and len(encodings[order[end]]) * (end - start + 1) <= batch_tokens
            ):
                end += 1
            chunk = order[start:end]
            width = len(encodings[chunk[-1]])
            ids = np.zeros((len(chunk), width), dtype=np.int32)
            keep = np.zeros((len(chunk), width), dtype=bool)
            for row, index in enumerate(chunk):
                tokens = encodings[index]
                ids[row, : len(tokens)] = tokens
                keep[row, : len(tokens)] = True
            vectors = self._forward(mx.array(ids), mx.array(keep))
            out[chunk] = np.array(vectors, copy=False)
            start = end
        return out
