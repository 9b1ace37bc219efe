"""Vector encoding: float32 blobs for the embeddings table, and faiss ids that carry the row kind in high bits."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT

_KIND_CODE = {KIND_PINNED: 1, KIND_EPISODE: 2, KIND_TRANSCRIPT: 3}
#: Row kinds that have vectors; identity facts have none (they are always injected, never searched).
VECTOR_KINDS = frozenset(_KIND_CODE)
_CODE_KIND = {code: kind for kind, code in _KIND_CODE.items()}
_SHIFT = 48
_ROW_MASK = (1 << _SHIFT) - 1

Vector = npt.NDArray[np.float32]


def vector_id(kind: str, row_id: int) -> int:
    """faiss id of a row: kind code << 48 | row id (row ids are AUTOINCREMENT, never reused)."""
    return (_KIND_CODE[kind] << _SHIFT) | (int(row_id) & _ROW_MASK)


def split_id(vid: int) -> tuple[str, int]:
    """(kind, row id) of a faiss id."""
    return _CODE_KIND[int(vid) >> _SHIFT], int(vid) & _ROW_MASK


def kind_range(kind: str) -> tuple[int, int]:
    """[low, high) faiss id range of one kind, for a range selector."""
    code = _KIND_CODE[kind]
    return code << _SHIFT, (code + 1) << _SHIFT


def normalise(vectors: npt.ArrayLike) -> Vector:
    """Rows scaled to unit length (zero rows stay zero), as float32 C-contiguous."""
    array = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(array / norms, dtype=np.float32)


def to_blob(vector: npt.ArrayLike) -> bytes:
    """One vector → little-endian float32 bytes."""
    return np.asarray(vector, dtype="<f4").reshape(-1).tobytes()


def from_blob(blob: bytes, dimension: int) -> Vector:
    """Bytes → one float32 vector; ValueError when the size does not match the dimension."""
    array = np.frombuffer(blob, dtype="<f4")
    if array.size != dimension:
        raise ValueError(f"vector has {array.size} values, expected {dimension}")
    return array.astype(np.float32)
