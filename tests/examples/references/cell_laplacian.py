"""Reference of examples/unstructured/cell_laplacian.py: loops over cells and their C2E2CO
neighbours (the origin last); missing neighbours (-1) are skipped."""
import numpy as np

import refio


def cell_laplacian(a):
    psi, w, t = a["psi"], a["weights"], a["C2E2CO"]
    lap = np.zeros_like(psi)
    for c in range(psi.shape[0]):
        acc = np.zeros(psi.shape[1])
        for n in range(t.shape[1]):
            if t[c, n] != -1:
                acc = acc + psi[t[c, n]] * w[c, n]
        lap[c] = acc
    return {"lap": lap}


def cell_bounds(a):
    psi, t = a["psi"], a["C2E2CO"]
    hi, lo = np.full_like(psi, -np.inf), np.full_like(psi, np.inf)
    for c in range(psi.shape[0]):
        for n in range(t.shape[1]):
            if t[c, n] != -1:
                hi[c] = np.maximum(hi[c], psi[t[c, n]])
                lo[c] = np.minimum(lo[c], psi[t[c, n]])
    return {"psi_max": hi, "psi_min": lo}


refio.main({"cell_laplacian": cell_laplacian, "cell_bounds": cell_bounds})
