#!/usr/bin/env python3
"""An orchestrated time loop from Python: `heat` of examples/orchestration/heat.py (a plain Python
function that calls the @program `heat_step` `steps` times and swaps the two time levels) runs
as one SDFG on weir's backend; the same explicit diffusion is stepped in NumPy here.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/heat.py [--size 128 128 --steps 50]

The newest values end in `u` after an even number of steps and in `u_next` after an odd one,
as under gt4py: the swap rebinds the names, the caller's arrays stay where they are. Exits 1 on
a mismatch."""
import argparse
import pathlib
import sys
import time

import numpy as np

import weir

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent / "orchestration" / "heat.py"


def heat_numpy(u, kappa, dt, steps):
    """`steps` explicit steps of the 5-point diffusion on the interior; the boundary stays."""
    u = u.copy()
    for _ in range(steps):
        lap = -4.0 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + dt * kappa[1:-1, 1:-1] * lap
    return u


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, nargs=2, default=(128, 128), metavar=("NI", "NJ"))
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--backend", choices=("cpu", "embedded"), default="cpu")
    a = ap.parse_args()

    rng = np.random.default_rng(11)
    u0 = rng.uniform(0.0, 1.0, a.size)
    kappa = rng.uniform(0.5, 1.0, a.size)
    dt = 0.1  # stable: dt * kappa * 8 < 1
    u, u_next = u0.copy(), u0.copy()  # the boundary of both time levels holds u0's

    heat = weir.load(f"{SOURCE}::heat", backend=getattr(weir.backends, a.backend))
    heat.compile()
    t = time.perf_counter()
    heat(u, u_next, kappa, dt, a.steps)  # the whole loop in one call
    seconds = time.perf_counter() - t

    newest = u if a.steps % 2 == 0 else u_next
    err = np.max(np.abs(newest - heat_numpy(u0, kappa, dt, a.steps)))
    verdict = "OK" if err <= 1e-12 else "MISMATCH"
    print(f"heat: {a.steps} steps on {a.size[0]} x {a.size[1]} points, backend '{heat.backend.name}': "
          f"{seconds * 1e3:.2f} ms for the whole loop; against NumPy: max error {err:.2e} -> {verdict}")
    return int(verdict != "OK")

if __name__ == "__main__":
    sys.exit(main())
