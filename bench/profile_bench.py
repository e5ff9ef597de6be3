#!/usr/bin/env python3
"""Issue 39's profiling figures (docs/adr/0048-profiling.md), from the `weir` binary alone:

* **Overhead**: hdiff (examples/cartesian/hdiff.py) run by `weir run --backend cpu --repeat`
  without timers, with `--profile --profile-depth 1` (top-level maps, states) and with
  `--profile` (maps at every level), interleaved: every round runs the three once each, in a
  rotated order, on the same random inputs. Per variant the median over all calls of all rounds
  (the first call of each run dropped: it loads the program); the overhead is that median over
  the unprofiled one, and the per-round overheads give its range. Target: under 5% (issue 39).
* **Bytes**: each Cartesian stencil of the kernel table (laplacian, laplap, hdiff, heat3d) run
  once with `--profile=FILE` at the kernel table's sizes and layouts; the bytes the profile
  reports for one call (its states' bytes times their executions) against the stencil's minimum
  traffic as the kernel table computes it for its GB/s (bench/src/cases_cartesian.cpp: every
  input read once, the output's computed region written once). Target: within 10%.

    python3 bench/profile_bench.py --weir build/bin/weir --json out/bench/profile.json [--size tiny]

At `--size tiny` (CI) the sizes are small and the rounds few: it checks that every run works and
the JSON has every field; the targets are printed but (as the kernel table's at this size) not
enforced. At full size the exit code is 3 when a target is missed.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HDIFF = "examples/cartesian/hdiff.py::hdiff_program"
MAX_OVERHEAD = 0.05
MAX_BYTES_DEVIATION = 0.10
VARIANTS = {
    "off": [],
    "depth 1": ["--profile-depth", "1"],
    "every level": [],
}

# The kernel table's Cartesian stencils (bench/src/cases_cartesian.cpp): program, halo h (fields
# of (ni + 2h) x (nj + 2h) x nk; heat3d also 1 in K) and the minimum bytes formula it uses.
STENCILS = {
    "laplacian": ("examples/cartesian/laplacian.py::laplacian", lambda i, j, k: (i + 2, j + 2, k),
                  lambda i, j, k: 8.0 * ((i + 2) * (j + 2) * k + i * j * k), []),
    "laplap": ("examples/cartesian/laplacian.py::bi_laplacian", lambda i, j, k: (i + 4, j + 4, k),
               lambda i, j, k: 8.0 * ((i + 4) * (j + 4) * k + i * j * k), []),
    "hdiff": (HDIFF, lambda i, j, k: (i + 4, j + 4, k),
              lambda i, j, k: 8.0 * ((i + 4) * (j + 4) * k + 2.0 * i * j * k), []),
    # alpha as the kernel table's heat3d case sets it.
    "heat3d": ("examples/cartesian/heat3d.py::heat3d", lambda i, j, k: (i + 2, j + 2, k + 2),
               lambda i, j, k: 8.0 * ((i + 2) * (j + 2) * (k + 2) + i * j * k), ["--set", "alpha=0.1"]),
}
SIZES = {
    # size: (overhead shapes (ni, nj, nk), calls per run, rounds, stencil size)
    "full": ([(256, 256, 80), (256, 256, 64)], 20, 5, (256, 256, 80)),
    "tiny": ([(12, 10, 6)], 3, 1, (12, 10, 6)),
}


def weir_run(weir, program, shape, extra, calls, threads):
    """`weir run` with random inputs of `shape` (I, J, K of every field): its call times in
    seconds and its output."""
    i, j, k = shape
    cmd = [weir, "run", program, "--backend", "cpu", "--random-inputs", "--set", f"I={i}", "--set", f"J={j}", "--set", f"K={k}",
           "--repeat", str(calls), "--threads", str(threads)] + extra
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    units = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
    times = [float(v) * units[u] for v, u in re.findall(r"^call \d+: ([0-9.]+) (us|ms|s)$", run.stdout, re.M)]
    if len(times) != calls:
        raise SystemExit(f"{' '.join(cmd)} printed {len(times)} call times, expected {calls}:\n{run.stdout}")
    return times, run.stdout


def overhead(weir, shape, calls, rounds, threads, workdir):
    """Interleaved rounds of hdiff without and with timers (module docstring)."""
    ni, nj, nk = shape
    fields = (ni + 4, nj + 4, nk)
    names = list(VARIANTS)
    times = {v: [] for v in names}
    per_round = {v: [] for v in names}
    clock = None
    report = os.path.join(workdir, "hdiff-profile.json")
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for v in order:
            extra = [] if v == "off" else [f"--profile={report}"] + VARIANTS[v]
            t, _ = weir_run(weir, HDIFF, fields, extra, calls + 1, threads)
            times[v] += t[1:]
            per_round[v].append(statistics.median(t[1:]))
            if v != "off":
                with open(report) as f:
                    clock = json.load(f)["weir_profile"].get("clock", clock)
    base = statistics.median(times["off"])
    out = {"size": f"{ni} x {nj} x {nk}", "calls_per_run": calls, "rounds": rounds, "threads": threads,
           "clock": clock, "variants": {}}
    for v in names:
        med = statistics.median(times[v])
        entry = {"median_s": med, "min_s": min(times[v]), "round_medians_s": per_round[v]}
        if v != "off":
            rounds_over = [a / b - 1.0 for a, b in zip(per_round[v], per_round["off"])]
            entry.update(overhead=med / base - 1.0, round_overhead_min=min(rounds_over),
                         round_overhead_max=max(rounds_over), met=med / base - 1.0 < MAX_OVERHEAD)
        out["variants"][v] = entry
    return out


def profiled_bytes(report):
    """The bytes of one call by the profile: the top-level SDFG's states' bytes times their
    executions per call (None when a state's bytes are unknown). A nested SDFG's states are inside
    its call's node, which its state counts already."""
    total = 0.0
    states = [e for e in report["weir_profile"]["elements"] if e["kind"] == "state" and e["sdfg_id"] == 0]
    for e in states:
        if e.get("bytes") is None:
            return None
        total += e["bytes"] * e["executions_per_call"]
    return total if states else None


def stencil_bytes(weir, size, threads, workdir):
    out = []
    for name, (program, fields, minimum, sets) in STENCILS.items():
        report = os.path.join(workdir, f"{name}-profile.json")
        weir_run(weir, program, fields(*size), [f"--profile={report}"] + sets, 1, threads)
        with open(report) as f:
            got = profiled_bytes(json.load(f))
        want = minimum(*size)
        dev = None if got is None else got / want - 1.0
        out.append({"kernel": name, "program": program, "size": " x ".join(map(str, size)),
                    "profile_bytes": got, "min_bytes": want, "deviation": dev,
                    "met": dev is not None and abs(dev) <= MAX_BYTES_DEVIATION})
    return out


def uptime():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weir", default=str(ROOT / "build" / "bin" / "weir"), help="the weir binary")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--size", choices=sorted(SIZES), default="full")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1)))
    ap.add_argument("--rounds", type=int, help="interleaved rounds per hdiff size (default: 5 full, 1 tiny)")
    a = ap.parse_args()
    shapes, calls, rounds, stencil_size = SIZES[a.size]
    rounds = a.rounds or rounds
    load_before = uptime()
    with tempfile.TemporaryDirectory(prefix="weir-profile-bench-") as work:
        series = []
        for shape in shapes:
            o = overhead(a.weir, shape, calls, rounds, a.threads, work)
            series.append(o)
            for v, e in o["variants"].items():
                extra = "" if v == "off" else (
                    f", overhead {e['overhead'] * 100:+.1f}% (rounds {e['round_overhead_min'] * 100:+.1f}% to "
                    f"{e['round_overhead_max'] * 100:+.1f}%)")
                print(f"hdiff {o['size']} {v}: median {e['median_s'] * 1e3:.3f} ms{extra}")
        stencils = stencil_bytes(a.weir, stencil_size, a.threads, work)
        for s in stencils:
            dev = "unknown" if s["deviation"] is None else f"{s['deviation'] * 100:+.1f}%"
            print(f"{s['kernel']} {s['size']}: profile {s['profile_bytes']} bytes, minimum {s['min_bytes']:.0f} "
                  f"({dev})")
    results = {"size": a.size, "cpus": os.cpu_count(), "load_before": load_before, "load_after": uptime(),
               "overhead": series,
               "bytes": stencils, "max_overhead": MAX_OVERHEAD, "max_bytes_deviation": MAX_BYTES_DEVIATION}
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    missed = [f"hdiff {o['size']} {v}" for o in series for v, e in o["variants"].items() if e.get("met") is False]
    missed += [s["kernel"] for s in stencils if not s["met"]]
    if missed:
        print("profile targets not met: " + ", ".join(missed), file=sys.stderr)
        if a.size == "full":
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
