#!/usr/bin/env python3
"""An unstructured stencil from Python: the FVM nabla of examples/unstructured/nabla.py on a periodic
triangular mesh written by `weir mesh`, its connectivity tables (E2V, V2E) given as
offset_provider, checked against the same gradient computed with NumPy's fancy indexing here.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/nabla.py [--nx 32 --ny 24 --k 10]
    weir mesh --nx 32 --ny 24 -o mesh/ && ... examples/python/nabla.py --mesh mesh/

Without --mesh it runs `weir mesh` into a temporary folder: the binary is --weir, $WEIR_BIN, the
build tree's bin/weir next to the imported module, or `weir` on PATH. Exits 1 on a mismatch."""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import weir

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent / "unstructured" / "nabla.py"


def weir_binary(given):
    for candidate in (given, os.environ.get("WEIR_BIN"),
                      pathlib.Path(weir.__file__).resolve().parents[2] / "bin" / "weir", shutil.which("weir")):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    sys.exit("examples/python/nabla.py: no weir binary to run `weir mesh` (give --weir PATH or --mesh DIR)")


def nabla_numpy(pp, s_mxx, s_myy, sign, vol, e2v, v2e):
    """Edge averages of pp, weighted by the dual normals, summed per vertex with each edge's sign
    (entries -1 in V2E, none on a periodic mesh, would contribute nothing)."""
    zavg = 0.5 * (pp[e2v[:, 0]] + pp[e2v[:, 1]])  # (edges, K)
    present = (v2e >= 0)[:, :, None]
    out = []
    for s in (s_mxx, s_myy):
        per_edge = s[:, None] * zavg
        gathered = np.where(present, per_edge[np.maximum(v2e, 0)], 0.0)  # (vertices, 6, K)
        out.append((gathered * sign[:, :, None]).sum(axis=1) / vol[:, None])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nx", type=int, default=32)
    ap.add_argument("--ny", type=int, default=24)
    ap.add_argument("--k", type=int, default=10, help="vertical levels")
    ap.add_argument("--mesh", help="a folder `weir mesh` wrote (default: write one now)")
    ap.add_argument("--weir", help="the weir binary that writes the mesh")
    ap.add_argument("--backend", choices=("cpu", "embedded"), default="cpu")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        mesh = pathlib.Path(a.mesh or tmp)
        if not a.mesh:
            subprocess.run([weir_binary(a.weir), "mesh", "--nx", str(a.nx), "--ny", str(a.ny), "-o", str(mesh)],
                           check=True, stdout=subprocess.DEVNULL)
        e2v, v2e = np.load(mesh / "E2V.npy"), np.load(mesh / "V2E.npy")

    n_vertices, n_edges = v2e.shape[0], e2v.shape[0]
    rng = np.random.default_rng(7)
    pp = rng.uniform(0.0, 10.0, (n_vertices, a.k))
    s_mxx, s_myy = rng.uniform(-1.0, 1.0, n_edges), rng.uniform(-1.0, 1.0, n_edges)
    sign = rng.choice([-1.0, 1.0], v2e.shape)
    vol = rng.uniform(0.5, 2.0, n_vertices)
    out_x, out_y = np.zeros_like(pp), np.zeros_like(pp)

    nabla = weir.load(f"{SOURCE}::nabla_program", backend=getattr(weir.backends, a.backend))
    nabla(pp, s_mxx, s_myy, sign, vol, out_x, out_y, offset_provider={"E2V": e2v, "V2E": v2e})

    want_x, want_y = nabla_numpy(pp, s_mxx, s_myy, sign, vol, e2v, v2e)
    err = max(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1.0))
              for got, want in ((out_x, want_x), (out_y, want_y)))
    ok = err <= 1e-12
    print(f"nabla on a {n_vertices}-vertex, {n_edges}-edge mesh x {a.k} levels, backend '{nabla.backend.name}'")
    print(f"against NumPy: max relative error {err:.2e} -> {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
