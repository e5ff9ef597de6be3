# @weir.program on definitions of a module file, and weir.gt4py_stand_in (the names a field-view
# module needs to import where gt4py is not installed): docs/adr/0045-python-decorator.md.
import importlib
import sys
import typing

import numpy as np
import pytest

import weir
from conftest import PROGRAMS
from weir import gt4py_stand_in


@pytest.fixture
def stand_in(monkeypatch):
    """gt4py from the stand-in (unless a real gt4py is installed: then that one) and the test
    package importable; both gone again afterwards. True when the stand-in is in use."""
    monkeypatch.syspath_prepend(str(PROGRAMS))
    yield gt4py_stand_in.install()
    gt4py_stand_in.uninstall()
    for name in [n for n in sys.modules if n == "decorated" or n.startswith("decorated.")]:
        del sys.modules[name]


@pytest.fixture
def only_stand_in(stand_in):
    if not stand_in:
        pytest.skip("a real gt4py is installed: these tests are about the stand-in")


@pytest.fixture
def kinds(stand_in):
    return importlib.import_module("decorated.kinds")


def test_a_field_operator(kinds, rng):
    assert isinstance(kinds.axpy, weir.Program)
    assert kinds.axpy.backend is weir.backends.cpu
    assert kinds.axpy.reference == f"{PROGRAMS / 'decorated' / 'kinds.py'}::axpy"
    x, y = rng.random((5, 4)), rng.random((5, 4))
    out = np.zeros_like(x)
    kinds.axpy(1.5, x, y, out=out)
    np.testing.assert_array_equal(out, 1.5 * x + y)


def test_a_program_decorated_bare_runs_on_the_embedded_backend(kinds, rng):
    assert kinds.difference_program.backend is weir.backends.embedded
    x = rng.random((6, 3))
    out = np.zeros_like(x)
    kinds.difference_program(x, out)
    np.testing.assert_array_equal(out[:-1], x[1:] - x[:-1])
    assert (out[-1] == 0).all()


def test_a_field_operator_calling_a_scan_operator(kinds, rng):
    x = rng.random((3, 2, 5))
    out = np.zeros_like(x)
    kinds.column_sums(x, out=out)
    np.testing.assert_allclose(out, np.cumsum(x, axis=2), rtol=0, atol=1e-15)


def test_a_scan_operator_is_refused_as_weir_load_refuses_it(stand_in):
    # Run directly, a scan operator has values of one level, no columns: the error, located at
    # the definition, names the field operator that calls it.
    with pytest.raises(weir.SourceError, match=r"'column_product' is a @scan_operator: .*in this file: column_products"):
        importlib.import_module("decorated.scan_direct")


def test_an_orchestration_function(kinds, rng):
    x, y = rng.random((4, 4)), rng.random((4, 4))
    tmp, out = np.zeros_like(x), np.zeros_like(x)
    kinds.axpy_twice(2.0, x, y, tmp, out)
    np.testing.assert_array_equal(tmp, 2.0 * x + y)
    np.testing.assert_array_equal(out, 2.0 * x + (2.0 * x + y))


def test_an_orchestration_function_with_loops(kinds, rng):
    # Each for-iteration adds 2 a x to y, each while-iteration (a - 1) x: n (a + 1) x in all.
    x, y = rng.random((4, 4)), rng.random((4, 4))
    y0, tmp = y.copy(), np.zeros_like(x)
    kinds.axpy_steps(3.0, x, y, tmp, 2)
    np.testing.assert_allclose(y, y0 + 2 * (2 * 3.0 + (3.0 - 1.0)) * x, rtol=1e-14)


def _time_loop_reference(u, u_next, dt, limit, n_steps):
    """time_loop's buffers after the call, worked out with NumPy as gt4py would run it."""
    acc = np.zeros_like(u)
    total = np.zeros_like(u)
    for _ in range(n_steps):
        if dt * u.max() > limit:
            dt = dt * 0.5
        u_next[...] = u + dt * (1.0 - u)
        total[...] = acc + u_next
        acc = total + u_next
        u, u_next = u_next, u
    total[...] = acc + u
    return total


