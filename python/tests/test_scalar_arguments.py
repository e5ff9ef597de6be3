# One rule for every scalar argument from Python (G18's addendum, docs/adr/0042 session 34), as
# gt4py checks a scalar's type (the value's type must be the parameter's) with NumPy's safe
# widening of an int to a floating-point parameter: an integer parameter takes an int, never a
# float (2.0, nan) or a bool; a floating-point parameter a float or an int, never a bool; an
# int out of the parameter's range is refused. Same words on every backend, on the first call
# and on the repeated-call fast path, for a program's scalar and an orchestration's loop count.
import numpy as np
import pytest

import weir
from conftest import AXPY, TIMES

LOOP = """
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32
C = gtx.Dimension('C')
@gtx.field_operator
def plus_one(u: Field[Dims[C], float64]) -> Field[Dims[C], float64]:
    return u + 1.0
@gtx.program
def step(u: Field[Dims[C], float64], out: Field[Dims[C], float64]):
    plus_one(u, out=out)
def loop(u: Field[Dims[C], float64], out: Field[Dims[C], float64], steps: int32):
    for _ in range(steps):
        step(u, out)
        step(out, u)
"""

REFUSED_FOR_INT = [
    (2.0, "2.0", "a float for an integer parameter"),
    (np.float64(3.0), "3.0", "a float for an integer parameter"),
    (float("nan"), "nan", "a float for an integer parameter"),
    (True, "True", "a bool for an integer parameter"),
    (np.bool_(False), "False", "a bool for an integer parameter"),
]


@pytest.mark.parametrize("value,shown,why", REFUSED_FOR_INT)
def test_an_int32_scalar_takes_only_ints(backend, value, shown, why):
    p = weir.load(TIMES, backend=backend)
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = np.zeros_like(x)
    for first in (True, False):  # the first call, then the repeated-call fast path
        with pytest.raises(TypeError, match=f"argument 'n': expected a int32 number, got {shown} \\({why}; pass an int\\)"):
            p(value, x, out=out)
        assert not out.any()  # nothing ran
        if first:
            p(0, x, out=out)
    p(np.int64(3), x, out=out)  # a NumPy integer is an int
    np.testing.assert_array_equal(out, 3 * x)
    with pytest.raises(weir.ArgumentError, match="argument 'n': expected int32 scalar, got 2147483648 \\(out of range\\)"):
        p(2**31, x, out=out)


@pytest.mark.parametrize("value,shown,why", REFUSED_FOR_INT)
def test_an_orchestration_loop_count_takes_only_ints(backend, tmp_path, value, shown, why):
    src = tmp_path / "loop.py"
    src.write_text(LOOP)
    p = weir.load(f"{src}::loop", backend=backend)
    u, out = np.zeros(3), np.zeros(3)
    p(u, out, 1)
    np.testing.assert_array_equal(u, [2.0, 2.0, 2.0])
    with pytest.raises(TypeError, match=f"argument 'steps': expected a int32 number, got {shown} \\({why}; pass an int\\)"):
        p(u, out, value)
    np.testing.assert_array_equal(u, [2.0, 2.0, 2.0])  # nothing ran


def test_a_float64_scalar_takes_floats_and_ints_but_no_bool(backend):
    p = weir.load(AXPY, backend=backend)
    x, y = np.full((2, 3), 2.0), np.full((2, 3), 1.0)
    out = np.zeros((2, 3))
    p(3, x, y, out=out)  # an int widens as in NumPy: 3 * 2 + 1
    np.testing.assert_array_equal(out, np.full((2, 3), 7.0))
    for value in (True, np.bool_(True)):
        with pytest.raises(TypeError, match="argument 'a': expected a float64 number, got True \\(a bool for a floating-point parameter; pass a float\\)"):
            p(value, x, y, out=out)
    np.testing.assert_array_equal(out, np.full((2, 3), 7.0))
