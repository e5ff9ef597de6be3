"""Strong and weak scaling of an orchestrated diffusion time loop on 1, 2 and 4 MPI ranks, with
the time spent in halo exchanges (docs/distributed.md, ADR 0057).

    /usr/bin/python3 bench/mpi_scaling.py [--weir build/bin/weir] [--steps 40]

Runs tests/mpi/diffusion_loop.py::diffusion_loop (a Laplacian step, a biharmonic step every
third step, swaps) under `mpirun --oversubscribe --allow-run-as-root -np N weir run ...
--decompose I,J` with WEIR_HALO_TIMES set (each exchange prints its seconds) and
OMP_NUM_THREADS=1 (one core per rank). Per run: the loop's wall time on rank 0 (`call 1`,
after a barrier: the slowest rank), the seconds each rank spent in exchanges (summed over its
exchanges; the table gives the largest), and the points updated per second. Strong: one global
size on 1, 2, 4 ranks; weak: the same size per rank. Each run compiles once into a private
program cache (not timed). Every configuration runs twice: as is and with `--overlap`
(HaloExchangeOverlap: each exchange's interior computed while its messages fly); for the
overlapped run the table gives the interior seconds computed while messages were in flight and
the seconds then left waiting in MPI_Waitall (summed over the exchanges that were split, largest
rank). Prints a Markdown table; numbers depend on the machine's load (`uptime` is printed with
them)."""
import argparse
import os
import pathlib
import re
import subprocess
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROGRAM = str(ROOT / "tests" / "mpi" / "diffusion_loop.py") + "::diffusion_loop"


def run_once(o, work, shape, ranks, grid, overlap=False):
    inp = work / f"in_{shape[0]}x{shape[1]}"
    if not inp.exists():
        inp.mkdir(parents=True)
        rng = np.random.default_rng(38)
        for n in ("u", "u_next", "kappa"):
            np.save(inp / f"{n}.npy", rng.random(shape))
    env = dict(os.environ, WEIR_HALO_TIMES="1", OMP_NUM_THREADS="1", OMPI_MCA_btl="self,vader",
               WEIR_CACHE_DIR=str(work / "cache"))
    cmd = [o.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(ranks), o.weir, "run", PROGRAM,
           "--decompose", "I,J", "--process-grid", grid, "--in-dir", str(inp), "--set", "alpha=0.0625",
           "--set", f"steps={o.steps}"] + (["--overlap"] if overlap else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    text = p.stdout + p.stderr
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{text}")
    call_s = float(re.search(r"call 1: ([0-9.e+-]+) ms", text).group(1)) / 1e3
    per_rank = {}
    for r, s in re.findall(r"weir: halo-exchange \S+ rank (\d+): ([0-9.]+) s", text):
        per_rank[int(r)] = per_rank.get(int(r), 0.0) + float(s)
    calls = len(re.findall(r"weir: halo-exchange \S+ rank 0:", text))
    interior, waited = {}, {}
    for r, i, w in re.findall(r"weir: halo-exchange \S+ rank (\d+): [0-9.]+ s; overlap: interior ([0-9.]+) s "
                              r"while the messages flew, then ([0-9.]+) s in MPI_Waitall", text):
        interior[int(r)] = interior.get(int(r), 0.0) + float(i)
        waited[int(r)] = waited.get(int(r), 0.0) + float(w)
    return (call_s, max(per_rank.values(), default=0.0), calls, max(interior.values(), default=0.0),
            max(waited.values(), default=0.0))


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--weir", default=str(ROOT / "build" / "bin" / "weir"))
    a.add_argument("--mpirun", default="mpirun")
    a.add_argument("--steps", type=int, default=40)
    a.add_argument("--strong", default="388,388", help="global NI,NJ (the output domain is 4 less)")
    a.add_argument("--weak", default="260,260", help="NI,NJ per rank")
    o = a.parse_args()
    grids = {1: "1x1", 2: "2x1", 4: "2x2"}
    ni, nj = (int(x) for x in o.strong.split(","))
    wi, wj = (int(x) for x in o.weak.split(","))
    rows = []
    with tempfile.TemporaryDirectory(prefix="weir-mpi-bench-") as d:
        work = pathlib.Path(d)
        for kind in ("strong", "weak"):
            for n in (1, 2, 4):
                gi, gj = (int(x) for x in grids[n].split("x"))
                shape = (ni, nj) if kind == "strong" else ((wi - 4) * gi + 4, (wj - 4) * gj + 4)
                call_s, hx_s, calls, _, _ = run_once(o, work, shape, n, grids[n])
                ov_s, ov_hx, _, interior, waited = run_once(o, work, shape, n, grids[n], overlap=True)
                points = (shape[0] - 4) * (shape[1] - 4) * o.steps
                rows.append((kind, n, grids[n], f"{shape[0]}x{shape[1]}", call_s, hx_s, calls, points / call_s,
                             ov_s, ov_hx, interior, waited))
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"{o.steps} steps; {load}")
    print("| scaling | ranks | grid | global | loop s | exchange s (max rank) | exchanges/rank | points/s "
          "| --overlap: loop s | exchange s | interior in flight s | then waiting s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, g, shape, call_s, hx_s, calls, rate, ov_s, ov_hx, interior, waited in rows:
        print(f"| {kind} | {n} | {g} | {shape} | {call_s:.3f} | {hx_s:.3f} ({100 * hx_s / call_s:.0f}%) | "
              f"{calls} | {rate:.3g} | {ov_s:.3f} | {ov_hx:.3f} | {interior:.3f} | {waited:.3f} |")


if __name__ == "__main__":
    main()
