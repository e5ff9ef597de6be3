# SDFG.compile(profile=True) and CompiledSDFG.profile(): `weir run --profile` from Python
# (docs/adr/0048-profiling.md, "From Python").
import json

import numpy as np
import pytest

import weir
from conftest import EDGES, example, laplacian_numpy

LAPLACIAN = example("cartesian/laplacian.py", "laplacian")


def profiled_laplacian():
    return weir.optimize(weir.load(LAPLACIAN).__sdfg__(), auto="cpu").compile(profile=True)


def test_profile_of_three_calls(rng, tmp_path):
    c = profiled_laplacian()
    f = rng.random((16, 12, 4))
    out = np.zeros_like(f)
    for _ in range(3):
        c(f, out)
    np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))  # timers change no result
    p = c.profile(probe=False)
    assert isinstance(p, weir.Profile) and str(p) == p.table
    summary = p.report["weir_profile"]
    assert summary["calls"] == 3 and len(summary["call_ms"]) == 3
    assert summary["probe"]["GBps"] is None and summary["probe"]["problem"] == "not measured (no probe library)"
    maps = [e for e in summary["elements"] if e["kind"] == "map" and e["map_level"] == 1]
    assert len(maps) == 1
    m = maps[0]
    # By hand: the map reads all of f (16 x 12 x 4 doubles: every point is some interior point's
    # neighbour) and writes out[1:-1, 1:-1] (14 x 10 x 4); -4.0 * f + 4 neighbours is 1
    # multiplication and 4 additions per point written.
    assert m["bytes"] == (16 * 12 * 4 + 14 * 10 * 4) * 8
    assert m["flops"] == 5 * 14 * 10 * 4
    assert m["calls"] == 3 and m["executions_per_call"] == 1
    assert 0 < m["min_ms"] <= m["median_ms"]
    # DaCe's instrumentation-report format: one complete event per element and call.
    events = [e for e in p.report["traceEvents"] if e["args"]["id"] == m["id"] and e["cat"] == "map"]
    assert len(events) == 3
    assert all(e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0 for e in events)
    assert {e["args"]["state_id"] for e in events} == {m["state_id"]}
    lines = p.table.splitlines()
    assert lines[0].startswith("profile (3 calls; bandwidth probe: not measured")
    assert lines[1].split()[:4] == ["name", "kind", "calls", "median"]
    assert any(line.split()[1:3] == ["map", "3"] for line in lines[2:])
    assert 3 <= len(lines) <= 12
    p.save(tmp_path / "report.json")
    assert json.loads((tmp_path / "report.json").read_text()) == p.report


def test_profile_with_the_bandwidth_probe(rng):
    c = profiled_laplacian()
    f = rng.random((8, 8, 2))
    c(f, np.zeros_like(f))
    p = c.profile()
    probe = p.report["weir_profile"]["probe"]
    assert probe["kernel"] == "triad" and probe["GBps"] > 0, probe
    # 5 rounds, each on new arrays; "% of probe" uses their maximum.
    rounds = probe["rounds_GBps"]
    assert len(rounds) == 5 and min(rounds) > 0 and probe["repeats_per_round"] == 5
    assert probe["used"] == "max" and probe["GBps"] == max(rounds) == probe["max_GBps"]
    assert probe["min_GBps"] == min(rounds) and probe["median_GBps"] == float(np.median(rounds))
    assert probe["unstable"] == (max(rounds) > 1.5 * min(rounds))
    assert p.table.startswith(f"profile (1 call; bandwidth probe: triad {max(rounds):.1f} GB/s, the best of 5 rounds")
    m = next(e for e in p.report["weir_profile"]["elements"] if e["kind"] == "map" and e["map_level"] == 1)
    assert m["probe_share"] == pytest.approx(m["GBps"] / probe["GBps"])


def test_profile_errors(rng):
    s = weir.optimize(weir.load(LAPLACIAN).__sdfg__(), auto="cpu")
    with pytest.raises(ValueError, match="compiled without timers: compile it with SDFG.compile\\(profile=True\\)"):
        s.compile().profile()
    with pytest.raises(weir.ArgumentError, match="has not been called yet"):
        s.compile(profile=True).profile()
    with pytest.raises(weir.BackendError, match="needs a compiled backend"):
        s.compile(backend=weir.backends.embedded, profile=True)
    with pytest.raises(weir.BackendError, match="CUDA events are not implemented"):
        s.compile(backend=weir.backends.gpu, profile=True)


