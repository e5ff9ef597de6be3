"""The ctest entry `mpi: python: ...` (tests/mpi/CMakeLists.txt), run as
`mpirun -np 4 python3 check_python_comm.py SOURCE`: weir.decompose called from Python on every
rank with local NumPy arrays and an mpi4py communicator (docs/distributed.md "From C++ and
Python").

The 4 ranks of MPI.COMM_WORLD are split into two groups of 2 (comm.Split); each group runs the
same decomposed programs independently on its own inputs (another seed), on a 2x1 grid of its 2
ranks. Were the exchanges on MPI_COMM_WORLD, they would find 4 ranks for a grid of 2 and stop,
or exchange with the other group's ranks and mix its values in. Each group's root gathers the
owned blocks (mpi4py) and checks, byte for byte, against the single-rank run of the same
program (weir.load on the cpu backend, one process) and against the NumPy meaning
(numpy_reference.py): the laplacian of examples/cartesian and the orchestrated time loop of
tests/mpi/diffusion_loop.py (swaps, a branch, two halo widths). The halos of the local inputs
start as NaN: only the program's exchanges can fill them. The two groups' results must differ
(different inputs). Also: a communicator of the wrong size raises weir's error (no abort).

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
import numpy_reference  # noqa: E402

SOURCE = pathlib.Path(sys.argv[1])
world = MPI.COMM_WORLD


def local_input(dp, name, g, coords):
    """The rank's window of global array `g`: its owned block copied in, NaN elsewhere (the halo)."""
    win = dp.window(name, g.shape, coords)
    own = dp.window(name, g.shape, coords, own=True)
    a = np.full(tuple(hi - lo for lo, hi in win), np.nan)
    a[tuple(slice(o0 - w0, o1 - w0) for (o0, o1), (w0, _) in zip(own, win))] = \
        g[tuple(slice(o0, o1) for o0, o1 in own)]
    return a


def local_output(dp, name, g, coords):
    """The rank's window of global array `g`, copied whole (outputs start as the caller gave them)."""
    return np.ascontiguousarray(g[tuple(slice(lo, hi) for lo, hi in dp.window(name, g.shape, coords))])


def gather(dp, name, local, shape, comm):
    """Every rank's owned block of `name` assembled on comm's rank 0 (None on the others)."""
    coords = dp.coordinates(comm)
    win = dp.window(name, shape, coords)
    own = dp.window(name, shape, coords, own=True)
    block = local[tuple(slice(o0 - w0, o1 - w0) for (o0, o1), (w0, _) in zip(own, win))]
    parts = comm.gather((own, np.ascontiguousarray(block)), root=0)
    if comm.rank != 0:
        return None
    out = np.zeros(shape)
    covered = np.zeros(shape, dtype=int)
    for own, b in parts:
        sl = tuple(slice(lo, hi) for lo, hi in own)
        out[sl] = b
        covered[sl] += 1
    assert (covered == 1).all(), "the owned blocks do not cover the array exactly once"
    return out


def check(label, got, one_rank, numpy_ref, failures):
    if got.tobytes() != one_rank.tobytes():
        failures.append(f"{label}: differs from the single-rank run (max |diff| "
                        f"{np.nanmax(np.abs(got - one_rank))})")
    if not np.array_equal(got, numpy_ref):
        failures.append(f"{label}: differs from NumPy (max |diff| {np.nanmax(np.abs(got - numpy_ref))})")


