# Fields with an extent 0 in any dimension: the call does nothing and the result is empty, on
# every backend (the embedded backend's meaning). NumPy gives an empty array the strides of
# extent 1 ((1, 1) for shape (3, 0)), the program's strides are products of extents ((0, 1)):
# an array without elements is never addressed, so the strides are not compared.
import numpy as np
import pytest

import weir
from conftest import LAPLACIAN, laplacian_numpy, program

COLUMN_SUM = program("column_sum.py", "column_sum")


@pytest.mark.parametrize("shape", [(3, 0), (0, 4), (1, 0), (0, 0)])
def test_a_scan_over_an_empty_field(backend, shape):
    p = weir.load(COLUMN_SUM, backend=backend)
    v, out = np.ones(shape), np.zeros(shape)
    p(v, out)
    assert out.shape == shape and out.size == 0


@pytest.mark.parametrize("shape", [(12, 10, 0), (12, 0, 4), (0, 10, 4), (12, 1, 0)])
def test_a_stencil_over_an_empty_field(backend, shape):
    p = weir.load(LAPLACIAN, backend=backend)
    f, out = np.ones(shape), np.zeros(shape)
    p(f, out)
    assert out.shape == shape and out.size == 0


def test_the_same_program_then_runs_on_elements(backend):
    """After an empty call the program still computes (its strides are the new shape's)."""
    p = weir.load(COLUMN_SUM, backend=backend)
    p(np.ones((3, 0)), np.zeros((3, 0)))
    v, out = np.arange(8.0).reshape(2, 4), np.zeros((2, 4))
    p(v, out)
    np.testing.assert_array_equal(out, [[0.0, 1.0, 3.0, 6.0], [4.0, 9.0, 15.0, 22.0]])
    lap = weir.load(LAPLACIAN, backend=backend)
    f = np.arange(5.0 * 4 * 2).reshape(5, 4, 2) ** 2
    out3 = np.zeros_like(f)
    lap(np.ones((5, 4, 0)), np.zeros((5, 4, 0)))
    lap(f, out3)
    np.testing.assert_array_equal(out3[1:-1, 1:-1], laplacian_numpy(f))
