// `weir optimize --verify-each / --print-after / --print-after-all / --timing` (docs/adr/0017):
// a pass that breaks the SDFG is named, the SDFG after a named pass is printed as loadable JSON,
// and the timing table accounts for every pass run.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "cli_run.h"
#include "corpus.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"

namespace {

using weir::test::run_weir;
namespace fs = std::filesystem;

std::string hdiff() {
  return "'" + (weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg").string() + "'";
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

/// The JSON printed after "// SDFG after pass 'NAME' (run K)": up to its closing brace at the
/// start of a line (the JSON is indented, so that is the outermost one).
std::string printed_after(const std::string& out, const std::string& name, int run) {
  std::string header = "// SDFG after pass '" + name + "' (run " + std::to_string(run) + ")\n";
  auto at = out.find(header);
  REQUIRE(at != std::string::npos);
  auto begin = at + header.size();
  auto end = out.find("\n}\n", begin);
  REQUIRE(end != std::string::npos);
  return out.substr(begin, end + 2 - begin);
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

/// Maps of every state by schedule.
std::size_t maps_with(const weir::SDFG& sdfg, weir::ScheduleType s) {
  std::size_t n = 0;
  for (auto* st : sdfg.all_states())
    for (auto* node : st->nodes())
      if (auto* me = node->as<weir::MapEntry>(); me && me->map->schedule == s) ++n;
  return n;
}

}  // namespace

TEST_CASE("weir optimize --verify-each names the pass that broke the SDFG", "[cli][optimize][pass-flags]") {
  auto dir = weir::test::scratch_dir("pass-flags-verify");
  auto out = dir / "out.sdfg";
  auto r =
      run_weir("optimize " + hdiff() + " -o " + q(out) + " --passes simplify,break-validity --verify-each",
               {}, WEIR_TEST_PASSES_BIN);
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("weir: error: the SDFG is invalid after pass 'break-validity': "));
  CHECK_THAT(r.out, Catch::Contains("nowhere"));
  CHECK(!fs::exists(out));
  // Without verification the pass is not caught where it ran: only the final check of the
  // output finds the problem, and cannot say which pass made it.
  auto late = run_weir("optimize " + hdiff() + " -o " + q(out) + " --passes simplify,break-validity",
                       "WEIR_VERIFY_EACH=0", WEIR_TEST_PASSES_BIN);
  INFO(late.out);
  CHECK(late.code == 1);
  CHECK_THAT(late.out, Catch::Contains("nowhere"));
  CHECK_THAT(late.out, !Catch::Contains("after pass"));
  // Every command that writes an SDFG validates it first: the refusal names the file not written.
  CHECK(late.out.rfind("weir: error: " + out.string() + ": not written: invalid SDFG (1 problem)\n  SDFG '",
                       0) == 0);
  CHECK(!fs::exists(out));
  // A pipeline that keeps the SDFG valid passes the checks and writes its result.
  auto ok = run_weir("optimize " + hdiff() + " -o " + q(out) + " --auto cpu --verify-each");
  INFO(ok.out);
  CHECK(ok.code == 0);
  CHECK(weir::validate(*weir::load_sdfg(out.string())).empty());
}

TEST_CASE("weir optimize --print-after prints the SDFG after the named passes",
          "[cli][optimize][pass-flags]") {
  auto dir = weir::test::scratch_dir("pass-flags-print");
  auto out = dir / "out.sdfg";
  auto r = run_weir("optimize " + hdiff() + " -o " + q(out) +
                    " --auto cpu --print-after greedy-map-fusion --print-after cpu-schedules");
  INFO(r.out);
  REQUIRE(r.code == 0);
  // greedy-map-fusion runs twice in the pipeline (before and after copy-into-map): 2 + 1 prints.
  CHECK(count(r.out, "// SDFG after pass '") == 3);
  auto fused = weir::sdfg_from_json_text(printed_after(r.out, "greedy-map-fusion", 1));
  auto scheduled = weir::sdfg_from_json_text(printed_after(r.out, "cpu-schedules", 1));
  CHECK(weir::validate(*fused).empty());
  CHECK(weir::validate(*scheduled).empty());
  // Schedules are set by cpu-schedules, the last pass: none before it, and its print is the result.
  CHECK(maps_with(*fused, weir::ScheduleType::CPU_Multicore) == 0);
  auto written = weir::load_sdfg(out.string());
  CHECK(maps_with(*scheduled, weir::ScheduleType::CPU_Multicore) > 0);
  CHECK(maps_with(*scheduled, weir::ScheduleType::CPU_Multicore) ==
        maps_with(*written, weir::ScheduleType::CPU_Multicore));
  CHECK(weir::sdfg_to_json_text(*scheduled).size() <
        weir::sdfg_to_json_text(*written).size());  // no history yet
  // Unknown names are a usage error before anything runs.
  auto bad = run_weir("optimize " + hdiff() + " -o " + q(dir / "bad.sdfg") +
                      " --auto cpu --print-after greedy-fusion");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::Contains("unknown pass 'greedy-fusion' for --print-after"));
  CHECK(!fs::exists(dir / "bad.sdfg"));
}

TEST_CASE("weir optimize --timing and --print-after-all account for every pass run",
          "[cli][optimize][pass-flags]") {
  auto dir = weir::test::scratch_dir("pass-flags-timing");
  auto r = run_weir("optimize " + hdiff() + " -o " + q(dir / "out.sdfg") +
                    " --auto cpu --timing --print-after-all");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("runs  applications     wall ms    share\n"));
  // Rows: name, runs, applications, wall ms, share%.
  std::regex row(R"(\n([a-z-]+) +([0-9]+) +([0-9]+) +([0-9.]+) +([0-9.]+)%)");
  std::size_t runs = 0, apps = 0, total_runs = 0, total_apps = 0;
  double share = 0;
  std::set<std::string> names;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), row), end; it != end; ++it) {
    const auto& m = *it;
    if (m[1] == "total") {
      total_runs = std::stoul(m[2]);
      total_apps = std::stoul(m[3]);
      CHECK(m[5] == "100.0");
      continue;
    }
    names.insert(m[1]);
    runs += std::stoul(m[2]);
    apps += std::stoul(m[3]);
    share += std::stod(m[5]);
  }
  for (const char* n : {"dead-state-elimination", "state-fusion", "map-collapse", "greedy-map-fusion",
                        "local-storage", "transient-reuse", "cpu-schedules"})
    CHECK(names.count(n));
  CHECK(names.count("simplify") == 0);  // pipelines are not rows: their passes are
  CHECK(total_runs == runs);
  CHECK(total_apps == apps);
  CHECK(apps > 0);
  CHECK(share == Approx(100.0).margin(0.5));
  // --print-after-all printed once per pass run.
  CHECK(count(r.out, "// SDFG after pass '") == runs);
}