@pytest.mark.parametrize("n_steps", [0, 1, 4])
def test_an_orchestration_function_with_a_time_loop(stand_in, rng, n_steps):
    # A `for` loop with a swap, an `if` on a reduction and a local gtx.zeros: the module
    # imports, and every buffer holds what NumPy computes (an odd count ends in u_next).
    time_loop = importlib.import_module("decorated.time_loop")
    assert isinstance(time_loop.time_loop, weir.Program)
    assert time_loop.time_loop.backend is weir.backends.cpu
    u, u_next = 2.0 + rng.random((5, 3)), np.zeros((5, 3))
    total = np.full((5, 3), -1.0)
    ref_u, ref_next = u.copy(), u_next.copy()
    ref_total = _time_loop_reference(ref_u, ref_next, 0.4, 0.9, n_steps)
    time_loop.time_loop(u, u_next, total, 0.4, 0.9, n_steps, 5, 3)
    np.testing.assert_allclose(u, ref_u, rtol=1e-15, atol=0)
    np.testing.assert_allclose(u_next, ref_next, rtol=1e-15, atol=0)
    np.testing.assert_allclose(total, ref_total, rtol=1e-14, atol=0)


def test_an_orchestration_function_with_a_while_loop(stand_in):
    # 5 -> 3 -> 2 -> 1.5 -> 1.25 -> 1.125 -> 1.0625: six halvings of the distance to 1 (the
    # loop stops at 1.0625 <= 1.1); after six swaps the last value is in u, the one before in tmp.
    time_loop = importlib.import_module("decorated.time_loop")
    assert time_loop.halve_until.backend is weir.backends.embedded
    u, tmp = np.full((2, 2), 5.0), np.zeros((2, 2))
    time_loop.halve_until(u, tmp, 1.1)
    np.testing.assert_array_equal(u, np.full((2, 2), 1.0625))
    np.testing.assert_array_equal(tmp, np.full((2, 2), 1.125))


def test_the_same_program_as_weir_load(kinds):
    loaded = weir.load(kinds.axpy.reference, backend=weir.backends.cpu, include=[PROGRAMS])
    assert loaded.parameters == kinds.axpy.parameters == ["a", "x", "y"]
    assert loaded.__sdfg__() == kinds.axpy.__sdfg__()


def test_decorating_an_imported_definition_again(kinds):
    # A gt4py-decorated definition the module left alone, decorated later (as a user would).
    p = weir.program(kinds.shifted_difference, backend=weir.backends.embedded)
    assert p.name == "shifted_difference" and p.parameters == ["x"]
    # A weir.Program: the same program, on another backend when one is given.
    assert weir.program(backend=weir.backends.embedded)(kinds.axpy).backend is weir.backends.embedded


def test_a_definition_without_a_source_file_is_refused(stand_in):
    ns = {}
    exec("def f(x):\n    return x\n", ns)  # as in an interactive session
    with pytest.raises(weir.SourceError, match=r"'f' has no source file \(it was defined in <string>"):
        weir.program(ns["f"])


def test_a_nested_definition_is_refused():
    def inner(x):
        return x

    with pytest.raises(weir.SourceError, match="is not defined at the top level of its module"):
        weir.program(inner)


def test_something_else_is_refused():
    with pytest.raises(TypeError, match="expected a function defined in a module file .* got int"):
        weir.program(3)
    with pytest.raises(TypeError, match="expected a weir.CompiledBackend"):
        weir.program(backend="cpu")(test_something_else_is_refused)  # checked as weir.load checks it
    with pytest.raises(TypeError, match=r"include=: expected a list of folders, got one str \('src'\)"):
        weir.program(include="src")(test_something_else_is_refused)


def test_errors_of_the_definition_are_weirs(stand_in, tmp_path, monkeypatch):
    (tmp_path / "bad_module.py").write_text(
        "import gt4py.next as gtx\nimport weir\nI = gtx.Dimension('I')\n\n\n"
        "@weir.program\n@gtx.field_operator\ndef bad(x: gtx.Field[[I], gtx.float64]) -> gtx.Field[[I], gtx.float64]:\n"
        "    return x + undefined\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(weir.SourceError) as e:
        importlib.import_module("bad_module")
    assert e.value.file.endswith("bad_module.py") and e.value.line == 9
    sys.modules.pop("bad_module", None)


# -- the stand-in ---------------------------------------------------------------------------------


def test_the_stand_in_provides_what_modules_use_at_import(only_stand_in):
    import gt4py.next as gtx
    from gt4py.next.experimental import concat_where

    K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
    assert K == gtx.Dimension("K", gtx.DimensionKind.VERTICAL) and K != gtx.Dimension("K")
    E = gtx.Dimension("E")
    e2v = gtx.FieldOffset("E2V", source=K, target=(E, gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)))
    assert e2v.value == "E2V" and e2v.source == K
    assert gtx.float64 is np.float64 and gtx.int32 is np.int32 and gtx.IndexType is np.int32
    T = typing.TypeVar("T")
    generic = gtx.Field[gtx.Dims[E, K], T]
    assert generic[gtx.float32] == gtx.Field[gtx.Dims[E, K], gtx.float32]
    assert typing.Tuple[generic, generic]  # usable in annotations
    assert gtx.GridType.UNSTRUCTURED.name == "UNSTRUCTURED"
    with pytest.raises(gt4py_stand_in.StandInError, match=r"neighbor_sum\(\) is a gt4py field-view builtin"):
        gtx.neighbor_sum(1, axis=K)
    with pytest.raises(gt4py_stand_in.StandInError, match="concat_where"):
        concat_where(True, 1, 2)
    with pytest.raises(AttributeError, match="weir's stand-in for 'gt4py.next' has no 'as_numpy_field'"):
        gtx.as_numpy_field  # noqa: B018


