# weir.Backend and its kinds, the ready backends, replace(), and what is refused as a backend.
import numpy as np
import pytest

import weir
from conftest import example, laplacian_numpy

LAPLACIAN = example("cartesian/laplacian.py", "laplacian")


def test_backend_is_abstract():
    with pytest.raises(TypeError, match="weir.Backend is abstract"):
        weir.Backend()


def test_ready_backends():
    assert isinstance(weir.backends.cpu, weir.CompiledBackend)
    assert isinstance(weir.backends.cpu, weir.Backend)
    assert weir.backends.cpu.name == "cpu"
    assert isinstance(weir.backends.gpu, weir.CompiledBackend)
    assert weir.backends.gpu.name == "gpu"
    assert isinstance(weir.backends.embedded, weir.EmbeddedBackend)
    assert not isinstance(weir.backends.embedded, weir.CompiledBackend)
    assert weir.backends.embedded.name == "embedded"
    assert weir.backends.cpu.allocator == weir.Allocator("cpu", 64)
    assert weir.backends.cpu.allocator.device == "cpu"
    assert weir.backends.cpu.allocator.alignment == 64
    assert isinstance(weir.backends.cpu.compiler, weir.Compiler)
    assert isinstance(weir.backends.cpu.loader, weir.Loader)


def test_allocator_refuses_unknown_devices_and_alignments():
    with pytest.raises(ValueError, match="device 'tpu'"):
        weir.Allocator("tpu")
    with pytest.raises(weir.BackendError, match="power of two"):
        weir.Allocator("cpu", 48)


def test_replace_returns_a_new_backend():
    mine = weir.backends.cpu.replace(name="mine")
    assert isinstance(mine, weir.CompiledBackend)
    assert mine.name == "mine"
    assert weir.backends.cpu.name == "cpu"
    e = weir.backends.embedded.replace(name="interp")
    assert isinstance(e, weir.EmbeddedBackend) and e.name == "interp"


@pytest.mark.parametrize("bad", ["cpu", 42, object(), weir.Allocator()])
def test_load_refuses_what_is_not_a_backend(bad):
    with pytest.raises(TypeError, match="expected a weir.CompiledBackend or weir.EmbeddedBackend") as e:
        weir.load(LAPLACIAN, backend=bad)
    if bad == "cpu":
        assert "weir.backends.cpu" in str(e.value)


def test_a_backend_name_weir_does_not_have_is_not_offered_as_an_attribute():
    # "gpux" was answered with "pass weir.backends.gpux", which does not exist.
    with pytest.raises(TypeError) as e:
        weir.load(LAPLACIAN, backend="gpux")
    assert "got str 'gpux' (a name is only a label: pass a backend object; weir.backends has cpu, gpu and embedded)" in str(e.value)
    assert "weir.backends.gpux" not in str(e.value)
    assert not hasattr(weir.backends, "gpux")


def test_with_backend_refuses_what_is_not_a_backend():
    p = weir.load(LAPLACIAN)
    with pytest.raises(TypeError, match="with_backend\\(\\): backend: expected"):
        p.with_backend("embedded")


def run_laplacian(backend):
    f = np.random.default_rng(1).random((8, 7, 3))
    out = np.zeros_like(f)
    weir.load(LAPLACIAN, backend=backend)(f, out)
    np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))


def test_a_python_compiler_is_called_and_wraps_another(tmp_path):
    base = weir.cpu_backend(cache_dir=str(tmp_path / "cache"))
    calls = []

    def counting(program):
        assert isinstance(program, weir.CompilableProgram)
        assert "laplacian" in program.origin
        assert isinstance(program.sdfg, weir.SDFG)
        artifact = base.compiler(program)
        calls.append(artifact)
        return artifact

    b = base.replace(name="counting", compiler=counting)
    assert b.name == "counting"
    p = weir.load(LAPLACIAN, backend=b)
    f = np.ones((6, 6, 2))
    out = np.zeros_like(f)
    p(f, out)
    p(f, out)  # prepared once per program object
    assert len(calls) == 1
    assert not calls[0].cache_hit
    assert calls[0].library.endswith(".so")
    # Another program object compiles again and finds the cached library.
    weir.load(LAPLACIAN, backend=b)(f, out)
    assert len(calls) == 2 and calls[1].cache_hit
    assert calls[1].fingerprint == calls[0].fingerprint


def test_backend_kind_decides_not_its_name(tmp_path):
    # A compiled backend called "embedded" compiles; an embedded backend called "cpu" interprets.
    calls = []
    base = weir.cpu_backend(cache_dir=str(tmp_path / "cache"))

    def counting(program):
        calls.append(program.origin)
        return base.compiler(program)

    run_laplacian(weir.CompiledBackend("embedded", None, counting))
    assert len(calls) == 1
    run_laplacian(weir.EmbeddedBackend(name="cpu"))
    assert len(calls) == 1


def test_compiled_backend_from_members():
    cpu = weir.backends.cpu
    b = weir.CompiledBackend("mine", weir.Allocator(), cpu.compiler, cpu.loader)
    run_laplacian(b)
    loaded = []

    def loader(artifact):
        program = cpu.loader(artifact)
        loaded.append(program)
        return program

    run_laplacian(cpu.replace(loader=loader))
    assert len(loaded) == 1 and isinstance(loaded[0], weir.CompiledProgram)
    assert loaded[0].name == "laplacian"


def test_compiler_and_loader_must_fit():
    with pytest.raises(TypeError, match="compiler: expected a weir.Compiler"):
        weir.CompiledBackend("x", None, 3)
    with pytest.raises(TypeError, match="loader: expected a weir.Loader"):
        weir.backends.cpu.replace(loader="dlopen")
    b = weir.backends.cpu.replace(compiler=lambda program: "lib.so")
    f = np.ones((5, 5, 1))
    with pytest.raises(TypeError, match="the compiler returned str"):
        weir.load(LAPLACIAN, backend=b)(f, np.zeros_like(f))


def test_a_compiler_error_raised_in_python_reaches_the_caller():
    def failing(program):
        raise RuntimeError("no compiler here")

    f = np.ones((5, 5, 1))
    with pytest.raises(RuntimeError, match="no compiler here"):
        weir.load(LAPLACIAN, backend=weir.backends.cpu.replace(compiler=failing))(f, np.zeros_like(f))


def test_cpu_backend_exact_math_calls_the_scalar_exp(tmp_path):
    # weir.cpu_backend(exact_math=True) is `weir run --exact-math` (user32 H8): the loop calls the
    # C library's scalar exp, bit for bit Python's math.exp, not its SIMD variant (within 4 ulp).
    import math

    src = tmp_path / "expo.py"
    src.write_text(
        "import gt4py.next as gtx\n"
        "from gt4py.next import Field, float64, exp\n"
        "I = gtx.Dimension('I')\n"
        "@gtx.field_operator\n"
        "def expo(x: Field[[I], float64]) -> Field[[I], float64]:\n"
        "    return exp(x)\n"
        "@gtx.program\n"
        "def expo_program(x: Field[[I], float64], out: Field[[I], float64]):\n"
        "    expo(x, out=out)\n"
    )
    x = np.random.default_rng(7).uniform(-30.0, 30.0, 20000)
    out = np.zeros_like(x)
    backend = weir.cpu_backend(cache_dir=str(tmp_path / "cache"), exact_math=True)
    weir.load(f"{src}::expo_program", backend=backend)(x, out)
    want = np.array([math.exp(v) for v in x])
    assert np.array_equal(out.view(np.uint64), want.view(np.uint64))
