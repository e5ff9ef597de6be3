// The catalogue of hostile input found by fuzzing and by hand (issue 17): each gives a located
// error with its exact message and exit code 1, never a crash or "internal error", and nothing
// is written.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;
using weir::test::run_weir;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

fs::path hdiff_sdfg() { return weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg"; }

fs::path write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

/// 100,000 nested arrays: deeper than any parser's recursion may go on an 8 MiB stack.
std::string deep_json() { return std::string(100000, '[') + std::string(100000, ']'); }

std::string optimize(const fs::path& dir, const fs::path& script) {
  return "optimize " + q(hdiff_sdfg()) + " -o " + q(dir / "out.sdfg") + " --script " + q(script);
}

}  // namespace

TEST_CASE("bad input: JSON nested 100,000 levels deep in every JSON weir reads", "[cli][errors][security]") {
  auto dir = weir::test::scratch_dir("cli-bad-deep-json");
  auto deep = write(dir / "deep.json", deep_json());
  auto r = run_weir(optimize(dir, deep));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + deep.string() + ":1:601: invalid JSON: nested deeper than 600 levels\n");
  r = run_weir("run --backend cpu " + q(hdiff_sdfg()) + " --set-json " + q(deep),
               "WEIR_CACHE_DIR=" + q(dir / "cache"));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + deep.string() + ":1:601: invalid JSON: nested deeper than 600 levels\n");
  auto sdfg = write(dir / "deep.sdfg", deep_json());
  r = run_weir("validate " + q(sdfg));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + sdfg.string() + ":1:601: invalid JSON: nested deeper than 600 levels\n");
  CHECK_FALSE(fs::exists(dir / "out.sdfg"));
}

TEST_CASE("bad input: scripts with out-of-range numbers, ids and option values", "[cli][errors][security]") {
  auto dir = weir::test::scratch_dir("cli-bad-script");
  SECTION("1e400") {
    auto s = write(dir / "big.json",
                   "[{\"transformation\": \"MapTiling\", \"options\": {\"tile_sizes\": [1e400]}}]");
    auto r = run_weir(optimize(dir, s));
    CHECK(r.code == 1);
    CHECK(r.out == "weir: error: " + s.string() +
                       ":1:61: invalid JSON: number 1e400 is outside the range of a double\n");
  }
  SECTION("a block id larger than any id in a match id") {
    auto s = write(dir / "id.json",
                   "[{\"transformation\": \"MapTiling\", \"where\": \"0.99999999999999999999.1\"}]");
    auto r = run_weir(optimize(dir, s));
    CHECK(r.code == 1);
    CHECK(
        r.out ==
        "weir: error: " + s.string() +
            ": step 1 (MapTiling): match id '0.99999999999999999999.1': 99999999999999999999 is larger than "
            "any id (at most 4294967295)\n");
  }
  SECTION("a negative tile size, in a script and in a pipeline") {
    auto s = write(dir / "tile.json",
                   "[{\"transformation\": \"MapTiling\", \"options\": {\"tile_sizes\": [-4]}}]");
    auto r = run_weir(optimize(dir, s));
    CHECK(r.code == 1);
    CHECK(r.out == "weir: error: " + s.string() +
                       ": step 1 (MapTiling): option 'tile_sizes' must be at least 1, not -4\n");
    r = run_weir("optimize " + q(hdiff_sdfg()) + " -o " + q(dir / "out.sdfg") +
                 " --passes 'map-tiling{tile_sizes=32,-4}'");
    CHECK(r.code == 2);  // a mistake in the command line's pipeline text
    CHECK(r.out ==
          "weir: error: --passes: option 'tile_sizes' must be at least 1, not -4 for pass 'map-tiling' at "
          "column "
          "23 in "
          "'map-tiling{tile_sizes=32,-4}'\n");
  }
  CHECK_FALSE(fs::exists(dir / "out.sdfg"));
}

TEST_CASE("bad input: an .npy whose shape overflows names the file", "[cli][errors][security]") {
  auto dir = weir::test::scratch_dir("cli-bad-npy");
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4), }";
  header.resize(117, ' ');
  header += '\n';
  std::string bytes =
      std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
  auto npy = write(dir / "coeff.npy", bytes);
  auto r = run_weir("run --backend cpu " + q(hdiff_sdfg()) + " --in coeff=" + q(npy),
                    "WEIR_CACHE_DIR=" + q(dir / "cache"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: " + npy.string() +
            ": corrupt .npy header: shape (4294967296, 4294967296, 4) has more bytes than any array\n");
}

