"""Reference of examples/cartesian/hdiff.py, written with explicit index arithmetic on the
interior [2:-2, 2:-2]."""
import numpy as np

import refio


def hdiff_program(a):
    u, coeff = a["u"], a["coeff"]
    ni, nj, _ = u.shape

    def lap(i, j):
        return 4.0 * u[i, j] - (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    def flx(i, j):
        f = lap(i + 1, j) - lap(i, j)
        return np.where(f * (u[i + 1, j] - u[i, j]) > 0.0, 0.0, f)

    def fly(i, j):
        f = lap(i, j + 1) - lap(i, j)
        return np.where(f * (u[i, j + 1] - u[i, j]) > 0.0, 0.0, f)

    out = a["out"].copy()
    for i in range(2, ni - 2):
        for j in range(2, nj - 2):
            out[i, j] = u[i, j] - coeff[i, j] * (flx(i, j) - flx(i - 1, j) + fly(i, j) - fly(i, j - 1))
    return {"out": out}


refio.main({"hdiff_program": hdiff_program})
