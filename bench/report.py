#!/usr/bin/env python3
"""Renders docs/benchmarks.md from the JSON written by `weir-bench --json` (bench/run.sh).

    python3 bench/report.py RESULTS.json [--scale SCALE.json ...] [-o docs/benchmarks.md]
    python3 bench/report.py --scale SCALE.json ... --scale-only   # the scale section alone

`--scale`: JSON written by `weir_bench_scale --json` (chained stencils, source to loaded program).
`--orchestration`: JSON written by `weir_bench_orchestration --json` (granules: one SDFG vs call by
call, compile time); alone it renders only that section.
`--profile`: JSON written by `bench/profile_bench.py` (issue 39: `weir run --profile`'s overhead on
hdiff, the profile's bytes against the stencils' minimum traffic); alone it renders only that section.
`--mpi`: the Markdown table `bench/mpi_scaling.py` prints (strong and weak scaling on 1, 2, 4 MPI
ranks, time in halo exchanges), included as the distributed-memory section.

The document is generated: never edit it by hand, rerun bench/run.sh instead. The targets of
the benchmarks issue are evaluated here from the measured values (not timed tests).
"""
import argparse
import json
import os
import sys


def ms(s):
    return "-" if s is None else (f"{s * 1e3:.3f}" if s < 0.1 else f"{s * 1e3:.1f}")


def stage_ms(st):
    if not isinstance(st, dict):
        return "-"
    if st.get("status") not in (None, "ok"):
        return st["status"]
    return ms(st.get("median_s"))


def primary_weir(kernel):
    """The variant that stands for weir on this kernel: weir's pipeline from field-view source,
    else weir's pipeline applied to DaCe's simplified SDFG."""
    by_name = {v["name"]: v for v in kernel["variants"]}
    for name in ("weir", "weir-opt(dace-simplified)"):
        if name in by_name:
            return by_name[name]
    return None


def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "**not met**")


def kernel_section(out, kb):
    probe = kb["probe"]
    out.append("## Kernels\n")
    sizing = probe.get("sizing", {}).get("rule")
    out.append(
        f"Bandwidth probe (STREAM-like, {probe['elements']:,} doubles per array"
        + (f", {sizing}" if sizing else "") + ", same threads): "
        f"copy {probe['copy']['gbs']:.2f} GB/s, triad {probe['triad']['gbs']:.2f} GB/s (medians, "
        "counting 16 and 24 bytes per element). Each kernel's rounds also run "
        + ("a probe over three arrays whose triad moves the kernel's minimum bytes (the same "
           "footprint, so both meet the same cache levels)"
           if all("footprint_bytes" in k["probe"] for k in kb["kernels"]) else "the probe")
        + "; its *% probe* column divides the kernel's effective bandwidth (minimum bytes the "
        "stencil must move / median time) by the better of copy and triad measured in those same "
        "rounds.\n")
    out.append("| kernel | size | variant | status | median ms | min–max ms | GB/s | % probe | × hand | max rel. err |")
    out.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    notes = []
    for k in kb["kernels"]:
        for i, v in enumerate(k["variants"]):
            first = i == 0
            name = k["name"] if first else ""
            size = k["size"] if first else ""
            flagged = "timing_flag" in v  # not a result (bench/src/timing_flags.h): n/a
            if "median_s" in v:
                cells = [ms(v["median_s"]), f"{ms(v['min_s'])}–{ms(v['max_s'])}", f"{v['gbs']:.2f}",
                         "n/a" if flagged else f"{100 * v['fraction_of_probe']:.0f}%",
                         "n/a" if flagged else (f"{v['ratio_to_hand']:.2f}" if "ratio_to_hand" in v else "-"),
                         f"{v['max_rel_error']:.1e}" if "max_rel_error" in v else "-"]
            else:
                cells = ["-"] * 6
            target = k.get("target")
            if target and target["variant"] == v["name"] and target["met"] is False:
                # A regression: more than weir-bench's bound behind the hand-written kernel.
                cells[4] += f" **not met (> {target['max_ratio_to_hand']:.1f})**"
            status = v["status"]
            why = v.get("reason") or v.get("timing_flag")
            if why:
                notes.append((k["name"], v["name"], status, why.splitlines()[0]))
                status += f" [{len(notes)}]"
            out.append(f"| {name} | {size} | {v['name']} | {status} | " + " | ".join(cells) + " |")
    out.append("")
    refs = [f"{k['name']} {k['probe']['gbs']:.1f}" for k in kb["kernels"] if "gbs" in k.get("probe", {})]
    if refs:
        out.append("Probe of each kernel's rounds (GB/s, the better median of copy and triad: the 100% of "
                   "its *% probe*): " + ", ".join(refs) + ".\n")
    out.append("Variants: *weir* = the field-view example lowered, optimized with weir's pipeline and "
               "compiled by weir's CPU backend; *dace-simplified* / *dace-auto-opt* = DaCe's SDFGs from "
               "`../shared/corpus/dace` compiled and run by weir; *weir-opt(dace-simplified)* = weir's "
               "pipeline applied to DaCe's simplified SDFG; *hand* = `bench/hand/` (C++/OpenMP written "
               "by hand). *max rel. err* = largest difference from the hand-written kernel's outputs on "
               "the same inputs, relative to the largest output value.\n")
    if notes:
        out.append("Notes:\n")
        for i, (k, v, status, why) in enumerate(notes, 1):
            out.append(f"{i}. {k} / {v} ({status}): {why.replace('|', '/')}")
        out.append("")


