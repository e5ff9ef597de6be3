"""Reference of examples/unstructured/edge_stencil.py: per edge, the four E2C2V vertices."""
import numpy as np

import refio


def edge_gradients(a):
    u, t = a["u"], a["E2C2V"]
    along = (u[t[:, 1]] - u[t[:, 0]]) * a["inv_length"][:, None]
    across = (u[t[:, 3]] - u[t[:, 2]]) * a["inv_dual_length"][:, None]
    return {"grad_t": along, "grad_n": across}


def edge_smooth(a):
    u, w, t, s = a["u"], a["w"], a["E2C2V"], a["strength"]
    mean = np.zeros((t.shape[0], u.shape[1]))
    for n in range(t.shape[1]):
        mean = mean + u[t[:, n]] * w[:, n][:, None]
    mid = 0.5 * (u[t[:, 0]] + u[t[:, 1]])
    return {"u_edge": mid + s * (mean - mid * w[:, 0][:, None])}


refio.main({"edge_gradients": edge_gradients, "edge_smooth": edge_smooth})
