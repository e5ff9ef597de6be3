#!/usr/bin/python3
"""The npbench table's verdict (bench/report.py) on hand-made rounds: weir-opt against DaCe's
auto-optimized file as is, round by round, and pooled over several runs of bench/npbench.py.
Run by ctest ("bench: npbench verdicts from interleaved rounds"); exits 1 on the first mismatch."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import report  # noqa: E402


def cell(rounds_ms):
    s = [r * 1e-3 for r in rounds_ms]
    return {"status": "ok", "median_s": sorted(s)[len(s) // 2], "round_medians_s": s}


def check(what, got, want):
    if got != want:
        print(f"{what}: got {got!r}, expected {want!r}")
        sys.exit(1)


# Ratios 0.9, 1.1, 1.0: median 1.0, at or below -> met.
check("median at 1", report.ratio_verdict([0.9, 1.1, 1.0]), "met")
# Slower in every round, median 1.2 -> not met.
check("slower in every round", report.ratio_verdict([1.1, 1.2, 1.3]), "not met")
# Slower at the median (1.2) but one round faster -> noise.
check("one round faster", report.ratio_verdict([0.95, 1.2, 1.3]), "noise")
# Slower in every round by 1-2% (median 1.02, within NOISE_SHARE 3%) -> noise.
check("within the noise share", report.ratio_verdict([1.01, 1.02, 1.02]), "noise")
# Even count: median of 1.0 and 1.1 is 1.05.
check("even median", report.median([1.2, 1.0, 1.1, 0.5]), 1.05)

# vs_auto_as_is pairs the rounds: weir-opt 2, 3, 4 ms against 4, 2, 4 ms -> 0.5, 1.5, 1.0.
v = report.vs_auto_as_is(cell([2, 3, 4]), cell([4, 2, 4]))
check("ratios", [round(r, 9) for r in v["ratios"]], [0.5, 1.5, 1.0])
check("ratio median", round(v["ratio_median"], 9), 1.0)
check("ratio range", (round(v["ratio_min"], 9), round(v["ratio_max"], 9)), (0.5, 1.5))
check("verdict", v["verdict"], "met")
# A failed cell has no comparison.
check("failed cell", report.vs_auto_as_is({"status": "mismatch"}, cell([1])), None)

# Two runs: each cell the lower median, the verdict over both runs' rounds (1.2, 1.3 and 1.1).
def run(opt, auto):
    st = {"stage": "auto_optimized_cpu", "as-is": cell(auto), "weir-opt": cell(opt)}
    st["vs_auto_as_is"] = report.vs_auto_as_is(st["weir-opt"], st["as-is"])
    return {"machine": {"load_avg_end": None}, "kernels": [{"name": "k", "numpy": cell([1]), "stages": [st]}]}


merged = report.merge_npbench([run([1.2, 1.3], [1, 1]), run([2.2], [2])])
st = merged["kernels"][0]["stages"][0]
check("pooled ratios", [round(r, 9) for r in st["vs_auto_as_is"]["ratios"]], [1.2, 1.3, 1.1])
check("pooled verdict", st["vs_auto_as_is"]["verdict"], "not met")
check("lower median kept", round(st["weir-opt"]["median_s"] * 1e3, 9), 1.3)
print("ok")
