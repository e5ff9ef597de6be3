"""Reference of examples/cartesian/heat3d.py: one Jacobi step on the interior."""
import numpy as np

import refio


def heat3d(a):
    u, alpha = a["u"], a["alpha"]
    c = u[1:-1, 1:-1, 1:-1]
    horizontal = u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
    faces = horizontal + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
    out = a["u_new"].copy()
    out[1:-1, 1:-1, 1:-1] = c + alpha * (faces - 6.0 * c)
    return {"u_new": out}


refio.main({"heat3d": heat3d})
