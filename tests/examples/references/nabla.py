"""Reference of examples/unstructured/nabla.py: loops over vertices and their V2E edges;
missing neighbours (-1 in V2E) contribute nothing."""
import numpy as np

import refio


def nabla_program(a):
    pp, sxx, syy, sign, vol = a["pp"], a["S_MXX"], a["S_MYY"], a["sign"], a["vol"]
    e2v, v2e = a["E2V"], a["V2E"]
    zavg = 0.5 * (pp[e2v[:, 0]] + pp[e2v[:, 1]])  # (edges, K)
    zx = sxx[:, None] * zavg
    zy = syy[:, None] * zavg
    nv, nk = pp.shape
    ox, oy = np.zeros((nv, nk)), np.zeros((nv, nk))
    for v in range(nv):
        sx, sy = np.zeros(nk), np.zeros(nk)
        for n in range(v2e.shape[1]):
            e = v2e[v, n]
            if e == -1:
                continue
            sx = sx + zx[e] * sign[v, n]
            sy = sy + zy[e] * sign[v, n]
        ox[v] = sx / vol[v]
        oy[v] = sy / vol[v]
    return {"out_x": ox, "out_y": oy}


refio.main({"nabla_program": nabla_program})
