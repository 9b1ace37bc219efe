"""One short text through a BERT encoder in numpy: the query fast path of the MLX embedder (same fp32 weights).

Why: a search query is one text of ~10 tokens. MLX on the CPU spends ~9 ms on it (its small-matmul path and
per-op dispatch), while the work is ~21 MFLOP per token row and 42 MB of weights to stream; numpy's BLAS does the same
forward faster. The math is the same as mlx_embed's (exact GELU with the same erf approximation, post-norm layers,
mean pooling, L2 norm), so query vectors and the stored vectors the batch path computed stay comparable (cosine
≥ 0.99999 between the two paths).

The four matrices of each layer are kept as contiguous (in_features, out_features) float32 copies, made once at load
(42 MB for MiniLM): `x @ w_t` is a plain NN sgemm. With nn.Linear's (out, in) layout, `x @ w.T` made OpenBLAS read
the weights transposed on every query, and the matmuls (85% of the forward) took ~1.6x as long (issue 17 item 4:
12.0 vs 7.3 ms for MiniLM's 24 matmuls at 14 tokens, one BLAS thread, same run). Biases and norms stay zero-copy
views of the MLX arrays.

Each of those copies is further cut, along its output features, into contiguous column blocks (COLUMN_BLOCKS: 64
columns; 32 for ffn_out), and a matmul is one sgemm per block into a slice of one output array. For the ~15-row
activations of a query, OpenBLAS's sgemm over a whole matrix costs more than the same work in such pieces (why was
not established; the pieces avoid its packing/blocking path for these shapes). Issue 17 item 4, third pass, real
MiniLM on the 400 gate_v7 queries (15 tokens median), main's forward and this one interleaved in one process at
load ~10 (shared 2-core machine): p50 25.54 → 14.45 ms (0.57), p95 63.03 → 38.43 ms (0.61); 64-column blocks
everywhere gave 0.73 / 0.82 in an earlier run. Every output element is the same dot product over the same inputs,
so the vectors equal the unblocked ones up to float rounding (max |diff| 2.3e-7, min cosine 0.99999982; 73 of 400
bit-equal).
"""

from __future__ import annotations

import ctypes
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

_log = logging.getLogger("inferd.bert_numpy")

F32 = npt.NDArray[np.float32]

# Eigen's rational erf approximation, as in mlx_embed (|error| < 1e-6 in float32).
_ERF_P = (-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04, -5.69250639462346e-05,
          -2.10102402082508e-06, 2.77068142495902e-08, -2.72614225801306e-10)  # fmt: skip
_ERF_Q = (-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03, -2.13374055278905e-04,
          -1.45660718464996e-05)  # fmt: skip
_SQRT_HALF = np.float32(0.7071067811865476)
#: Output columns per contiguous weight block (see the module doc), per matrix. Chosen on MiniLM (gate_v7's first 150
#: queries, variants interleaved in one process, load ~11): 64 for the three 384-input matrices (32, 48, 96, 128, 192
#: were no better), 32 for ffn_out, whose 1536-long rows make 64-column blocks 384 KB: p50 0.78-0.81x of 64 there
#: (16: 0.86x, 48: 0.92x, two runs).
COLUMN_BLOCK = 64
COLUMN_BLOCKS: Mapping[str, int] = {"qkv": 64, "attn_out": 64, "ffn_in": 64, "ffn_out": 32}


def gelu_(x: F32) -> F32:
    """Exact (erf) GELU in place, with the same fast erf as the MLX path; returns x."""
    z = x * _SQRT_HALF
    np.clip(z, -4.0, 4.0, out=z)
    z2 = z * z
    p = np.full_like(z, _ERF_P[-1])
    for c in reversed(_ERF_P[:-1]):
        p *= z2
        p += np.float32(c)
    q = np.full_like(z, _ERF_Q[-1])
    for c in reversed(_ERF_Q[:-1]):
        q *= z2
        q += np.float32(c)
    p *= z
    p /= q  # erf(x / sqrt 2)
    p += 1.0
    x *= p
    x *= np.float32(0.5)
    return x


