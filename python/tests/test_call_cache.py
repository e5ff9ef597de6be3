# Repeated calls (the fast path of docs/adr/0042-python-api.md): a call with arrays laid out as
# in an earlier checked call skips the checks that layout settles; everything that can differ
# between such calls is still checked, with the checked call's messages.
import numpy as np
import pytest

import weir
from conftest import (
    AXPY_PROGRAM,
    EDGES,
    LAPLACIAN,
    SUM_DIFF,
    TIMES,
    assert_laplacian_argument_errors,
    example,
    heat_numpy,
    laplacian_numpy,
)


def test_repeated_calls_see_new_arrays_and_numbers(backend, rng):
    p = weir.load(AXPY_PROGRAM, backend=backend)
    out = np.zeros((5, 4))
    for a in (2.0, -1.5, 3, np.float64(0.25)):
        x, y = rng.random((5, 4)), rng.random((5, 4))
        p(a, x, y, out)
        np.testing.assert_array_equal(out, a * x + y)
        other = np.zeros_like(out)  # another output buffer of the same layout
        p(a, x=x, y=y, out=other)
        np.testing.assert_array_equal(other, a * x + y)


def test_other_shapes_after_a_cached_call(backend, rng):
    p = weir.load(LAPLACIAN, backend=backend)
    for shape in [(6, 5, 2), (9, 7, 3), (6, 5, 2), (4, 4, 1), (9, 7, 3)]:
        f = rng.random(shape)
        out = np.zeros_like(f)
        p(f, out)
        np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))
        assert (out[0] == 0).all() and (out[:, -1] == 0).all()


def test_tuple_results_and_keywords_repeated(backend, rng):
    p = weir.load(SUM_DIFF, backend=backend)
    s, d = np.empty((4, 3)), np.empty((4, 3))
    for _ in range(3):
        x, y = rng.random((4, 3)), rng.random((4, 3))
        p(y=y, x=x, out=(s, d))
        np.testing.assert_array_equal(s, x + y)
        np.testing.assert_array_equal(d, x - y)


def test_errors_after_a_cached_call(backend):
    # The same messages as for a first call (test_programs.py::test_argument_errors).
    p = weir.load(LAPLACIAN, backend=backend)
    f = np.zeros((6, 6, 2))
    out = np.zeros_like(f)
    p(f, out)
    p(f, out)
    assert_laplacian_argument_errors(p, f, out)
    with pytest.raises(ValueError, match="arguments 'f' and 'out' share memory and the program writes 'out'"):
        p(out, out)
    big = np.ones((7, 6, 2))
    with pytest.raises(weir.ArgumentError, match="share memory"):
        p(big[1:], big[:-1])
    with pytest.raises(weir.Error, match="outside|does not cover"):  # an output larger than f
        p(f, np.zeros((7, 6, 2)))
    p(f, out)  # still runs after the errors


def test_numbers_are_checked_on_every_call(backend):
    p = weir.load(TIMES, backend=backend)
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = np.zeros_like(x)
    p(3, x, out=out)
    np.testing.assert_array_equal(out, 3 * x)
    p(-2, x, out=out)
    np.testing.assert_array_equal(out, -2 * x)
    with pytest.raises(weir.ArgumentError, match="'n'.*2147483648"):
        p(2**31, x, out=out)
    with pytest.raises(TypeError, match="argument 'n': expected a int32 number, got str"):
        p("3", x, out=out)
    np.testing.assert_array_equal(out, -2 * x)  # nothing ran


def test_tables_repeated_with_new_entries(backend, rng):
    nv, ne = 7, 12
    p = weir.load(EDGES, backend=backend)
    out = np.zeros(ne)
    for dtype in (np.int32, np.int64, np.int32):
        v = rng.random(nv)
        e2v = rng.integers(0, nv, size=(ne, 2)).astype(dtype)
        p(v, out, offset_provider={"E2V": e2v})
        np.testing.assert_array_equal(out, v[e2v[:, 0]] + v[e2v[:, 1]])
    # Entries are checked on every call, not only on the first of a layout.
    with pytest.raises((weir.ArgumentError, weir.ProgramError), match="E2V"):
        p(v, out, offset_provider={"E2V": np.full((ne, 2), 9, np.int32)})


def test_orchestration_repeated(backend, rng):
    # An orchestration function runs through its Program (not one library): the caller's
    # arrays get the results on every call, also on the embedded backend, which works on copies.
    heat = weir.load(example("orchestration/heat.py", "heat"), backend=backend)
    for steps in (3, 2, 3):
        u, kappa = rng.random((9, 8)), rng.random((9, 8))
        u_next = u.copy()
        want_u, want_next = heat_numpy(u, u_next, kappa, 0.1, steps)
        heat(u, u_next, kappa, 0.1, steps)
        np.testing.assert_allclose(u, want_u, rtol=0, atol=1e-14)
        np.testing.assert_allclose(u_next, want_next, rtol=0, atol=1e-14)


