"""bert_numpy.BlockedMatrix: the query path's column-blocked weights multiply like the whole matrix."""

from __future__ import annotations

import numpy as np
import pytest

from inferd.backends.bert_numpy import COLUMN_BLOCK, BlockedMatrix


@pytest.mark.parametrize(("rows", "inner", "columns", "block"), [(1, 384, 1536, 64), (12, 1536, 384, 64),
                                                               (7, 384, 100, 64), (3, 5, 7, 1), (9, 384, 1152, 4096)])  # fmt: skip
def test_blocked_product_equals_the_whole_product(rows: int, inner: int, columns: int, block: int) -> None:
    rng = np.random.default_rng(rows * 1000 + columns)
    matrix = rng.standard_normal((inner, columns)).astype(np.float32)
    x = rng.standard_normal((rows, inner)).astype(np.float32)
    blocked = BlockedMatrix(matrix, block)
    assert blocked.shape == (inner, columns)
    assert len(blocked.blocks) == -(-columns // block)
    assert all(b.flags.c_contiguous and b.shape[1] <= block for _, _, b in blocked.blocks)
    product = blocked.left_multiply(x)
    assert product.dtype == np.float32 and product.shape == (rows, columns)
    assert np.allclose(product, x @ matrix, rtol=1e-5, atol=1e-4)


def test_blocks_are_copies_not_views() -> None:
    matrix = np.ones((4, 2 * COLUMN_BLOCK + 3), dtype=np.float32)
    blocked = BlockedMatrix(matrix.T.T)
    matrix[:] = 0.0
    assert float(blocked.left_multiply(np.ones((1, 4), dtype=np.float32)).min()) == 4.0
