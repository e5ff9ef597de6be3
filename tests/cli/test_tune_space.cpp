// `weir tune`'s search space (cli/tune_space.cpp, docs/adr/0056-weir-tune.md, 2026-12-06): the
// choices added to it (K-blocked tiles, explicit SIMD lanes, scan blocks of 64, broadcast
// fusion, OpenMP schedules, streaming stores off) give the steps they name, singles come in tiers of expected
// value, and each new choice's script, replayed with `weir optimize --script`, computes what NumPy computes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli_test_util.h"
#include "tune_space.h"

namespace {

using weir::cli::TuneCandidate;
using weir::test::run_weir;
namespace fs = std::filesystem;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const TuneCandidate& find(const std::vector<TuneCandidate>& cs, const std::string& label) {
  auto it = std::find_if(cs.begin(), cs.end(), [&](const TuneCandidate& c) { return c.label == label; });
  REQUIRE(it != cs.end());
  return *it;
}

bool has_step(const TuneCandidate& c, const nlohmann::json& step) {
  return std::find(c.steps.begin(), c.steps.end(), step) != c.steps.end();
}

std::string cache() { return "WEIR_CACHE_DIR=" + q(weir::test::shared_cache_dir("tune")); }

// `weir sdfg FILE::NAME`, then `weir optimize --script` with `c`'s steps, then `weir run` on
// the .npy files in dir/in, results in dir/<label>.out.
void replay_and_run(const fs::path& dir, const std::string& program, const TuneCandidate& c,
                    const std::string& sets) {
  INFO(c.label);
  const std::string name = std::to_string(std::hash<std::string>{}(c.label));
  std::ofstream(dir / (name + ".json")) << nlohmann::json({{"steps", c.steps}}).dump();
  if (!fs::exists(dir / "untuned.sdfg"))
    REQUIRE(run_weir("sdfg " + program + " -o " + q(dir / "untuned.sdfg")).code == 0);
  auto o = run_weir("optimize " + q(dir / "untuned.sdfg") + " --script " + q(dir / (name + ".json")) +
                    " -o " + q(dir / (name + ".sdfg")));
  INFO(o.out);
  REQUIRE(o.code == 0);
  auto r = run_weir("run " + q(dir / (name + ".sdfg")) + " --in-dir " + q(dir / "in") + sets + " --threads " +
                        std::to_string(c.threads ? c.threads : 2) + " --out " + q(dir / (c.label + ".out")),
                    cache());
  INFO(r.out);
  REQUIRE(r.code == 0);
}

}  // namespace

TEST_CASE("weir tune space: the new choices give the steps they name", "[cli][tune]") {
  const auto cs = weir::cli::tune_candidates(0, 2);
  // 1 baseline, 26 singles (fusion 5, collapse 1, tiling 7, split_innermost 1, vectorize 1,
  // simd_lanes 2, omp_schedule 2, streaming_stores 1, scan_block 4, scan_full_blocks 1, threads
  // 1 on 2 hardware threads), 48 combinations.
  CHECK(cs.size() == 75);
  CHECK(has_step(find(cs, "omp_schedule=dynamic,16"), {{"pass", "cpu-schedules{omp_schedule=dynamic,16}"}}));
  CHECK(has_step(find(cs, "omp_schedule=guided"), {{"pass", "cpu-schedules{omp_schedule=guided}"}}));
  // With another option of cpu-schedules: one step, the options in the knobs' order.
  CHECK(has_step(weir::cli::tune_candidate({{"vectorize", "off"}, {"omp_schedule", "dynamic,16"}}),
                 {{"pass", "cpu-schedules{vectorize=false,omp_schedule=dynamic,16}"}}));
  CHECK(has_step(find(cs, "streaming_stores=off"), {{"pass", "cpu-schedules{streaming_stores=false}"}}));
  CHECK(has_step(weir::cli::tune_candidate({{"omp_schedule", "guided"}, {"streaming_stores", "off"}}),
                 {{"pass", "cpu-schedules{omp_schedule=guided,streaming_stores=false}"}}));
  CHECK(has_step(find(cs, "tiling=8,32,16"), {{"pass", "map-tiling{tile_sizes=8,32,16}"}}));
  CHECK(has_step(find(cs, "tiling=16,16,40"), {{"pass", "map-tiling{tile_sizes=16,16,40}"}}));
  CHECK(has_step(find(cs, "scan_block=64"), {{"pass", "scan-column-blocking{block_size=64}"}}));
  CHECK(has_step(find(cs, "fusion=broadcast"), {{"pass", "greedy-map-fusion{broadcast=true}"}}));
  // Explicit SIMD lanes: MapVectorization everywhere it applies, right after cpu-schedules.
  const TuneCandidate& lanes = find(cs, "simd_lanes=4");
  REQUIRE(lanes.steps.size() >= 2);
  CHECK(lanes.steps[lanes.steps.size() - 2] == nlohmann::json({{"pass", "cpu-schedules"}}));
  CHECK(lanes.steps.back() == nlohmann::json::parse(
                                  R"({"transformation": "MapVectorization", "options": {"vector_width": 4},
                                      "where": "all"})"));
}

