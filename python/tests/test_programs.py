# weir.load and calling programs with NumPy arrays: results against NumPy, no copies, the
# argument checks, located errors, offset_provider, orchestration, the program cache (the GIL:
# test_gil.py).
import os
import subprocess
import sys

import numpy as np
import pytest

import weir
from weir.gt4py_stand_in import Dimension, DimensionKind
from conftest import (
    AXPY,
    AXPY_PROGRAM,
    EDGES,
    GRID_OFFSETS,
    HDIFF,
    LAPLACIAN,
    PROGRAMS,
    ROOT,
    SUM_DIFF,
    assert_laplacian_argument_errors,
    example,
    hdiff_numpy,
    heat_numpy,
    laplacian_numpy,
    program,
)


def test_laplacian_against_numpy(backend, rng):
    p = weir.load(LAPLACIAN, backend=backend)
    assert isinstance(p, weir.Program)
    assert p.name == "laplacian" and p.parameters == ["f", "out"] and p.offsets == []
    assert p.backend is backend
    f = rng.random((10, 9, 4))
    out = np.zeros_like(f)
    assert p(f, out) is None
    np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))
    assert (out[0] == 0).all() and (out[:, -1] == 0).all()  # outside out[1:-1, 1:-1]: untouched


def test_hdiff_against_numpy(backend, rng):
    u = rng.random((20, 18, 5))
    coeff = rng.random((20, 18, 5))
    out = np.zeros_like(u)
    weir.load(HDIFF, backend=backend)(u, coeff, out=out)
    np.testing.assert_allclose(out[2:-2, 2:-2], hdiff_numpy(u, coeff), rtol=0, atol=1e-13)


def test_arrays_are_not_copied(backend, rng):
    # out is a C-contiguous view into a larger array: the results land in the larger array.
    big = np.zeros((3, 8, 7, 2))
    out = big[1]
    f = rng.random((8, 7, 2))
    address = out.ctypes.data
    weir.load(LAPLACIAN, backend=backend)(f, out=out)
    assert np.shares_memory(out, big) and out.ctypes.data == address
    np.testing.assert_array_equal(big[1, 1:-1, 1:-1], laplacian_numpy(f))
    assert (big[0] == 0).all() and (big[2] == 0).all()


def test_field_operator_run_directly_with_scalars_and_out(backend, rng):
    x, y = rng.random((6, 5)), rng.random((6, 5))
    out = np.empty((6, 5))
    p = weir.load(AXPY, backend=backend)
    assert p.parameters == ["a", "x", "y"]
    p(2.5, x, y, out=out)
    np.testing.assert_array_equal(out, 2.5 * x + y)
    p(np.float64(-1.0), x=x, y=y, out=out)  # NumPy scalars, keywords
    np.testing.assert_array_equal(out, -x + y)
    p(3, x, y, out=out)  # an int for a float64
    np.testing.assert_array_equal(out, 3.0 * x + y)
    weir.load(AXPY_PROGRAM, backend=backend)(0.5, x, y, out)
    np.testing.assert_array_equal(out, 0.5 * x + y)


def test_tuple_results(backend, rng):
    x, y = rng.random((4, 3)), rng.random((4, 3))
    s, d = np.empty((4, 3)), np.empty((4, 3))
    weir.load(SUM_DIFF, backend=backend)(x, y, out=(s, d))
    np.testing.assert_array_equal(s, x + y)
    np.testing.assert_array_equal(d, x - y)
    with pytest.raises(TypeError, match="out: expected a tuple of 2 arrays"):
        weir.load(SUM_DIFF, backend=backend)(x, y, out=s)