def targets(doc):
    rows = []
    kb = doc.get("kernel_benchmarks")
    if kb:
        for k in kb["kernels"]:
            w = primary_weir(k)
            ok = None
            value = "skipped"
            if w and "timing_flag" in w:
                value = "not judged: " + w["timing_flag"]
            elif w and "ratio_to_hand" in w:
                ok = w["ratio_to_hand"] <= 1.10
                value = f"{w['name']}: {w['ratio_to_hand']:.2f} × hand"
            rows.append((f"{k['name']}: weir within 10% of hand-written", value, verdict(ok)))
            t = k.get("target")
            if t:
                measured = (f"{t['variant']}: not judged ({t['not_judged']})" if "not_judged" in t
                            else f"{t['variant']}: {t['ratio_to_hand']:.2f} × hand")
                rows.append((f"{k['name']}: weir at most {t['max_ratio_to_hand']:.1f} × hand-written (regression bound)",
                             measured, verdict(t["met"])))
            if k.get("memory_bound"):
                ok = None
                value = "skipped"
                if w and "timing_flag" in w:
                    value = "not judged: " + w["timing_flag"]
                elif w and "fraction_of_probe" in w:
                    ok = w["fraction_of_probe"] >= 0.8
                    value = f"{100 * w['fraction_of_probe']:.0f}% of probe"
                rows.append((f"{k['name']}: >= 80% of probe bandwidth", value, verdict(ok)))
        hd = next((k for k in kb["kernels"] if k["name"] == "hdiff"), None)
        if hd:
            v = {x["name"]: x for x in hd["variants"]}
            a, b = v.get("dace-auto-opt", {}), v.get("weir", {})
            ok = None
            value = "skipped"
            if "median_s" in a and "median_s" in b:
                ok = a["median_s"] <= b["median_s"]
                value = f"{ms(a['median_s'])} ms vs {ms(b['median_s'])} ms"
            rows.append(("hdiff: DaCe's auto-optimized SDFG compiled by weir no slower than weir's pipeline output",
                         value, verdict(ok)))
    tc = doc.get("toolchain")
    if tc:
        p = next((p for p in tc["programs"] if p.get("program") == "hdiff_program"), None)
        st = p.get("source_to_cpp") if p else None
        ok = None
        value = "not measured"
        if st and "median_s" in st:
            ok = st["median_s"] < 0.020
            value = f"{ms(st['median_s'])} ms"
        rows.append(("hdiff: source to optimized C++ under 20 ms", value, verdict(ok)))
    sc = doc.get("scaling")
    if sc:
        p = next((p for p in sc["points"] if p["n"] == 1000 and "stages" in p), None)
        ok = None
        value = "not measured"
        if p:
            t = sum(p["stages"][s]["s"] for s in ("frontend", "lower", "optimize"))
            mem = p["max_rss_kib"] / 1024.0
            ok = t < 2.0 and mem < 1024
            value = f"{t:.2f} s, peak {mem:.0f} MiB"
        rows.append(("1,000-stencil program: source to optimized SDFG under 2 s, peak memory under 1 GiB",
                     value, verdict(ok)))
    return rows


def tune_targets(tu):
    """The tune section's target rows as weir-bench evaluated them ("met" null: not evaluated)."""
    return [(t["target"], t["measured"], verdict(t["met"])) for t in tu.get("targets", [])]


def tune_section(out, tu):
    st = tu["settings"]
    out.append("## weir tune\n")
    limit = f" --max-candidates {st['max_candidates']}" if st.get("max_candidates") else ""
    out.append(f"`weir tune` (`bench/src/tune_bench.cpp`) on every stencil kernel above whose weir variant "
               f"comes from a program it takes (a field-view program, else DaCe's simplified SDFG), with the "
               f"bench's inputs and sizes: `--budget {st['budget_s']:.0f}s{limit} --seed {st['seed']}`, "
               f"{st['threads']} threads by default. The tuned script is then replayed on the untuned "
               "program and timed against `--auto cpu` in interleaved calls in weir-bench itself, as `weir tune` "
               "times them (one set of arrays, those written restored before every call; not tune's "
               "own number); both are checked against the hand-written kernel first. *speed-up* = `--auto "
               "cpu`'s median / the tuned program's, 1 when `weir tune` kept `--auto cpu` (both sides run the "
               "same program; the ratio measured then shows the run's noise); *tune's* = what `weir tune` "
               "measured (its confirmation series); *searched* = candidates evaluated of the space.\n")
    if tu.get("not_run"):
        out.append(f"Not run: {tu['not_run']}.\n")
        return
    out.append("| kernel | size | --auto cpu ms | tuned ms | speed-up | tune's | searched | choices (threads) |")
    out.append("|---|---|---:|---:|---:|---:|---:|---|")
    for k in tu["kernels"]:
        if k.get("status") != "ok":
            why = k.get("reason", "").splitlines()[0].replace("|", "/") if k.get("reason") else ""
            out.append(f"| {k['name']} | {k.get('size', '')} | - | - | - | - | - | {k['status']}: {why[:160]} |")
            continue
        t = k["tune"]
        cut = " (budget)" if t.get("cut_short") == "the budget" else ""
        speedup = f"{k['speedup']:.2f}"
        if k.get("same_program"):
            speedup += f" (same program; measured {k['measured_speedup']:.2f})"
        out.append(f"| {k['name']} | {k['size']} | {ms(k['auto_cpu']['median_s'])} | {ms(k['tuned']['median_s'])} | "
                   f"{speedup} | {t['speedup']:.2f} | {t['evaluated']} of {t['candidates']}{cut} | "
                   f"`{t['choices']}` ({t['threads']}) |")
    out.append("")
    loaded = [k for k in tu["kernels"] if k.get("status") == "ok" and k["tune"].get("load_warning")]
    if loaded:
        out.append("`weir tune` found its own ratios unreliable on " + ", ".join(k["name"] for k in loaded) +
                   " (a load above the CPUs + 0.5, or the baseline's calls spreading by more than 15%; "
                   "docs/adr/0056-weir-tune.md, session 32):\n")
        for k in loaded:
            out.append(f"- {k['name']}: {k['tune']['load_warning']}")
        out.append("")


def toolchain_section(out, tc):
    out.append("## Toolchain\n")
    out.append("Per field-view program (milliseconds; median over repeats for the fast stages; compile, "
               "load and first call once, compiling into an empty program cache; first call with every "
               "size 8). *source→C++* is the whole chain from reading the file to the generated C++, run "
               "on its own.\n")
    cols = ["parse", "load", "type_check", "lower", "optimize", "codegen", "source_to_cpp", "compile",
            "load_library", "first_call"]
    out.append("| program | parse | load module | type-check | lower | optimize | codegen | source→C++ | compile | load library | first call |")
    out.append("|---|" + "---:|" * 10)
    any_skipped = False
    for p in tc["programs"]:
        what = p["file"] + ("::" + p["program"] if "program" in p else "")
        vals = [stage_ms(p.get(k)) for k in cols]
        if "error" in p:
            vals[-1] = "failed"
        any_skipped = any_skipped or "skipped" in vals
        out.append(f"| `{what}` | " + " | ".join(vals) + " |")
    if any_skipped:
        out.append("\n*skipped*: the lowering does not support the program yet; see the kernel notes.")
    out.append("")
    out.append("SDFG files from the corpus (milliseconds, medians):\n")
    out.append("| file | KiB | load JSON | validate | save JSON |")
    out.append("|---|---:|---:|---:|---:|")
    for s in tc["sdfg_files"]:
        kib = f"{s['bytes'] / 1024:.0f}" if "bytes" in s else "-"
        out.append(f"| `{s['file']}` | {kib} | {stage_ms(s.get('load'))} | {stage_ms(s.get('validate'))} | "
                   f"{stage_ms(s.get('save'))} |")
    out.append("")


