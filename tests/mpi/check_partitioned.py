"""One ctest entry of the unstructured MPI tests (tests/mpi/CMakeLists.txt): an example of
examples/unstructured on a periodic triangular mesh (`weir mesh --nx --ny`), run with `weir run
--backend cpu` on one process and with `mpirun -np N weir run --parts DIR` on the partition
`weir mesh --parts N` wrote, and checks

  equal     every output of every rank count is byte for byte the single-rank output, which
            equals the NumPy meaning (unstructured_reference.py) exactly; every partition's files
            are consistent (check_partition);
  refused   `weir mesh` (or the run, with --run-parts) exits non-zero with the texts given; with
            --corrupt KIND the run on a 2-part partition whose files were damaged (a sent row
            that is no owned row, a receive list shorter than the peer's send list, a table entry
            past the part's entities) must stop every rank with the file named, within the timeout.

With --expect-exchanges TEXT every run must print TEXT (and with --expect TEXT, TEXT somewhere) (the exchanged arrays); with
--drop-exchange ARRAY a last run on the largest rank count without that exchange
(WEIR_TEST_DROP_EXCHANGE) must give NaN in some output, the halo rows it leaves being NaN: the
exchange is needed, and the runs that keep it have no NaN. The orchestration examples
(examples/orchestration, several time steps with swaps and a branch) run the same way.

Inputs are seeded random arrays."""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import unstructured_reference  # noqa: E402

# file::program, inputs (name, entity, extra shape: "K" levels, "K1" levels + 1, a count, ""),
# tables, scalars ("#V", "#E", "#C": the mesh's count, "#K": levels), folder of examples/
EXAMPLES = {
    "diffusion_granule": ("diffusion_granule.py", [("vn", "E", "K"), ("vn_new", "E", "K"), ("w", "C", "K"),
                                                   ("w_new", "C", "K"), ("theta", "C", "K"),
                                                   ("theta_new", "C", "K"), ("e_weights", "E", 5),
                                                   ("inv_dual", "E", ""), ("geofac_div", "C", 3),
                                                   ("mask", "C", "K")],
                          ["C2E", "E2C", "E2C2EO", "E2C2V", "V2C"],
                          {"dt": 0.01, "smag_fac": 0.15, "n_steps": 3, "apply_theta": True, "n_vertices": "#V",
                           "n_edges": "#E", "n_cells": "#C", "n_levels": "#K"}, "orchestration"),
    # Global reductions (np.max, np.min, np.sum, np.max(np.abs)) over partitioned fields.
    "peak_limited": ("unstructured_reduction.py", [("vn", "E", "K"), ("flux", "E", "K"), ("psi", "C", "K"),
                                                   ("psi_next", "C", "K")],
                     ["C2E", "E2C"], {"limit": 0.1, "steps": 3}, "../tests/mpi"),
    "mass_limited": ("unstructured_reduction.py", [("vn", "E", "K"), ("flux", "E", "K"), ("psi", "C", "K"),
                                                   ("psi_next", "C", "K"), ("mass", "E", "K")],
                     ["C2E", "E2C"], {"limit": 0.1, "steps": 3}, "../tests/mpi"),
    "peak_window": ("unstructured_reduction.py", [("vn", "E", "K"), ("flux", "E", "K"), ("psi", "C", "K"),
                                                  ("psi_next", "C", "K")],
                    ["C2E", "E2C"], {"limit": 0.1, "steps": 2}, "../tests/mpi"),
    "half_level_granule": ("half_level_granule.py", [("w", "C", "K1"), ("w_new", "C", "K1"), ("theta", "C", "K"),
                                                     ("vn", "E", "K"), ("geofac_div", "C", 3),
                                                     ("w_full", "C", "K")], ["C2E"],
                           {"wgt": 0.6, "dtime": 0.3, "n_substeps": 3, "horizontal_start": 0,
                            "horizontal_end": "#C", "n_cells": "#C", "nlev": "#K"}, "orchestration"),
    "nabla_program": ("nabla.py", [("pp", "V", "K"), ("S_MXX", "E", ""), ("S_MYY", "E", ""),
                                   ("sign", "V", 6), ("vol", "V", "")], ["E2V", "V2E"], {}),
    "cell_laplacian": ("cell_laplacian.py", [("psi", "C", "K"), ("weights", "C", 4)], ["C2E2CO"], {}),
    "cell_bounds": ("cell_laplacian.py", [("psi", "C", "K")], ["C2E2CO"], {}),
    "edge_gradients": ("edge_stencil.py", [("u", "V", "K"), ("inv_length", "E", ""),
                                           ("inv_dual_length", "E", "")], ["E2C2V"], {}),
    "edge_smooth": ("edge_stencil.py", [("u", "V", "K"), ("w", "E", 4)], ["E2C2V"], {"strength": 0.25}),
    # A program of a package (imports from its root, -I), with a domain= bounded by scalars over
    # the split entity ({C}: the cell count; {K}: --levels): on a part they take its row count.
    "smooth": ("examples/multimodule/mymodel/program.py", [("e", "E", "K"), ("weights", "C", 3), ("out", "C", "K")],
               ["C2E"], {"n_cells": "{C}", "n_levels": "{K}"}),
    # A namespace package over three import roots; edge_program's domain= bounds Edge by n_edges
    # ({E}: the edge count) and K by nlev.
    "edge_program": ("examples/namespaced/dycore/model/dycore/program.py",
                     [("c", "C", "K"), ("v", "V", "K"), ("out", "E", "K")], ["E2C", "E2V"],
                     {"alpha": 0.75, "n_edges": "{E}", "nlev": "{K}"}),
    "state_program": ("examples/namespaced/dycore/model/dycore/program.py", [("c", "C", "K"), ("v", "V", "K")],
                      ["E2C", "E2V"], {}),
}
# The import roots of a program of a package (WEIR_PATH, as `weir run -I`; weir mesh reads it too).
_NAMESPACED = ["examples/namespaced/core", "examples/namespaced/dycore", "examples/namespaced/physics"]
INCLUDE = {"smooth": ["examples/multimodule"], "edge_program": _NAMESPACED, "state_program": _NAMESPACED}
ENTITY = {"Vertex": "V", "Edge": "E", "Cell": "C"}


