#!/usr/bin/python3
"""npbench kernels: weir's run time per kernel and stage against NumPy and weir's optimizer.

    python3 bench/npbench.py [--weir build/bin/weir] [--min-time 0.2] [--rounds 7] [--processes 3]
                             [--threads 2] [--only k1,k2] [--json out/bench/npbench.json] [--check-numpy]

For every kernel of ../shared/corpus/npbench and each of its three stages (the SDFGs DaCe writes:
frontend, simplified, auto_optimized_cpu), `weir run --backend cpu --repeat` runs the file as it
is and after `weir optimize --auto cpu` (weir's own pipeline). NumPy (Debian's python3-numpy,
bench/npbench_numpy.py) runs the same kernel on the same inputs.

Timing (ADR 0053, 2026-12-06; processes 2026-12-07): a first run of each of a kernel's six cells
(3 stages, as is and weir-opt) compiles it, checks its outputs and measures one call; each cell then
gets at least `--min-time` seconds of calls, split over `--rounds` rounds and, within a round, over
`--processes` separate `weir run` processes (at least 3 calls each, the first call of each a
warm-up that is dropped). A round runs every cell of the kernel and NumPy, in an order rotated from
round to round, `--processes` times over, so that another job's load on the shared machine falls on
all of them alike. The process, not the call, is the unit of sampling: a whole process can land in
a fast or a slow mode (atax's two `cblas_dgemv` calls, the same code in all six cells: processes
with medians of 0.030 or of 0.050 ms, depending on where OpenBLAS's pthread pool runs; stable with
OPENBLAS_NUM_THREADS=1), so a round's time is the median of its processes' medians and a cell's
time the median of all its processes' medians. With one process per round, 7 rounds of equal code
compared 0.46-2.27 round by round and 1.68 at the median. Each stage's weir-opt
is compared with the auto_optimized_cpu file as is (the issue's bar: weir's pipeline at or below
DaCe's auto-optimized SDFG) round by round: the ratio of the two medians of the same round, and
a verdict over the rounds (`verdict` in bench/report.py): *met* where the median ratio is at or
below 1, *not met* where weir-opt was slower in every round (equal code does that in 1 of
2^rounds runs) and by more than 3% at the median, else *noise*. Every output (weir's and
NumPy's) is checked against the corpus's expected/ with the corpus README's rule before a time
counts; a failure is reported, never timed. `--check-numpy` only checks the NumPy
implementations (the ctest entry `bench: npbench NumPy references match the corpus`). The JSON
goes to bench/report.py (`--npbench FILE --splice docs/benchmarks.md` rewrites the document's
npbench section). All 15 kernels took 43 s at load 2 and 4 minutes at load 10 on the 2-core
machine (2026-12-06).
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npbench_numpy  # noqa: E402
from report import vs_auto_as_is  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = ("frontend", "simplified", "auto_optimized_cpu")


def load_case(kdir):
    with open(os.path.join(kdir, "meta.json")) as f:
        meta = json.load(f)
    values = {}
    for name in ("symbols.json", "scalars.json"):
        with open(os.path.join(kdir, name)) as f:
            values.update(json.load(f))
    inputs = {}
    idir = os.path.join(kdir, "inputs")
    if os.path.isdir(idir):
        for fn in sorted(os.listdir(idir)):
            inputs[fn[:-4]] = np.load(os.path.join(idir, fn))
    expected = {}
    for fn in sorted(os.listdir(os.path.join(kdir, "expected"))):
        expected[fn[:-4]] = np.load(os.path.join(kdir, "expected", fn))
    return meta, values, inputs, expected


def mismatch(name, got, want, compare):
    """The corpus README's comparison; None when `got` matches, else the reason."""
    if got is None:
        return f"{name}: missing"
    got = np.asarray(got)
    if got.shape != want.shape and got.size == want.size:
        got = got.reshape(want.shape)
    if got.shape != want.shape:
        return f"{name}: shape {got.shape}, expected {want.shape}"
    if want.dtype.kind in "iub":
        return None if np.array_equal(got, want) else f"{name}: integers differ"
    rtol = 1e-5 if want.dtype == np.float32 else compare["rtol"]
    atol = compare["atol_rel_to_max"] * (float(np.max(np.abs(want))) if want.size else 0.0)
    if np.allclose(got, want, rtol=rtol, atol=atol):
        return None
    if compare.get("norm_error") is not None:
        norm = np.linalg.norm(want)
        if norm > 0 and np.linalg.norm(got - want) / norm <= compare["norm_error"]:
            return None
    return f"{name}: max abs error {float(np.max(np.abs(got - want))):.3g}"


