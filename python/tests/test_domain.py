# domain= on calls (gt4py's meaning): a @field_operator called with out= and domain={D: (start,
# stop)} computes only that part of out; a @program sets its domains inside and takes none.
import numpy as np
import pytest

import weir
from conftest import AXPY, LAPLACIAN, SUM_DIFF, example, laplacian_numpy, program

LAP = example("cartesian/laplacian.py", "lap")


class Dimension:
    """Stands in for gt4py's Dimension (not a Debian package): its name is `value`."""

    def __init__(self, value):
        self.value = value


def test_a_stencil_on_the_interior(backend, rng):
    f = rng.random((10, 8, 3))
    out = np.full_like(f, -7.0)
    lap = weir.load(LAP, backend=backend)
    lap(f, out=out, domain={"I": (1, 9), "J": (1, 7)})
    want = np.full_like(f, -7.0)
    want[1:-1, 1:-1] = laplacian_numpy(f)
    np.testing.assert_array_equal(out, want)  # every point outside the domain untouched
    # gt4py's Dimension objects (here a stand-in with the same `value`) name dimensions too;
    # K not given: all of it.
    out2 = np.zeros_like(f)
    lap(f, out=out2, domain={Dimension("I"): (2, 5), Dimension("J"): (1, 3)})
    want2 = np.zeros_like(f)
    want2[2:5, 1:3] = laplacian_numpy(f)[1:4, 0:2]
    np.testing.assert_array_equal(out2, want2)


def test_point_wise_operator_and_repeated_calls(backend, rng):
    axpy = weir.load(AXPY, backend=backend)
    x, y = rng.random((6, 5)), rng.random((6, 5))
    out = np.zeros((6, 5))
    for (i0, i1), (j0, j1) in [((0, 6), (1, 3)), ((2, 4), (0, 5)), ((5, 6), (4, 5)), ((3, 3), (0, 5))]:
        out[:] = -1.0
        axpy(2.0, x, y, out=out, domain={"I": (i0, i1), "J": (np.int64(j0), j1)})
        want = np.full((6, 5), -1.0)
        want[i0:i1, j0:j1] = 2.0 * x[i0:i1, j0:j1] + y[i0:i1, j0:j1]
        np.testing.assert_array_equal(out, want)
    # The same operator without domain= still computes all of out.
    axpy(3.0, x, y, out=out)
    np.testing.assert_array_equal(out, 3.0 * x + y)


def test_tuple_results_share_the_domain(backend, rng):
    x, y = rng.random((4, 3)), rng.random((4, 3))
    s, d = np.zeros((4, 3)), np.zeros((4, 3))
    weir.load(SUM_DIFF, backend=backend)(x, y, out=(s, d), domain={"I": (1, 3)})
    np.testing.assert_array_equal(s[1:3], (x + y)[1:3])
    np.testing.assert_array_equal(d[1:3], (x - y)[1:3])
    assert (s[[0, 3]] == 0).all() and (d[[0, 3]] == 0).all()


def test_a_program_takes_no_domain(backend):
    p = weir.load(LAPLACIAN, backend=backend)
    f = np.zeros((6, 6, 2))
    out = np.zeros_like(f)
    with pytest.raises(TypeError, match="laplacian\\(\\) takes no domain=: it is a @program, which sets the domain of each call inside"):
        p(f, out, domain={"I": (1, 3)})
    heat = weir.load(example("orchestration/heat.py", "heat"), backend=backend)
    with pytest.raises(TypeError, match="heat\\(\\) takes no domain=: it is an orchestration function"):
        heat(np.zeros((9, 8)), np.zeros((9, 8)), np.zeros((9, 8)), 0.1, 2, domain={"I": (1, 3)})


