# Shared fixtures of the Python tests (run by ctest as "python: pytest python/tests" with
# PYTHONPATH at the build tree's python/ folder).
import pathlib

import numpy as np
import pytest

import weir

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"


def example(path, name):
    return f"{ROOT / 'examples' / path}::{name}"


def program(path, name):
    return f"{PROGRAMS / path}::{name}"


# The programs the tests call.
LAPLACIAN = example("cartesian/laplacian.py", "laplacian")
HDIFF = example("cartesian/hdiff.py", "hdiff_program")
AXPY = program("pointwise.py", "axpy")
AXPY_PROGRAM = program("pointwise.py", "axpy_program")
SUM_DIFF = program("pointwise.py", "sum_diff")
TIMES = program("pointwise.py", "times")
EDGES = program("edges.py", "edge_sum_program")
GRID_OFFSETS = program("grid_offsets.py", "edge_gradient")


def laplacian_numpy(f):
    """The 5-point Laplacian of laplacian.py on the interior (out[1:-1, 1:-1])."""
    return -4.0 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2]


def hdiff_numpy(u, coeff):
    """hdiff.py's horizontal diffusion on out[2:-2, 2:-2], written independently in NumPy."""
    lap = 4.0 * u[1:-1, 1:-1] - (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    # lap over [1, n-1); flx over [1, n-2) in I: lap(i+1) - lap(i), limited by u(i+1) - u(i).
    flx = lap[1:, :] - lap[:-1, :]
    flx = np.where(flx * (u[2:-1, 1:-1] - u[1:-2, 1:-1]) > 0.0, 0.0, flx)
    fly = lap[:, 1:] - lap[:, :-1]
    fly = np.where(fly * (u[1:-1, 2:-1] - u[1:-1, 1:-2]) > 0.0, 0.0, fly)
    # interior [2, n-2): flx(i) - flx(i-1) with flx indexed from 1, fly likewise.
    dflx = flx[1:, 1:-1] - flx[:-1, 1:-1]
    dfly = fly[1:-1, 1:] - fly[1:-1, :-1]
    return u[2:-2, 2:-2] - coeff[2:-2, 2:-2] * (dflx + dfly)


def assert_laplacian_argument_errors(p, f, out):
    """The errors of laplacian(f, out) called wrongly (f and out arrays it takes), by argument."""
    with pytest.raises(TypeError, match="argument 'f': expected a NumPy float64 array with 3 dimensions, got int32"):
        p(f.astype(np.int32), out)
    with pytest.raises(weir.ArgumentTypeError, match="argument 'out': .*got float64 \\(6, 6\\)"):
        p(f, out[:, :, 0].copy())
    with pytest.raises(TypeError, match="argument 'f': expected a NumPy float64 array .*got list"):
        p([1.0, 2.0], out)
    with pytest.raises(ValueError, match="argument 'f': the array is not C-contiguous") as e:
        p(np.zeros((6, 12, 2))[:, ::2], out)
    assert isinstance(e.value, weir.ArgumentError)
    with pytest.raises(ValueError, match="argument 'out': the array is not C-contiguous"):
        p(f, np.asfortranarray(out))
    ro = out.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="argument 'out': the program writes it, but the array is read-only"):
        p(f, ro)
    with pytest.raises(TypeError, match="byte order"):
        p(f.astype(">f8"), out)
    with pytest.raises(TypeError, match="laplacian\\(\\) missing argument 'out'"):
        p(f)
    with pytest.raises(TypeError, match="unexpected argument 'g' \\(it takes f, out\\)"):
        p(f, out, g=f)
    with pytest.raises(TypeError, match="multiple values for argument 'f'"):
        p(f, out, f=f)
    with pytest.raises(TypeError, match="takes 2 positional arguments \\(f, out\\) but 3 were given"):
        p(f, out, out)
    with pytest.raises(TypeError, match="laplacian\\(\\) takes no domain=: it is a @program"):
        p(f, out, domain={"I": (1, 3)})


def heat_numpy(u, u_next, kappa, dt, steps):
    u, u_next = u.copy(), u_next.copy()
    for _ in range(steps):
        c = u[1:-1, 1:-1]
        u_next[1:-1, 1:-1] = c + dt * kappa[1:-1, 1:-1] * (
            -4.0 * c + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
        )
        u, u_next = u_next, u
    return (u, u_next) if steps % 2 == 0 else (u_next, u)


@pytest.fixture
def rng():
    return np.random.default_rng(42)


@pytest.fixture(params=["embedded", "cpu"])
def backend(request):
    return getattr(weir.backends, request.param)