def test_profile_of_maps_inside_maps(rng):
    """--auto cpu runs laplacian's K map inside its IJ map; map-tiling puts the whole map inside a
    map over 8 x 4 tiles: both inner maps are timed on per-thread accumulators (ADR 0048, "Timers
    inside maps"), with their executions, bytes and FLOPs worked out by hand."""
    I, J, K = 34, 18, 8  # interior 32 x 16: 1 x 512 (i, j) points, 4 x 4 tiles
    f = rng.random((I, J, K))
    expected = laplacian_numpy(f)
    sdfg = weir.load(LAPLACIAN).__sdfg__()
    for variant in ("auto", "tiled"):
        s = (
            weir.optimize(sdfg, auto="cpu")
            if variant == "auto"
            else weir.optimize(sdfg, passes="map-tiling{tile_sizes=8,4,1 divides_evenly=true}")
        )
        plain, timed = np.zeros_like(f), np.zeros_like(f)
        s.compile()(f=f, out=plain)
        c = s.compile(profile=True)
        for _ in range(2):
            c(f=f, out=timed)
        np.testing.assert_array_equal(timed, plain)  # timers change no bit
        np.testing.assert_array_equal(timed[1:-1, 1:-1], expected)
        inner = [e for e in c.profile(probe=False).report["weir_profile"]["elements"] if e.get("map_level") == 2]
        assert len(inner) == 1, variant
        m = inner[0]
        assert m["kind"] == "map" and m["calls"] == 2 and m["median_ms"] > 0
        # Bytes: the union of what all executions read and write (f's boxes cover all of f, out's
        # the interior), shared among the executions: never a column counted once per neighbour.
        union = (I * J * K + (I - 2) * (J - 2) * K) * 8
        if variant == "auto":
            # Once per interior (i, j).
            assert m["executions_per_call"] == (I - 2) * (J - 2)
            assert m["bytes"] == pytest.approx(union / ((I - 2) * (J - 2))) and m["flops"] == 5 * K
        else:
            # Once per tile.
            assert m["executions_per_call"] == (32 // 8) * (16 // 4)
            assert m["bytes"] == pytest.approx(union / 16) and m["flops"] == 5 * 8 * 4 * K
        # profile_depth=1: the top-level maps only.
        shallow = s.compile(profile=True, profile_depth=1)
        shallow(f=f, out=timed)
        levels = [e.get("map_level") for e in shallow.profile(probe=False).report["weir_profile"]["elements"]]
        assert 2 not in levels and 1 in levels
    with pytest.raises(ValueError, match="profile_depth limits the timers of profile=True"):
        sdfg.compile(profile_depth=2)


def test_profiled_calls_of_changing_sizes(rng):
    """A profiled call binds its arguments once and keeps that binding's symbol values for the
    report (ADR 0048, session 37): after calls at two sizes the report's static costs are the last
    call's, worked out by hand, its counts every call's, and each call's result NumPy's."""
    c = profiled_laplacian()
    plain = weir.optimize(weir.load(LAPLACIAN).__sdfg__(), auto="cpu").compile()
    for shape in [(16, 12, 4), (16, 12, 4), (10, 9, 3)]:
        f = rng.random(shape)
        out, reference = np.zeros_like(f), np.zeros_like(f)
        c(f=f, out=out)
        plain(f=f, out=reference)
        np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))
        np.testing.assert_array_equal(out, reference)  # the same bits as without timers, borders too
    summary = c.profile(probe=False).report["weir_profile"]
    assert summary["calls"] == 3 and len(summary["call_ms"]) == 3
    # The size symbols of the last call's arrays, (10, 9, 3) both.
    assert summary["symbols"] == {f"__{a}_{d}_size": n for a in ("f", "out") for d, n in zip("IJK", (10, 9, 3))}
    m = next(e for e in summary["elements"] if e["kind"] == "map" and e["map_level"] == 1)
    assert m["calls"] == 3 and m["executions_per_call"] == 1
    assert m["bytes"] == (10 * 9 * 3 + 8 * 7 * 3) * 8 and m["flops"] == 5 * 8 * 7 * 3
    state = next(e for e in summary["elements"] if e["kind"] == "state")
    assert state["calls"] == 3
    # A call that fails (arguments refused; the program stopping: f read beyond its K extent)
    # records nothing: neither a call nor its symbol values.
    with pytest.raises(weir.ArgumentTypeError):
        c(f=rng.random((10, 9, 3)), out=np.zeros((10, 9)))
    with pytest.raises(weir.ProgramError, match="outside its domain"):
        c(f=rng.random((12, 12, 3)), out=np.zeros((12, 12, 4)))
    again = c.profile(probe=False).report["weir_profile"]
    assert again["calls"] == 3 and again["symbols"] == summary["symbols"]


def test_profiled_calls_check_connectivity_tables(rng):
    """An SDFG lowered from an unstructured program checks its tables before each call, profiled
    too: a profiled call binds its arguments once behind the check (ADR 0048, session 37)."""
    nv, ne = 7, 12
    e2v = rng.integers(0, nv, size=(ne, 2)).astype(np.int32)
    sdfg = weir.load(EDGES).__sdfg__(offset_provider={"E2V": e2v})
    c = weir.optimize(sdfg, auto="cpu").compile(profile=True)
    for _ in range(2):
        v, out = rng.random(nv), np.zeros(ne)
        c(v=v, out=out, E2V=e2v)
        np.testing.assert_array_equal(out, v[e2v[:, 0]] + v[e2v[:, 1]])
    with pytest.raises(weir.ArgumentError, match="E2V.* 9"):
        c(v=rng.random(nv), out=np.zeros(ne), E2V=np.full((ne, 2), 9, np.int32))
    summary = c.profile(probe=False).report["weir_profile"]
    assert summary["calls"] == 2
    assert all(e["calls"] == 2 for e in summary["elements"])
    assert summary["symbols"] == {"__E2V_rows": ne, "__out_Edge_size": ne, "__v_Vertex_size": nv}
