"""Reference of examples/cartesian/vertical_solver.py: the Thomas algorithm per column, as
loops over k (levels nk.. stay as they were)."""
import numpy as np

import refio


def vertical_solver(a):
    A, B, C, D = a["a"], a["b"], a["c"], a["d"]
    nk = a["nk"]
    x = a["x"].copy()
    cp = np.zeros(A.shape[:2])
    dp = np.zeros(A.shape[:2])
    cs, ds = [], []
    for k in range(nk):
        den = B[:, :, k] - A[:, :, k] * cp
        cp, dp = C[:, :, k] / den, (D[:, :, k] - A[:, :, k] * dp) / den
        cs.append(cp)
        ds.append(dp)
    above = np.zeros(A.shape[:2])
    for k in reversed(range(nk)):
        above = ds[k] - cs[k] * above
        x[:, :, k] = above
    return {"x": x}


refio.main({"vertical_solver": vertical_solver})