def gpu_section(out, g):
    out.append("## GPU\n")
    out.append("Field-view programs after `auto_optimize(GPU)` on the gpu backend, data on the device "
               "(`bench/src/gpu_bench.cpp`); effective bandwidth against a STREAM-like device probe in the "
               "same run; target >= 80% of the probe on the memory-bound kernels.\n")
    if not g.get("device"):
        out.append(f"Not run: no GPU ({g.get('reason', 'no CUDA device')}).\n")
        return
    p = g.get("probe", {})
    out.append(f"Device: {g['device']}; probe copy {p.get('copy_GBps', 0):.0f} GB/s, "
               f"triad {p.get('triad_GBps', 0):.0f} GB/s.\n")
    out.append("| kernel | size | median ms | GB/s | % of probe | rel. error | status |")
    out.append("|---|---|---:|---:|---:|---:|---|")
    for k in g.get("kernels", []):
        if "median_s" in k:
            out.append(f"| {k['kernel']} | {k.get('size', '')} | {ms(k['median_s'])} | {k['effective_GBps']:.0f} | "
                       f"{100 * k['fraction_of_probe']:.0f}% | {k.get('max_rel_error', 0):.1e} | {k['status']} |")
        else:
            out.append(f"| {k['kernel']} | {k.get('size', '')} | - | - | - | - | {k['status']}: "
                       f"{k.get('reason', '')[:120]} |")
    out.append("")


def scaling_section(out, sc):
    out.append("## Scaling with program size\n")
    out.append("A generated field-view program composing N stencils (N distinct field operators, each a "
               "shifted 5-point update, called in sequence over 8 fields; `bench/src/scaling_bench.cpp`), "
               "each N in its own process. Time per stage (ms) and the process's peak resident memory.\n")
    out.append("| N | source lines | states after optimize | frontend | lower | optimize | codegen | peak MiB |")
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in sc["points"]:
        if "error" in p:
            out.append(f"| {p['n']} | failed: {p['error'].splitlines()[0]} |||||||")
            continue
        st = p["stages"]
        out.append(f"| {p['n']} | {p['source_lines']} | {p['states']} | " +
                   " | ".join(ms(st[s]["s"]) for s in ("frontend", "lower", "optimize", "codegen")) +
                   f" | {p['max_rss_kib'] / 1024:.0f} |")
    big = [p for p in sc["points"] if "optimize_passes_s" in p]
    if big:
        p = big[-1]
        top = sorted(p["optimize_passes_s"].items(), key=lambda kv: -kv[1])[:6]
        out.append(f"\nSlowest passes of the optimization pipeline at N = {p['n']}: " +
                   ", ".join(f"`{k}` {ms(v)} ms" for k, v in top) + ".")
    e = sc["exponents"]
    out.append("\nGrowth exponents e (least squares of log time over log N, time ~ N^e): " +
               ", ".join(f"{k} {v:.2f}" for k, v in e.items()) + ".\n")


SCALE_STAGES = [
    ("validate", "validate"),
    ("save JSON", "save JSON"),
    ("load JSON", "load JSON"),
    ("pass state-fusion", "state-fusion pass"),
    ("simplify", "simplify"),
    ("auto_optimize cpu", "auto_optimize (CPU)"),
    ("generate C++", "generate C++ (optimized)"),
    ("generate C++ unoptimized", "generate C++ (N state functions)"),
    ("compile C++ (empty cache)", "compile + load (empty cache)"),
]


def secs(x):
    return "-" if x is None else (f"{x:.3f}" if x < 10 else f"{x:.1f}")


