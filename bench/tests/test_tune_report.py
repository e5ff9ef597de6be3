#!/usr/bin/python3
"""The weir tune table of bench/report.py on a hand-made section: the kernels whose `weir tune`
said its ratios were unreliable (the script header's load_warning, kept by tune_bench.cpp) are
listed under the table with the sentence; none listed when no kernel has one. Run by ctest
("bench: the tune table lists the kernels weir tune found loaded"); exits 1 on the first mismatch."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import report  # noqa: E402


def kernel(name, warning):
    return {"name": name, "size": "8 x 8 x 8", "status": "ok", "speedup": 1.2, "measured_speedup": 1.2,
            "same_program": False, "auto_cpu": {"median_s": 0.0012}, "tuned": {"median_s": 0.001},
            "tune": {"speedup": 1.25, "evaluated": 3, "candidates": 56, "cut_short": None,
                     "choices": "simd_lanes=8", "threads": 2, "load_warning": warning}}


def section(kernels):
    out = []
    report.tune_section(out, {"settings": {"budget_s": 25, "seed": 0, "threads": 2}, "kernels": kernels})
    return "\n".join(out)


def check(what, ok):
    if not ok:
        print(f"{what}: failed")
        sys.exit(1)


loaded = "the machine is loaded (load 9.30 on 2 CPUs): speed-ups below are unreliable"
text = section([kernel("laplacian", None), kernel("hdiff", loaded), kernel("heat3d", loaded)])
check("the list names the loaded kernels only",
      "`weir tune` found its own ratios unreliable on hdiff, heat3d (" in text)
check("one line per loaded kernel", f"- hdiff: {loaded}" in text and f"- heat3d: {loaded}" in text)
check("the quiet kernel is not listed", "- laplacian:" not in text)
check("the table still has every row", all(f"| {k} | 8 x 8 x 8 |" in text for k in ("laplacian", "hdiff", "heat3d")))
quiet = section([kernel("laplacian", None), {**kernel("hdiff", None), "tune": {**kernel("hdiff", None)["tune"]}}])
check("no list without a warning", "found its own ratios unreliable" not in quiet)
# Results written before session 32 have no load_warning key at all.
old = kernel("laplap", None)
del old["tune"]["load_warning"]
check("no list for an older result file", "unreliable" not in section([old]))
print("ok")