def run(cmd, timeout):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def check_partition(d, tables, n_parts):
    """Global ids a permutation of every entity's owned entries, every halo entry owned by exactly
    one other part and listed in matching send/receive lists, and every table row an owned
    output reaches (each table once along a chain) complete and equal to the global table."""
    meta = json.loads((d / "partition.json").read_text())
    assert meta["parts"] == n_parts, meta["parts"]
    parts = [d / f"part{p}" for p in range(n_parts)]
    gid = [{e: np.load(pd / f"global_{e}.npy") for e in meta["entities"]} for pd in parts]
    owner = {}
    for e, n in meta["entities"].items():
        owned = np.concatenate([gid[p][e][:meta["owned"][p][e]] for p in range(n_parts)])
        assert sorted(owned.tolist()) == list(range(n)), f"owned {e} not a permutation"
        owner[e] = np.empty(n, int)
        for p in range(n_parts):
            owner[e][gid[p][e][:meta["owned"][p][e]]] = p
            assert len(set(gid[p][e].tolist())) == len(gid[p][e]), f"part {p}: {e} ids repeat"
    for p in range(n_parts):
        for e in meta["entities"]:
            halo = gid[p][e][meta["owned"][p][e]:]
            assert all(owner[e][halo] != p), f"part {p}: a halo {e} is owned by itself"
            got = set()
            for q in range(n_parts):
                rf = parts[p] / f"recv_{e}_from_{q}.npy"
                if not rf.exists():
                    continue
                recv, send = np.load(rf), np.load(parts[q] / f"send_{e}_to_{p}.npy")
                assert (owner[e][gid[p][e][recv]] == q).all(), f"part {p} receives {e} not owned by {q}"
                assert (gid[p][e][recv] == gid[q][e][send]).all(), f"lists {q}->{p} of {e} disagree"
                got |= set(recv.tolist())
            assert got == set(range(meta["owned"][p][e], len(gid[p][e]))), f"part {p}: {e} halo not all received"
    tinfo = meta["tables"]

    def follow(p, entity, rows, used):
        for name, t in tinfo.items():
            if name in used or t["from"] != entity:
                continue
            local = np.load(parts[p] / f"{name}.npy")
            sub = local[rows]
            assert (gid[p][t["to"]][sub] == tables[name][gid[p][entity][rows]]).all(), f"part {p}: {name} rows wrong"
            follow(p, t["to"], np.unique(sub), used | {name})

    # An orchestration's partition: the chains start at the owned rows of every entity a call
    # writes, through that call's tables ("calls"; without it, of every entity through every table).
    if "calls" in meta:
        starts = [(e, frozenset(tinfo) - set(c["tables"])) for c in meta["calls"] for e in c["writes"]]
    else:
        every = meta.get("halo") == "every entity"
        starts = [(e, frozenset()) for e in (list(meta["entities"]) if every else [meta["primary"]])]
    for p in range(n_parts):
        for e, unused in starts:
            follow(p, e, np.arange(meta["owned"][p][e]), unused)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--weir", required=True)
    a.add_argument("--mpirun", required=True)
    a.add_argument("--source", required=True)
    a.add_argument("--work", required=True)
    a.add_argument("--program", required=True, choices=sorted(EXAMPLES))
    a.add_argument("--mesh", default="7,5", help="NX,NY")
    a.add_argument("--levels", type=int, default=3)
    a.add_argument("--ranks", default="1,2,3,4")
    a.add_argument("--mode", default="equal", choices=["equal", "refused"])
    a.add_argument("--mesh-args", default="", help="refused: arguments of weir mesh ('{tab}' the tables)")
    a.add_argument("--run-parts", type=int, default=0, help="refused: run on a partition of this many parts")
    a.add_argument("--entry-bad", action="store_true", help="refused: {bad} has V2E[4, 2] = 999, E2V fine")
    a.add_argument("--corrupt", choices=["send-row", "recv-count", "table-entry"],
                   help="refused: damage one file of a 2-part partition before the run")
    a.add_argument("--scalar", action="append", default=[], help="NAME=VALUE: a scalar given instead of the example's")
    a.add_argument("--expect", action="append", default=[])
    a.add_argument("--expect-exchanges", default="", help="equal: how the runs' line of exchanges ends")
    a.add_argument("--drop-exchange", default="", help="equal: an array whose exchange is needed")
    a.add_argument("--timeout", type=float, default=120)
    o = a.parse_args()

    file, inputs, table_names, scalars, *folder = EXAMPLES[o.program] + ("unstructured",)
    # A path from the source folder ("examples/..."), or a file in examples/<folder>.
    path = pathlib.Path(o.source) / (file if file.startswith("examples/") else f"examples/{folder[0]}/{file}")
    program = f"{path}::{o.program}"
    if o.program in INCLUDE:  # for weir mesh and every rank (mpirun -x)
        os.environ["WEIR_PATH"] = ":".join(str(pathlib.Path(o.source) / d) for d in INCLUDE[o.program])
    work = pathlib.Path(o.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    nx, ny = (int(x) for x in o.mesh.split(","))
    code, out = run([o.weir, "mesh", "--nx", str(nx), "--ny", str(ny), "-o", str(work / "tab")], o.timeout)
    assert code == 0, out
    tables = {n: np.load(work / "tab" / f"{n}.npy") for n in table_names}
    counts = {"V": nx * ny, "E": 3 * nx * ny, "C": 2 * nx * ny}
    rng = np.random.default_rng(38)
    arrays = {}
    for name, ent, extra in inputs:
        levels = {"K": (o.levels,), "K1": (o.levels + 1,), "": ()}
        shape = (counts[ent],) + (levels[extra] if extra in levels else (extra,))
        arrays[name] = rng.random(shape) + 0.5  # vol away from 0
        if name == "mask":
            arrays[name] = arrays[name] > 0.8
        if name == "mass":  # multiples of 1/8: every order of a sum is exact
            arrays[name] = np.round(arrays[name] * 8.0) / 8.0
        if name == "vn" and o.program == "mass_limited":  # both signs, for np.max(np.abs(vn))
            arrays[name] = arrays[name] - 1.0
    (work / "in").mkdir()
    for n, v in arrays.items():
        np.save(work / "in" / f"{n}.npy", v)
    def scalar_value(v):
        # "#C": the mesh's count of C ("#K": levels); "{C}" the same inside an expression.
        if not isinstance(v, str):
            return v
        if v.startswith("#"):
            return o.levels if v == "#K" else counts[v[1:]]
        return int(v.format(C=counts["C"], E=counts["E"], V=counts["V"], K=o.levels))

    scalars = {k: scalar_value(v) for k, v in scalars.items()}
    scalars.update((k, int(v)) for k, v in (x.split("=") for x in o.scalar))
    sets = [x for k, v in scalars.items() for x in ("--set", f"{k}={str(v).lower() if isinstance(v, bool) else v}")]
    common = [program, "--in-dir", str(work / "tab"), "--in-dir", str(work / "in")] + sets
    mpirun = [o.mpirun, "--oversubscribe", "--allow-run-as-root"] + (["-x", "WEIR_PATH"] if o.program in INCLUDE else [])

    if o.mode == "refused":
        if o.corrupt:
            pd = work / "p"
            code, out = run([o.weir, "mesh", "--parts", "2", "--program", program, "--nx", str(nx), "--ny",
                             str(ny), "-o", str(pd)], o.timeout)
            assert code == 0, out
            primary = json.loads((pd / "partition.json").read_text())["primary"]
            if o.corrupt == "send-row":
                f = pd / "part0" / f"send_{primary}_to_1.npy"
                v = np.load(f)
                v[0] = 1000000
            elif o.corrupt == "recv-count":
                f = pd / "part1" / f"recv_{primary}_from_0.npy"
                v = np.load(f)[:-1]
            else:
                f = pd / "part1" / f"{table_names[0]}.npy"
                v = np.load(f)
                v[0, 0] = 1000000
            np.save(f, v)
            code, out = run(mpirun + ["-np", "2", o.weir, "run"] + common + ["--parts", str(pd)], o.timeout)
        elif o.run_parts:
            code, out = run([o.weir, "mesh", "--parts", str(o.run_parts), "--program", program, "--nx", str(nx),
                             "--ny", str(ny), "-o", str(work / "p")], o.timeout)
            assert code == 0, out
            n = int(o.ranks)
            code, out = run(mpirun + ["-np", str(n), o.weir, "run"] + common + ["--parts", str(work / "p")], o.timeout)
        else:
            args = o.mesh_args.replace("{tab}", str(work / "tab")).replace("{program}", program).split()
            if "{bad}" in o.mesh_args:  # a user's table of the wrong shape (a 1-d E2V) or entry
                (work / "bad").mkdir()
                for n, v in tables.items():
                    if o.entry_bad and n == "V2E":
                        v = v.copy()
                        v[4, 2] = 999
                    np.save(work / "bad" / f"{n}.npy", v[:, 0] if n == table_names[0] and not o.entry_bad else v)
                args = [x.replace("{bad}", str(work / "bad")) for x in args]
            code, out = run([o.weir, "mesh"] + args + ["-o", str(work / "p")], o.timeout)
        print(out)
        assert code != 0, "expected a refusal"
        for e in o.expect:
            assert e in out, f"missing {e!r}"
        assert "internal error" not in out
        return

    code, out = run([o.weir, "run"] + common + ["--backend", "cpu", "--out", str(work / "one")], o.timeout)
    assert code == 0, out
    ref = getattr(unstructured_reference, o.program)(tables, **arrays, **scalars)
    for n, want in ref.items():
        got = np.load(work / "one" / f"{n}.npy")
        assert got.shape == want.shape and np.array_equal(got, want), f"{n}: single rank differs from NumPy " \
            f"by {np.abs(got - want).max()}"
    for n in (int(x) for x in o.ranks.split(",")):
        pd = work / f"p{n}"
        code, out = run([o.weir, "mesh", "--parts", str(n), "--program", program, "--nx", str(nx), "--ny", str(ny),
                         "-o", str(pd)], o.timeout)
        assert code == 0, out
        check_partition(pd, tables, n)
        code, out = run(mpirun + ["-np", str(n), o.weir, "run"] + common + ["--parts", str(pd), "--out",
                                                                            str(work / f"r{n}")], o.timeout)
        assert code == 0, out
        for e in o.expect:
            assert e in out, f"{n} ranks: missing {e!r} in {out!r}"
        if o.expect_exchanges:  # the whole list: no other array exchanged
            line = next((x for x in out.splitlines() if " halo exchange" in x), "")
            assert line.endswith(o.expect_exchanges), f"{n} ranks: {line!r} does not end in {o.expect_exchanges!r}"
        for name in ref:
            one = (work / "one" / f"{name}.npy").read_bytes()
            assert (work / f"r{n}" / f"{name}.npy").read_bytes() == one, f"{name} on {n} ranks differs"
            assert not np.isnan(np.load(work / f"r{n}" / f"{name}.npy")).any(), f"{name} on {n} ranks has NaN"
        print(f"{o.program}: {n} part(s) bit-identical to one rank and equal to NumPy")
    if o.drop_exchange:
        # The halo rows are NaN until exchanged: without the exchange some owned output is NaN.
        env = dict(os.environ, WEIR_TEST_DROP_EXCHANGE=o.drop_exchange)
        p = subprocess.run(mpirun + ["-np", str(n), "-x", "WEIR_TEST_DROP_EXCHANGE", o.weir, "run"] + common +
                           ["--parts", str(pd), "--out", str(work / "dropped")], capture_output=True, text=True,
                           timeout=o.timeout, env=env)
        assert p.returncode == 0, p.stdout + p.stderr
        assert f"dropped the exchange of {o.drop_exchange}" in p.stdout, p.stdout
        nan = [name for name in ref if np.isnan(np.load(work / "dropped" / f"{name}.npy")).any()]
        assert nan, f"without the exchange of {o.drop_exchange} no output has NaN: the test could not fail"
        print(f"{o.program}: without the exchange of {o.drop_exchange} on {n} ranks {nan} have NaN")


if __name__ == "__main__":
    main()