@pytest.mark.parametrize("table_dtype", [np.int32, np.int64])
def test_offset_provider(backend, rng, table_dtype):
    nv, ne = 7, 12
    v = rng.random(nv)
    e2v = rng.integers(0, nv, size=(ne, 2)).astype(table_dtype)
    out = np.zeros(ne)
    p = weir.load(EDGES, backend=backend)
    assert p.offsets == ["E2V"]
    p(v, out, offset_provider={"E2V": e2v})
    np.testing.assert_array_equal(out, v[e2v[:, 0]] + v[e2v[:, 1]])
    # A table of 3 neighbours per edge, with -1 where there is none.
    e2v3 = rng.integers(-1, nv, size=(ne, 3)).astype(table_dtype)
    p(v, out, offset_provider={"E2V": e2v3})
    np.testing.assert_array_equal(out, np.where(e2v3 >= 0, v[e2v3], 0.0).sum(axis=1))


def test_an_orchestration_missing_a_table_says_so_as_a_program_does(backend, tmp_path):
    # user32 H12: an orchestration called it "missing argument 'E2V' (int32 array)".
    (tmp_path / "orch_edges.py").write_text(
        "from edges import *\n"
        "def twice(v: Field[Dims[Vertex], float64], out: Field[Dims[Edge], float64]):\n"
        "    edge_sum_program(v, out, offset_provider={})\n"
        "    edge_sum_program(v, out, offset_provider={})\n"
    )
    p = weir.load(f"{tmp_path / 'orch_edges.py'}::twice", backend=backend, include=[str(PROGRAMS)])
    want = "missing connectivity table 'E2V' \\(an int32 or int64 array of shape \\(n_Edge, max_neighbours\\)\\)"
    with pytest.raises(TypeError, match=want):
        p(np.ones(4), np.zeros(3))
    with pytest.raises(TypeError, match=want):
        p(np.ones(4), np.zeros(3), offset_provider={"V2E": np.zeros((4, 2), np.int32)})


def test_offset_provider_errors(backend):
    p = weir.load(EDGES, backend=backend)
    v, out = np.ones(4), np.zeros(3)
    with pytest.raises(TypeError, match="missing connectivity table 'E2V'"):
        p(v, out)
    # Another program's table is ignored (gt4py's one offset_provider for the grid): E2V is missing.
    with pytest.raises(TypeError, match="missing connectivity table 'E2V'"):
        p(v, out, offset_provider={"V2E": np.zeros((4, 2), np.int32)})
    with pytest.raises(TypeError, match="offset_provider\\['E2V'\\]: expected a NumPy int32 or int64 array"):
        p(v, out, offset_provider={"E2V": np.zeros((3, 2))})
    # An entry outside Vertex: the compiled backends check tables before running (a ValueError),
    # the embedded backend where it reads through them (located at the read).
    with pytest.raises((weir.ArgumentError, weir.ProgramError), match="E2V.* 9") as e:
        p(v, out, offset_provider={"E2V": np.full((3, 2), 9, np.int32)})
    if backend is weir.backends.cpu:
        assert isinstance(e.value, ValueError)
    else:
        assert e.value.file.endswith("edges.py") and e.value.line == 14


def test_argument_errors(backend):
    p = weir.load(LAPLACIAN, backend=backend)
    f = np.zeros((6, 6, 2))
    out = np.zeros_like(f)
    assert_laplacian_argument_errors(p, f, out)
    assert (out == 0).all()  # nothing ran


def test_arguments_sharing_memory_with_a_written_one_are_refused(backend):
    # No copies: `out` overlapping an input would be read after it was written.
    p = weir.load(LAPLACIAN, backend=backend)
    f = np.ones((6, 6, 2))
    with pytest.raises(ValueError, match="arguments 'f' and 'out' share memory and the program writes 'out'"):
        p(f, f)
    big = np.ones((7, 6, 2))
    with pytest.raises(weir.ArgumentError, match="share memory"):
        p(big[1:], big[:-1])
    # Inputs may share memory with each other.
    x = np.ones((3, 3))
    out = np.zeros((3, 3))
    weir.load(AXPY, backend=backend)(2.0, x, x, out=out)
    assert (out == 3.0).all()


