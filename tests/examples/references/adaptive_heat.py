"""Reference of the @programs of examples/orchestration/adaptive_heat.py: one heat step on the
interior with the time step dt, and the interior shifted by a scalar."""
import refio


def heat_step(a):
    u, dt = a["u"], a["dt"]
    out = a["out"].copy()
    c = u[1:-1, 1:-1]
    out[1:-1, 1:-1] = c + dt * (-4.0 * c + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
    return {"out": out}


def shift_step(a):
    out = a["out"].copy()
    out[1:-1, 1:-1] = a["u"][1:-1, 1:-1] + a["by"]
    return {"out": out}


refio.main({"heat_step": heat_step, "shift_step": shift_step})
