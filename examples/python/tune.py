#!/usr/bin/env python3
"""Tuning from Python: hdiff's SDFG (program.__sdfg__()) optimized by a transformation script
(tune_hdiff.json: tile the stencil's map, then OpenMP and SIMD schedules) with
weir.optimize(sdfg, script=...), compiled, and timed against the SDFG as lowered and the one
auto-optimize-cpu makes; every variant's result is checked against NumPy.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/tune.py [--size 256 256 40] [--script FILE]

The tuned SDFG keeps every application in its history (`--save OUT.sdfg` writes it; `weir view`
steps through it). Exits 1 on a mismatch."""
import argparse
import pathlib
import sys
import time

import numpy as np

import weir

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent / "cartesian" / "hdiff.py"


def hdiff_numpy(u, coeff):
    """hdiff on the interior, with one helper that reads u-like arrays at an offset."""
    n_i, n_j = u.shape[0], u.shape[1]

    def at(a, di, dj, lo=1):  # a[i + di, j + dj] for i, j in [lo, n - lo)
        return a[lo + di:n_i - lo + di, lo + dj:n_j - lo + dj]

    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = 4.0 * at(u, 0, 0) - at(u, -1, 0) - at(u, 1, 0) - at(u, 0, -1) - at(u, 0, 1)

    def limited(d_lap, d_u):
        return np.where(d_lap * d_u > 0.0, 0.0, d_lap)

    flx = limited(at(lap, 1, 0) - at(lap, 0, 0), at(u, 1, 0) - at(u, 0, 0))  # on [1, n-1)
    fly = limited(at(lap, 0, 1) - at(lap, 0, 0), at(u, 0, 1) - at(u, 0, 0))
    # flux divergence on [2, n-2): index k of flx is the point k + 1
    div = flx[1:-1, 1:-1] - flx[:-2, 1:-1] + fly[1:-1, 1:-1] - fly[1:-1, :-2]
    return u[2:-2, 2:-2] - coeff[2:-2, 2:-2] * div


def best_ms(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, nargs=3, default=(256, 256, 40), metavar=("NI", "NJ", "NK"))
    ap.add_argument("--script", default=str(HERE / "tune_hdiff.json"), help="the transformation script")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--save", help="write the tuned SDFG (with its history) here")
    a = ap.parse_args()

    program = weir.load(f"{SOURCE}::hdiff_program", backend=weir.backends.cpu)
    lowered = program.__sdfg__()  # a fresh SDFG, as `weir sdfg` writes it
    tuned = weir.optimize(lowered, script=a.script)
    steps = ", ".join(h.get("transformation") or h.get("pass", "?") for h in tuned.history)
    print(f"{a.script}: applied {len(tuned.history)} step(s): {steps}")
    if a.save:
        tuned.save(a.save)
    variants = {
        "as lowered": lowered,
        "tuned by the script": tuned,
        "auto-optimize-cpu": weir.optimize(lowered, auto="cpu"),
    }

    ni, nj, nk = a.size
    rng = np.random.default_rng(5)
    u = rng.uniform(-1.0, 1.0, (ni + 4, nj + 4, nk))
    coeff = rng.uniform(0.0, 0.2, u.shape)
    want = hdiff_numpy(u, coeff)
    ok = True
    for name, sdfg in variants.items():
        compiled = sdfg.compile(backend=weir.backends.cpu)  # from the program cache when seen before
        out = np.zeros_like(u)
        ms = best_ms(lambda: compiled(u=u, coeff=coeff, out=out), a.repeat)
        err = np.max(np.abs(out[2:-2, 2:-2] - want) / np.maximum(np.abs(want), 1.0))
        ok = ok and err <= 1e-12
        print(f"  {name:20s} {ms:8.2f} ms per call (best of {a.repeat}), against NumPy: max relative error "
              f"{err:.2e} {'OK' if err <= 1e-12 else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
