#!/usr/bin/env python3
"""hdiff from Python: the COSMO horizontal diffusion of examples/cartesian/hdiff.py called on NumPy
arrays (passed without copying) and checked against the same diffusion written in NumPy here.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/hdiff.py [--size 64 64 20] [--backend cpu]

Exits 1 when weir's result differs from NumPy's."""
import argparse
import pathlib
import sys
import time

import numpy as np

import weir

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent / "cartesian" / "hdiff.py"


def hdiff_numpy(u, coeff):
    """The diffusion on the interior [2:-2, 2:-2]: Laplacian, limited fluxes, their divergence."""
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = 4.0 * u[1:-1, 1:-1] - (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
    flx = np.zeros_like(u)  # flx[i] between i and i + 1, needed for i in [1, n - 2)
    flx[1:-2] = lap[2:-1] - lap[1:-2]
    flx[1:-2] = np.where(flx[1:-2] * (u[2:-1] - u[1:-2]) > 0.0, 0.0, flx[1:-2])
    fly = np.zeros_like(u)
    fly[:, 1:-2] = lap[:, 2:-1] - lap[:, 1:-2]
    fly[:, 1:-2] = np.where(fly[:, 1:-2] * (u[:, 2:-1] - u[:, 1:-2]) > 0.0, 0.0, fly[:, 1:-2])
    i = slice(2, -2)
    return u[i, i] - coeff[i, i] * (flx[i, i] - flx[1:-3, i] + fly[i, i] - fly[i, 1:-3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, nargs=3, default=(64, 64, 20), metavar=("NI", "NJ", "NK"),
                    help="interior points (the arrays have a 2-point halo more in I and J)")
    ap.add_argument("--backend", choices=("cpu", "embedded"), default="cpu")
    ap.add_argument("--repeat", type=int, default=3, help="calls to time")
    a = ap.parse_args()

    ni, nj, nk = a.size
    rng = np.random.default_rng(2026)
    # weir.array/weir.zeros: NumPy arrays whose buffers are 64-byte aligned as weir's allocator
    # aligns them (NumPy's own start at 16 bytes, where the kernel runs slower); no copy at calls.
    u = weir.array(rng.uniform(-1.0, 1.0, (ni + 4, nj + 4, nk)))
    coeff = weir.array(rng.uniform(0.0, 0.2, u.shape))
    out = weir.zeros(u.shape)

    hdiff = weir.load(f"{SOURCE}::hdiff_program", backend=getattr(weir.backends, a.backend))
    t = time.perf_counter()
    hdiff.compile()  # compiles once (or finds the program in the cache); calls only run it
    compiled_s = time.perf_counter() - t
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        hdiff(u, coeff, out)  # `out` is written in place
        times.append(time.perf_counter() - t)

    want = hdiff_numpy(u, coeff)
    err = np.max(np.abs(out[2:-2, 2:-2] - want) / np.maximum(np.abs(want), 1.0))
    ok = err <= 1e-12 and not out[:2].any() and not out[:, -2:].any()
    print(f"hdiff on {u.shape} arrays, backend '{hdiff.backend.name}': prepared in {compiled_s:.2f} s, "
          f"best of {a.repeat} calls {min(times) * 1e3:.2f} ms")
    print(f"against NumPy: max relative error {err:.2e} -> {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