def scale_section(out, docs):
    """Issue 17's scale benchmark (bench/tools/scale_bench.cpp) from weir_bench_scale's JSON."""
    chains = {}
    sources = []
    machines = []
    for d in docs:
        machines.append((d.get("machine_at_start", {}), d.get("load_average_at_end")))
        for c in d.get("chains", []):
            chains[c["n"]] = dict(c, unit_bytes=d.get("unit_bytes"))
        if "source_to_program" in d:
            sources.append(d["source_to_program"])
    out.append("## Scale of big SDFGs\n")
    out.append("`build/bin/weir_bench_scale` (`bench/tools/scale_bench.cpp`, issue 17, ADR 0024): N chained "
               "stencils as ONE SDFG, each in its own state, through every stage; and source to loaded program "
               "for one small stencil. Wall time stretches with the machine's load; CPU time (user + sys of the "
               "process and the compilers it ran) is what an idle machine takes for single-threaded stages, "
               "while the compile stage runs its translation units in parallel, so its wall time is the one "
               "that counts on an idle machine.\n")
    for m, end in machines:
        if m:
            la = " / ".join(f"{x:.1f}" for x in m.get("load_average", []))
            lae = " / ".join(f"{x:.1f}" for x in end) if end else "-"
            out.append(f"- Run {m.get('date', '?')} UTC: {m.get('online_cpus', '?')} online CPUs, load average "
                       f"{la} at start, {lae} at end; programs compiled with `{m.get('compiler', '?')} "
                       f"{m.get('flags', '')}`")
    out.append("")
    ns = sorted(chains)
    if ns:
        out.append("| stage | " + " | ".join(f"N = {n:,} wall / CPU s" for n in ns) + " |")
        out.append("|---|" + "---:|" * len(ns))
        for key, label in SCALE_STAGES:
            cells = []
            for n in ns:
                st = chains[n]["stages_s"].get(key)
                cells.append("-" if not isinstance(st, dict) else f"{secs(st['wall_s'])} / {secs(st['cpu_s'])}")
            if any(c != "-" for c in cells):
                out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("| C++ bytes (optimized) | " +
                   " | ".join(f"{chains[n]['stages_s'].get('cpp bytes', 0):,}" for n in ns) + " |")
        out.append("| translation units | " +
                   " | ".join(str(chains[n]["stages_s"].get("translation units", "-")) for n in ns) + " |")
        out.append("")
        rows = []

        def stage(n, key):
            st = chains.get(n, {}).get("stages_s", {}).get(key)
            return st if isinstance(st, dict) else None

        for key, label in (("simplify", "simplify"), ("auto_optimize cpu", "auto_optimize (CPU)")):
            for n, limit in ((1000, 2.0), (10000, 30.0)):
                st = stage(n, key)
                if st:
                    rows.append((f"{label} of {n:,} stencils under {limit:g} s", f"{secs(st['cpu_s'])} s CPU",
                                 verdict(st["cpu_s"] < limit)))
        st = stage(1000, "compile C++ (empty cache)")
        if st:
            rows.append(("compiling 1,000 stencils under 30 s (translation units in parallel)",
                         f"{secs(st['wall_s'])} s wall, {secs(st['cpu_s'])} s CPU in "
                         f"{chains[1000]['stages_s'].get('translation units', '?')} units",
                         verdict(st["wall_s"] < 30.0)))
        for src in sources:
            total = next((s for s in src["stages"] if s["stage"] == "source to loaded program"), None)
            if total:
                rows.append((f"source to loaded program under 0.4 s (`{src['program']}`)",
                             f"median {secs(total['median_cpu_s'])} s CPU, {secs(total['median_wall_s'])} s wall",
                             verdict(total["median_cpu_s"] < 0.4)))
        if rows:
            out += ["| target | measured | verdict |", "|---|---|---|"]
            out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
            out.append("")
    for src in sources:
        first = src.get("first_run")
        out.append(f"Source to loaded program, `{src['program']}`, {src['repeats']} runs, each evicting its program "
                   "from the cache (compile + load generates the C++ again); medians of the runs after the first"
                   + (f"; the first, which also builds the precompiled header: {secs(first['wall_s'])} s wall, "
                      f"{secs(first['cpu_s'])} s CPU" if first else "") + ":\n")
        out.append("| stage | median wall s | median CPU s | min wall s | min CPU s |")
        out.append("|---|---:|---:|---:|---:|")
        for s in src["stages"]:
            out.append(f"| {s['stage']} | {s['median_wall_s']:.3f} | {s['median_cpu_s']:.3f} | "
                       f"{s['min_wall_s']:.3f} | {s['min_cpu_s']:.3f} |")
        out.append("")


def python_targets(py):
    """Target rows of bench/python_api.py's results."""
    co, hd, pc = py["call_overhead"], py["hdiff"], py.get("profiled_call")
    return [
        (f"Python: call overhead of a compiled program of {co['fields']} fields under {co['target_us']:g} us",
         f"{co['repeated_call_us']:.2f} us per repeated call", verdict(co["met"])),
    ] + ([
        (f"Python: profiled call overhead under {pc['target_us']:g} us",
         f"{pc['overhead_us']:+.2f} us per call ({pc['profiled_call_us']:.2f} vs {pc['plain_call_us']:.2f} us)",
         verdict(pc["met"])),
    ] if pc else []) + ([
        (f"Python: call overhead of a compiled SDFG (`SDFG.compile()`) under {pc['plain_target_us']:g} us",
         f"{pc['plain_call_us']:.2f} us per repeated call", verdict(pc["plain_met"])),
    ] if pc and "plain_met" in pc else []) + [
        (f"Python: hdiff from Python at most {hd['max_ratio']:.2f} × `weir run` (the same kernel time)",
         f"{ms(hd['python_median_s'])} ms vs {ms(hd['weir_run_median_s'])} ms ({hd['ratio']:.2f} ×)",
         verdict(hd["met"])),
    ]


def profiled_rows(pc):
    """The Python section's rows of a profiled call (bench/python_api.py's profiled_call; absent
    from results of before session 37)."""
    if not pc:
        return []
    shape = " × ".join(map(str, pc["shape"]))
    return [f"| its SDFG as `weir run` compiles it ({shape}), `SDFG.compile()`, called with the same arrays: "
            f"time per call | {pc['plain_call_us']:.2f} us | "
            + (f"< {pc['plain_target_us']:g} us | {verdict(pc['plain_met'])} |" if "plain_met" in pc else "| |"),
            f"| the same compiled with `profile=True` ({pc['timed_elements']} timed elements, read after every call) "
            f"| {pc['profiled_call_us']:.2f} us | | |",
            f"| what profiling adds per call | {pc['overhead_us']:+.2f} us | < {pc['target_us']:g} us | "
            f"{verdict(pc['met'])} |"]


def python_section(out, py, source):
    co, hd = py["call_overhead"], py["hdiff"]
    shape = " × ".join(map(str, hd["shape"]))
    out += ["## Python API", "",
            f"Generated from `{source}` (`bench/python_api.py`, run by `bench/run.sh` when the module is "
            f"built), {py['date_utc']}, commit `{py['commit']}`; {py['machine']['cpus']} CPUs, load average "
            f"{' / '.join(f'{x:.1f}' for x in py['machine']['load_avg'])}; Python {py['machine']['python']}, "
            f"NumPy {py['machine']['numpy']}, cpu backend.", "",
            "| measurement | value | target | verdict |", "|---|---:|---|---|",
            f"| `{co['program']}` ({co['fields']} fields, {' × '.join(map(str, co['shape']))}) called again with "
            f"the same arrays: time per call (an upper bound of the overhead) | {co['repeated_call_us']:.2f} us | "
            f"< {co['target_us']:g} us | {verdict(co['met'])} |",
            f"| the same with arrays of a layout the program does not remember (every check, the binding, "
            f"the program's set-up for new sizes) | {co['checked_call_us']:.2f} us | | |",
            *profiled_rows(py.get("profiled_call")),
            f"| `{hd['program']}` {shape} from Python, median of {hd['repeats']} calls, fastest of {hd.get('rounds', 1)} "
            f"interleaved rounds (arrays aligned to 64 "
            f"bytes, as weir's allocator aligns `weir run`'s) | {ms(hd['python_median_s'])} ms | | |",
            f"| the same on NumPy's own buffers ({hd['numpy_alignment']}-byte aligned: the generated code's vector "
            f"loads straddle cache lines) | {ms(hd['python_numpy_alignment_median_s'])} ms | | |",
            f"| the same by `weir run --repeat` | {ms(hd['weir_run_median_s'])} ms | | |",
            f"| Python / `weir run` | {hd['ratio']:.2f} × | ≤ {hd['max_ratio']:.2f} × | {verdict(hd['met'])} |", ""]


