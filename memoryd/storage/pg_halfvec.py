"""The query vector of a pgvector search as a bound parameter in halfvec's binary form.

A search used to send the query as pgvector's text form (`vector_text`: 384 floats rounded to 6 decimals, joined):
~0.2 ms of Python per search, with the GIL held, and the three kinds' searches of an assembly start together on
three threads right after the query embedding, so they waited on each other for it (docs/postgres_search.md, tenth
pass). The server parsed that text with `strtof` and rounded each float to half precision (`halfvec_in`).

`halfvec_components` makes the same half-precision values in numpy — rounded to 6 decimals, then to float4, then to
half (round to nearest even, as pgvector's conversion) — and `HalfvecParam` carries them in halfvec's binary form
(pgvector's `halfvec_recv`: dimension and a zero as big-endian int16, then each component's IEEE half, big-endian),
sent as a binary parameter whose type the server takes from the statement's `::halfvec(<d>)` cast (oid 0). The
bytes the server holds are identical to those the text gave (tests/unit/test_pg_halfvec_param.py compares them
for random and stored vectors), so every distance, ranking and recall is unchanged.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import psycopg
from psycopg.adapt import AdaptersMap, Dumper
from psycopg.pq import Format

#: pgvector's limit for halfvec (HALFVEC_MAX_DIM).
MAX_DIMENSION = 16000


@dataclass(frozen=True)
class HalfvecParam:
    """A vector's halfvec binary form, for a `%(name)b` placeholder followed by `::halfvec(<d>)`."""

    data: bytes


class HalfvecParamDumper(Dumper):
    """HalfvecParam → its bytes as a binary parameter of unspecified type (the statement's cast names it)."""

    format = Format.BINARY
    oid = 0

    def dump(self, obj: HalfvecParam) -> bytes:
        return obj.data


def register(adapters: AdaptersMap) -> None:
    """Let connections with these adapters bind HalfvecParam (each memoryd connection gets it when opened)."""
    adapters.register_dumper(HalfvecParam, HalfvecParamDumper)


# Every connection opened after this import can bind it too, however it was opened (a connection copies psycopg's
# global adapters when it is created): without a dumper a search would fail and the read path fall back to full text.
register(psycopg.adapters)


def halfvec_components(vector: npt.NDArray[np.floating]) -> npt.NDArray[np.float16]:
    """The half-precision components `halfvec_in` makes of `pg_vectors.vector_text(vector)`: each component
    rounded to 6 decimals, read as float4 (strtof), then rounded to half."""
    flat = np.asarray(vector).reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):  # out of half's range: inf, refused by halfvec_param
        return np.round(flat.astype(np.float64), 6).astype(np.float32).astype(np.float16)


def halfvec_param(vector: npt.NDArray[np.floating]) -> HalfvecParam:
    """`vector` as the halfvec binary parameter; ValueError for no components, too many, or a non-finite one (what
    halfvec_in and halfvec_recv refuse)."""
    half = halfvec_components(vector)
    if not 0 < half.size <= MAX_DIMENSION:
        raise ValueError(f"a halfvec holds 1 to {MAX_DIMENSION} components")
    if not np.isfinite(half).all():
        raise ValueError("a halfvec component must be finite")
    return HalfvecParam(struct.pack(">HH", half.size, 0) + half.astype(">f2").tobytes())