TEST_CASE("weir tune space: singles come in tiers of expected value, each tier in the seed's order",
          "[cli][tune]") {
  const std::set<std::string> first{"scan_block=32",   "scan_block=16",  "scan_full_blocks=on",
                                    "tiling=32,128,1", "tiling=8,32,16", "tiling=16,16,40",
                                    "simd_lanes=8",    "fusion=wide",    "streaming_stores=off"};
  const std::set<std::string> last{"split_innermost=off", "vectorize=off", "fusion=none", "threads=1"};
  for (std::uint64_t seed : {0u, 1u, 7u}) {
    INFO("seed " << seed);
    const auto cs = weir::cli::tune_candidates(seed, 2);
    std::set<std::string> head, tail;
    for (std::size_t i = 1; i <= first.size(); ++i) head.insert(cs[i].label);
    for (std::size_t i = 27 - last.size(); i < 27; ++i) tail.insert(cs[i].label);
    CHECK(head == first);
    CHECK(tail == last);
  }
  // The seed orders each tier.
  auto a = weir::cli::tune_candidates(7, 2), b = weir::cli::tune_candidates(8, 2);
  std::vector<std::string> la, lb;
  for (std::size_t i = 1; i <= first.size(); ++i) la.push_back(a[i].label), lb.push_back(b[i].label);
  CHECK(la != lb);
}

TEST_CASE("weir tune space: K-blocked tiles and SIMD lanes replayed compute NumPy's Laplacian",
          "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-space-laplacian");
  fs::create_directories(dir / "in");
  // K = 19: K tiles of 16 and of 40 and lanes of 8 and 4 all leave a remainder.
  weir::test::cli::python(dir, "inputs.py",
                          "rng = np.random.default_rng(11)\n"
                          "np.save(d + '/in/f.npy', rng.random((20, 12, 19)))\n"
                          "np.save(d + '/in/out.npy', np.zeros((20, 12, 19)))\n");
  const std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py") + "::laplacian";
  const auto cs = weir::cli::tune_candidates(0, 2);
  std::string check = std::string(weir::test::cli::kNumpyLaplacian) + "f = np.load(d + '/in/f.npy')\n";
  for (const std::string label : {"tiling=8,32,16", "tiling=16,16,40", "simd_lanes=8", "simd_lanes=4"}) {
    replay_and_run(dir, program, find(cs, label), "");
    check += "o = np.load(d + '/" + label +
             ".out/out.npy')\n"
             "assert np.allclose(o[1:-1, 1:-1], lap(f), rtol=1e-14, atol=0), '" +
             label +
             "'\n"
             "assert not o[0].any() and not o[-1].any() and not o[:, 0].any() and not o[:, -1].any()\n";
  }
  weir::test::cli::python(dir, "compare.py", check);
}