def check_all(outputs, expected, compare):
    for name, want in expected.items():
        why = mismatch(name, outputs.get(name), want, compare)
        if why:
            return why
    return None


def time_numpy(kernel, values, inputs, calls):
    """`calls` calls of the NumPy implementation after one warm-up: its last output and the times."""
    fn = npbench_numpy.KERNELS[kernel]
    times, out = [], None
    for i in range(calls + 1):
        args = dict(values)
        args.update({k: v.copy() for k, v in inputs.items()})
        t = time.perf_counter()
        out = fn(args)
        dt = time.perf_counter() - t
        if i > 0:  # the first call warms up
            times.append(dt)
    return out, times


UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def time_weir(weir, sdfg, kdir, calls, threads, env, outdir):
    """`calls` calls of `sdfg` in one `weir run` after one warm-up: its outputs, the times, an error."""
    # No --trust-code: the CBLAS tasklets of DaCe's auto-optimized files load as library nodes (ADR 0035).
    cmd = [weir, "run", sdfg, "--backend", "cpu", "--repeat", str(calls + 1), "--threads", str(threads),
           "--set-json", os.path.join(kdir, "symbols.json"), "--set-json", os.path.join(kdir, "scalars.json"),
           "--out", outdir]
    if os.path.isdir(os.path.join(kdir, "inputs")):
        cmd += ["--in-dir", os.path.join(kdir, "inputs")]
    rc, text = run(cmd, env)
    if rc != 0:
        return None, None, "weir run failed: " + text.strip().splitlines()[-1][:200] if text.strip() else "weir run failed"
    times = [float(v) * UNITS[u] for v, u in re.findall(r"^call \d+: ([0-9.]+) (us|ms|s)$", text, re.M)]
    outputs = {fn[:-4]: np.load(os.path.join(outdir, fn)) for fn in os.listdir(outdir) if fn.endswith(".npy")}
    return outputs, times[1:], None


def stats(rounds):
    """A cell's numbers from its rounds (each a list of processes, each a list of call times): the
    median of all processes' medians, the lowest and highest call, the number of calls, each
    round's median of its processes' medians, and every process's median."""
    per_round = [[statistics.median(p) for p in r] for r in rounds]
    procs = [m for r in per_round for m in r]
    times = [t for r in rounds for p in r for t in p]
    return {"median_s": statistics.median(procs), "min_s": min(times), "max_s": max(times), "repeats": len(times),
            "processes": len(procs), "round_medians_s": [statistics.median(r) for r in per_round],
            "process_medians_s": procs}


def calls_per_process(one_call_s, min_time, rounds, processes):
    """Calls per process so that the rounds' processes hold `min_time` seconds of calls (3 at least)."""
    return max(3, min(100000, math.ceil(min_time / (rounds * processes) / max(one_call_s, 1e-7))))


class Cell:
    """One timed thing of a kernel (NumPy, or a stage's file as is or after weir's pipeline)."""

    def __init__(self, key, measure):
        self.key, self.measure = key, measure  # measure(calls) -> (outputs, times, error)
        self.result, self.calls, self.rounds = None, 0, []