def test_sizes_that_do_not_fit(backend):
    # weir's own checks (the same words as `weir run`). Fields have sizes of their own (ADR
    # 0049): after the swap, the second step reads u_next (7 long along J) over u's 8 columns.
    heat = weir.load(example("orchestration/heat.py", "heat"), backend=backend)
    with pytest.raises(weir.ProgramError, match="u_next"):
        heat(np.zeros((9, 8)), np.zeros((9, 7)), np.zeros((9, 8)), 0.1, 2)
    heat(np.zeros((9, 8)), np.zeros((9, 7)), np.zeros((9, 8)), 0.1, 1)
    # An input smaller than the output: located at the operator.
    x = np.zeros((4, 3))
    with pytest.raises(weir.ProgramError, match="'x'|does not cover") as e:
        weir.load(AXPY, backend=backend)(1.0, x, x, out=np.zeros((5, 3)))
    assert e.value.file.endswith("pointwise.py") and e.value.line == 11


def test_scalar_argument_errors(backend):
    p = weir.load(AXPY, backend=backend)
    x = np.zeros((2, 2))
    with pytest.raises(TypeError, match="argument 'a': expected a float64 number, got ndarray"):
        p(x, x, x, out=x.copy())
    with pytest.raises(TypeError, match="missing out="):
        p(1.0, x, x)


def test_located_source_error():
    with pytest.raises(weir.SourceError) as e:
        weir.load(program("broken.py", "bad"))
    assert e.value.file.endswith("broken.py")
    assert (e.value.line, e.value.column) == (10, 14)
    assert "cannot add Field[[I], float64] and bool" in str(e.value)
    assert isinstance(e.value, weir.Error)


def test_load_errors():
    with pytest.raises(weir.Error, match="named 'nope' \\(defined: lap, lap_lap, laplacian, bi_laplacian\\)"):
        weir.load(example("cartesian/laplacian.py", "nope"))
    with pytest.raises(weir.Error, match="cannot"):
        weir.load("/nonexistent/x.py::p")


def test_program_error_is_located(backend):
    # lap run directly reads f(I + 1) outside f: located at the shifted read in laplacian.py.
    f = np.zeros((6, 6, 2))
    out = np.zeros_like(f)
    with pytest.raises(weir.ProgramError) as e:
        weir.load(example("cartesian/laplacian.py", "lap"), backend=backend)(f, out=out)
    assert e.value.file is not None and e.value.file.endswith("laplacian.py")
    # The embedded backend names the operator, the compiled bounds check the first shifted read.
    assert (e.value.line, e.value.column) == ((14, 1) if backend is weir.backends.embedded else (15, 23))


def test_with_backend_gives_a_new_program(rng):
    p = weir.load(LAPLACIAN)
    assert p.backend is weir.backends.embedded
    q = p.with_backend(weir.backends.cpu)
    assert q is not p and q.backend is weir.backends.cpu and p.backend is weir.backends.embedded
    f = rng.random((7, 7, 2))
    a, b = np.zeros_like(f), np.zeros_like(f)
    p(f, a)
    q(f, b)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-14)


def test_orchestration_writes_the_callers_arrays(backend, rng):
    u, kappa = rng.random((9, 8)), rng.random((9, 8))
    u_next = u.copy()
    want_u, want_next = heat_numpy(u, u_next, kappa, 0.1, 3)
    address = u.ctypes.data, u_next.ctypes.data
    weir.load(example("orchestration/heat.py", "heat"), backend=backend)(u, u_next, kappa, 0.1, 3)
    assert (u.ctypes.data, u_next.ctypes.data) == address
    np.testing.assert_allclose(u, want_u, rtol=0, atol=1e-14)
    np.testing.assert_allclose(u_next, want_next, rtol=0, atol=1e-14)