TEST_CASE("weir tune space: scan blocks of 64 replayed solve NumPy's tridiagonal systems", "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-space-solver");
  fs::create_directories(dir / "in");
  // 70 columns (J = 70, I = 1): one full block of 64 and a partial block of 6.
  weir::test::cli::python(dir, "inputs.py",
                          "rng = np.random.default_rng(12)\n"
                          "s = (1, 70, 9)\n"
                          "for n in 'acd': np.save(d + f'/in/{n}.npy', rng.random(s))\n"
                          "np.save(d + '/in/b.npy', 3.0 + rng.random(s))\n"
                          "np.save(d + '/in/x.npy', np.zeros(s))\n");
  const std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "vertical_solver.py") + "::vertical_solver";
  const auto cs = weir::cli::tune_candidates(0, 2);
  // scan_block=64 alone, and with full blocks (some combination of the space has both, or not:
  // the steps are the single's with scan-full-blocks after the blocking, as steps_for writes them).
  TuneCandidate wide = find(cs, "scan_block=64");
  TuneCandidate full = wide;
  full.label = "scan_block=64 scan_full_blocks=on";
  for (std::size_t i = 0; i < full.steps.size(); ++i)
    if (full.steps[i] == nlohmann::json({{"pass", "scan-column-blocking{block_size=64}"}})) {
      full.steps.insert(full.steps.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                        nlohmann::json::object({{"pass", "scan-full-blocks"}}));
      break;
    }
  REQUIRE(full.steps.size() == wide.steps.size() + 1);
  std::string check =
      "a, b, c, dd = (np.load(d + f'/in/{n}.npy') for n in 'abcd')\n"
      "nk = a.shape[2]\n"
      "cp = np.zeros_like(a); dp = np.zeros_like(a); x = np.zeros_like(a)\n"
      "cp[..., 0] = c[..., 0] / b[..., 0]; dp[..., 0] = dd[..., 0] / b[..., 0]\n"
      "for k in range(1, nk):\n"
      "    den = b[..., k] - a[..., k] * cp[..., k - 1]\n"
      "    cp[..., k] = c[..., k] / den; dp[..., k] = (dd[..., k] - a[..., k] * dp[..., k - 1]) / den\n"
      "x[..., nk - 1] = dp[..., nk - 1]\n"
      "for k in range(nk - 2, -1, -1):\n"
      "    x[..., k] = dp[..., k] - cp[..., k] * x[..., k + 1]\n";
  for (const TuneCandidate* c : {&wide, &full}) {
    replay_and_run(dir, program, *c, " --set nk=9");
    check += "o = np.load(d + '/" + c->label +
             ".out/x.npy')\n"
             "assert np.allclose(o, x, rtol=1e-12, atol=0), '" +
             c->label + "'\n";
  }
  weir::test::cli::python(dir, "compare.py", check);
}

TEST_CASE("weir tune space: choices that change nothing alone are left out of the combinations",
          "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-space-inert");
  // The Laplacian has no scan: every scan_block and scan_full_blocks single compiles to the
  // baseline's program, so no combination evaluated after the singles names one. 52: the 26
  // singles, up to 12 combinations of the singles that won (how many depends on timings; none
  // names a scan choice, a duplicate never wins) and at least 13 drawn ones. A budget no machine
  // spends on them: only --max-candidates stops the search (at load 16 the default 60 s held 23).
  const std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py") + "::laplacian";
  auto r =
      run_weir("tune " + program + " --set I=12 --set J=8 --set K=2 --max-candidates 52 --budget 3600s -o " +
                   q(dir / "best.json"),
               cache());
  INFO(r.out);
  REQUIRE(r.code == 0);
  const nlohmann::json log = nlohmann::json::parse(weir::test::read_text(dir / "best.log.json"));
  REQUIRE(log["results"].size() == 52);
  std::size_t reduced = 0, winners = 0;
  bool drawn_seen = false;
  for (std::size_t i = 1; i < 52; ++i) {
    const nlohmann::json& e = log["results"][i];
    const std::string label = e["label"], why = e["why"].is_string() ? e["why"].get<std::string>() : "";
    INFO(i << ": " << label << ": " << why);
    if (i <= 26) {  // the singles
      if (label.rfind("scan_", 0) == 0) {
        CHECK(e["status"] == "duplicate");
        CHECK(why == "the same program and threads as candidate 0");
      }
      continue;
    }
    CHECK(label.find("scan_") == std::string::npos);
    CHECK((e["phase"] == "winners" || e["phase"] == "drawn"));
    // The search order: the winners' combinations right after the singles, then the drawn ones.
    if (e["phase"] == "drawn") drawn_seen = true;
    if (e["phase"] == "winners") {
      CHECK_FALSE(drawn_seen);
      ++winners;
    }
    if (why.find("scan_") != std::string::npos) {
      ++reduced;
      CHECK((why.rfind("left out, as they change nothing here: ", 0) == 0 ||
             (e["status"] == "duplicate" &&
              why.find(" (which change nothing here) are left out") != std::string::npos)));
    }
  }
  // Each combination changes scan_block or scan_full_blocks with probability 3/4: some did.
  CHECK(reduced > 0);
  // The output announces the winners' phase exactly when there was one (which singles win at
  // this size depends on timings).
  CHECK((r.out.find("combining the singles that measured 1.03x or more alone (") != std::string::npos) ==
        (winners > 0));
  CHECK(winners <= 12);
}