def layer_norm_(x: F32, weight: F32, bias: F32, eps: float) -> F32:
    """LayerNorm over the last axis, in place; returns x."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[-1])
    x *= 1.0 / np.sqrt(var + np.float32(eps))
    x *= weight
    x += bias
    return x


class BlockedMatrix:
    """An (in_features, out_features) float32 matrix kept as contiguous blocks of at most `block` output columns;
    `x @ matrix` is one sgemm per block into a slice of one output array (see the module doc)."""

    def __init__(self, matrix: F32, block: int = COLUMN_BLOCK) -> None:
        self.shape = (int(matrix.shape[0]), int(matrix.shape[1]))
        columns = self.shape[1]
        step = max(1, block)
        self.blocks = tuple(
            (start, min(start + step, columns), np.ascontiguousarray(matrix[:, start : start + step]))
            for start in range(0, columns, step)
        )

    def left_multiply(self, x: F32) -> F32:
        """x @ matrix for a C-contiguous 2-D x of in_features columns."""
        out = np.empty((x.shape[0], self.shape[1]), dtype=np.float32)
        for start, end, block in self.blocks:
            np.matmul(x, block, out=out[:, start:end])
        return out


@dataclass(frozen=True)
class LayerWeights:
    """One encoder layer's fp32 weights: matrices (`*_t`) in_features x out_features in column blocks, the rest as
    numpy arrays."""

    qkv_t: BlockedMatrix
    qkv_b: F32
    attn_out_t: BlockedMatrix
    attn_out_b: F32
    attn_norm_w: F32
    attn_norm_b: F32
    ffn_in_t: BlockedMatrix
    ffn_in_b: F32
    ffn_out_t: BlockedMatrix
    ffn_out_b: F32
    ffn_norm_w: F32
    ffn_norm_b: F32


class NumpyBert:
    """BERT forward for ONE unpadded token sequence; returns the mean-pooled, unit-length vector (d,)."""

    def __init__(
        self,
        params: Mapping[str, F32],
        layers: int,
        heads: int,
        eps: float,
        blocks: Mapping[str, int] = COLUMN_BLOCKS,
    ) -> None:
        self._word = params["word.weight"]
        self._position = params["position.weight"]
        self._type0 = params["token_type.weight"][0]
        self._norm = (params["norm.weight"], params["norm.bias"])
        self._heads = heads
        self._eps = eps
        self._layers = [_layer_weights(params, f"layers.{i}.", blocks) for i in range(layers)]

    @property
    def max_positions(self) -> int:
        return int(self._position.shape[0])

    def encode(self, ids: Sequence[int]) -> F32:
        """The unit-length sentence vector of one sequence (no padding, so no attention mask)."""
        length = len(ids)
        x = self._word[np.asarray(ids, dtype=np.intp)]  # a fresh array: fancy indexing copies
        x += self._position[:length]
        x += self._type0
        layer_norm_(x, *self._norm, self._eps)
        hidden = x.shape[1]
        head_dim = hidden // self._heads
        scale = np.float32(1.0 / math.sqrt(head_dim))
        for w in self._layers:
            qkv = w.qkv_t.left_multiply(x)
            qkv += w.qkv_b
            # (L, 3, H, hd) -> (3, H, L, hd)
            q, k, v = qkv.reshape(length, 3, self._heads, head_dim).transpose(1, 2, 0, 3)
            scores = np.matmul(q, k.transpose(0, 2, 1))
            scores *= scale
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            attended = np.ascontiguousarray(np.matmul(scores, v).transpose(1, 0, 2).reshape(length, hidden))
            out = w.attn_out_t.left_multiply(attended)
            out += w.attn_out_b
            out += x
            x = layer_norm_(out, w.attn_norm_w, w.attn_norm_b, self._eps)
            h = w.ffn_in_t.left_multiply(x)
            h += w.ffn_in_b
            gelu_(h)
            out = w.ffn_out_t.left_multiply(h)
            out += w.ffn_out_b
            out += x
            x = layer_norm_(out, w.ffn_norm_w, w.ffn_norm_b, self._eps)
        pooled: F32 = x.mean(axis=0)
        pooled /= np.float32(max(float(np.sqrt(np.dot(pooled, pooled))), 1e-12))
        return pooled


def _layer_weights(params: Mapping[str, F32], prefix: str, blocks: Mapping[str, int]) -> LayerWeights:
    """One layer's matrices as contiguous float32 (in, out) column blocks (see the module doc); biases and norms
    as they are (views)."""

    def matrix(name: str) -> BlockedMatrix:
        matrix = np.asarray(params[f"{prefix}{name}.weight"], dtype=np.float32).T
        return BlockedMatrix(matrix, blocks.get(name, COLUMN_BLOCK))

    def vector(name: str, kind: str) -> F32:
        return params[f"{prefix}{name}.{kind}"]

    return LayerWeights(
        qkv_t=matrix("qkv"),
        qkv_b=vector("qkv", "bias"),
        attn_out_t=matrix("attn_out"),
        attn_out_b=vector("attn_out", "bias"),
        attn_norm_w=vector("attn_norm", "weight"),
        attn_norm_b=vector("attn_norm", "bias"),
        ffn_in_t=matrix("ffn_in"),
        ffn_in_b=vector("ffn_in", "bias"),
        ffn_out_t=matrix("ffn_out"),
        ffn_out_b=vector("ffn_out", "bias"),
        ffn_norm_w=vector("ffn_norm", "weight"),
        ffn_norm_b=vector("ffn_norm", "bias"),
    )


# ------------------------------------------------------------------------------------------ BLAS threads
_NUMPY_BLAS_SET_LOCAL: Callable[[int], int] | None = None
_probed = False


def _numpy_blas_set_threads_local() -> Callable[[int], int] | None:
    """numpy's bundled OpenBLAS `openblas_set_num_threads_local` (per calling thread), if it exports it."""
    global _NUMPY_BLAS_SET_LOCAL, _probed
    if _probed:
        return _NUMPY_BLAS_SET_LOCAL
    _probed = True
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for lib in sorted(libs.glob("libscipy_openblas*.so*")) if libs.is_dir() else []:
        try:
            handle = ctypes.CDLL(str(lib))
            fn = handle.openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.argtypes = [ctypes.c_int]
        fn.restype = ctypes.c_int
        _NUMPY_BLAS_SET_LOCAL = fn
        break
    return _NUMPY_BLAS_SET_LOCAL


def use_one_blas_thread() -> bool:
    """Make numpy's BLAS single-threaded for the calling thread only; False when that is not possible.

    A ~10-token query is too small to split: a second BLAS thread only adds hand-offs, and on a busy 2-core
    machine a spinning helper thread waiting for a core turns 4 ms into 50+ ms.
    """
    fn = _numpy_blas_set_threads_local()
    if fn is None:
        return False
    fn(1)
    return True


__all__ = [
    "COLUMN_BLOCK",
    "COLUMN_BLOCKS",
    "BlockedMatrix",
    "LayerWeights",
    "NumpyBert",
    "gelu_",
    "layer_norm_",
    "use_one_blas_thread",
]
