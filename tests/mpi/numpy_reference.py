"""NumPy meanings of the Cartesian examples the MPI tests decompose (written for these tests
from the programs' field-view source, in the same order of operations, so that they round as the
compiled programs do): the programs of examples/cartesian/ and examples/orchestration/heat.py, and
the orchestration functions and programs of tests/mpi/."""
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


def bi_laplacian(f, out):
    """examples/cartesian/laplacian.py::bi_laplacian: lap(lap(f)) on the points 2 inside the edges."""
    out = out.copy()
    out[2:-2, 2:-2] = _lap(_lap(f))
    return {"out": out}


def _thomas(a, b, c, d, nk):
    """examples/cartesian/vertical_solver.py's two scans on levels [0, nk) of every column: the
    forward sweep (c', d') from (0, 0), then x = d' - c' * x_above from 0 at the top."""
    c_mod, d_mod, x = np.zeros_like(d), np.zeros_like(d), np.zeros_like(d)
    c_prev, d_prev = np.zeros(d.shape[:2]), np.zeros(d.shape[:2])
    for k in range(nk):
        den = b[..., k] - a[..., k] * c_prev
        c_prev, d_prev = c[..., k] / den, (d[..., k] - a[..., k] * d_prev) / den
        c_mod[..., k], d_mod[..., k] = c_prev, d_prev
    above = np.zeros(d.shape[:2])
    for k in reversed(range(nk)):
        above = d_mod[..., k] - c_mod[..., k] * above
        x[..., k] = above
    return x


def vertical_solver(a, b, c, d, x, nk):
    x = x.copy()
    x[..., :nk] = _thomas(a, b, c, d, nk)[..., :nk]
    return {"x": x}


def heat(u, u_next, kappa, dt, steps):
    """examples/orchestration/heat.py: `steps` steps of u + dt * kappa * lap(u) on the points 1
    inside the edges, then the swap."""
    u, u_next = u.copy(), u_next.copy()
    for _ in range(steps):
        u_next[1:-1, 1:-1] = u[1:-1, 1:-1] + dt * kappa[1:-1, 1:-1] * _lap(u)
        u, u_next = u_next, u
    return {"u": u, "u_next": u_next} if steps % 2 == 0 else {"u": u_next, "u_next": u}


def implicit_column(u, a, b, c, alpha, out):
    """tests/mpi/column_physics.py::implicit_column: the Thomas solve with the right-hand side
    u + alpha * lap(u), on the columns 1 inside the edges."""
    out = out.copy()
    s = (slice(1, -1), slice(1, -1))
    d = u[s] + alpha * _lap(u)
    out[s] = _thomas(a[s], b[s], c[s], d, u.shape[2])
    return {"out": out}


def column_loop(u, u_next, a, b, c, alpha, steps):
    """tests/mpi/column_physics.py::column_loop: per step u_next = u + alpha * lap(u), then u =
    the Thomas solve with right-hand side u_next, both on the columns 1 inside the edges."""
    u, u_next = u.copy(), u_next.copy()
    s = (slice(1, -1), slice(1, -1))
    for _ in range(steps):
        u_next[s] = u[s] + alpha * _lap(u)
        u[s] = _thomas(a[s], b[s], c[s], u_next[s], u.shape[2])
    return {"u": u, "u_next": u_next}


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
