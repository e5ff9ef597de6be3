// `weir run --profile [FILE]` end to end (docs/adr/0048-profiling.md): the table of the slowest
// elements, the report in DaCe's instrumentation-report format (traceEvents) with weir's summary,
// one event per element and call, and bytes moved against a hand count.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

json read_json(const fs::path& p) {
  std::ifstream f(p);
  REQUIRE(f);
  return json::parse(f);
}

}  // namespace

TEST_CASE("run --profile: laplacian's report has every element timed on every call", "[cli][profile]") {
  auto dir = weir::test::scratch_dir("cli-profile-laplacian");
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py";
  const fs::path report = dir / "profile.json";
  const int I = 40, J = 30, K = 8;
  auto r = weir::test::run_weir("run " + q(program) + "::laplacian --backend cpu --random-inputs --set I=" +
                                    std::to_string(I) + " --set J=" + std::to_string(J) +
                                    " --set K=" + std::to_string(K) + " --repeat 3 --profile=" + q(report),
                                "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  // The table: its header and a state row.
  CHECK_THAT(r.out, Catch::Contains("median ms") && Catch::Contains("% probe") && Catch::Contains("GFLOP/s"));
  CHECK_THAT(r.out, Catch::Contains("wrote the profile report to " + report.string()));

  const json j = read_json(report);
  REQUIRE(j.contains("traceEvents"));
  const json& summary = j.at("weir_profile");
  CHECK(summary.at("calls") == 3);
  CHECK(summary.at("call_ms").size() == 3);
  const json& elements = summary.at("elements");
  REQUIRE(elements.size() >= 3);  // at least the state and its two maps
  std::size_t maps = 0, inner_maps = 0;
  for (const json& e : elements) {
    INFO(e.dump());
    CHECK(e.at("calls") == 3);
    CHECK(e.at("median_ms").get<double>() > 0);
    CHECK(e.at("min_ms").get<double>() <= e.at("median_ms").get<double>());
    CHECK(e.at("share_of_call").get<double>() > 0);
    CHECK(e.at("share_of_call").get<double>() <= 1.0);
    if (e.at("kind") == "map" && e.at("map_level") == 1) {
      ++maps;
      // f is read over its whole I x J x K box (the stencil's footprint), out written on the
      // interior (I-2) x (J-2) x K, 8 bytes each: the minimum traffic of the stencil.
      CHECK(e.at("bytes").get<double>() == 8.0 * (I * J * K + (I - 2) * (J - 2) * K));
      // -4.0 * f + four neighbours: 5 operations per interior point.
      CHECK(e.at("flops").get<double>() == 5.0 * (I - 2) * (J - 2) * K);
      CHECK(e.at("GBps").get<double>() > 0);
    } else if (e.at("kind") == "map") {
      // --auto cpu's K map inside the IJ map (level 2, timed per thread): once per interior
      // (i, j) point, and runs the 5 operations K times. Its bytes are the union of what its
      // executions read and write, shared among them: f's 3 x 3 x K column boxes over all interior
      // (i, j) cover f's whole I x J x K, out's K columns the interior. Not 3 x 3 x K + K per
      // execution, which counted each column of f once per neighbour reading it (5x the traffic
      // of the map around it, above the bandwidth probe: a user's report).
      ++inner_maps;
      CHECK(e.at("map_level") == 2);
      CHECK(e.at("executions_per_call") == (I - 2) * (J - 2));
      CHECK(e.at("bytes").get<double>() ==
            Approx(8.0 * (I * J * K + (I - 2) * (J - 2) * K) / ((I - 2) * (J - 2))));
      CHECK(e.at("flops").get<double>() == 5.0 * K);
    }
  }
  CHECK(maps == 1);
  CHECK(inner_maps == 1);
  // One complete event per element and call, with DaCe's ids.
  CHECK(j.at("traceEvents").size() == 3 * elements.size());
  for (const json& ev : j.at("traceEvents")) {
    CHECK(ev.at("ph") == "X");
    CHECK(ev.at("dur").get<double>() > 0);
    CHECK(ev.at("ts").get<double>() >= 0);
    for (const char* k : {"sdfg_id", "cfg_id", "state_id", "id"}) CHECK(ev.at("args").contains(k));
  }
  // The probe: 5 rounds on new arrays, their maximum used for "% of probe" (ADR 0048, "Probe rounds").
  const json& probe = summary.at("probe");
  INFO(probe.dump());
  REQUIRE(probe.at("rounds_GBps").size() == 5);
  std::vector<double> rounds = probe.at("rounds_GBps").get<std::vector<double>>();
  std::sort(rounds.begin(), rounds.end());
  CHECK(rounds.front() > 0);
  CHECK(probe.at("used") == "max");
  CHECK(probe.at("GBps").get<double>() == rounds.back());
  CHECK(probe.at("max_GBps").get<double>() == rounds.back());
  CHECK(probe.at("min_GBps").get<double>() == rounds.front());
  CHECK(probe.at("median_GBps").get<double>() == rounds[2]);
  CHECK(probe.at("unstable") == (rounds.back() > 1.5 * rounds.front()));
  CHECK_THAT(r.out, Catch::Contains("GB/s, the best of 5 rounds (min "));
}

TEST_CASE("run --profile: a copy of N doubles moves 16 N bytes", "[cli][profile]") {
  auto dir = weir::test::scratch_dir("cli-profile-copy");
  const fs::path program = dir / "copy.py";
  std::ofstream(program)
      << "import gt4py.next as gtx\nfrom gt4py.next import Dims, Field, float64\n"
         "I = gtx.Dimension(\"I\")\n\n"
         "@gtx.field_operator\ndef ident(a: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
         "    return a\n\n"
         "@gtx.program\ndef copy(a: Field[Dims[I], float64], out: Field[Dims[I], float64]):\n"
         "    ident(a, out=out)\n";
  const fs::path report = dir / "copy.json";
  const long n = 100000;
  auto r = weir::test::run_weir("run " + q(program) + "::copy --backend cpu --random-inputs --set I=" +
                                    std::to_string(n) + " --repeat 2 --profile=" + q(report),
                                "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  const json j = read_json(report);
  bool state_seen = false;
  for (const json& e : j.at("weir_profile").at("elements")) {
    INFO(e.dump());
    CHECK(e.at("calls") == 2);
    // Every element of this program moves the N doubles once each way.
    CHECK(e.at("bytes").get<double>() == 16.0 * n);
    CHECK(e.at("flops").get<double>() == 0);
    state_seen = state_seen || e.at("kind") == "state";
  }
  CHECK(state_seen);
}

TEST_CASE("run --profile: refused where nothing is compiled", "[cli][profile]") {
  auto dir = weir::test::scratch_dir("cli-profile-embedded");
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py";
  auto r = weir::test::run_weir(
      "run " + q(program) + "::laplacian --random-inputs --set I=5 --set J=4 --set K=1 --profile",
      "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("--profile times compiled code") && Catch::Contains("--backend cpu"));
}

TEST_CASE("run --profile: a program right after --profile is not taken for the report file",
          "[cli][profile]") {
  auto dir = weir::test::scratch_dir("cli-profile-order");
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py";
  auto r = weir::test::run_weir("run --profile " + q(program) + "::laplacian --backend cpu",
                                "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("is a program, not a report file") && Catch::Contains("--profile=FILE"));
}

TEST_CASE("run --profile: an orchestrated time loop counts each element's executions per call",
          "[cli][profile]") {
  auto dir = weir::test::scratch_dir("cli-profile-heat");
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "orchestration" / "heat.py";
  const fs::path report = dir / "heat.json";
  const int I = 50, J = 40;
  auto r = weir::test::run_weir(
      "run " + q(program) + "::heat --backend cpu --random-inputs --set I=" + std::to_string(I) +
          " --set J=" + std::to_string(J) + " --set steps=6 --set dt=0.1 --repeat 2 --profile=" + q(report),
      "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  const json j = read_json(report);
  std::size_t maps = 0, inner_maps = 0;
  for (const json& e : j.at("weir_profile").at("elements")) {
    INFO(e.dump());
    CHECK(e.at("calls") == 2);
    if (e.at("kind") != "map") continue;
    if (e.at("map_level") == 2) {
      // --auto cpu's J map inside each step's I map: once per interior row and step; 8
      // operations per point. Bytes: the union over the I - 2 rows of one step (u's 3 x J boxes
      // cover u's I x J, kappa's and u_next's rows their interiors, dt once) shared among them.
      ++inner_maps;
      CHECK(e.at("executions_per_call") == 3 * (I - 2));
      CHECK(e.at("bytes").get<double>() == Approx(8.0 * (I * J + 2 * (I - 2) * (J - 2) + 1) / (I - 2)));
      CHECK(e.at("flops").get<double>() == 8.0 * (J - 2));
      continue;
    }
    ++maps;
    // The loop body holds two steps (u -> u_next, then back): each runs 6 / 2 times a call.
    CHECK(e.at("executions_per_call") == 3);
    // Per execution: u read over its I x J box (the stencil's footprint), kappa read and u_next
    // written on the interior, and the scalar dt.
    CHECK(e.at("bytes").get<double>() == 8.0 * (I * J + 2 * (I - 2) * (J - 2) + 1));
    // u + dt * kappa * (-4.0 * u + four neighbours): 8 operations per interior point.
    CHECK(e.at("flops").get<double>() == 8.0 * (I - 2) * (J - 2));
  }
  CHECK(maps == 2);
  CHECK(inner_maps == 2);
}

TEST_CASE("run --profile: the inner map of a tiled laplacian is timed per tile, results unchanged",
          "[cli][profile]") {
  auto dir = weir::test::scratch_dir("cli-profile-tiled-laplacian");
  const std::string env = "WEIR_CACHE_DIR=" + q(dir / "cache");
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py";
  const fs::path lowered = dir / "laplacian.sdfg", tiled = dir / "tiled.sdfg";
  REQUIRE(weir::test::run_weir("sdfg " + q(program) + "::laplacian -o " + q(lowered), env).code == 0);
  // Tiles of 8 x 4 points in I and J (K untiled): the original map runs inside the tile map.
  auto t = weir::test::run_weir("optimize " + q(lowered) + " -o " + q(tiled) +
                                    " --passes 'map-tiling{tile_sizes=8,4,1 divides_evenly=true}'",
                                env);
  INFO(t.out);
  REQUIRE(t.code == 0);
  // Interior 32 x 16: 4 x 4 tiles.
  const int I = 34, J = 18, K = 8;
  const std::string run = "run " + q(tiled) +
                          " --backend cpu --random-inputs --seed 3 --set I=" + std::to_string(I) +
                          " --set J=" + std::to_string(J) + " --set K=" + std::to_string(K) + " --repeat 2 ";
  auto plain = weir::test::run_weir(run, env);
  const fs::path report = dir / "profile.json";
  auto timed = weir::test::run_weir(run + "--profile=" + q(report), env);
  INFO(plain.out << "\n---\n" << timed.out);
  REQUIRE(plain.code == 0);
  REQUIRE(timed.code == 0);
  // Bit-identical outputs with and without timers (the checksum hashes the output's bytes).
  auto checksum = [](const std::string& out) {
    const auto at = out.find("checksum ");
    REQUIRE(at != std::string::npos);
    return out.substr(at, 9 + 16);
  };
  CHECK(checksum(plain.out) == checksum(timed.out));

  const json j = read_json(report);
  const json* inner = nullptr;
  const json* outer = nullptr;
  for (const json& e : j.at("weir_profile").at("elements")) {
    if (e.at("kind") != "map") continue;
    (e.at("map_level") == 2 ? inner : outer) = &e;
  }
  REQUIRE(inner);
  REQUIRE(outer);
  INFO(inner->dump());
  CHECK(inner->at("name") == "lap_map");
  CHECK(outer->at("name") == "tile_lap_map");
  CHECK(outer->at("map_level") == 1);
  CHECK(inner->at("calls") == 2);
  // Once per tile: (32 / 8) x (16 / 4) = 16 executions per call.
  CHECK(inner->at("executions_per_call") == 16);
  // The tiles' f boxes with their halos, (8 + 2) x (4 + 2) x K each, cover f's whole I x J x K
  // over the 16 tiles, their out boxes the 32 x 16 x K interior: that union, 8 bytes each, shared
  // among the 16 executions; 5 operations per point of the tile.
  CHECK(inner->at("bytes").get<double>() == Approx(8.0 * (I * J * K + 32 * 16 * K) / 16));
  CHECK(inner->at("flops").get<double>() == 5.0 * 8 * 4 * K);
  CHECK(inner->at("median_ms").get<double>() > 0);
  CHECK(inner->at("GBps").get<double>() > 0);
  // One trace event per call for it too (DaCe's format), with its node id.
  std::size_t events = 0;
  for (const json& ev : j.at("traceEvents")) events += ev.at("args").at("id") == inner->at("id");
  CHECK(events == 2);

  SECTION("--profile-depth 1 times the tile map only") {
    const fs::path shallow = dir / "shallow.json";
    auto r = weir::test::run_weir(run + "--profile=" + q(shallow) + " --profile-depth 1", env);
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(checksum(r.out) == checksum(plain.out));
    std::vector<std::string> maps;
    const json s = read_json(shallow);
    for (const json& e : s.at("weir_profile").at("elements"))
      if (e.at("kind") == "map") maps.push_back(e.at("name"));
    CHECK(maps == std::vector<std::string>{"tile_lap_map"});
  }
  SECTION("--profile-depth without --profile is a usage error") {
    auto r = weir::test::run_weir(run + "--profile-depth 2", env);
    CHECK(r.code == 2);
    CHECK_THAT(r.out,
               Catch::Contains("--profile-depth 2 limits the timers of --profile: give --profile too"));
  }
}

TEST_CASE("run --profile: the report and the headline name the timers' clock", "[cli][profile]") {
  // Linux sets nonstop_tsc from CPUID's invariant-TSC bit, the bit weir's timers check.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool invariant = false;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) {
      invariant = (line + " ").find(" nonstop_tsc ") != std::string::npos;
      break;
    }
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py";
  for (const bool monotonic : {false, true}) {
    INFO("WEIR_PROFILE_CLOCK=" << (monotonic ? "monotonic" : "(unset)"));
    auto dir =
        weir::test::scratch_dir(monotonic ? "cli-profile-clock-monotonic" : "cli-profile-clock-default");
    const fs::path report = dir / "profile.json";
    auto r = weir::test::run_weir(
        "run " + q(program) +
            "::laplacian --backend cpu --random-inputs --set I=12 --set J=10 --set K=4 --repeat 2 "
            "--profile=" +
            q(report),
        "WEIR_CACHE_DIR=" + q(dir / "cache") + (monotonic ? " WEIR_PROFILE_CLOCK=monotonic" : ""));
    INFO(r.out);
    REQUIRE(r.code == 0);
    const json clock = read_json(report).at("weir_profile").at("clock");
    const bool tsc = invariant && !monotonic;
    CHECK(clock.at("name") == (tsc ? "tsc" : "clock_monotonic"));
    if (tsc) {
      CHECK_THAT(r.out, Catch::Contains("; timers: TSC at ") &&
                            Catch::Contains(" GHz, calibrated against steady_clock):"));
      CHECK(clock.at("ticks_per_second").get<double>() > 1e8);
    } else {
      CHECK_THAT(r.out, Catch::Contains("; timers: steady_clock):"));
      CHECK(clock.at("ticks_per_second").get<double>() == 1e9);
    }
  }
}

TEST_CASE("run --profile: by default nothing runs a timer per point of a map, and the load warning",
          "[cli][profile]") {
  // vertical_solver's Thomas solve: two scans, each a nested SDFG called per column with a state
  // per level. Timing those states put millions of timers in a call and slowed it 3.5x (user33's
  // J2): by default they are not timed, and the table says so; --profile-depth 0 times them.
  auto dir = weir::test::scratch_dir("cli-profile-bounded");
  const std::string env = "WEIR_CACHE_DIR=" + q(dir / "cache");
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "vertical_solver.py";
  const std::string run =
      "run " + q(program) +
      "::vertical_solver --backend cpu --random-inputs --set I=5 --set J=70 --set K=6 --set nk=6 "
      "--repeat 2 ";
  auto deep_states = [](const json& report) {
    std::size_t n = 0;
    for (const json& e : report.at("weir_profile").at("elements"))
      n += e.at("kind") == "state" && e.value("map_level", 0) >= 2;
    return n;
  };
  const fs::path bounded = dir / "bounded.json";
  auto r =
      weir::test::run_weir(run + "--profile=" + q(bounded), env + " WEIR_TUNE_LOADAVG='999.00 1.00 1.00'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  const json b = read_json(bounded);
  CHECK(deep_states(b) == 0);
  const long long omitted = b.at("weir_profile").at("timers_omitted").get<long long>();
  CHECK(omitted > 0);
  CHECK_THAT(r.out,
             Catch::Contains("note: " + std::to_string(omitted) + " elements inside maps were not timed") &&
                 Catch::Contains("--profile-depth 0 times every level"));
  // weir tune's sentence, under the table and in the report (J6).
  CHECK_THAT(r.out, Catch::Contains("warning: the machine is loaded (load 999.00 on ") &&
                        Catch::Contains("times below are unreliable"));
  CHECK_THAT(b.at("weir_profile").at("load_warning").get<std::string>(),
             Catch::StartsWith("the machine is loaded (load 999.00 on "));

  const fs::path every = dir / "every.json";
  auto d = weir::test::run_weir(run + "--profile=" + q(every) + " --profile-depth 0", env);
  INFO(d.out);
  REQUIRE(d.code == 0);
  const json e = read_json(every);
  CHECK(deep_states(e) > 0);
  CHECK(e.at("weir_profile").at("timers_omitted") == 0);
  CHECK(e.at("weir_profile").at("elements").size() == b.at("weir_profile").at("elements").size() + omitted);
  CHECK_THAT(d.out, !Catch::Contains("were not timed"));
  // The per-level states' bytes and FLOPs per execution (user33 J7): they depend on the column
  // block's width, Min(J - j, 64) of the column map's j (ScanColumnBlocking's width for the
  // solver's 5.625 lines per column in 32 KiB, docs/adr/0044 session 37), so they are averaged
  // over the executions. J = 70: blocks of 64 and 6 columns, 35 on average. By hand per column and level: the
  // forward sweep reads a, b, c, d and its two carries and writes the two carries and the two scanned fields,
  // 10 doubles, and computes b - a * c', c / den, d - a * d', / den: 6 FLOPs; the backward sweep reads c', d'
  // and its carry and writes the carry and x, 5 doubles, d' - c' * x: 2 FLOPs.
  std::map<std::string, std::pair<double, double>> levels;
  for (const json& el : e.at("weir_profile").at("elements"))
    if (el.at("kind") == "state" && el.value("map_level", 0) >= 2) {
      INFO(el.dump());
      CHECK(!el.at("GBps").is_null());
      CHECK(!el.at("GFLOPps").is_null());
      levels[el.at("name").get<std::string>()] = {el.at("bytes").get<double>(), el.at("flops").get<double>()};
    }
  CHECK(levels["scan1_thomas_forward_level"] == std::pair<double, double>{10 * 8 * 35.0, 6 * 35.0});
  CHECK(levels["scan0_thomas_backward_level"] == std::pair<double, double>{5 * 8 * 35.0, 2 * 35.0});
}
