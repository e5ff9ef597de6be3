// `weir optimize`: match -> script -> optimize -> replay on corpus kernels. (Located errors, exit
// codes, nothing written on failure, and --passes with its replay: tests/lit/optimize/.)
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
