#!/usr/bin/python3
"""npbench kernels: weir's run time per kernel and stage against NumPy and weir's optimizer.

    python3 bench/npbench.py [--weir build/bin/weir] [--repeats 10] [--threads 2] [--only k1,k2]
                             [--json out/bench/npbench.json] [--check-numpy]

For every kernel of ../shared/corpus/npbench and each of its three stages (the SDFGs DaCe writes:
frontend, simplified, auto_optimized_cpu), `weir run --backend cpu --repeat` runs the file as it
is and after `weir optimize --auto cpu` (weir's own pipeline); the first call is a warm-up, the
median of the others is reported. NumPy (Debian's python3-numpy, bench/npbench_numpy.py) runs the
same kernel on the same inputs, interleaved per kernel. Every output (weir's and NumPy's) is
checked against the corpus's expected/ with the corpus README's rule before a time counts; a
failure is reported, never timed. `--check-numpy` only checks the NumPy implementations (the
ctest entry `bench: npbench NumPy references match the corpus`). The JSON goes to
bench/report.py (`--npbench FILE --splice docs/benchmarks.md` rewrites the document's npbench
section).
"""
import argparse
import datetime
import json
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


def time_numpy(kernel, values, inputs, repeats):
    fn = npbench_numpy.KERNELS[kernel]
    times, out = [], None
    for i in range(repeats + 1):
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


def time_weir(weir, sdfg, kdir, repeats, threads, env, outdir):
    # No --trust-code: the CBLAS tasklets of DaCe's auto-optimized files load as library nodes (ADR 0035).
    cmd = [weir, "run", sdfg, "--backend", "cpu", "--repeat", str(repeats + 1), "--threads", str(threads),
           "--set-json", os.path.join(kdir, "symbols.json"), "--set-json", os.path.join(kdir, "scalars.json"),
           "--out", outdir]
    if os.path.isdir(os.path.join(kdir, "inputs")):
        cmd += ["--in-dir", os.path.join(kdir, "inputs")]
    rc, text = run(cmd, env)
    if rc != 0:
        return None, None, "weir run failed: " + text.strip().splitlines()[-1][:200] if text.strip() else "weir run failed"
    calls = [float(v) * UNITS[u] for v, u in re.findall(r"^call \d+: ([0-9.]+) (us|ms|s)$", text, re.M)]
    outputs = {fn[:-4]: np.load(os.path.join(outdir, fn)) for fn in os.listdir(outdir) if fn.endswith(".npy")}
    return outputs, calls[1:], None


def stats(times):
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "repeats": len(times)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus", "npbench"))
    ap.add_argument("--weir", default=os.path.join(ROOT, "build", "bin", "weir"))
    ap.add_argument("--repeats", type=int, default=10)
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
            out, _ = time_numpy(k, values, inputs, 0)
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
            out, times = time_numpy(k, values, inputs, a.repeats)
            why = check_all(out, expected, meta["compare"])
            entry["numpy"] = {"status": "ok", **stats(times)} if not why else {"status": "mismatch", "detail": why}
            for stage in STAGES:
                sdfg = os.path.join(kdir, f"{k}.{stage}.sdfg")
                st = {"stage": stage}
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
                    outputs, calls, err = time_weir(a.weir, path, kdir, a.repeats, a.threads, env, outdir)
                    if err:
                        st[label] = {"status": "failed", "detail": err}
                    elif (why := check_all(outputs, expected, meta["compare"])):
                        st[label] = {"status": "mismatch", "detail": why}
                    elif not calls:
                        st[label] = {"status": "failed", "detail": "no call times in weir run's output"}
                    else:
                        st[label] = {"status": "ok", **stats(calls)}
                    failures += st[label]["status"] != "ok"
                entry["stages"].append(st)
                print(f"{k} {stage}: " + ", ".join(
                    f"{lab} {st[lab]['median_s'] * 1e3:.3f} ms" if st.get(lab, {}).get("status") == "ok" else
                    f"{lab} {st.get(lab, {}).get('status', '-')}" for lab in ("as-is", "weir-opt")), flush=True)
            results.append(entry)

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    doc = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip(),
        "machine": {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "load_avg_end": list(load) if load else None},
        "threads": a.threads,
        "repeats": a.repeats,
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