def pct(x):
    return "unknown" if x is None else f"{x * 100:+.1f}%"


def overhead_met(pr, e):
    """Issue 39: `--profile` costs under max_overhead (5%) of the unprofiled median."""
    return e["overhead"] < pr["max_overhead"]


def bytes_met(pr, b):
    """Issue 39: the profile's bytes within max_bytes_deviation (10%) of the minimum traffic."""
    return b["deviation"] is not None and abs(b["deviation"]) <= pr["max_bytes_deviation"]


def profile_targets(pr):
    """Target rows of bench/profile_bench.py's results (issue 39's --profile figures), evaluated
    here from the measured values."""
    rows = []
    for o in pr["overhead"]:
        for v, e in o["variants"].items():
            if v == "off":
                continue
            rows.append((f"Profiling: `weir run --profile` ({v}) overhead on hdiff {o['size']} under "
                         f"{pr['max_overhead'] * 100:g}%",
                         f"{pct(e['overhead'])} (rounds {pct(e['round_overhead_min'])} to "
                         f"{pct(e['round_overhead_max'])})", verdict(overhead_met(pr, e))))
    for b in pr["bytes"]:
        rows.append((f"Profiling: {b['kernel']}'s bytes moved within {pr['max_bytes_deviation'] * 100:g}% of its "
                     "minimum traffic", pct(b["deviation"]), verdict(bytes_met(pr, b))))
    return rows


def clock_text(clock):
    if not clock:
        return "clock not reported"
    if clock["name"] == "tsc":
        return f"timers read the TSC ({clock['ticks_per_second'] / 1e9:.3f} GHz, calibrated against steady_clock)"
    return "timers read steady_clock (CLOCK_MONOTONIC)"


def stores_text(pr):
    stores = pr.get("stores")
    if stores in ("plain", "streamed"):
        return (f" Store kind forced to {stores} stores for every variant (WEIR_STREAMING_STORES): each "
                "program's own measured choice could differ between the separately loaded programs.")
    return ""


def in_process_notes(pr):
    """The in-process rows' CPU times and A/A control, one line per size (empty otherwise)."""
    lines = []
    for o in pr["overhead"]:
        if o.get("method") != "in_process":
            continue
        cpu = ", ".join(f"{v} {pct(e.get('cpu_overhead'))}" for v, e in o["variants"].items() if v != "off")
        line = f"- {o['size']}: CPU time per call (the process's threads) {cpu}"
        if "control" in o:
            c = o["control"]
            line += (f"; A/A control (the unprofiled program again, in the same rotation) {pct(c['overhead'])} "
                     f"(rounds p10 {pct(c['round_overhead_p10'])}, p90 {pct(c['round_overhead_p90'])}), CPU time "
                     f"{pct(c['cpu_overhead'])}")
        lines.append(line + ".")
    return lines + [""] if lines else []


def overhead_method(pr):
    """How bench/profile_bench.py measured the overhead: in one process (the Python module's), or by
    separate `weir run` processes (results without a method)."""
    if all(o.get("method") == "in_process" for o in pr["overhead"]) and pr["overhead"]:
        return ("Overhead: hdiff (`examples/cartesian/hdiff.py`) compiled three times in one process (weir's "
                "Python module: the SDFG `weir run` compiles, without timers, with `profile_depth=1` as "
                "`--profile --profile-depth 1`, and with `profile=True` as `--profile`), the three called "
                "alternately on the same arrays, rotated each round, a few calls per variant and round; "
                "median over all calls, the rounds' overheads (each round's medians) from the 10th to the "
                "90th percentile as the range." + stores_text(pr))
    return ("Overhead: hdiff (`examples/cartesian/hdiff.py`) by `weir run --backend cpu --repeat` without timers, "
            "with `--profile --profile-depth 1` and with `--profile` (maps at every level), interleaved rounds "
            "on the same inputs, the first call of each run dropped; median over all calls, the rounds' "
            "overheads as the range.")


def profile_section(out, pr, source):
    load = lambda xs: " / ".join(f"{x:.1f}" for x in xs) if xs else "unknown"  # noqa: E731
    out += ["## Profiling", "",
            f"Generated from `{source}` (`bench/profile_bench.py`, run by `bench/run.sh`), size preset "
            f"`{pr['size']}`; load average {load(pr['load_before'])} before, {load(pr['load_after'])} after. " +
            overhead_method(pr) + " Bytes: the profile's bytes of one call (its states') against the "
            "stencil's minimum traffic as the kernel table counts it for its GB/s.", "",
            ] + ([f"**Caveat:** the load average ({pr['load_before'][0]:.1f}) exceeded the {pr['cpus']} CPUs: other "
                  "processes took the cores between and within the runs, so these overheads are mostly noise "
                  "(see the rounds' range); rerun on an idle machine.", ""]
                 if pr.get("cpus") and pr.get("load_before") and pr["load_before"][0] > pr["cpus"] else []) + [
            "| hdiff | variant | median | min | overhead | rounds | clock | verdict |",
            "|---|---|---:|---:|---:|---|---|---|"]
    for o in pr["overhead"]:
        for v, e in o["variants"].items():
            over = "" if v == "off" else pct(e["overhead"])
            rounds = "" if v == "off" else f"{pct(e['round_overhead_min'])} to {pct(e['round_overhead_max'])}"
            if v != "off" and "round_overhead_p10" in e:
                rounds = f"p10 {pct(e['round_overhead_p10'])}, p90 {pct(e['round_overhead_p90'])}"
            out.append(f"| {o['size']}, {o['threads']} threads, {o['rounds']} × {o['calls_per_run']} calls | {v} | "
                       f"{ms(e['median_s'])} ms | {ms(e['min_s'])} ms | {over} | {rounds} | "
                       f"{'' if v == 'off' else clock_text(o.get('clock'))} | "
                       f"{'' if v == 'off' else verdict(overhead_met(pr, e))} |")
    out += [""] + in_process_notes(pr)
    out += ["| stencil | size | profile's bytes | minimum bytes | deviation | verdict |",
            "|---|---|---:|---:|---:|---|"]
    for b in pr["bytes"]:
        got = "unknown" if b["profile_bytes"] is None else f"{b['profile_bytes'] / 1e6:.2f} MB"
        out.append(f"| {b['kernel']} | {b['size']} | {got} | {b['min_bytes'] / 1e6:.2f} MB | {pct(b['deviation'])} | "
                   f"{verdict(bytes_met(pr, b))} |")
    out.append("")


