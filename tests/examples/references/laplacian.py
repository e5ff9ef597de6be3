"""Reference of examples/cartesian/laplacian.py: the 5-point Laplacian on the interior."""
import numpy as np

import refio


def lap(f):
    # same operation order as the field operator: -4 f + f(I+1) + f(I-1) + f(J+1) + f(J-1)
    return -4.0 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2]


def laplacian(a):
    out = a["out"].copy()
    out[1:-1, 1:-1] = lap(a["f"])
    return {"out": out}


def bi_laplacian(a):
    out = a["out"].copy()
    out[2:-2, 2:-2] = lap(lap(a["f"]))
    return {"out": out}


refio.main({"laplacian": laplacian, "bi_laplacian": bi_laplacian})