def test_domain_errors(backend, rng):
    axpy = weir.load(AXPY, backend=backend)
    x = np.zeros((6, 5))
    out = np.zeros((6, 5))
    with pytest.raises(weir.ArgumentError, match="the domain of 'axpy' gives K, but it returns a field over \\(I, J\\)"):
        axpy(1.0, x, x, out=out, domain={"K": (0, 1)})
    with pytest.raises(TypeError, match="domain: expected a dict \\{dimension: \\(start, stop\\)\\}"):
        axpy(1.0, x, x, out=out, domain=[(0, 1)])
    with pytest.raises(TypeError, match="domain\\['I'\\]: expected \\(start, stop\\), two integers, got \\(0, 1.5\\)"):
        axpy(1.0, x, x, out=out, domain={"I": (0, 1.5)})
    with pytest.raises(TypeError, match="domain: a key names a dimension: its name \\('I'\\) or a gt4py Dimension, got int"):
        axpy(1.0, x, x, out=out, domain={0: (0, 1)})
    # Outside out: refused before the call, in the caller's terms (user30 F2a: the program's
    # check named the result '__out' at the operator's def line).
    with pytest.raises(weir.ArgumentError, match="^domain\\['J'\\] = \\(1, 9\\) reaches outside out, which is 5 long along J"):
        axpy(1.0, x, x, out=out, domain={"J": (1, 9)})
    with pytest.raises(weir.ArgumentError, match="^domain\\['I'\\] = \\(-1, 2\\) reaches outside out, which is 6 long along I"):
        axpy(1.0, x, x, out=out, domain={"I": (-1, 2)})
    # The operator's own argument errors, in its words.
    with pytest.raises(TypeError, match="axpy\\(\\) missing argument 'y'"):
        axpy(1.0, x, out=out, domain={"I": (0, 1)})
    with pytest.raises(TypeError, match="unexpected argument 'z' \\(it takes a, x, y, out=\\)"):
        axpy(1.0, x, x, z=x, out=out, domain={"I": (0, 1)})
    with pytest.raises(ValueError, match="arguments 'out' and 'x' share memory"):
        axpy(1.0, x, x, out=x, domain={"I": (0, 1)})
    # Shifted reads past the input: located, as for a @program's call.
    lap = weir.load(LAP, backend=backend)
    f = np.zeros((6, 6, 2))
    with pytest.raises(weir.ProgramError, match="outside|does not cover") as e:
        lap(f, out=np.zeros_like(f), domain={"I": (0, 5), "J": (1, 5)})
    assert e.value.file.endswith("laplacian.py")
    assert (out == 0).all()


def test_a_program_domain_bounded_by_scalars_outside_its_output(backend):
    # Both backends refuse a bound outside `o` with the call's line and the domain as given (the
    # cpu backend said "writes o[-1 .. -1] in dimension 1" for k0 = -2, and "K: [0, 12)" for
    # k0 = 3, k1 = 12), and write nothing.
    scan = weir.load(program("column_part.py", "part_scan"), backend=backend)
    v = np.arange(1.0, 41.0).reshape(4, 10)
    o = np.full((4, 10), -1.0)
    for (k0, k1), said in [((-2, 3), "K: \\[-2, 3\\)"), ((3, 12), "K: \\[3, 12\\)")]:
        with pytest.raises(weir.ProgramError, match=said + ", outside the output field 'o' \\(K: \\[0, 10\\)\\)") as e:
            scan(v=v, o=o, k0=k0, k1=k1)
        assert e.value.file.endswith("column_part.py") and e.value.line == 18
    assert (o == -1.0).all()
    # Inside: rows 1 and 2, levels 3, 2, 1 summed backward from level 3 (by hand: v[i, 3],
    # v[i, 3] + v[i, 2], v[i, 3] + v[i, 2] + v[i, 1]); everything else untouched.
    scan(v=v, o=o, k0=1, k1=4)
    want = np.full((4, 10), -1.0)
    for i in (1, 2):
        want[i, 3] = v[i, 3]
        want[i, 2] = v[i, 3] + v[i, 2]
        want[i, 1] = v[i, 3] + v[i, 2] + v[i, 1]
    np.testing.assert_array_equal(o, want)
    # A bound out of its declared type's range is refused on every call, also the repeated ones
    # with the arrays of an earlier call (the SDFG holds k1 as an int64 symbol).
    for _ in range(2):
        with pytest.raises(weir.ArgumentError, match="argument 'k1': expected int32 scalar, got 4294967299 \\(out of range\\)"):
            scan(v=v, o=o, k0=1, k1=2**32 + 3)
    np.testing.assert_array_equal(o, want)


def test_a_domain_past_a_tuple_out_names_the_array_as_given(backend, rng):
    # user30 F2a: "'__out_0' is written over I: [0, 50)" at the operator's def line.
    x, y = rng.random((4, 3)), rng.random((4, 3))
    s, d = np.zeros((4, 3)), np.zeros((4, 3))
    f = weir.load(SUM_DIFF, backend=backend)
    with pytest.raises(weir.ArgumentError,
                       match=r"^domain\['I'\] = \(0, 50\) reaches outside out\[0\], which is 4 long along I "
                             r"\(I: \[0, 4\)\); the domain is a part of the output$"):
        f(x, y, out=(s, d), domain={"I": (0, 50)})
    with pytest.raises(weir.ArgumentError, match=r"^domain\['J'\] = \(-1, 2\) reaches outside out, which is 3 long"):
        weir.load(AXPY, backend=backend)(1.0, x, y, out=s, domain={"J": (-1, 2)})
    # The results of one call agree in size with domain= too.
    with pytest.raises(weir.ArgumentError, match=r"^'out\[1\]' is 2 long along J but 'out\[0\]' is 3"):
        f(x, y, out=(s, np.zeros((4, 2))), domain={"I": (1, 3)})
    assert (s == 0).all()
