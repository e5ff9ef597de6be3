"""Halo sizes and exchanged bytes per step of the unstructured orchestration granules on 2, 3 and 4
METIS parts (docs/distributed.md "Unstructured programs", ADR 0060 section "2026-12-06, session 30").

    /usr/bin/python3 bench/partition_halos.py [--weir build/bin/weir] [--nx 30 --ny 30 --levels 10 --steps 4]

For examples/orchestration/diffusion_granule.py and half_level_granule.py: `weir mesh --parts N
--program ...` of a periodic nx x ny mesh, then `mpirun -np N weir run ... --parts` with
WEIR_HALO_TIMES set (each UnstructuredHaloExchange prints a line per run). Per part: owned and
halo rows of every entity (partition.json); per rank: the bytes it receives per step, the halo
rows of each exchanged array's entity x levels x 8 summed over the exchanges it ran, divided by
the steps (every exchanged array of the granules has one value per level). Prints one line per
granule and part count with a checksum of the gathered outputs (equal checksums: byte-identical
outputs, e.g. before and after a change of the halo rule). Seeded random inputs; the numbers
depend on METIS's partition only, not on the machine's load."""
import argparse
import collections
import hashlib
import json
import os
import pathlib
import re
import subprocess
import tempfile

import numpy as np


def granules(nx, ny, levels, steps):
    n = {"V": nx * ny, "E": 3 * nx * ny, "C": 2 * nx * ny}
    k = levels
    return n, {
        "diffusion_granule": (
            [("vn", "E", k), ("vn_new", "E", k), ("w", "C", k), ("w_new", "C", k), ("theta", "C", k),
             ("theta_new", "C", k), ("e_weights", "E", 5), ("inv_dual", "E", None), ("geofac_div", "C", 3),
             ("mask", "C", k)],
            {"dt": 0.01, "smag_fac": 0.15, "n_steps": steps, "apply_theta": "true", "n_vertices": n["V"],
             "n_edges": n["E"], "n_cells": n["C"], "n_levels": k}),
        "half_level_granule": (
            [("w", "C", k + 1), ("w_new", "C", k + 1), ("theta", "C", k), ("vn", "E", k), ("geofac_div", "C", 3),
             ("w_full", "C", k)],
            {"wgt": 0.6, "dtime": 0.3, "n_substeps": steps, "horizontal_start": 0, "horizontal_end": n["C"],
             "n_cells": n["C"], "nlev": k}),
    }


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    a = argparse.ArgumentParser()
    a.add_argument("--weir", default=str(root / "build" / "bin" / "weir"))
    a.add_argument("--nx", type=int, default=30)
    a.add_argument("--ny", type=int, default=30)
    a.add_argument("--levels", type=int, default=10)
    a.add_argument("--steps", type=int, default=4)
    o = a.parse_args()
    counts, runs = granules(o.nx, o.ny, o.levels, o.steps)
    env = dict(os.environ, WEIR_HALO_TIMES="1", OMPI_MCA_btl="self,vader", OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        env["WEIR_CACHE_DIR"] = str(work / "cache")
        subprocess.run([o.weir, "mesh", "--nx", str(o.nx), "--ny", str(o.ny), "-o", str(work / "tab")], check=True,
                       capture_output=True)
        rng = np.random.default_rng(1)
        for g, (inputs, scalars) in runs.items():
            ind = work / g / "in"
            ind.mkdir(parents=True)
            for name, e, extra in inputs:
                v = rng.random((counts[e],) + (() if extra is None else (extra,))) + 0.5
                np.save(ind / f"{name}.npy", v > 0.8 if name == "mask" else v)
            prog = f"{root}/examples/orchestration/{g}.py::{g}"
            sets = [x for k, v in scalars.items() for x in ("--set", f"{k}={v}")]
            for n in (2, 3, 4):
                pd, out = work / g / f"p{n}", work / g / f"r{n}"
                subprocess.run([o.weir, "mesh", "--parts", str(n), "--program", prog, "--nx", str(o.nx), "--ny",
                                str(o.ny), "-o", str(pd)], check=True, capture_output=True)
                meta = json.loads((pd / "partition.json").read_text())
                owned = {e: [meta["owned"][p][e] for p in range(n)] for e in meta["entities"]}
                halo = {e: [meta["local"][p][e] - owned[e][p] for p in range(n)] for e in meta["entities"]}
                p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(n), "-x",
                                    "WEIR_HALO_TIMES", o.weir, "run", prog, "--in-dir", str(work / "tab"), "--in-dir",
                                    str(ind), "--parts", str(pd), "--out", str(out)] + sets,
                                   capture_output=True, text=True, env=env)
                if p.returncode:
                    raise SystemExit(p.stdout + p.stderr)
                listed = re.search(r"halo exchanges? of:(.*)", p.stdout).group(1).split()
                entity = dict(x[:-1].split("(") for x in listed)  # "kh(Edge)" -> kh: Edge
                by_length = sorted(entity, key=len, reverse=True)
                received = collections.Counter()
                for m in re.finditer(r"weir: halo-exchange halo_(\S+) rank (\d+):", p.stderr):
                    array = next(x for x in by_length if m.group(1).startswith(x))
                    received[int(m.group(2))] += halo[entity[array]][int(m.group(2))] * o.levels * 8
                digest = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(out.iterdir()))).hexdigest()[:12]
                rows = " ".join(f"{e}: owned {owned[e]} halo {halo[e]};" for e in sorted(halo))
                print(f"{g} on {n} parts: {rows} received bytes per step per rank "
                      f"{[received[r] // o.steps for r in range(n)]}; outputs {digest}")


if __name__ == "__main__":
    main()
