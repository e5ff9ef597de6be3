// `weir run --profile [FILE]` end to end (docs/adr/0048-profiling.md): the table of the slowest
// elements, the report in DaCe's instrumentation-report format (traceEvents) with weir's summary,
// one event per element and call, and bytes moved against a hand count.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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
  REQUIRE(elements.size() >= 2);  // at least the state and its map
  std::size_t maps = 0;
  for (const json& e : elements) {
    INFO(e.dump());
    CHECK(e.at("calls") == 3);
    CHECK(e.at("median_ms").get<double>() > 0);
    CHECK(e.at("min_ms").get<double>() <= e.at("median_ms").get<double>());
    CHECK(e.at("share_of_call").get<double>() > 0);
    CHECK(e.at("share_of_call").get<double>() <= 1.0);
    if (e.at("kind") == "map") {
      ++maps;
      // f is read over its whole I x J x K box (the stencil's footprint), out written on the
      // interior (I-2) x (J-2) x K, 8 bytes each: the minimum traffic of the stencil.
      CHECK(e.at("bytes").get<double>() == 8.0 * (I * J * K + (I - 2) * (J - 2) * K));
      // -4.0 * f + four neighbours: 5 operations per interior point.
      CHECK(e.at("flops").get<double>() == 5.0 * (I - 2) * (J - 2) * K);
      CHECK(e.at("GBps").get<double>() > 0);
    }
  }
  CHECK(maps >= 1);
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
  std::size_t maps = 0;
  for (const json& e : j.at("weir_profile").at("elements")) {
    INFO(e.dump());
    CHECK(e.at("calls") == 2);
    if (e.at("kind") != "map") continue;
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
}