def test_a_program_compiled_in_another_process_is_a_cache_hit(tmp_path):
    cache = str(tmp_path / "cache")
    code = (
        "import numpy as np, weir\n"
        f"b = weir.cpu_backend(cache_dir={cache!r})\n"
        f"p = weir.load({LAPLACIAN!r}, backend=b)\n"
        "f = np.ones((5, 5, 1)); p(f, np.zeros_like(f))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    base = weir.cpu_backend(cache_dir=cache)
    artifacts = []

    def recording(program):
        artifacts.append(base.compiler(program))
        return artifacts[-1]

    weir.load(LAPLACIAN, backend=base.replace(compiler=recording)).compile()
    assert len(artifacts) == 1 and artifacts[0].cache_hit


@pytest.mark.skipif(not os.environ.get("WEIR_BIN"), reason="WEIR_BIN (the weir binary; ctest sets it) not set")
def test_a_program_weir_run_compiled_is_a_cache_hit(tmp_path, rng):
    cache = tmp_path / "cache"
    inputs = tmp_path / "in"
    inputs.mkdir()
    u, coeff = rng.random((12, 11, 3)), rng.random((12, 11, 3))
    np.save(inputs / "u.npy", u)
    np.save(inputs / "coeff.npy", coeff)
    subprocess.run(
        [os.environ["WEIR_BIN"], "run", HDIFF, "--backend", "cpu", "--in-dir", str(inputs), "--out", str(tmp_path / "o")],
        check=True,
        cwd=ROOT,
        env=dict(os.environ, WEIR_CACHE_DIR=str(cache)),
        stdout=subprocess.DEVNULL,
    )
    base = weir.cpu_backend(cache_dir=str(cache))
    artifacts = []

    def recording(program):
        artifacts.append(base.compiler(program))
        return artifacts[-1]

    p = weir.load(HDIFF, backend=base.replace(compiler=recording))
    out = np.zeros_like(u)
    p(u, coeff, out)
    assert len(artifacts) == 1 and artifacts[0].cache_hit
    np.testing.assert_array_equal(out, np.load(tmp_path / "o" / "out.npy"))


def test_messages_name_the_file_as_given(backend, monkeypatch):
    # Compiled programs name their source by its canonical path; messages show it as given.
    monkeypatch.chdir(ROOT)
    f = np.zeros((6, 6, 2))
    with pytest.raises(weir.ProgramError) as e:
        weir.load("examples/cartesian/../cartesian/laplacian.py::lap", backend=backend)(f, out=np.zeros_like(f))
    assert e.value.file == "examples/cartesian/../cartesian/laplacian.py"
    assert str(ROOT) not in str(e.value)


def grid_offsets_numpy(v, e2v):
    tmp = v[e2v[:, 0]] + v[e2v[:, 1]]
    return tmp, tmp[:, 1:] - tmp[:, :-1]


def test_offset_provider_of_the_whole_grid(backend, rng):
    # gt4py's model drivers build one offset_provider for the grid and pass it to every program:
    # tables the program does not use, and a Dimension for each Cartesian offset ("Koff": K).
    nv, ne, nk = 6, 9, 5
    e2v = rng.integers(0, nv, size=(ne, 2)).astype(np.int32)
    grid = {
        "E2V": e2v,
        "V2E": rng.integers(-1, ne, size=(nv, 4)).astype(np.int32),
        "C2E": np.zeros((3, 3), np.int64),
        "Koff": Dimension("K", kind=DimensionKind.VERTICAL),
        "Ioff": Dimension("I"),
    }
    p = weir.load(GRID_OFFSETS, backend=backend)
    assert p.offsets == ["E2V"]
    for call in range(2):  # the second call takes the cached path
        v = rng.random((nv, nk))
        tmp, out = np.zeros((ne, nk)), np.full((ne, nk), -7.0)
        p(v, tmp, out, ne, nk, offset_provider=grid)
        want_tmp, want_out = grid_offsets_numpy(v, e2v)
        np.testing.assert_array_equal(tmp, want_tmp)
        np.testing.assert_array_equal(out[:, : nk - 1], want_out)
        np.testing.assert_array_equal(out[:, nk - 1], -7.0)  # outside the domain: untouched
    # Without the Dimension entry (weir never needed it) the same.
    v = rng.random((nv, nk))
    p(v, tmp, out, ne, nk, offset_provider={"E2V": e2v})
    np.testing.assert_array_equal(out[:, : nk - 1], grid_offsets_numpy(v, e2v)[1])


def test_offset_provider_dimension_of_a_cartesian_offset_is_checked(backend, rng):
    nv, ne, nk = 4, 5, 3
    e2v = rng.integers(0, nv, size=(ne, 2)).astype(np.int32)
    p = weir.load(GRID_OFFSETS, backend=backend)
    v, tmp, out = rng.random((nv, nk)), np.zeros((ne, nk)), np.zeros((ne, nk))
    p(v, tmp, out, ne, nk, offset_provider={"E2V": e2v, "Koff": Dimension("K", kind=DimensionKind.VERTICAL)})
    # After a call that cached its checks, a wrong entry is still refused, naming it.
    with pytest.raises(
        TypeError,
        match="offset_provider\\['Koff'\\]: expected the Dimension 'K' that 'Koff' moves along, got the Dimension 'I'",
    ):
        p(v, tmp, out, ne, nk, offset_provider={"E2V": e2v, "Koff": Dimension("I")})
    with pytest.raises(
        TypeError, match="offset_provider\\['Koff'\\]: .*\\(a Cartesian offset needs no table\\), got .*ndarray"
    ):
        p(v, tmp, out, ne, nk, offset_provider={"E2V": e2v, "Koff": np.zeros((ne, 1), np.int32)})
    # A table the program uses is still checked as before.
    with pytest.raises(TypeError, match="offset_provider\\['E2V'\\]: expected a NumPy int32 or int64 array"):
        p(v, tmp, out, ne, nk, offset_provider={"E2V": Dimension("E2V"), "Koff": Dimension("K")})


def test_tuple_out_arrays_of_one_call_agree_and_are_named_as_given(backend, rng):
    # user30 F2c: a longer out[1] was left partly unwritten on cpu (the call ran over out[0]'s
    # domain) and refused naming '__out_1' on embedded. The results of one call share a domain.
    f = weir.load(SUM_DIFF, backend=backend)
    x, y = rng.random((4, 3)), rng.random((4, 3))
    s, d = np.zeros((4, 3)), np.zeros((5, 3))
    with pytest.raises(weir.ArgumentError,
                       match=r"^'out\[1\]' is 5 long along I but 'out\[0\]' is 4: the results of one call "
                             r"of 'sum_diff' are computed over one domain"):
        f(x, y, out=(s, d))
    assert (d == 0).all() and (s == 0).all()
    # Outputs larger than the inputs: every message names out[i], none the internal '__out_i'.
    big = (np.zeros((6, 3)), np.zeros((6, 3)))
    with pytest.raises(weir.ProgramError) as e:
        f(x, y, out=big)
    assert "__out" not in str(e.value)
    assert ("out[0]" in str(e.value)) or ("'x'" in str(e.value))


def test_float32_scalars_outside_float32s_range_are_refused(backend):
    # user30 F12: 1e300 became inf. float32's largest value is (2 - 2**-23) * 2**127
    # = 3.4028234663852886e38; a number that rounds to it is still taken.
    f = weir.load(program("pointwise.py", "scale32"), backend=backend)
    x = np.ones((2, 3), np.float32)
    out = np.zeros_like(x)
    f(2.0, x, out=out)  # a first call: the next ones take the fast path of repeated calls
    np.testing.assert_array_equal(out, np.full((2, 3), 2.0, np.float32))
    for bad in [1e300, -1e39, 3.5e38]:
        with pytest.raises(weir.ArgumentError,
                           match=r"argument 's': expected float32 .*outside float32's range: its largest "
                                 r"magnitude is 3.4028235e\+38"):
            f(bad, x, out=out)
    f(3.4028234663852886e38, x, out=out)
    np.testing.assert_array_equal(out, np.full((2, 3), np.finfo(np.float32).max))
    f(float("inf"), x, out=out)  # inf given as such stays inf
    assert np.isposinf(out).all()