def time_kernel(cells, expected, compare, min_time, rounds, processes):
    """Checks and times every cell of one kernel in interleaved rounds of processes (module docstring)."""
    for c in cells:
        outputs, times, err = c.measure(1)
        why = err or check_all(outputs, expected, compare) or ("" if times else "no call times in weir run's output")
        if why:
            c.result = {"status": "failed" if err or not times else "mismatch", "detail": why}
        else:
            c.calls = calls_per_process(times[0], min_time, rounds, processes)
    live = [c for c in cells if c.result is None]
    for r in range(rounds):
        for c in live:
            c.rounds.append([])
        for _ in range(processes):
            for c in live[r % len(live):] + live[:r % len(live)] if live else []:
                if c.result is not None:
                    continue
                outputs, times, err = c.measure(c.calls)
                why = err or check_all(outputs, expected, compare)
                if why:
                    c.result = {"status": "failed" if err else "mismatch", "detail": why}
                else:
                    c.rounds[-1].append(times)
    for c in live:
        if c.result is None:
            c.result = {"status": "ok", **stats(c.rounds)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus", "npbench"))
    ap.add_argument("--weir", default=os.path.join(ROOT, "build", "bin", "weir"))
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds of calls per cell, all rounds together")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of calls, each cell --processes times per round")
    ap.add_argument("--processes", type=int, default=3, help="separate weir run processes per cell and round")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default=os.path.join(ROOT, "out", "bench", "npbench.json"))
    ap.add_argument("--check-numpy", action="store_true", help="only check the NumPy implementations")
    a = ap.parse_args()
    kernels = sorted(d for d in os.listdir(a.corpus) if os.path.isfile(os.path.join(a.corpus, d, "meta.json")))
    if a.only:
        kernels = [k for k in kernels if k in a.only.split(",")]

    failures = 0
    if a.check_numpy:
        for k in kernels:
            meta, values, inputs, expected = load_case(os.path.join(a.corpus, k))
            if k not in npbench_numpy.KERNELS:
                print(f"{k}: no NumPy implementation in bench/npbench_numpy.py")
                failures += 1
                continue
            out, _ = time_numpy(k, values, inputs, 1)
            why = check_all(out, expected, meta["compare"])
            print(f"{k}: {'ok' if not why else 'MISMATCH ' + why}")
            failures += bool(why)
        return 1 if failures else 0

    env = dict(os.environ)
    env.setdefault("WEIR_CACHE_DIR", os.path.join(ROOT, "out", "bench", "npbench-cache"))
    env["OMP_NUM_THREADS"] = str(a.threads)
    results = []
    with tempfile.TemporaryDirectory(prefix="weir-npbench-") as tmp:
        for k in kernels:
            kdir = os.path.join(a.corpus, k)
            meta, values, inputs, expected = load_case(kdir)
            entry = {"name": k, "numpy": {}, "stages": []}
            cells = [Cell(("numpy",), lambda n, k=k: (*time_numpy(k, values, inputs, n), None))]
            for stage in STAGES:
                st = {"stage": stage}
                entry["stages"].append(st)
                sdfg = os.path.join(kdir, f"{k}.{stage}.sdfg")
                variants = [("as-is", sdfg)]
                opt = os.path.join(tmp, f"{k}.{stage}.opt.sdfg")
                rc, text = run([a.weir, "optimize", sdfg, "--auto", "cpu", "-o", opt], env)
                if rc == 0:
                    variants.append(("weir-opt", opt))
                else:
                    st["weir-opt"] = {"status": "failed", "detail": "weir optimize failed: " + text.strip()[-200:]}
                for label, path in variants:
                    outdir = os.path.join(tmp, f"{k}.{stage}.{label}")
                    os.makedirs(outdir, exist_ok=True)
                    cells.append(Cell((stage, label), lambda n, path=path, outdir=outdir: time_weir(
                        a.weir, path, kdir, n, a.threads, env, outdir)))
            time_kernel(cells, expected, meta["compare"], a.min_time, a.rounds, a.processes)
            for c in cells:
                if c.key == ("numpy",):
                    entry["numpy"] = c.result
                else:
                    next(st for st in entry["stages"] if st["stage"] == c.key[0])[c.key[1]] = c.result
                    failures += c.result["status"] != "ok"
            auto = entry["stages"][-1].get("as-is")
            for st in entry["stages"]:
                st["vs_auto_as_is"] = vs_auto_as_is(st.get("weir-opt"), auto)
                v = st["vs_auto_as_is"]
                print(f"{k} {st['stage']}: " + ", ".join(
                    f"{lab} {st[lab]['median_s'] * 1e3:.3f} ms" if st.get(lab, {}).get("status") == "ok" else
                    f"{lab} {st.get(lab, {}).get('status', '-')}" for lab in ("as-is", "weir-opt"))
                    + (f"; weir-opt / auto as is {v['ratio_median']:.2f} ({v['ratio_min']:.2f}-{v['ratio_max']:.2f}) "
                       f"{v['verdict']}" if v else ""), flush=True)
            results.append(entry)

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    doc = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip(),
        "machine": {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "load_avg_end": list(load) if load else None},
        "threads": a.threads,
        "min_time_s": a.min_time,
        "rounds": a.rounds,
        "processes": a.processes,
        "numpy_version": np.__version__,
        "kernels": results,
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {a.json}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
