"""One ctest entry of the MPI tests (tests/mpi/CMakeLists.txt): runs an example of
examples/cartesian (or an orchestrated time loop of tests/mpi) with `weir run --backend cpu` on one process and with `mpirun -np N weir run
--decompose I,J` on N ranks, and checks

  equal     every output of every rank count is byte for byte the single-rank output, and equal
            to the NumPy meaning (numpy_reference.py) within 0 ulp (exactly);
  refused   the decomposed run exits 1 naming the field, dimension and sizes;
  usage     a usage error without mpirun (one rank) exits 2 with weir's message only: no
            MPI_Abort and its banner;
  stop      one rank fails on purpose (WEIR_TEST_FAIL_RANK) and every rank exits, non-zero,
            within the timeout (no rank waits in an exchange).

With --overlap the decomposed runs pass `--overlap` (HaloExchangeOverlap: interior maps computed
while the messages fly) and WEIR_HALO_TIMES=1; rank 0 must report --split exchange states split
and, on more than one rank, every rank's waits must print the overlap line.

Inputs are seeded random arrays of the shapes given (uneven splits on purpose)."""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import numpy_reference  # noqa: E402

EXAMPLES = {
    "laplacian": ("laplacian.py::laplacian", ["f"], ["out"], {}),
    "hdiff_program": ("hdiff.py::hdiff_program", ["u", "coeff"], ["out"], {}),
    "heat3d": ("heat3d.py::heat3d", ["u"], ["u_new"], {"alpha": 0.125}),
    # Relative to the source folder: an orchestration function (a time loop with a branch and swaps).
    "diffusion_loop": ("tests/mpi/diffusion_loop.py::diffusion_loop", ["u", "u_next", "kappa"], ["u", "u_next"],
                       {"alpha": 0.0625, "steps": 5}),
    # Global reductions (np.max, .min(), np.sum) for the time-step control: MPI_Allreduce.
    "adaptive_heat": ("examples/orchestration/adaptive_heat.py::adaptive_heat", ["u", "u_next"], ["u", "u_next"],
                      {"dt": 0.4, "limit": 0.15, "steps": 5}),
    # np.max / np.min with a NaN in one rank's part (--nan): NaN on every rank, as NumPy's.
    "peak_step": ("tests/mpi/global_reductions.py::peak_step", ["u", "u_next"], ["u_next"], {"dt": 0.1}),
    "trough_step": ("tests/mpi/global_reductions.py::trough_step", ["u", "u_next"], ["u_next"], {"dt": 0.1}),
    "cfl_step": ("tests/mpi/global_reductions.py::cfl_step", ["u", "u_next"], ["u_next"], {"dt": 0.1}),
    "past_frame": ("tests/mpi/global_reductions.py::past_frame", ["u", "u_next"], ["u", "u_next"], {"dt": 0.1}),
    "mixed_frames": ("tests/mpi/diffusion_loop.py::mixed_frames", ["u", "u_next", "kappa"], ["u", "u_next"],
                     {"alpha": 0.0625, "steps": 2}),
}


