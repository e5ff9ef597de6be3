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

Inputs are seeded random arrays."""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import unstructured_reference  # noqa: E402

# file::program, inputs (name, entity, extra shape), tables, scalars
EXAMPLES = {
    "nabla_program": ("nabla.py", [("pp", "V", "K"), ("S_MXX", "E", ""), ("S_MYY", "E", ""),
                                   ("sign", "V", 6), ("vol", "V", "")], ["E2V", "V2E"], {}),
    "cell_laplacian": ("cell_laplacian.py", [("psi", "C", "K"), ("weights", "C", 4)], ["C2E2CO"], {}),
    "cell_bounds": ("cell_laplacian.py", [("psi", "C", "K")], ["C2E2CO"], {}),
    "edge_gradients": ("edge_stencil.py", [("u", "V", "K"), ("inv_length", "E", ""),
                                           ("inv_dual_length", "E", "")], ["E2C2V"], {}),
    "edge_smooth": ("edge_stencil.py", [("u", "V", "K"), ("w", "E", 4)], ["E2C2V"], {"strength": 0.25}),
}
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

    for p in range(n_parts):
        follow(p, meta["primary"], np.arange(meta["owned"][p][meta["primary"]]), frozenset())


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
    a.add_argument("--expect", action="append", default=[])
    a.add_argument("--timeout", type=float, default=120)
    o = a.parse_args()

    file, inputs, table_names, scalars = EXAMPLES[o.program]
    program = f"{pathlib.Path(o.source) / 'examples' / 'unstructured' / file}::{o.program}"
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
        shape = (counts[ent],) + ((o.levels,) if extra == "K" else (extra,) if extra else ())
        arrays[name] = rng.random(shape) + 0.5  # vol away from 0
    (work / "in").mkdir()
    for n, v in arrays.items():
        np.save(work / "in" / f"{n}.npy", v)
    sets = [x for k, v in scalars.items() for x in ("--set", f"{k}={v}")]
    common = [program, "--in-dir", str(work / "tab"), "--in-dir", str(work / "in")] + sets
    mpirun = [o.mpirun, "--oversubscribe", "--allow-run-as-root"]

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
        for name in ref:
            one = (work / "one" / f"{name}.npy").read_bytes()
            assert (work / f"r{n}" / f"{name}.npy").read_bytes() == one, f"{name} on {n} ranks differs"
        print(f"{o.program}: {n} part(s) bit-identical to one rank and equal to NumPy")


if __name__ == "__main__":
    main()