TEST_CASE("bad input: a scan over more levels than the arrays have fails its bounds checks",
          "[cli][errors][security]") {
  // vertical_solver's domain K: (0, nk) with K=6 arrays: the scan's loop (inside a nested SDFG
  // after loop-map interchange) would run to nk - 1.
  auto dir = weir::test::scratch_dir("cli-bad-scan");
  std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/vertical_solver.py") + "::vertical_solver";
  auto r = run_weir(
      "run " + program + " --backend cpu --random-inputs --set I=3 --set J=2 --set K=6 --set nk=100000",
      "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(r.out);
  CHECK(r.code == 1);
  // The domain (nk levels) is larger than the output x: refused before the program runs, in
  // the program's terms (as the embedded backend says it).
  CHECK_THAT(r.out, Catch::Contains("weir: error: ") &&
                        Catch::Contains("vertical_solver.py:43:5: domain= gives K: [0, 100000), outside the "
                                        "output field 'x' (K: [0, 6))\n"));
  r = run_weir("run " + program + " --backend cpu --random-inputs --set I=3 --set J=2 --set K=6 --set nk=6",
               "WEIR_CACHE_DIR=" + q(dir / "cache"));
  CHECK(r.code == 0);
}

TEST_CASE("bad input: compose descriptions get the JSON limits and located type errors",
          "[cli][errors][security]") {
  auto dir = weir::test::scratch_dir("cli-bad-compose");
  auto compose = [&](const fs::path& spec) {
    return run_weir("compose " + q(spec) + " -o " + q(dir / "out.sdfg"));
  };
  auto deep = write(dir / "deep.json", deep_json());
  auto r = compose(deep);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + deep.string() + ":1:601: invalid JSON: nested deeper than 600 levels\n");
  auto big = write(dir / "big.json", "{\"arrays\": {\"a\": {\"dtype\": \"float64\", \"shape\": [1e400]}}}");
  r = compose(big);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + big.string() +
                     ":1:49: invalid JSON: number 1e400 is outside the range of a double\n");
  auto name = write(dir / "name.json", "{\"name\": 7, \"stages\": {}, \"sequence\": []}");
  r = compose(name);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + name.string() + ": /name: expected the SDFG's name\n");
  auto transient =
      write(dir / "transient.json",
            "{\"arrays\": {\"a\": {\"dtype\": \"float64\", \"shape\": [4], \"transient\": \"yes\"}}, "
            "\"stages\": {}, \"sequence\": []}");
  r = compose(transient);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + transient.string() + ": /arrays/a/transient: expected true or false\n");
  CHECK_FALSE(fs::exists(dir / "out.sdfg"));
}

TEST_CASE("bad input: the build directory of a build killed with kill -9 is reclaimed",
          "[cli][errors][cache]") {
  // weir compile runs in its own process group, killed (with its compiler) while it compiles;
  // the next build of the same program removes the directory it left.
  auto dir = weir::test::scratch_dir("cli-killed-build");
  fs::path tmp = dir / "cache" / "v1" / "tmp";
  std::string script =
      "export WEIR_CACHE_DIR=" + q(dir / "cache") + "; setsid " + std::string(WEIR_BIN) + " compile " +
      q(hdiff_sdfg()) + " > /dev/null 2>&1 & pid=$!; " + "for i in $(seq 6000); do [ -n \"$(ls " + q(tmp) +
      " 2>/dev/null)\" ] && break; sleep 0.005; done; kill -9 -- -$pid; wait $pid; echo $? > " +
      q(dir / "status");
  auto sh = write(dir / "kill.sh", script);
  REQUIRE(std::system(("bash " + q(sh)).c_str()) == 0);
  CHECK(weir::test::read_text(dir / "status") == "137\n");  // killed, not finished
  REQUIRE(fs::exists(tmp));
  CHECK_FALSE(fs::is_empty(tmp));
  auto r = run_weir("compile " + q(hdiff_sdfg()), "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(fs::is_empty(tmp));
}
