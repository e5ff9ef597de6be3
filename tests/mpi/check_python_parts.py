"""The ctest entry `mpi: python: unstructured programs on a split communicator ...`
(python/CMakeLists.txt), run as `mpirun -np 4 python3 check_python_parts.py SOURCE WORK`:
weir.partitioned called from Python on every rank with local NumPy arrays (local numbering),
the part's tables and send/receive lists (weir.read_part) and an mpi4py communicator
(docs/distributed.md "Unstructured programs from C++ and Python").

WORK holds the tables of a 7 x 5 periodic mesh (`weir mesh`, in WORK/tab) and 2-part METIS
partitions for nabla and cell_laplacian (WORK/nabla_program2, WORK/cell_laplacian2), written by
the entry's setup. The 4 ranks of MPI.COMM_WORLD are split into two groups of 2; each group runs
both programs on its own seeded inputs over the same partition. The halo rows of the local
inputs start as NaN: only the program's exchanges can fill them (nabla exchanges on two
entities, Vertex and Edge). Each group's root gathers the owned rows by global id and checks,
byte for byte, against the single-rank run (weir.load on the cpu backend) and the NumPy meaning
(unstructured_reference.py). Also refused, before any message: lists of the wrong kind
(TypeError) and a peer that is the rank itself (weir.Error).

Exit 0 when every check passes, 1 otherwise (MPI_Abort so that no rank waits), 77 (skipped)
when mpi4py is missing and WEIR_REQUIRE_PYTHON is not 1."""
import os
import pathlib
import sys
import traceback

import numpy as np

try:
    from mpi4py import MPI
except ImportError:
    if os.environ.get("WEIR_REQUIRE_PYTHON") == "1":
        print("mpi4py is missing (Debian's python3-mpi4py, which scripts/install-deps.sh installs)")
        sys.exit(1)
    print("skipped: mpi4py is missing (Debian's python3-mpi4py)")
    sys.exit(77)

import weir  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import unstructured_reference  # noqa: E402

SOURCE, WORK = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
NX, NY, LEVELS = 7, 5, 3
COUNTS = {"Vertex": NX * NY, "Edge": 3 * NX * NY, "Cell": 2 * NX * NY}
# program: file, inputs (name, entity, extra shape), outputs, tables
PROGRAMS = {
    "nabla_program": ("nabla.py", [("pp", "Vertex", (LEVELS,)), ("S_MXX", "Edge", ()), ("S_MYY", "Edge", ()),
                                   ("sign", "Vertex", (6,)), ("vol", "Vertex", ())],
                      ["out_x", "out_y"], ["E2V", "V2E"]),
    "cell_laplacian": ("cell_laplacian.py", [("psi", "Cell", (LEVELS,)), ("weights", "Cell", (4,))], ["lap"],
                       ["C2E2CO"]),
}
world = MPI.COMM_WORLD


def run_program(name, group, rng, cache, failures):
    file, inputs, outputs, table_names = PROGRAMS[name]
    ref = str(SOURCE / "examples" / "unstructured" / file) + "::" + name
    pp = weir.partitioned(weir.load(ref, backend=weir.backends.cpu), cache_dir=cache)
    if world.rank == 0:  # rank 0 compiles into the program cache, the others then load
        pp.prepare()
    world.Barrier()
    pp.prepare()
    part = weir.read_part(WORK / f"{name}2", group.rank)
    entities = {e for _, e, _ in inputs}
    assert pp.exchanged == {n: e for n, e, _ in inputs}, pp.exchanged
    assert pp.entities == entities, pp.entities

    glob = {n: rng.random((COUNTS[e],) + extra) + 0.5 for n, e, extra in inputs}
    local = {}
    for n, e, extra in inputs:
        ids, owned = part.global_ids[e], part.owned[e]
        a = np.full((len(ids),) + extra, np.nan)
        a[:owned] = glob[n][ids[:owned]]
        local[n] = a
    primary = part.primary
    for n in outputs:
        local[n] = np.zeros((len(part.global_ids[primary]), LEVELS))
    lists = {e: part.lists[e] for e in entities}

    try:
        pp(**local, offset_provider=part.tables, lists={e: [1, 2] for e in entities}, comm=group)
        failures.append(f"{name}: lists of the wrong kind were not refused")
    except TypeError as e:
        if "expected {peer: (send, recv)}" not in str(e):
            failures.append(f"{name}: lists of the wrong kind: {e}")
    try:
        bad = {e: {group.rank: ([], [])} for e in entities}
        pp(**local, offset_provider=part.tables, lists=bad, comm=group)
        failures.append(f"{name}: a peer that is the rank itself was not refused")
    except weir.Error as e:
        if f"name peer {group.rank} on rank {group.rank} of a communicator of 2 ranks" not in str(e):
            failures.append(f"{name}: a peer that is the rank itself: {e}")

    pp(**local, offset_provider=part.tables, lists=lists, comm=group)
    owned_ids = part.global_ids[primary][:part.owned[primary]]
    gathered = group.gather((owned_ids, {n: local[n][:len(owned_ids)] for n in outputs}), root=0)
    if group.rank != 0:
        return
    tables = {t: np.load(WORK / "tab" / f"{t}.npy") for t in table_names}
    one = {n: np.zeros((COUNTS[primary], LEVELS)) for n in outputs}
    weir.load(ref, backend=weir.cpu_backend(cache_dir=cache) if cache else weir.backends.cpu)(
        **glob, **one, offset_provider=tables)
    want = getattr(unstructured_reference, name)(tables, **glob)
    for n in outputs:
        got = np.full((COUNTS[primary], LEVELS), np.nan)
        covered = np.zeros(COUNTS[primary], int)
        for ids, rows in gathered:
            got[ids] = rows[n]
            covered[ids] += 1
        if not (covered == 1).all():
            failures.append(f"{name}: the owned rows do not cover {primary} exactly once")
        if got.tobytes() != one[n].tobytes():
            failures.append(f"{name}: {n} differs from the single-rank run")
        if not np.array_equal(got, want[n]):
            failures.append(f"{name}: {n} differs from NumPy")
    return {n: one[n] for n in outputs}


def main():
    failures = []
    assert world.size == 4, f"run with mpirun -np 4 (got {world.size} ranks)"
    color = world.rank // 2
    group = world.Split(color, world.rank)
    rng = np.random.default_rng(700 + color)
    cache = os.environ.get("WEIR_CACHE_DIR")
    results = [run_program(name, group, rng, cache, failures) for name in PROGRAMS]
    # The two groups ran on different inputs: their results must differ.
    roots = world.gather(results if group.rank == 0 else None, root=0)
    if world.rank == 0:
        first, second = [r for r in roots if r is not None]
        if first[1]["lap"].tobytes() == second[1]["lap"].tobytes():
            failures.append("the two groups' results are equal: their inputs were not their own")
    for f in failures:
        print(f"rank {world.rank}: FAIL {f}", flush=True)
    bad = world.allreduce(1 if failures else 0, op=MPI.MAX)
    if world.rank == 0:
        print("python: unstructured programs on a split communicator:", "FAILED" if bad else "ok", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        code = main()
    except Exception:
        traceback.print_exc()
        sys.stdout.flush()
        MPI.COMM_WORLD.Abort(1)
    sys.exit(code)
