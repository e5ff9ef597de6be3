"""NumPy meanings of the Cartesian examples the MPI tests decompose (written for these tests
from the programs' field-view source, in the same order of operations, so that they round as the
compiled programs do): laplacian, hdiff_program and heat3d of examples/cartesian/."""
import numpy as np


def laplacian(f, out):
    out = out.copy()
    c = f[1:-1, 1:-1]
    out[1:-1, 1:-1] = -4.0 * c + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2]
    return {"out": out}


def hdiff_program(u, coeff, out):
    out = out.copy()
    ni, nj = u.shape[:2]
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = 4.0 * u[1:-1, 1:-1] - (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    # flx[i] = lap[i + 1] - lap[i], limited by u[i + 1] - u[i]; needed for i in [1, ni - 2).
    flx = np.zeros_like(u)
    d = lap[2:-1, :] - lap[1:-2, :]
    flx[1:-2, :] = np.where(d * (u[2:-1, :] - u[1:-2, :]) > 0.0, 0.0, d)
    fly = np.zeros_like(u)
    d = lap[:, 2:-1] - lap[:, 1:-2]
    fly[:, 1:-2] = np.where(d * (u[:, 2:-1] - u[:, 1:-2]) > 0.0, 0.0, d)
    s = (slice(2, ni - 2), slice(2, nj - 2))
    sim = (slice(1, ni - 3), slice(2, nj - 2))
    sjm = (slice(2, ni - 2), slice(1, nj - 3))
    out[s] = u[s] - coeff[s] * (flx[s] - flx[sim] + fly[s] - fly[sjm])
    return {"out": out}


def heat3d(u, u_new, alpha):
    u_new = u_new.copy()
    c = u[1:-1, 1:-1, 1:-1]
    horizontal = u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
    faces = horizontal + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
    u_new[1:-1, 1:-1, 1:-1] = c + alpha * (faces - 6.0 * c)
    return {"u_new": u_new}


def _lap(u):
    # On the points 1 inside u's edges: -4 u + u(I+1) + u(I-1) + u(J+1) + u(J-1), left to right.
    return -4.0 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]


def diffusion_loop(u, u_next, kappa, alpha, steps):
    """tests/mpi/diffusion_loop.py: `steps` steps on the points 2 inside the edges, a biharmonic
    smoothing on every third step (step % 3 == 2), a Laplacian step times kappa(J - 1) otherwise, then the swap."""
    u, u_next = u.copy(), u_next.copy()
    for step in range(steps):
        c = u[2:-2, 2:-2]
        if step % 3 == 2:
            u_next[2:-2, 2:-2] = c - alpha * _lap(_lap(u))
        else:
            u_next[2:-2, 2:-2] = c + alpha * kappa[2:-2, 1:-3] * _lap(u)[1:-1, 1:-1]
        u, u_next = u_next, u
    # The caller's arrays: after an odd number of steps the newest values are in u_next.
    return {"u": u, "u_next": u_next} if steps % 2 == 0 else {"u": u_next, "u_next": u}


def adaptive_heat(u, u_next, dt, limit, steps):
    """examples/orchestration/adaptive_heat.py: before each step dt halves while dt * max(u[1:-1, 1:-1])
    exceeds `limit`; after the loop the interior is shifted by 0.001 * sum(u) - min(u[1:-1, 1:-1]).
    `__atol__`: the outputs that depend on the sum, with the bound on |decomposed - NumPy| (the sum
    of n positive values in another order differs by at most n * eps * sum, twice for two orders, times
    0.001, plus an ulp of the addition); `__taken__`: how many steps halved dt."""
    a, b = u.copy(), u_next.copy()
    arrays = {"u": a, "u_next": b}
    taken = 0
    for _ in range(steps):
        if dt * np.max(a[1:-1, 1:-1]) > limit:
            dt = dt * 0.5
            taken += 1
        c = a[1:-1, 1:-1]
        b[1:-1, 1:-1] = c + dt * (-4.0 * c + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2])
        a, b = b, a
    total = np.sum(a)
    b[1:-1, 1:-1] = a[1:-1, 1:-1] + (total * 0.001 - a[1:-1, 1:-1].min())
    eps = np.finfo(np.float64).eps
    shifted = "u_next" if b is arrays["u_next"] else "u"
    atol = 2 * a.size * eps * np.sum(np.abs(a)) * 0.001 + 2 * eps * np.max(np.abs(b))
    return {**arrays, "__atol__": {shifted: atol}, "__taken__": taken}


def _heat_step(u, u_next, dt):
    """tests/mpi/global_reductions.py's heat_step: u_next's interior, the boundary as given."""
    b = u_next.copy()
    c = u[1:-1, 1:-1]
    b[1:-1, 1:-1] = c + dt * (-4.0 * c + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
    return b


def peak_step(u, u_next, dt):
    """tests/mpi/global_reductions.py::peak_step: a heat step scaled by dt / np.max(u) (NaN when u
    holds a NaN anywhere, as NumPy's max)."""
    return {"u_next": _heat_step(u, u_next, dt / np.max(u))}


def trough_step(u, u_next, dt):
    """tests/mpi/global_reductions.py::trough_step: a heat step scaled by dt * np.min(u)."""
    return {"u_next": _heat_step(u, u_next, dt * np.min(u))}


def cfl_step(u, u_next, dt):
    """tests/mpi/global_reductions.py::cfl_step: a heat step scaled by dt / np.max(np.abs(u))."""
    return {"u_next": _heat_step(u, u_next, dt / np.max(np.abs(u)))}
