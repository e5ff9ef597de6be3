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

TEST_CASE("weir: an error whose first line is very long is printed whole, and a located one loses 'error:'",
          "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-errors-long");
  // A tasklet label of 400,000 characters that is no identifier: the message quotes it. The
  // regex that dropped the located form's "error: " overflowed the stack on it (SIGSEGV after
  // "weir: error: " was printed).
  std::ifstream in(weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg");
  nlohmann::json s = nlohmann::json::parse(in);
  const std::string label(400000, 'x');
  weir::test::first_of_type(s, "Tasklet", [&](nlohmann::json& t) {
    t["label"] = label + "-";
    t["attributes"]["label"] = label + "-";
  });
  std::ofstream(dir / "long.sdfg") << s.dump();
  auto r = weir::test::run_weir("validate " + q(dir / "long.sdfg"));
  CHECK(r.code == 1);
  CHECK(r.out.rfind("weir: error: " + (dir / "long.sdfg").string() + ": /nodes/", 0) == 0);
  CHECK_THAT(r.out, Catch::Contains(label + "-' is not a valid identifier"));
  CHECK(r.out.back() == '\n');
  // A located error (FILE:LINE:COL: error: ...) from the frontend, in a file whose name holds
  // colons and digits: the first ":LINE:COL: error: " goes, the rest stays.
  std::ofstream(dir / "a:1:b.py") << "from gt4py.next import Field, field_operator\n"
                                     "@field_operator\n"
                                     "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"
                                     "    return a\n";
  const std::string file = (dir / "a:1:b.py").string();
  r = weir::test::run_weir("sdfg " + q(file + "::f") + " -o " + q(dir / "f.sdfg"));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.substr(0, r.out.find('\n')) == "weir: error: " + file + ":3:17: unknown name 'I'");
  CHECK(!fs::exists(dir / "f.sdfg"));
}

TEST_CASE("weir: an option value of 100,000 characters is refused whole, as a short one is",
          "[cli][errors]") {
  // About the longest argument Linux passes (MAX_ARG_STRLEN, 128 KiB, for the whole shell
  // command here). Reading CLI11's message with std::regex overflowed the stack on it (SIGSEGV,
  // nothing printed).
  const std::string big(100000, 'x'), digits = "-" + std::string(100000, '3');
  auto r = weir::test::run_weir("run " + lap() + " --threads " + big);
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --threads " + big + ": expected an integer from 0 to 1024\n");
  r = weir::test::run_weir("run " + lap() + " --seed " + digits);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::StartsWith("weir: error: --seed " + digits + ": "));
}
