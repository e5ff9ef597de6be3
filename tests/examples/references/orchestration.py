"""Reference of the @programs of examples/orchestration/: one heat step on the interior, the
Smagorinsky coefficient of the diffusion granule (cells -> vertices over V2C, the diamond
differences over E2C2V, edges -> cells over C2E), and theta at half levels of the half-level
granule (top and surface copied, between them interpolated, on the cells [start, end))."""
import numpy as np

import refio


def heat_step(a):
    u, kappa, dt = a["u"], a["kappa"], a["dt"]
    out = a["out"].copy()
    lap = -4.0 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
    out[1:-1, 1:-1] = u[1:-1, 1:-1] + dt * kappa[1:-1, 1:-1] * lap
    return {"out": out}


def gather_sum(f, table):
    s = f[table[:, 0]]
    for k in range(1, table.shape[1]):
        s = s + f[table[:, k]]
    return s


def smagorinsky_coefficient(a):
    w, vn, fac = a["w"], a["vn"], a["smag_fac"]
    uv = (1.0 / 6.0) * gather_sum(w, a["V2C"])
    d = a["E2C2V"]
    t = uv[d[:, 1]] - uv[d[:, 0]]
    n = uv[d[:, 3]] - uv[d[:, 2]]
    kh = fac * np.sqrt(t * t + n * n + 0.01 * vn * vn)
    kh_c = gather_sum(kh, a["C2E"]) / 3.0
    return {"uv": uv, "kh": kh, "kh_c": kh_c}


def theta_at_half_levels(a):
    th, wgt, nlev = a["theta"], a["wgt"], int(a["nlev"])
    s, e = int(a["horizontal_start"]), int(a["horizontal_end"])
    ic = a["theta_ic"].copy()
    ic[s:e, 0] = th[s:e, 0]
    ic[s:e, 1:nlev] = wgt * th[s:e, 1:nlev] + (1.0 - wgt) * th[s:e, : nlev - 1]
    ic[s:e, nlev] = th[s:e, nlev - 1]
    return {"theta_ic": ic}


refio.main(
    {
        "heat_step": heat_step,
        "smagorinsky_coefficient": smagorinsky_coefficient,
        "theta_at_half_levels": theta_at_half_levels,
    }
)