TEST_CASE("weir tune space: OpenMP schedules replayed reach the pragma and compute NumPy's Laplacian",
          "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-space-omp-schedule");
  fs::create_directories(dir / "in");
  // 42 x 38 x 23 = 36708 interior points: at least the 32768 from which a parallel map's first
  // calls run on the threads (weir_run_sequentially), so the scheduled loop is what runs.
  weir::test::cli::python(dir, "inputs.py",
                          "rng = np.random.default_rng(5)\n"
                          "np.save(d + '/in/f.npy', rng.random((44, 40, 23)))\n"
                          "np.save(d + '/in/out.npy', np.zeros((44, 40, 23)))\n");
  const std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py") + "::laplacian";
  const auto cs = weir::cli::tune_candidates(0, 2);
  std::string check = std::string(weir::test::cli::kNumpyLaplacian) + "f = np.load(d + '/in/f.npy')\n";
  for (const auto& [label, clause] :
       std::vector<std::pair<std::string, std::string>>{{"omp_schedule=dynamic,16", "schedule(dynamic, 16)"},
                                                        {"omp_schedule=guided", "schedule(guided)"}}) {
    INFO(label);
    const TuneCandidate& c = find(cs, label);
    replay_and_run(dir, program, c, "");
    check += "o = np.load(d + '/" + label +
             ".out/out.npy')\n"
             "assert np.allclose(o[1:-1, 1:-1], lap(f), rtol=1e-14, atol=0), '" +
             label +
             "'\n"
             "assert not o[0].any() and not o[-1].any() and not o[:, 0].any() and not o[:, -1].any()\n";
    // The script replays to the same SDFG every time, the schedule recorded on the map, and the
    // generated C++ distributes the map with that schedule.
    const std::string name = std::to_string(std::hash<std::string>{}(c.label));
    auto again = run_weir("optimize " + q(dir / "untuned.sdfg") + " --script " + q(dir / (name + ".json")) +
                          " -o " + q(dir / (name + ".again.sdfg")));
    REQUIRE(again.code == 0);
    const std::string sdfg = weir::test::read_text(dir / (name + ".sdfg"));
    CHECK(sdfg == weir::test::read_text(dir / (name + ".again.sdfg")));
    const nlohmann::json j = nlohmann::json::parse(sdfg);
    CHECK(j.dump().find("\"_meta_weir_omp_schedule\":\"" + label.substr(label.find('=') + 1) + "\"") !=
          std::string::npos);
    auto cpp =
        run_weir("compile " + q(dir / (name + ".sdfg")) + " --emit-cpp " + q(dir / (name + ".cpp")), cache());
    INFO(cpp.out);
    REQUIRE(cpp.code == 0);
    std::string source;
    for (const auto& f : fs::directory_iterator(dir / (name + ".cpp")))
      source += weir::test::read_text(f.path());
    // `#pragma omp parallel for ...`, or `#pragma omp for ... nowait` in a region of its own where
    // each thread fences its streamed output rows after the loops (ADR 0041).
    CHECK((source.find("#pragma omp parallel for collapse(2) " + clause + "\n") != std::string::npos ||
           source.find("#pragma omp for collapse(2) " + clause + " nowait\n") != std::string::npos));
  }
  weir::test::cli::python(dir, "compare.py", check);
}

