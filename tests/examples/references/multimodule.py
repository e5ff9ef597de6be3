"""Reference of examples/multimodule/mymodel/program.py: `smooth` averages the C2E edge values
of each cell with weights, then averages levels k and k+1, on cells [0, n_cells) and levels
[0, n_levels - 1)."""
import numpy as np

import refio


def smooth(a):
    e, w, t = a["e"], a["weights"], a["C2E"]
    nc, nl = a["n_cells"], a["n_levels"]
    avg = np.zeros((t.shape[0], e.shape[1]))
    for n in range(t.shape[1]):
        avg = avg + e[t[:, n]] * w[:, n][:, None]
    out = a["out"].copy()
    out[:nc, : nl - 1] = 0.5 * (avg[:nc, : nl - 1] + avg[:nc, 1:nl])
    return {"out": out}


def potential_program(a):
    grav = 9.80665
    return {"out": grav * a["height"] * a["area"][:, None] * (grav / grav / 2.0)}


refio.main({"smooth": smooth, "potential_program": potential_program})