def test_a_repeated_orchestration_call_checks_its_int32_loop_count(backend, tmp_path):
    # user32 H10: an orchestration's int32 loop count is an int64 symbol of its SDFG; the
    # repeated-call fast path rebound it without the int32 range check, and 2**40 looped that
    # often. Every call is refused with the first call's words; a valid count still runs after.
    src = tmp_path / "loop32.py"
    src.write_text(
        "import gt4py.next as gtx\n"
        "from gt4py.next import Dims, Field, float64, int32\n"
        "C = gtx.Dimension('C')\n"
        "@gtx.field_operator\n"
        "def plus_one(u: Field[Dims[C], float64]) -> Field[Dims[C], float64]:\n"
        "    return u + 1.0\n"
        "@gtx.program\n"
        "def step(u: Field[Dims[C], float64], out: Field[Dims[C], float64]):\n"
        "    plus_one(u, out=out)\n"
        "def loop(u: Field[Dims[C], float64], out: Field[Dims[C], float64], n_steps: int32):\n"
        "    for _ in range(n_steps):\n"
        "        step(u, out)\n"
        "        step(out, u)\n"
    )
    p = weir.load(f"{src}::loop", backend=backend)
    u, out = np.zeros(3), np.zeros(3)
    p(u, out, 1)
    np.testing.assert_array_equal(u, [2.0, 2.0, 2.0])
    for bad in (2**40, 2**32 + 2, -(2**31) - 1):
        with pytest.raises(weir.ArgumentError, match=f"argument 'n_steps': expected int32 scalar, got {bad} \\(out of range\\)"):
            p(u, out, bad)
    p(u, out, 2)
    np.testing.assert_array_equal(u, [6.0, 6.0, 6.0])


# weir.CompiledSDFG (SDFG.compile) takes the same fast path: its SDFG's symbols are part of the
# key, given or inferred from the shapes, so a repeated call with another symbol value is
# checked again and never runs on a binding checked for other sizes.
def compiled_laplacian():
    return weir.optimize(weir.load(LAPLACIAN).__sdfg__(), auto="cpu").compile(backend=weir.backends.cpu)


def test_compiled_sdfg_repeated_calls_see_new_arrays_and_shapes(rng):
    c = compiled_laplacian()
    sizes = c.arglist[2:]  # __f_I_size, ..., __out_K_size
    for shape in [(6, 5, 2), (9, 7, 3), (6, 5, 2), (9, 7, 3), (4, 4, 1)]:
        for by_name in (False, True):
            f = rng.random(shape)
            out = np.zeros_like(f)
            if by_name:  # the sizes given as DaCe's callers give symbols
                c(out=out, f=f, **dict(zip(sizes, shape + shape)))
            else:
                c(f, out)
            np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))
            assert (out[0] == 0).all() and (out[:, -1] == 0).all()


def test_compiled_sdfg_errors_after_cached_calls(rng):
    c = compiled_laplacian()
    f = rng.random((6, 5, 2))
    out = np.zeros_like(f)
    for _ in range(3):
        c(f, out)
    # A size that contradicts the arrays, given after calls that inferred it and after calls that
    # gave the right value: the checked call's message, each time.
    for _ in range(2):
        with pytest.raises(weir.ArgumentError, match="expected float64 array of shape \\(20, 5, 2\\), got float64 \\(6, 5, 2\\)"):
            c(f, out, __f_I_size=20)
        c(f, out, __f_I_size=6)
    with pytest.raises(TypeError, match="argument 'f': expected a NumPy float64 array with 3 dimensions"):
        c(f.astype(np.float32), out)
    with pytest.raises(ValueError, match="not C-contiguous"):
        c(np.asfortranarray(f), out)
    with pytest.raises(weir.ArgumentError, match="share memory and the program writes 'out'"):
        c(f, f)
    readonly = np.zeros_like(f)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        c(f, readonly)
    with pytest.raises(TypeError, match="'__f_I_size': expected a int64 number, got 6.5"):
        c(f, out, __f_I_size=6.5)
    with pytest.raises(TypeError, match="unexpected argument 'g'"):
        c(f, out, g=f)
    # Nothing of the refused calls reached the arrays; the next call still computes.
    f2 = rng.random(f.shape)
    c(f2, out)
    np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f2))