TEST_CASE("weir tune space: streaming stores off replayed writes plain stores and computes NumPy's Laplacian",
          "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-space-streaming-off");
  fs::create_directories(dir / "in");
  // 44 x 40 x 23: the K rows are whole (out[1:-1, 1:-1] leaves K unsliced), so --auto cpu's
  // code plans streaming stores for them (taken at run time only above 8 MiB; the values are
  // the same either way).
  weir::test::cli::python(dir, "inputs.py",
                          "rng = np.random.default_rng(9)\n"
                          "np.save(d + '/in/f.npy', rng.random((44, 40, 23)))\n"
                          "np.save(d + '/in/out.npy', np.zeros((44, 40, 23)))\n");
  const std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py") + "::laplacian";
  const auto cs = weir::cli::tune_candidates(0, 2);
  std::string check = std::string(weir::test::cli::kNumpyLaplacian) + "f = np.load(d + '/in/f.npy')\n";
  const std::string emitted[] = {"auto-optimize-cpu", "streaming_stores=off"};
  std::map<std::string, std::string> source;
  for (const std::string& label : emitted) {
    const TuneCandidate& c = find(cs, label);
    replay_and_run(dir, program, c, "");
    check += "o = np.load(d + '/" + label +
             ".out/out.npy')\n"
             "assert np.allclose(o[1:-1, 1:-1], lap(f), rtol=1e-14, atol=0), '" +
             label +
             "'\n"
             "assert not o[0].any() and not o[-1].any() and not o[:, 0].any() and not o[:, -1].any()\n";
    const std::string name = std::to_string(std::hash<std::string>{}(c.label));
    auto cpp =
        run_weir("compile " + q(dir / (name + ".sdfg")) + " --emit-cpp " + q(dir / (name + ".cpp")), cache());
    INFO(cpp.out);
    REQUIRE(cpp.code == 0);
    for (const auto& f : fs::directory_iterator(dir / (name + ".cpp")))
      source[label] += weir::test::read_text(f.path());
  }
  // The baseline streams the rows; the candidate records the choice on the map and has none.
  CHECK(source["auto-optimize-cpu"].find("weir_stream_wanted(") != std::string::npos);
  CHECK(source["streaming_stores=off"].find("weir_stream_wanted(") == std::string::npos);
  CHECK(source["streaming_stores=off"].find("weir_stream_fence();") == std::string::npos);
  const TuneCandidate& off = find(cs, "streaming_stores=off");
  const std::string name = std::to_string(std::hash<std::string>{}(off.label));
  const std::string sdfg = weir::test::read_text(dir / (name + ".sdfg"));
  CHECK(sdfg.find("\"_meta_weir_streaming_stores\":\"off\"") != std::string::npos);
  // Replayed again: the same SDFG byte for byte.
  auto again = run_weir("optimize " + q(dir / "untuned.sdfg") + " --script " + q(dir / (name + ".json")) +
                        " -o " + q(dir / (name + ".again.sdfg")));
  REQUIRE(again.code == 0);
  CHECK(sdfg == weir::test::read_text(dir / (name + ".again.sdfg")));
  weir::test::cli::python(dir, "compare.py", check);
}

TEST_CASE("weir tune: streaming stores off is timed where rows stream, a duplicate where none does",
          "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-streaming-off-log");
  // The candidate of the space, given as a script of the user's: evaluated right after the baseline.
  std::ofstream(dir / "off.json")
      << nlohmann::json({{"steps", weir::cli::tune_candidate({{"streaming_stores", "off"}}).steps}}).dump();
  // A 1-D stencil: its one map has no inner K loop whose rows could stream, so recording the
  // choice changes no line of the generated program.
  std::ofstream(dir / "diff1d.py") << "import gt4py.next as gtx\n"
                                      "from gt4py.next import Field, float64\n\n"
                                      "IDim = gtx.Dimension(\"I\")\n\n\n"
                                      "@gtx.field_operator\n"
                                      "def diff(f: Field[[IDim], float64]) -> Field[[IDim], float64]:\n"
                                      "    return f(IDim + 1) - f(IDim - 1)\n\n\n"
                                      "@gtx.program\n"
                                      "def diff1d(f: Field[[IDim], float64], out: Field[[IDim], float64]):\n"
                                      "    diff(f, out=out[1:-1])\n";
  const std::string laplacian =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py") + "::laplacian";
  for (const auto& [program, sets, status] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {laplacian, " --set I=12 --set J=8 --set K=5", "measured"},
           {q(dir / "diff1d.py") + "::diff1d", " --set I=40", "duplicate"}}) {
    INFO(program);
    auto r = run_weir("tune " + program + sets + " --max-candidates 2 --candidate " + q(dir / "off.json") +
                          " -o " + q(dir / "best.json"),
                      cache());
    INFO(r.out);
    REQUIRE(r.code == 0);
    const nlohmann::json log = nlohmann::json::parse(weir::test::read_text(dir / "best.log.json"));
    REQUIRE(log["results"].size() == 2);
    const nlohmann::json& e = log["results"][1];
    CHECK(e["status"] == status);
    if (status == "duplicate") CHECK(e["why"] == "the same program and threads as candidate 0");
    // Timed: its outputs matched the untuned program's (a mismatch is "rejected").
    if (status == "measured") CHECK(e["seconds"].size() == log["rounds"].get<std::size_t>());
  }
}
