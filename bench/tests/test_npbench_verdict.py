#!/usr/bin/python3
"""The npbench table's verdict (bench/report.py) on hand-made rounds: weir-opt against DaCe's
auto-optimized file as is, round by round, and pooled over several runs of bench/npbench.py; and
bench/npbench.py's rounds of processes (the order cells run in, a cell's numbers from its
processes' medians).
Run by ctest ("bench: npbench verdicts from interleaved rounds"); exits 1 on the first mismatch."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import npbench  # noqa: E402
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
# The table's header says what a cell's time is: the processes' medians where the JSON has them.
nb = run([1.0], [1.0])
nb.update({"date_utc": "d", "commit": "c", "threads": 2, "min_time_s": 0.2, "rounds": 7, "numpy_version": "n"})
nb["machine"]["cpus"] = 2
head = report.npbench_section(dict(nb, processes=3), "f.json")[2]
check("header of processes", "median of the medians of a cell's 21 processes" in head, True)
check("header of calls", "median of all calls of a cell" in report.npbench_section(nb, "f.json")[2], True)
check("lower median kept", round(st["weir-opt"]["median_s"] * 1e3, 9), 1.3)

# A cell's numbers from rounds of processes: process medians 2, 11, 1 (round 0) and 5 (round 1);
# the cell's median is the median of the four (3.5), each round's the median of its own (2, 5).
s = npbench.stats([[[1, 2, 3], [10, 11, 12], [1, 1, 1]], [[5, 5, 5]]])
check("process medians", s["process_medians_s"], [2, 11, 1, 5])
check("cell median of process medians", s["median_s"], 3.5)
check("round medians of process medians", s["round_medians_s"], [2, 5])
check("calls and processes", (s["repeats"], s["processes"], s["min_s"], s["max_s"]), (12, 4, 1, 12))
# A bimodal cell: two fast processes of 10 calls and one slow one of 30. The median of all calls
# would be the slow mode's (40 calls, 30 slow); the median of the processes is the fast one.
s = npbench.stats([[[1.0] * 10, [1.0] * 10, [2.0] * 30]])
check("bimodal cell", s["median_s"], 1.0)
# Calls per process: 0.2 s over 7 rounds of 3 processes at 1 ms a call -> ceil(9.52) = 10; 3 at least.
check("calls per process", npbench.calls_per_process(1e-3, 0.2, 7, 3), 10)
check("at least 3 calls", npbench.calls_per_process(1.0, 0.2, 7, 3), 3)

# time_kernel: a first call each (the check), then per round every cell once per process, in an
# order rotated from round to round; each process's times kept in its round.
order = []


def fake(name, ms):
    def measure(n):
        order.append((name, n))
        return {"x": 1}, [ms * 1e-3] * n, None
    return npbench.Cell((name,), measure)


a, b = fake("a", 10), fake("b", 20)
npbench.time_kernel([a, b], {}, {}, 0.6, 2, 3)
check("checks first", order[:2], [("a", 1), ("b", 1)])
check("calls per process", a.calls, 10)
check("round 0 then 1, 3 processes each", [n for n, _ in order[2:]], ["a", "b"] * 3 + ["b", "a"] * 3)
check("processes per round", [len(r) for r in a.rounds], [3, 3])
check("a's median", a.result["median_s"], 10e-3)
check("b's processes", b.result["processes"], 6)
# A cell whose output mismatches in a round is reported, not timed further.
bad = npbench.Cell(("bad",), lambda n: ({"x": 2}, [1e-3] * n, None))
npbench.time_kernel([bad], {"x": __import__("numpy").array(1)}, {"rtol": 0, "atol_rel_to_max": 0}, 0.1, 2, 3)
check("mismatch reported", bad.result["status"], "mismatch")
print("ok")
