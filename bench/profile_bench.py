#!/usr/bin/env python3
"""Issue 39's profiling figures (docs/adr/0048-profiling.md):

* **Overhead**: hdiff (examples/cartesian/hdiff.py) without timers, with `--profile
  --profile-depth 1` (top-level maps, states) and with `--profile` (its default: for hdiff the
  top-level map, its state and the K map that is the map's whole body, once per thread).
  **In one process** where weir's Python module is built (BUILD/python next to BUILD/bin/weir):
  the SDFG `weir run` compiles (`weir.optimize(..., auto="cpu")`) compiled three times (without
  timers, `compile(profile=True, profile_depth=1)`, `compile(profile=True)`), the three called
  alternately on the same arrays (from weir.array/weir.zeros, 64-byte aligned as `weir run`'s)
  in many rounds, the order rotated each round, a few calls per variant and round, after
  untimed warm-up calls; the unprofiled program also runs as a fourth variant under another
  name, an A/A control whose "overhead" is the method's noise at the run's load. Each call is
  timed around the Python call, so the profiled calls include the read of their timers after
  the call. Per variant the median and the 10th percentile over all calls; the overhead is the
  median over the unprofiled one, and per round the overhead of the round's medians gives its
  spread (10th to 90th percentile, min and max). Other processes slow all three variants alike
  within a round, and the process, its arrays (addresses, pages) and its OpenMP threads are the
  same for the three, which separate `weir run` processes are not (session 36: the idle run's
  separate processes gave depth 1 +7.1% with rounds from -15% to +84%). Without the module: by
  `weir run --backend cpu --repeat`, interleaved runs (every round runs the three once each, in
  a rotated order, on the same random inputs; the first call of each run dropped). Both ways the
  rows are stored with plain stores by default (`--stores`, WEIR_STREAMING_STORES): a program
  left to choose its store kind measures both kinds in its first calls and keeps the faster
  (codegen/prelude/weir_stream.h), and separately loaded programs can settle on different kinds,
  which differ by more than the timers cost. The process's CPU time per call is recorded beside
  the wall time. Target: under 5% (issue 39). The outputs of the three variants must be identical.
* **Bytes**: each Cartesian stencil of the kernel table (laplacian, laplap, hdiff, heat3d) run
  once with `--profile=FILE` at the kernel table's sizes and layouts, and its unstructured ones
  (nabla, cell_laplacian) at its mesh's sizes with random connectivity tables; the bytes the profile
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
import time
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
# The kernel table's unstructured kernels (bench/src/cases_unstructured.cpp): program, extents per
# size preset (the kernel table's periodic mesh of nx x ny = 224 x 224 (tiny 6 x 5): 2 nx ny cells,
# nx ny vertices, 3 nx ny edges; here random connectivity tables, whose values do not change the
# footprints) and the
# minimum bytes formula it uses (every field and table read once, the outputs written once).
MESH_STENCILS = {
    "nabla": ("examples/unstructured/nabla.py::nabla_program",
              {"full": {"Vertex": 50176, "Edge": 150528, "K": 80}, "tiny": {"Vertex": 30, "Edge": 90, "K": 4}},
              lambda d: 8.0 * (3.0 * d["Vertex"] * d["K"] + 2.0 * d["Edge"] + 7.0 * d["Vertex"])
              + 4.0 * (2.0 * d["Edge"] + 6.0 * d["Vertex"])),
    "cell_laplacian": ("examples/unstructured/cell_laplacian.py::cell_laplacian",
                       {"full": {"Cell": 100352, "K": 80}, "tiny": {"Cell": 60, "K": 4}},
                       lambda d: 8.0 * (2.0 * d["Cell"] * d["K"] + 4.0 * d["Cell"]) + 4.0 * 4.0 * d["Cell"]),
}
SIZES = {
    # size: (overhead shapes (ni, nj, nk), calls per run, rounds, stencil size)
    "full": ([(256, 256, 80), (256, 256, 64)], 20, 5, (256, 256, 80)),
    "tiny": ([(12, 10, 6)], 3, 1, (12, 10, 6)),
}
# In one process (the module's): calls per variant and round, rounds.
IN_PROCESS = {"full": (3, 60), "tiny": (3, 1)}
# Untimed calls of each variant first: more than a measured store choice explores (weir_stream.h:
# a warm-up and 2 x 3 alternating calls), where --stores measured leaves it to the programs.
WARMUP_CALLS = 8
# --stores: WEIR_STREAMING_STORES for every variant (codegen/prelude/weir_stream.h).
STORES = {"measured": None, "plain": "off", "streamed": "on"}
# The A/A control of the in-process method (the unprofiled program under another name).
CONTROL = "off (again)"


def weir_run(weir, program, shape, extra, calls, threads):
    """`weir run` with random inputs of `shape` (I, J, K of every field, or a dict of dimension
    extents): its call times in seconds and its output."""
    dims = shape if isinstance(shape, dict) else dict(zip("IJK", shape))
    cmd = [weir, "run", program, "--backend", "cpu", "--random-inputs"]
    for d, n in dims.items():
        cmd += ["--set", f"{d}={n}"]
    cmd += ["--repeat", str(calls), "--threads", str(threads)] + extra
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
    out = {"size": f"{ni} x {nj} x {nk}", "method": "processes", "calls_per_run": calls, "rounds": rounds,
           "threads": threads, "clock": clock, "variants": {}}
    for v in names:
        med = statistics.median(times[v])
        entry = {"median_s": med, "min_s": min(times[v]), "round_medians_s": per_round[v]}
        if v != "off":
            rounds_over = [a / b - 1.0 for a, b in zip(per_round[v], per_round["off"])]
            entry.update(overhead=med / base - 1.0, round_overhead_min=min(rounds_over),
                         round_overhead_max=max(rounds_over), met=med / base - 1.0 < MAX_OVERHEAD)
        out["variants"][v] = entry
    return out


def percentile(xs, q):
    """The q-th percentile of xs (linear between the closest ranks; q in 0..100)."""
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def load_module(weir):
    """weir's Python module from the build of `weir` (BUILD/bin/weir: BUILD/python), or None
    where it is not built or does not load in this Python."""
    python_dir = Path(weir).resolve().parent.parent / "python"
    if not list((python_dir / "weir").glob("_weir*.so")):
        return None
    sys.path.insert(0, str(python_dir))
    try:
        import numpy  # noqa: F401
        import weir as module
    except ImportError as e:
        print(f"profile_bench: weir's module at {python_dir} does not load ({e}): separate weir run processes",
              file=sys.stderr)
        sys.path.remove(str(python_dir))
        return None
    return module


def in_process_overhead(module, shape, calls, rounds, threads):
    """hdiff without and with timers, compiled once each and called alternately in this process
    (module docstring)."""
    import numpy as np
    ni, nj, nk = shape
    program, name = HDIFF.split("::")
    sdfg = module.optimize(module.load(f"{ROOT / program}::{name}").__sdfg__(), auto="cpu")
    compiled = {"off": sdfg.compile(), "depth 1": sdfg.compile(profile=True, profile_depth=1),
                "every level": sdfg.compile(profile=True)}
    rng = np.random.default_rng(0)
    fields = (ni + 4, nj + 4, nk)
    u, coeff = module.array(rng.random(fields)), module.array(rng.random(fields))
    outs = {v: module.zeros(fields) for v in compiled}
    for v, c in compiled.items():  # loads the program, first touch of its output, warm-up
        for _ in range(WARMUP_CALLS):
            c(u, coeff, outs[v])
    if not all(np.array_equal(outs[v], outs["off"]) for v in compiled):
        raise SystemExit("hdiff's outputs with and without timers differ")
    # A/A control: the unprofiled program again, as a fourth variant in the rotation, on an output
    # of its own; its "overhead" is the method's noise floor at this load.
    compiled[CONTROL] = compiled["off"]
    outs[CONTROL] = module.zeros(fields)
    compiled[CONTROL](u, coeff, outs[CONTROL])
    names = list(compiled)
    times = {v: [] for v in names}
    cpu = {v: [] for v in names}
    per_round = {v: [] for v in names}
    for r in range(rounds):
        for v in names[r % len(names):] + names[:r % len(names)]:
            c, out, got = compiled[v], outs[v], []
            for _ in range(calls):
                t, tc = time.perf_counter_ns(), time.process_time_ns()
                c(u, coeff, out)
                got.append((time.perf_counter_ns() - t) * 1e-9)
                cpu[v].append((time.process_time_ns() - tc) * 1e-9)
            times[v] += got
            per_round[v].append(statistics.median(got))
    clock = compiled["every level"].profile(probe=False).report["weir_profile"].get("clock")
    base = statistics.median(times["off"])
    base_p10 = percentile(times["off"], 10)
    out = {"size": f"{ni} x {nj} x {nk}", "method": "in_process", "calls_per_run": calls, "rounds": rounds,
           "threads": threads, "clock": clock, "variants": {}}
    for v in names:
        med = statistics.median(times[v])
        if v == CONTROL:
            continue
        # CPU time of the process (all its threads; OpenMP's waiting threads sleep: weir's loader
        # sets OMP_WAIT_POLICY=passive): what the timers add to the work, less sensitive to other
        # processes taking the cores than the wall time.
        entry = {"median_s": med, "min_s": min(times[v]), "p10_s": percentile(times[v], 10),
                 "cpu_median_s": statistics.median(cpu[v]), "round_medians_s": per_round[v]}
        if v != "off":
            entry["cpu_overhead"] = entry["cpu_median_s"] / statistics.median(cpu["off"]) - 1.0
            rounds_over = [a / b - 1.0 for a, b in zip(per_round[v], per_round["off"])]
            entry.update(overhead=med / base - 1.0, p10_overhead=entry["p10_s"] / base_p10 - 1.0,
                         round_overhead_min=min(rounds_over), round_overhead_max=max(rounds_over),
                         round_overhead_p10=percentile(rounds_over, 10),
                         round_overhead_median=statistics.median(rounds_over),
                         round_overhead_p90=percentile(rounds_over, 90), met=med / base - 1.0 < MAX_OVERHEAD)
        out["variants"][v] = entry
    rounds_over = [a / b - 1.0 for a, b in zip(per_round[CONTROL], per_round["off"])]
    out["control"] = {"overhead": statistics.median(times[CONTROL]) / base - 1.0,
                      "cpu_overhead": statistics.median(cpu[CONTROL]) / statistics.median(cpu["off"]) - 1.0,
                      "round_overhead_p10": percentile(rounds_over, 10),
                      "round_overhead_p90": percentile(rounds_over, 90)}
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


def stencil_bytes(weir, size, preset, threads, workdir):
    out = []
    cases = [(name, program, fields(*size), minimum(*size), sets, " x ".join(map(str, size)))
             for name, (program, fields, minimum, sets) in STENCILS.items()]
    cases += [(name, program, dims[preset], minimum(dims[preset]), [],
               ", ".join(f"{d} {n}" for d, n in dims[preset].items()))
              for name, (program, dims, minimum) in MESH_STENCILS.items()]
    for name, program, shape, want, sets, size_text in cases:
        report = os.path.join(workdir, f"{name}-profile.json")
        weir_run(weir, program, shape, [f"--profile={report}"] + sets, 1, threads)
        with open(report) as f:
            got = profiled_bytes(json.load(f))
        dev = None if got is None else got / want - 1.0
        out.append({"kernel": name, "program": program, "size": size_text,
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
    ap.add_argument("--rounds", type=int,
                    help="interleaved rounds per hdiff size (default: in one process 60 full, 1 tiny; "
                         "by weir run processes 5 full, 1 tiny)")
    ap.add_argument("--stores", choices=sorted(STORES), default="plain",
                    help="the store kind of every variant's rows (WEIR_STREAMING_STORES; default plain): one kind "
                         "forced for all, or measured: each program choosing by its own timed calls, which "
                         "separately loaded programs may choose differently")
    ap.add_argument("--processes", action="store_true",
                    help="measure the overhead by separate weir run processes even where the module is built")
    a = ap.parse_args()
    shapes, calls, rounds, stencil_size = SIZES[a.size]
    # Threads before any OpenMP runtime loads (the module's programs load one); the store kind
    # before any program's first call reads it (and for the weir run processes).
    os.environ["OMP_NUM_THREADS"] = str(a.threads)
    if STORES[a.stores]:
        os.environ["WEIR_STREAMING_STORES"] = STORES[a.stores]
    else:
        os.environ.pop("WEIR_STREAMING_STORES", None)
    module = None if a.processes else load_module(a.weir)
    if module:
        calls, rounds = IN_PROCESS[a.size]
    rounds = a.rounds or rounds
    load_before = uptime()
    with tempfile.TemporaryDirectory(prefix="weir-profile-bench-") as work:
        series = []
        for shape in shapes:
            if module:
                o = in_process_overhead(module, shape, calls, rounds, a.threads)
            else:
                o = overhead(a.weir, shape, calls, rounds, a.threads, work)
            series.append(o)
            for v, e in o["variants"].items():
                extra = ""
                if v != "off":
                    extra = (f", overhead {e['overhead'] * 100:+.1f}% (rounds {e['round_overhead_min'] * 100:+.1f}% to "
                             f"{e['round_overhead_max'] * 100:+.1f}%")
                    if "round_overhead_p10" in e:
                        extra += (f"; p10 to p90 {e['round_overhead_p10'] * 100:+.1f}% to "
                                  f"{e['round_overhead_p90'] * 100:+.1f}%; p10 call {e['p10_overhead'] * 100:+.1f}%; "
                                  f"CPU time {e['cpu_overhead'] * 100:+.1f}%")
                    extra += ")"
                print(f"hdiff {o['size']} {v} ({o['method']}): median {e['median_s'] * 1e3:.3f} ms{extra}")
            if "control" in o:
                c = o["control"]
                print(f"hdiff {o['size']} {CONTROL} (A/A control): {c['overhead'] * 100:+.1f}% (p10 to p90 "
                      f"{c['round_overhead_p10'] * 100:+.1f}% to {c['round_overhead_p90'] * 100:+.1f}%; "
                      f"CPU time {c['cpu_overhead'] * 100:+.1f}%)")
        stencils = stencil_bytes(a.weir, stencil_size, a.size, a.threads, work)
        for s in stencils:
            dev = "unknown" if s["deviation"] is None else f"{s['deviation'] * 100:+.1f}%"
            print(f"{s['kernel']} {s['size']}: profile {s['profile_bytes']} bytes, minimum {s['min_bytes']:.0f} "
                  f"({dev})")
    results = {"size": a.size, "stores": a.stores, "cpus": os.cpu_count(), "load_before": load_before,
               "load_after": uptime(),
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