def run(cmd, timeout, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout + p.stderr


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--weir", required=True)
    a.add_argument("--mpirun", required=True)
    a.add_argument("--source", required=True)
    a.add_argument("--work", required=True)
    a.add_argument("--program", required=True, choices=sorted(EXAMPLES))
    a.add_argument("--shape", required=True, help="NI,NJ,NK")
    a.add_argument("--ranks", default="1,2,3,4")
    a.add_argument("--grid", action="append", default=[], help="N:AxB, a --process-grid for N ranks")
    a.add_argument("--mode", default="equal", choices=["equal", "refused", "stop", "usage"])
    a.add_argument("--arg", action="append", default=[], help="an argument added to the weir run (usage)")
    a.add_argument("--expect", action="append", default=[], help="text the refusal must contain")
    a.add_argument("--timeout", type=float, default=120)
    a.add_argument("--overlap", action="store_true", help="run the decomposed runs with --overlap")
    a.add_argument("--split", type=int, default=None, help="with --overlap: exchange states split")
    a.add_argument("--nan", default=None, help="I,J: the point of every input set to NaN")
    a.add_argument("--peak", default=None, help="I,J: the point of every input set to -2 (inputs in [-0.5, 0.5))")
    o = a.parse_args()

    ref, inputs, outputs, scalars = EXAMPLES[o.program]
    folder = pathlib.Path(o.source) / ("" if ref.startswith(("tests/", "examples/")) else "examples/cartesian")
    program = str(folder / ref)
    work = pathlib.Path(o.work)
    shutil.rmtree(work, ignore_errors=True)
    (work / "in").mkdir(parents=True)
    shape = tuple(int(x) for x in o.shape.split(","))
    rng = np.random.default_rng(38)
    arrays = {n: rng.random(shape) for n in inputs}
    if o.peak:
        for v in arrays.values():
            v -= 0.5
            v[tuple(int(x) for x in o.peak.split(","))] = -2.0
    if o.nan:
        for v in arrays.values():
            v[tuple(int(x) for x in o.nan.split(","))] = np.nan
    for n, v in arrays.items():
        np.save(work / "in" / f"{n}.npy", v)
    sets = [x for k, v in scalars.items() for x in ("--set", f"{k}={v}")]
    mpirun = [o.mpirun, "--oversubscribe", "--allow-run-as-root"]
    grids = dict(g.split(":") for g in o.grid)
    fails = []

    def decomposed(n, out, extra_env=None):
        if o.overlap:
            extra_env = dict(extra_env or {}, WEIR_HALO_TIMES="1")
        cmd = mpirun + ["-np", str(n)]
        if extra_env:
            for k in extra_env:
                cmd += ["-x", k]
        cmd += [o.weir, "run", program, "--decompose", "I,J", "--in-dir", str(work / "in"), *sets]
        if str(n) in grids:
            cmd += ["--process-grid", grids[str(n)]]
        if o.overlap:
            cmd += ["--overlap"]
        if out:
            cmd += ["--out", str(out)]
        env = dict(os.environ, **(extra_env or {}))
        return run(cmd, o.timeout, env)

    if o.mode == "usage":
        rc, text = run([o.weir, "run", program, "--decompose", "I,J", "--in-dir", str(work / "in"), *sets,
                        *o.arg], o.timeout)
        print(text)
        if rc != 2:
            fails.append(f"expected exit 2, got {rc}")
        for e in o.expect:
            if e not in text:
                fails.append(f"the usage error does not say {e!r}")
        if "MPI_ABORT" in text or "MPI_Abort" in text:
            fails.append("a usage error on one rank went through MPI_Abort")
    elif o.mode == "refused":
        n = int(o.ranks)
        rc, text = decomposed(n, None)
        print(text)
        if rc != 1:
            fails.append(f"expected exit 1, got {rc}")
        for e in o.expect:
            if e not in text:
                fails.append(f"the refusal does not say {e!r}")
    elif o.mode == "stop":
        n = int(o.ranks)
        try:
            rc, text = decomposed(n, work / "out", {"WEIR_TEST_FAIL_RANK": "1"})
        except subprocess.TimeoutExpired:
            fails.append(f"mpirun -np {n} did not stop within {o.timeout} s after rank 1 failed")
            rc, text = None, ""
        print(text)
        if rc == 0:
            fails.append("mpirun exited 0 although rank 1 failed")
        for e in o.expect:
            if e not in text:
                fails.append(f"the output does not say {e!r}")
        if (work / "out").exists() and any((work / "out").iterdir()):
            fails.append("outputs were written although a rank failed")
    else:
        single = work / "single"
        rc, text = run([o.weir, "run", program, "--backend", "cpu", "--in-dir", str(work / "in"), *sets,
                        "--out", str(single)], o.timeout)
        print(text)
        if rc != 0:
            sys.exit(f"the single-rank run failed ({rc})")
        zeros = {n: np.zeros(shape) for n in outputs if n not in arrays}
        want = getattr(numpy_reference, o.program)(**arrays, **zeros, **scalars)
        # Outputs computed from a sum over the domain: equal within the bound the reference gives
        # (the ranks add their partial sums in another order), not byte for byte.
        atol = want.get("__atol__", {})
        if "__taken__" in want and not 0 < want["__taken__"] < scalars.get("steps", 0):
            fails.append(f"the branch was taken in {want['__taken__']} of {scalars.get('steps')} steps "
                         "(the test needs both paths)")
        for name in outputs:
            got = np.load(single / f"{name}.npy")
            if name in atol:
                if not np.max(np.abs(got - want[name])) <= atol[name]:
                    fails.append(f"single rank: '{name}' differs from NumPy by {np.max(np.abs(got - want[name]))}, "
                                 f"more than {atol[name]}")
            elif not np.array_equal(got, want[name], equal_nan=bool(o.nan)):
                bad = np.argwhere(got != want[name])
                fails.append(f"single rank: '{name}' differs from NumPy at {len(bad)} points, first {bad[0].tolist()}")
        for n in [int(x) for x in o.ranks.split(",")]:
            out = work / f"np{n}"
            rc, text = decomposed(n, out)
            print(f"--- mpirun -np {n}: exit {rc}\n{text}")
            if rc != 0:
                fails.append(f"-np {n}: exit {rc}")
                continue
            if o.overlap:
                said = f"overlap: {o.split} exchange state{'' if o.split == 1 else 's'} split"
                if said not in text:
                    fails.append(f"-np {n}: rank 0 did not say {said!r}")
                for r in range(n):
                    lines = [x for x in text.splitlines() if x.startswith(f"weir: halo-exchange ")
                             and f" rank {r}: " in x and "; overlap: interior " in x]
                    if o.split and not lines:
                        fails.append(f"-np {n}: rank {r} printed no overlap line")
            for name in outputs:
                if name in atol:
                    d = np.max(np.abs(np.load(out / f"{name}.npy") - np.load(single / f"{name}.npy")))
                    if not d <= atol[name]:
                        fails.append(f"-np {n}: '{name}' differs from one rank's by {d}, more than {atol[name]}")
                    continue
                a_bytes = (single / f"{name}.npy").read_bytes()
                b_bytes = (out / f"{name}.npy").read_bytes()
                if a_bytes != b_bytes:
                    got = np.load(out / f"{name}.npy")
                    bad = np.argwhere(got != np.load(single / f"{name}.npy"))
                    fails.append(f"-np {n}: '{name}' is not byte-identical to one rank's "
                                 f"({len(bad)} points differ, first {bad[:1].tolist()})")
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