ORCH_SPEEDUP_TARGET = 1.3   # issue 34: one SDFG's kernel time at least 1.3x below call by call
ORCH_COMPILE_TARGET_S = 15  # issue 34: source -> loaded program of a granule, idle 2-core machine


def orchestration_section(out, doc, source):
    """Issue 34's granules (bench/tools/orchestration_bench.cpp) from weir_bench_orchestration's JSON."""
    m = doc.get("machine", {})
    la = " / ".join(f"{x:.1f}" for x in m.get("load_average_at_start", []))
    lae = " / ".join(f"{x:.1f}" for x in m.get("load_average_at_end", []))
    out += ["## Orchestrated granules: one SDFG vs call by call", "",
            f"Generated from `{source}` (`build/bin/weir_bench_orchestration`, `bench/tools/orchestration_bench.cpp`, "
            f"issue 34): {m.get('online_cpus', '?')} online CPUs, OMP_NUM_THREADS={m.get('OMP_NUM_THREADS') or '-'}, "
            f"load average {la} at start, {lae} at end; program cache {doc.get('program_cache', '?')}. Kernel "
            "time: the one SDFG's run against the callee programs' runs summed (call by call, each program compiled "
            "on its own); the wall time of call by call adds the walk of the statements and the allocation of the "
            "local fields per call. Medians of interleaved rounds on persistent buffers.", "",
            "| granule | mesh × levels, steps | one SDFG ms | call by call: kernels / wall ms | kernel speed-up "
            "| maps one / each | transients MiB one / each | compile s wall / CPU |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    targets = []
    for g in doc.get("granules", []):
        out.append(f"| `{g['granule']}` | {g['cells']:,} cells × {g['levels']}, {g['steps']} | {g['one_sdfg_ms']:.1f} | "
                   f"{g['call_by_call_kernel_ms']:.1f} / {g['call_by_call_wall_ms']:.1f} | "
                   f"{g['kernel_speedup']:.2f} × | {g['maps_one_sdfg']} / {g['maps_call_by_call']} | "
                   f"{g['transient_bytes_one_sdfg'] / 2**20:.1f} / {g['local_field_bytes_call_by_call'] / 2**20:.1f} | "
                   f"{g['compile_wall_s']:.1f} / {g['compile_cpu_s']:.1f} |")
        targets.append((f"`{g['granule']}`: kernel time one SDFG ≥ {ORCH_SPEEDUP_TARGET:g} × below call by call",
                        f"{g['kernel_speedup']:.2f} ×", verdict(g["kernel_speedup"] >= ORCH_SPEEDUP_TARGET)))
        targets.append((f"`{g['granule']}`: source -> loaded program < {ORCH_COMPILE_TARGET_S} s (idle 2 cores)",
                        f"{g['compile_wall_s']:.1f} s wall", verdict(g["compile_wall_s"] < ORCH_COMPILE_TARGET_S)))
    out += ["", "| target | measured | verdict |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in targets]
    out.append("")


def mpi_section(out, text, source):
    """The distributed-memory section: bench/mpi_scaling.py's table as it printed it."""
    out += ["## Distributed memory (MPI): scaling of an orchestrated diffusion loop", "",
            f"From `{source}`: `bench/mpi_scaling.py` (tests/mpi/diffusion_loop.py under `mpirun "
            "--oversubscribe -np N weir run --decompose I,J`, one OpenMP thread per rank). On a 2-core "
            "machine 2 ranks share the cores with nothing else only when it is idle, and 4 ranks are "
            "oversubscribed by construction: the rows show the exchanges' cost and correctness, not a "
            "speed-up (docs/distributed.md says what a core per rank would show).", ""]
    for line in text.strip().splitlines():
        if line.startswith("|") and out[-1] and not out[-1].startswith("|"):
            out.append("")  # a table needs a blank line after the run's heading line
        out.append(line)
    out.append("")


def render(doc, source, scale_docs=(), python=None, orchestration=None, mpi=None, profile=None):
    m = doc["meta"]
    out = ["# Benchmarks", "",
           f"Generated by `bench/report.py` from `{source}` (a run of `bash bench/run.sh`); do not edit by "
           "hand. How to run: `bench/README.md`.", "",
           "## Machine and run", "",
           f"- Date (UTC): {m['date']}; commit `{m['commit']}`; size preset `{m['size_preset']}`, "
           f"{m['repeats']} timed repeats after {m['warmup']} warm-up calls, variants interleaved",
           f"- CPU: {m['cpu']}, {m['online_cpus']} online CPUs; load average at start "
           f"{' / '.join(f'{x:.1f}' for x in m['load_average_at_start'])}",
           f"- Threads: {m['omp_max_threads']} (OMP_NUM_THREADS={m['OMP_NUM_THREADS']}, "
           f"OMP_PROC_BIND={m['OMP_PROC_BIND']}, OMP_PLACES={m['OMP_PLACES']})",
           f"- Compiler: {m['compiler']}; weir's programs: `{m['weir_program_flags']}`; hand-written "
           f"kernels: `{m['hand_kernel_flags']}`",
           f"- weir's optimization pipeline: `{m['optimization_pipeline']}`", ""]
    if m["online_cpus"] <= 4 or max(m["load_average_at_start"]) > m["online_cpus"]:
        out += [f"**Caveat:** this machine has {m['online_cpus']} cores shared with other builds and jobs "
                f"(load average {m['load_average_at_start'][0]:.1f} at start), so absolute times and "
                "bandwidths are noisy and low; the interleaved rounds keep ratios between variants of one "
                "kernel more meaningful than absolute numbers. Min–max columns show the spread.", ""]
    t = targets(doc) + (tune_targets(doc["tune"]) if "tune" in doc else []) + \
        (python_targets(python[0]) if python else []) + (profile_targets(profile[0]) if profile else [])
    if t:
        out += ["## Targets", "", "Evaluated from this run (benchmarks, not timed tests).", "",
                "| target | measured | verdict |", "|---|---|---|"]
        out += [f"| {a} | {b} | {c} |" for a, b, c in t]
        out.append("")
    if "kernel_benchmarks" in doc:
        kernel_section(out, doc["kernel_benchmarks"])
    if "tune" in doc:
        tune_section(out, doc["tune"])
    if "gpu" in doc:
        gpu_section(out, doc["gpu"])
    if "toolchain" in doc:
        toolchain_section(out, doc["toolchain"])
    if "scaling" in doc:
        scaling_section(out, doc["scaling"])
    if scale_docs:
        scale_section(out, scale_docs)
    if python:
        python_section(out, *python)
    if profile:
        profile_section(out, *profile)
    if orchestration:
        orchestration_section(out, *orchestration)
    if mpi:
        mpi_section(out, *mpi)
    return "\n".join(out).rstrip() + "\n"


NPBENCH_TITLE = "## npbench kernels (DaCe's SDFGs)"


def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def median(xs):
    r = sorted(xs)
    return r[len(r) // 2] if len(r) % 2 else (r[len(r) // 2 - 1] + r[len(r) // 2]) / 2


# A loss smaller than this share is not told from the machine's noise: two cells of the same
# code (syrk's auto-optimized file as is and after weir's pipeline, which changes nothing there)
# differed by 1-2% in every round of a run on the loaded machine.
NOISE_SHARE = 0.03


def ratio_verdict(ratios):
    """Whether weir-opt is at or below the auto-optimized file as is, from the ratios of their
    medians in interleaved rounds: "met" where the median ratio is at most 1, "not met" where
    weir-opt was slower in every round and by more than NOISE_SHARE at the median, else
    "noise"."""
    if median(ratios) <= 1.0:
        return "met"
    return "not met" if min(ratios) > 1.0 and median(ratios) > 1.0 + NOISE_SHARE else "noise"


def vs_auto_as_is(opt, auto):
    """A stage's weir-opt cell against the kernel's auto_optimized_cpu cell as is, round by round
    (bench/npbench.py): the ratios, their median, range and verdict; None without both times."""
    if not all(isinstance(c, dict) and c.get("status") == "ok" and c.get("round_medians_s") for c in (opt, auto)):
        return None
    ratios = [o / x for o, x in zip(opt["round_medians_s"], auto["round_medians_s"]) if x > 0]
    if not ratios:
        return None
    return {"ratios": ratios, "ratio_median": median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
            "verdict": ratio_verdict(ratios)}


def merge_npbench(runs):
    """One npbench result from several runs of bench/npbench.py: per cell the run with the lowest
    median (another job on the shared machine only ever slows a run down); the first run's
    metadata, the last run's load average, `runs` the number merged."""
    nb = json.loads(json.dumps(runs[0]))
    nb["runs"] = len(runs)
    nb["machine"]["load_avg_end"] = runs[-1]["machine"].get("load_avg_end")

    def best(cells):
        ok = [c for c in cells if isinstance(c, dict) and c.get("status") == "ok"]
        return min(ok, key=lambda c: c["median_s"]) if ok else cells[0]

    for i, k in enumerate(nb["kernels"]):
        others = [next((x for x in r["kernels"] if x["name"] == k["name"]), None) for r in runs]
        others = [o for o in others if o]
        k["numpy"] = best([o["numpy"] for o in others])
        for j, st in enumerate(k["stages"]):
            same = [next((x for x in o["stages"] if x["stage"] == st["stage"]), {}) for o in others]
            for variant in ("as-is", "weir-opt"):
                st[variant] = best([x.get(variant) for x in same])
            # The verdict pools every run's rounds (each ratio compares cells of the same round).
            ratios = [r for x in same for r in (x.get("vs_auto_as_is") or {}).get("ratios", [])]
            st["vs_auto_as_is"] = ({"ratios": ratios, "ratio_median": median(ratios), "ratio_min": min(ratios),
                                    "ratio_max": max(ratios), "verdict": ratio_verdict(ratios)} if ratios else None)
    return nb


def npbench_section(nb, source):
    """The npbench table from bench/npbench.py's JSON: per kernel and stage weir's time as the
    file is and after `weir optimize --auto cpu`, against NumPy and against each other."""
    load = nb["machine"].get("load_avg_end")
    out = [NPBENCH_TITLE, "",
           f"Generated from `{source}` (`/usr/bin/python3 bench/npbench.py`), {nb['date_utc']}, commit "
           f"`{nb['commit']}`; {nb['machine']['cpus']} CPUs, {nb['threads']} OpenMP threads, "
           + (f"median of {nb['repeats']} calls after one warm-up" if "repeats" in nb else
              f"median of the medians of a cell's {nb['rounds'] * nb['processes']} processes (separate `weir "
              f"run`s: a whole process can be fast or slow), at least {nb['min_time_s']:g} s of calls in "
              f"{nb['rounds']} rounds that run every cell of a kernel in turn {nb['processes']} times, a warm-up "
              "call dropped from each process" if nb.get("processes", 1) > 1 else
              f"median of all calls of a cell, at least {nb['min_time_s']:g} s of them in {nb['rounds']} rounds "
              "that run every cell of a kernel in turn, a warm-up call dropped from each")
           + " (`weir run --repeat`, compile time excluded)"
           + (f", the lowest of {nb['runs']} runs' medians (runs one after another: load from other jobs only "
              "slows a run down)" if nb.get("runs", 1) > 1 else "") + "; NumPy "
           f"{nb['numpy_version']} (Debian's python3-numpy, `bench/npbench_numpy.py`) on the same inputs."
           + (f" Load average at the end {' / '.join(f'{x:.1f}' for x in load)}: the machine is shared, "
              "so the times are indicative only." if load else ""), "",
           "*as is*: the corpus file run by weir's cpu backend; *weir-opt*: the same file after `weir "
           "optimize --auto cpu`. × NumPy above 1 is slower than NumPy. Every output was checked against "
           "the corpus's expected/ (NumPy's results) before it was timed. *weir-opt / auto as is*: the "
           "stage's weir-opt time over the auto_optimized_cpu file as is (DaCe's own pipeline), the median "
           "and range of the ratios of the two cells' medians in the same round; *met* where the median is "
           "at most 1, *not met* where weir-opt was slower in every round and by more than "
           f"{NOISE_SHARE:.0%} at the median, else *noise*.", "",
           "| kernel | NumPy ms | stage | as is ms | × NumPy | weir-opt ms | × NumPy | as is / weir-opt "
           "| weir-opt / auto as is |",
           "|---|---:|---|---:|---:|---:|---:|---:|---|"]
    notes = []

    def cell(v, what):
        if not isinstance(v, dict):
            return None, "-"
        if v.get("status") != "ok":
            notes.append(f"{what}: {v.get('status')}: {v.get('detail', '')}")
            return None, v.get("status", "-")
        return v["median_s"], ms(v["median_s"])

    for k in nb["kernels"]:
        np_s, np_txt = cell(k["numpy"], f"{k['name']} NumPy")
        for i, st in enumerate(k["stages"]):
            a_s, a_txt = cell(st.get("as-is"), f"{k['name']} {st['stage']} as is")
            o_s, o_txt = cell(st.get("weir-opt"), f"{k['name']} {st['stage']} weir-opt")
            v = st.get("vs_auto_as_is")
            v_txt = (f"{v['ratio_median']:.2f} ({v['ratio_min']:.2f}-{v['ratio_max']:.2f}) {v['verdict']}"
                     if v else "-")
            out.append(f"| {k['name'] if i == 0 else ''} | {np_txt if i == 0 else ''} | {st['stage']} | {a_txt} | "
                       f"{ratio(a_s, np_s)} | {o_txt} | {ratio(o_s, np_s)} | {ratio(a_s, o_s)} | {v_txt} |")
    out.append("")
    if notes:
        out += ["Not timed:", ""] + [f"- {n}" for n in notes] + [""]
    return out


def splice(document, section):
    """`document` with its npbench section replaced by `section` (appended if it has none)."""
    start = document.find(NPBENCH_TITLE)
    if start < 0:
        return document.rstrip() + "\n\n" + section
    end = document.find("\n## ", start + len(NPBENCH_TITLE))
    rest = document[end + 1:] if end >= 0 else ""
    return document[:start] + (section.rstrip() + "\n\n" + rest if rest else section)


# Sections written from measurements outside weir-bench (their text says how they were made):
# regenerating the document keeps them as they are.
KEPT_TITLES = ["## weir's optimizer and code on npbench: what was slow and why",
               "## weir on DaCe's auto-optimized SDFGs", "## C++ generation of one big state"]


def keep_sections(old, new):
    """`new` with every KEPT_TITLES section of `old` that `new` lacks appended."""
    for title in KEPT_TITLES:
        start = old.find(title)
        if start < 0 or title in new:
            continue
        end = old.find("\n## ", start + len(title))
        new = new.rstrip() + "\n\n" + (old[start:end + 1] if end >= 0 else old[start:]).rstrip() + "\n"
    return new


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", help="JSON written by weir-bench --json")
    ap.add_argument("--scale", action="append", default=[], help="JSON written by weir_bench_scale --json")
    ap.add_argument("--scale-only", action="store_true", help="write only the scale section")
    ap.add_argument("-o", "--output", help="markdown file to write (default: stdout)")
    ap.add_argument("--source-name", help="how the document names the JSON file (default: its path)")
    ap.add_argument("--npbench", action="append", default=[],
                    help="JSON written by bench/npbench.py: adds the npbench section (repeatable: runs made "
                         "one after another, each cell the lowest of their medians)")
    ap.add_argument("--splice", help="with --npbench and no results: the generated document whose npbench "
                    "section is replaced (written to --output, default: this file)")
    ap.add_argument("--python", help="JSON written by bench/python_api.py: adds the Python API section and targets "
                    "(alone, without RESULTS.json: only that section)")
    ap.add_argument("--orchestration", help="JSON written by weir_bench_orchestration --json: adds the orchestrated "
                    "granules' section (alone, without RESULTS.json: only that section)")
    ap.add_argument("--profile", help="JSON written by bench/profile_bench.py: adds the Profiling section and "
                    "targets (alone, without RESULTS.json: only that section)")
    ap.add_argument("--mpi", help="the Markdown bench/mpi_scaling.py printed: adds the distributed-memory section")
    a = ap.parse_args()
    mpi = None
    if a.mpi:
        with open(a.mpi) as f:
            mpi = (f.read(), os.path.relpath(a.mpi))
    orchestration = None
    if a.orchestration:
        with open(a.orchestration) as f:
            orchestration = (json.load(f), os.path.relpath(a.orchestration))
    python = None
    if a.python:
        with open(a.python) as f:
            python = (json.load(f), os.path.relpath(a.python))
    profile = None
    if a.profile:
        with open(a.profile) as f:
            profile = (json.load(f), os.path.relpath(a.profile))
    scale_docs = []
    for path in a.scale:
        with open(path) as f:
            scale_docs.append(json.load(f))
    nb_text = None
    if a.npbench:
        runs = []
        for path in a.npbench:
            with open(path) as f:
                runs.append(json.load(f))
        nb_text = "\n".join(npbench_section(merge_npbench(runs), ", ".join(os.path.relpath(p) for p in a.npbench)))
        nb_text = nb_text.rstrip() + "\n"
    if a.scale_only:
        out = []
        scale_section(out, scale_docs)
        text = "\n".join(out).rstrip() + "\n"
    elif a.results is None and (python or orchestration or profile) and not nb_text:
        out = []
        if python:
            python_section(out, *python)
        if profile:
            profile_section(out, *profile)
        if orchestration:
            orchestration_section(out, *orchestration)
        text = "\n".join(out).rstrip() + "\n"
    elif a.results is None:
        if not (nb_text and a.splice):
            ap.error("give RESULTS.json, or --scale-only, or --npbench FILE with --splice DOC")
        with open(a.splice) as f:
            text = splice(f.read(), nb_text)
        with open(a.output or a.splice, "w") as f:
            f.write(text)
        return
    else:
        with open(a.results) as f:
            doc = json.load(f)
        text = render(doc, a.source_name or a.results, scale_docs, python, orchestration, mpi, profile)
        if nb_text:
            text = splice(text, nb_text)
    if a.output:
        if os.path.exists(a.output):
            with open(a.output) as f:
                text = keep_sections(f.read(), text)
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
