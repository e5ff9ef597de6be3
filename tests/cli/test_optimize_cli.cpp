// `weir optimize`: scripts, pass lists, --auto, --replay; located errors, exit codes, and no
// output written (nor an existing one touched) when anything fails.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>

#include "cli_run.h"
#include "corpus.h"
#include "weir/sdfg/serialize.h"

namespace {
// Where weir keeps its transformation history (weir::transforms::kWeirHistoryAttribute; the
// cli tests link the sdfg layer only).
const char* const kWeirHistory = "_meta_weir_transformation_hist";
}  // namespace
#include "weir/sdfg/validate.h"

namespace {

using weir::test::run_weir;
namespace fs = std::filesystem;

std::string corpus_file(const std::string& kernel) {
  return (weir::test::dace_corpus_dir() / kernel / (kernel + ".simplified.sdfg")).string();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

/// The first applicable match id `weir transforms match FILE NAME` prints.
std::string first_match(const std::string& file, const std::string& name) {
  auto r = run_weir("transforms match '" + file + "' " + name + " --applicable");
  REQUIRE(r.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(name + "@([0-9]+\\.[0-9-]+\\.[0-9,]+)")));
  return m[1];
}

}  // namespace

TEST_CASE("weir optimize: match -> script -> optimize -> replay reproduces the SDFG", "[cli][optimize]") {
  for (const char* kernel : {"hdiff", "laplace2d", "jacobi_2d"}) {
    INFO(kernel);
    auto dir = weir::test::scratch_dir(std::string("optimize-cli-") + kernel);
    std::string in = corpus_file(kernel);
    std::string id = first_match(in, "MapTiling");
    write(dir / "tune.json",
          "[{\"transformation\": \"MapTiling\", \"options\": {\"tile_sizes\": [8, 4]}, \"where\": \"" + id +
              "\"},\n {\"pass\": \"simplify\"},\n {\"transformation\": \"MapToForLoop\", \"where\": "
              "\"all\"}]\n");
    auto r =
        run_weir("optimize '" + in + "' -o " + q(dir / "out.sdfg") + " --script " + q(dir / "tune.json"));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("wrote"));
    auto r2 = run_weir("optimize " + q(dir / "out.sdfg") + " --replay -o " + q(dir / "replayed.sdfg"));
    INFO(r2.out);
    REQUIRE(r2.code == 0);
    auto a = weir::load_sdfg((dir / "out.sdfg").string());
    auto b = weir::load_sdfg((dir / "replayed.sdfg").string());
    CHECK(weir::validate(*a).empty());
    CHECK(weir::sdfg_difference(*a, *b).empty());
    CHECK(a->extra.find("transformation_hist"));
    CHECK(a->extra.find(kWeirHistory));
  }
}

TEST_CASE("weir optimize --passes records the pipeline's applications", "[cli][optimize]") {
  auto dir = weir::test::scratch_dir("optimize-cli-passes");
  std::string in = corpus_file("laplace2d");
  auto r = run_weir("optimize '" + in + "' -o " + q(dir / "out.sdfg") +
                    " --passes 'map-fusion,map-tiling{tile_sizes=32,8}'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("applied "));
  REQUIRE(run_weir("optimize " + q(dir / "out.sdfg") + " --replay -o " + q(dir / "again.sdfg")).code == 0);
  CHECK(weir::sdfg_difference(*weir::load_sdfg((dir / "out.sdfg").string()),
                              *weir::load_sdfg((dir / "again.sdfg").string()))
            .empty());
}

TEST_CASE("weir optimize: errors are located, exit codes are 1 (input) or 2 (usage), nothing is written",
          "[cli][optimize]") {
  auto dir = weir::test::scratch_dir("optimize-cli-errors");
  std::string in = corpus_file("hdiff");
  auto out = dir / "out.sdfg";
  write(out, "keep me");
  auto untouched = [&] {
    std::ifstream f(out);
    std::string s((std::istreambuf_iterator<char>(f)), {});
    CHECK(s == "keep me");
  };

  write(dir / "bad.json", "[\n  {\"transformation\": \"MapTiling\"\n  \"where\": \"all\"}\n]\n");
  auto r = run_weir("optimize '" + in + "' -o " + q(out) + " --script " + q(dir / "bad.json"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("bad.json:3:") && Catch::Contains("invalid JSON"));
  untouched();

  write(dir / "unknown.json", R"([{"transformation": "MapTurbo"}])");
  r = run_weir("optimize '" + in + "' -o " + q(out) + " --script " + q(dir / "unknown.json"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("step 1 (MapTurbo): unknown transformation 'MapTurbo'"));
  untouched();

  // A step that applies nowhere, and one that no longer matches.
  std::string id = first_match(in, "MapTiling");
  write(dir / "stale.json",
        "[{\"transformation\": \"MapCollapse\", \"where\": \"all\"}, {\"transformation\": \"MapTiling\", "
        "\"where\": \"0.0.0\"}]");
  r = run_weir("optimize '" + in + "' -o " + q(out) + " --script " + q(dir / "stale.json"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("step 1 (MapCollapse): applies nowhere"));
  // The map of step 2 was turned into loops by step 1.
  write(dir / "stale2.json", "[{\"transformation\": \"MapToForLoop\", \"where\": \"" + id +
                                 "\"}, {\"transformation\": \"MapTiling\", \"where\": \"" + id + "\"}]");
  r = run_weir("optimize '" + in + "' -o " + q(out) + " --script " + q(dir / "stale2.json"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("step 2 (MapTiling): does not apply at " + id) &&
                        Catch::Contains("no longer exists"));
  untouched();

  r = run_weir("optimize '" + in + "' -o " + q(out) + " --auto nosuchdevice");
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("unknown device 'nosuchdevice'") &&
                        Catch::Contains("auto-optimize-nosuchdevice"));
  CHECK(run_weir("optimize '" + in + "' -o " + q(out)).code == 2);
  CHECK(run_weir("optimize '" + in + "' -o " + q(out) + " --replay --passes simplify").code == 2);
  r = run_weir("optimize '" + in + "' -o " + q(out) + " --passes 'simplify,bogus'");
  CHECK(r.code == 2);  // a mistake in the command line
  CHECK_THAT(r.out, Catch::Contains("column 10"));
  r = run_weir("optimize '" + in + "' -o " + q(out) + " --replay");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("no recorded history"));
  untouched();
}
