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


@pytest.fixture
def rng():
    return np.random.default_rng(42)


@pytest.fixture(params=["embedded", "cpu"])
def backend(request):
    return getattr(weir.backends, request.param)