def test_a_stand_in_definition_says_what_runs_it(only_stand_in):
    import gt4py.next as gtx

    @gtx.field_operator
    def f(x):
        return x

    @gtx.program(grid_type=gtx.GridType.CARTESIAN)
    def p(x):
        pass

    assert f.__wrapped__.__name__ == "f" and p.options == {"grid_type": gtx.GridType.CARTESIAN}
    with pytest.raises(gt4py_stand_in.StandInError, match=r"'f' is a @field_operator .* @weir.program"):
        f(1)


def test_a_real_gt4py_wins(tmp_path, monkeypatch):
    (tmp_path / "gt4py").mkdir()
    (tmp_path / "gt4py" / "__init__.py").write_text("REAL = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert gt4py_stand_in.install() is False
        import gt4py

        assert gt4py.REAL and not hasattr(gt4py, "__weir_stand_in__")
    finally:
        gt4py_stand_in.uninstall()
        sys.modules.pop("gt4py", None)


def test_a_gt4py_drivers_allocation_through_the_stand_in(only_stand_in, rng):
    # gt4py's constructors a model driver calls (user32 H20) give weir arrays: a driver runs
    # unchanged. Values against NumPy; shapes from the domains.
    import gt4py.next as gtx

    from decorated.common import I, J, K

    kinds = importlib.import_module("decorated.kinds")
    x, y = rng.random((5, 4)), rng.random((5, 4))
    fx, fy = gtx.as_field([I, J], x), gtx.as_field({I: 5, J: 4}, y)
    assert isinstance(fx, np.ndarray) and fx.dtype == np.float64 and fx is not x
    out = gtx.zeros({I: 5, J: range(2, 6)}, dtype=gtx.float64)
    assert out.shape == (5, 4) and not out.any()
    kinds.axpy(1.5, fx, fy, out=out)
    np.testing.assert_array_equal(out, 1.5 * x + y)
    assert gtx.full({I: 2, K: 3}, 7.0).tolist() == [[7.0] * 3] * 2
    assert gtx.empty({K: 4}).shape == (4,)
    with pytest.raises(ValueError, match=r"as_field: 2 dimension\(s\) \['I', 'J'\] for an array of shape \(5,\)"):
        gtx.as_field([I, J], np.zeros(5))
    with pytest.raises(TypeError, match=r"zeros: expected a domain \{Dimension: size\}"):
        gtx.zeros((5, 4))


def test_a_gt4py_offset_provider_through_the_stand_in(only_stand_in, rng):
    import gt4py.next as gtx

    from test_programs import EDGES

    Vertex, Edge = gtx.Dimension("Vertex"), gtx.Dimension("Edge")
    E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
    table = rng.integers(0, 7, size=(12, 2)).astype(np.int32)
    e2v = gtx.NeighborTableOffsetProvider(gtx.as_connectivity([Edge, E2VDim], Vertex, table), Edge, Vertex, 2)
    np.testing.assert_array_equal(e2v, table)
    v, out = rng.random(7), np.zeros(12)
    weir.load(EDGES, backend=weir.backends.embedded)(v, out, offset_provider={"E2V": e2v})
    np.testing.assert_array_equal(out, v[table[:, 0]] + v[table[:, 1]])
    with pytest.raises(ValueError, match=r"a table of 3 neighbours per Edge has shape \(rows, 3\), got \(12, 2\)"):
        gtx.NeighborTableOffsetProvider(table, Edge, Vertex, 3)
