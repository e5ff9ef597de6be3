// Errors of the `weir` command line that user input reaches: unknown commands, unwritable
// output directories, huge --random-inputs shapes, out-of-range --set values. Each prints
// "weir: error: ..." (never "internal error") and exits 1 (bad input) or 2 (usage).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string lap() { return q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") + "::lap"; }

}  // namespace

TEST_CASE("weir run: an unwritable --out fails before compiling, and nothing is written", "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-errors-out");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  auto r = weir::test::run_weir("run " + lap() +
                                " --backend cpu --random-inputs --set I=6 --set J=6 --set K=1 --out /proc/x");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("weir: error: cannot write --out /proc/x"));
  CHECK_THAT(r.out, !Catch::Contains("internal error") && !Catch::Contains("compiled in") &&
                        !Catch::Contains("loaded from cache"));
  // A file where the directory would go.
  std::ofstream(dir / "file") << "x";
  r = weir::test::run_weir("run " + lap() +
                           " --backend cpu --random-inputs --set I=6 --set J=6 --set K=1 --out " +
                           q(dir / "file" / "out"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::Contains("weir: error: cannot write --out") && Catch::Contains("is not a directory"));
  CHECK_THAT(r.out, !Catch::Contains("compiled in") && !Catch::Contains("loaded from cache"));
}

TEST_CASE("weir run --random-inputs: a shape too large for memory is refused with its size",
          "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-errors-huge");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // 100000 * 100000 * 8 float64 = 6.4e11 bytes.
  auto r = weir::test::run_weir(
      "run " + lap() + " --backend embedded --random-inputs --set I=100000 --set J=100000 --set K=8");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("weir: error: argument 'f': shape (100000, 100000, 8) needs 640 GB"));
  CHECK_THAT(r.out, !Catch::Contains("internal error"));
}

TEST_CASE("weir run --set/--seed: out-of-range numbers, booleans for floats and negative seeds are refused",
          "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-errors-set");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  auto r =
      weir::test::run_weir("run " + lap() + " --random-inputs --set I=6 --set J=6 --set K=1 --set x=1e400");
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --set x=1e400: expected a number within float64's range\n");
  r = weir::test::run_weir("run " + lap() + " --random-inputs --set I=6 --set J=6 --set K=1 --seed -1");
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --seed -1: expected a non-negative integer\n");
  r = weir::test::run_weir("run " + lap() + " --random-inputs --set I=6 --set J=6 --set K=1 --seed 7");
  INFO(r.out);
  CHECK_THAT(r.out, !Catch::Contains("--seed"));  // (lap itself then fails its domain check)
}
