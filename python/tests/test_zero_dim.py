# 0-d fields from Python: NumPy 0-d arrays as inputs (read as numbers) and as out= targets
# (written in place), on both backends; values worked out by hand.
import numpy as np
import pytest

import weir

from conftest import program

CHAIN = program("zero_dim.py", "chain")


def test_zero_dim_inputs_and_outputs(backend):
    p = weir.load(CHAIN, backend=backend)
    a, s, prod = np.array(2.0), np.array(0.0), np.array(0.0)
    f, out = np.arange(5.0), np.zeros(5)
    p(a, 3.0, s, prod, f, out)
    # s = 2 - 3, prod = 2 * 3, out = f * s
    assert s.shape == () and s == -1.0
    assert prod.shape == () and prod == 6.0
    np.testing.assert_array_equal(out, [0.0, -1.0, -2.0, -3.0, -4.0])
    # A number for the read-only 0-d field works too.
    p(4.0, 0.5, s, prod, f, out)
    assert s == 3.5 and prod == 2.0
    np.testing.assert_array_equal(out, [0.0, 3.5, 7.0, 10.5, 14.0])


def test_a_zero_dim_output_of_another_shape_is_refused(backend):
    p = weir.load(CHAIN, backend=backend)
    s = np.zeros(2)
    with pytest.raises(weir.ArgumentError, match="argument .s.: expected a NumPy float64 array with 0 dimensions"):
        p(np.array(2.0), 3.0, s, np.array(0.0), np.arange(5.0), np.zeros(5))
    np.testing.assert_array_equal(s, [0.0, 0.0])