def main():
    failures = []
    assert world.size == 4, f"run with mpirun -np 4 (got {world.size} ranks)"
    color = world.rank // 2
    group = world.Split(color, world.rank)
    rng = np.random.default_rng(1000 + color)
    cache = os.environ.get("WEIR_CACHE_DIR")

    lap_ref = str(SOURCE / "examples/cartesian/laplacian.py") + "::laplacian"
    loop_ref = str(SOURCE / "tests/mpi/diffusion_loop.py") + "::diffusion_loop"
    lap_dp = weir.decompose(weir.load(lap_ref, backend=weir.backends.cpu), "I,J", (2, 1), cache_dir=cache)
    loop_dp = weir.decompose(weir.load(loop_ref, backend=weir.backends.cpu), ("I", "J"), (2, 1),
                             cache_dir=cache)
    lap_one = weir.load(lap_ref, backend=weir.cpu_backend(cache_dir=cache) if cache else weir.backends.cpu)
    loop_one = weir.load(loop_ref, backend=weir.cpu_backend(cache_dir=cache) if cache else weir.backends.cpu)
    # Rank 0 compiles into the program cache, the others then load (N compilers on 2 cores cost N times).
    if world.rank == 0:
        lap_dp.prepare()
        loop_dp.prepare()
    world.Barrier()
    lap_dp.prepare()
    loop_dp.prepare()
    assert lap_dp.exchanges == 1 and lap_dp.frame == {"I": (1, 1), "J": (1, 1)}, (lap_dp.exchanges, lap_dp.frame)

    # The laplacian on 13 x 11 x 3 points (the 11 interior I points split 6 + 5).
    coords = lap_dp.coordinates(group)
    assert coords == [group.rank, 0], coords
    f = rng.random((13, 11, 3))
    out0 = np.zeros_like(f)
    out = local_output(lap_dp, "out", out0, coords)
    lap_dp(local_input(lap_dp, "f", f, coords), out, comm=group)
    lap = gather(lap_dp, "out", out, f.shape, group)

    # The orchestrated time loop, 5 steps on 13 x 11 points.
    u, un, kappa = rng.random((13, 11)), rng.random((13, 11)), rng.random((13, 11))
    lu, lun = local_input(loop_dp, "u", u, coords), local_input(loop_dp, "u_next", un, coords)
    loop_dp(lu, lun, local_input(loop_dp, "kappa", kappa, coords), comm=group, alpha=0.0625, steps=5)
    loop = {"u": gather(loop_dp, "u", lu, u.shape, group), "u_next": gather(loop_dp, "u_next", lun, u.shape, group)}

    if group.rank == 0:
        one = np.zeros_like(f)
        lap_one(f, one)
        check(f"group {color}: laplacian", lap, one, numpy_reference.laplacian(f, out0)["out"], failures)
        u1, un1 = u.copy(), un.copy()
        loop_one(u1, un1, kappa, alpha=0.0625, steps=5)
        want = numpy_reference.diffusion_loop(u, un, kappa, 0.0625, 5)
        check(f"group {color}: diffusion_loop u", loop["u"], u1, want["u"], failures)
        check(f"group {color}: diffusion_loop u_next", loop["u_next"], un1, want["u_next"], failures)

    # The two groups ran on different inputs: their results differ.
    roots = world.gather(lap if group.rank == 0 else None, root=0)
    if world.rank == 0 and np.array_equal(roots[0], roots[2]):
        failures.append("both groups gave the same laplacian from different inputs")

    # A communicator of another size is refused before any message, on this rank alone.
    try:
        lap_dp(local_input(lap_dp, "f", f, coords), out, comm=MPI.COMM_SELF)
        failures.append("a communicator of 1 rank for a grid of 2 was not refused")
    except weir.Error as e:
        if "the communicator has 1 rank, the process grid 2x1 needs 2" not in str(e):
            failures.append(f"the refusal of a communicator of 1 rank says: {e}")
    try:
        lap_dp(local_input(lap_dp, "f", f, coords), out, comm="world")
        failures.append("comm='world' was not refused")
    except TypeError as e:
        if "expected an mpi4py communicator" not in str(e):
            failures.append(f"the refusal of comm='world' says: {e}")

    for msg in failures:
        print(f"rank {world.rank}: FAIL {msg}", flush=True)
    ok = world.allreduce(0 if failures else 1, op=MPI.MIN)
    if world.rank == 0:
        print("python with a split communicator: " + ("ok" if ok else "FAILED"), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        code = main()
    except Exception:  # noqa: BLE001  (any failure on one rank must stop every rank)
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        world.Abort(1)
    sys.exit(code)
