// Source locations at load time (ADR 0061): a compiled program's code names no `.py` path and no
// line, so two checkouts of the same file share one program-cache entry and a comment line
// added above a program recompiles nothing, while every message still names the file as it is
// now, at its current line and column.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.h"
#include "copy_program.h"
#include "corpus.h"
#include "weir/sdfg/serialize.h"
#include "weir_test_paths.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_weir;
using weir::test::write_copy_program;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The cpu backend's error for copy.py at `file`, the call at line `line` (an input smaller than
// the domain: f has 4 points, out 6), as test_run_user_terms.cpp has it.
std::string bounds_error(const fs::path& file, int line) {
  return weir::test::copy_bounds_head(file, line) +
         "  in the SDFG: state 'call_0_ident', map 'ident_map': reads f[0 .. 5] in dimension 0 of f with "
         "shape "
         "4 (the input is smaller than the domain it is read over; pass a larger input or a smaller domain)\n"
         "  'out' is (6,) but 'f' is (4,) over (I): the output is larger along I\n";
}

// `weir compile FILE::copy` with the cache `env`: "compiled" or "cached".
std::string compile_state(const fs::path& file, const std::string& env) {
  auto r = run_weir("compile " + q(file) + "::copy", env);
  INFO(r.out);
  REQUIRE(r.code == 0);
  if (r.out.find("(cached, ") != std::string::npos) return "cached";
  if (r.out.find("(compiled, ") != std::string::npos) return "compiled";
  FAIL("weir compile said neither cached nor compiled");
  return "";
}

// Writes DIR/NAME (DIR created): `comments` comment lines, then the text of examples/`example`.
fs::path write_with_comments(const fs::path& dir, const std::string& name, const std::string& example,
                             int comments) {
  fs::create_directories(dir);
  std::ofstream out(dir / name);
  for (int k = 0; k < comments; ++k) out << "# a comment line added above the orchestration\n";
  out << weir::test::read_text(fs::path(WEIR_SOURCE_DIR) / "examples" / example);
  return dir / name;
}

std::string run_error(const fs::path& file, const fs::path& inputs, const std::string& env) {
  auto r = run_weir("run " + q(file) + "::copy --backend cpu --in f=" + q(inputs / "f.npy") +
                        " --in out=" + q(inputs / "out.npy"),
                    env);
  CHECK(r.code == 1);
  return r.out;
}

}  // namespace

TEST_CASE("the same .py in two folders compiles once, and each names its own path in a fault",
          "[cli][run][cache][locations]") {
  auto dir = weir::test::scratch_dir("cli-source-locations-checkouts");
  const std::string env = "WEIR_CACHE_DIR=" + q(dir / "cache");
  fs::path a = write_copy_program(dir / "checkout-a" / "model"),
           b = write_copy_program(dir / "clone b" / "model");
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.arange(4.0)); np.save('out.npy', np.zeros(6))") ==
          0);

  CHECK(compile_state(a, env) == "compiled");
  CHECK(compile_state(b, env) == "cached");  // another checkout of the same file: a cache hit
  // One entry for both.
  auto info = run_weir("cache info", env);
  INFO(info.out);
  CHECK_THAT(info.out, Catch::Contains("\nentries: 1\n"));

  CHECK_THAT(run_error(a, dir, env), Catch::EndsWith("stopped with an error: " + bounds_error(a, 9)));
  CHECK_THAT(run_error(b, dir, env), Catch::EndsWith("stopped with an error: " + bounds_error(b, 9)));
  // The source in the cache names neither checkout; --emit-cpp writes the locations out.
  auto r = run_weir("compile " + q(b) + "::copy --emit-cpp " + q(dir / "cpp"), env);
  REQUIRE(r.code == 0);
  std::ifstream in(dir / "cpp" / "copy.cpp");
  std::stringstream emitted;
  emitted << in.rdbuf();
  CHECK_THAT(emitted.str(), Catch::Contains(b.string() + ":9:5") && !Catch::Contains("@weirloc"));
}

TEST_CASE("a comment line added at the top of a .py recompiles nothing, and a fault names the new line",
          "[cli][run][cache][locations]") {
  auto dir = weir::test::scratch_dir("cli-source-locations-edit");
  const std::string env = "WEIR_CACHE_DIR=" + q(dir / "cache");
  fs::path file = write_copy_program(dir / "model");
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.arange(4.0)); np.save('out.npy', np.zeros(6))") ==
          0);
  CHECK(compile_state(file, env) == "compiled");
  CHECK_THAT(run_error(file, dir, env), Catch::EndsWith("stopped with an error: " + bounds_error(file, 9)));

  write_copy_program(dir / "model", 1);
  CHECK(compile_state(file, env) == "cached");
  CHECK_THAT(run_error(file, dir, env), Catch::EndsWith("stopped with an error: " + bounds_error(file, 10)));
  write_copy_program(dir / "model", 3);
  CHECK(compile_state(file, env) == "cached");
  CHECK_THAT(run_error(file, dir, env), Catch::EndsWith("stopped with an error: " + bounds_error(file, 12)));
}

TEST_CASE("a comment line added above an orchestration with loops and branches recompiles nothing",
          "[cli][run][cache][locations][orchestration]") {
  // ADR 0061's open end (session 34): orchestration regions were named after their statement's
  // line (`for_36`, `if_38`, `reduce_37`), and the names reached the code. adaptive_heat has a
  // time loop, a branch and three reductions; the regions are now numbered in order of
  // appearance and the line stays in their debuginfo (the viewer, `weir sdfg`).
  auto dir = weir::test::scratch_dir("cli-source-locations-orchestration");
  const std::string env = "WEIR_CACHE_DIR=" + q(dir / "cache");
  const std::string example = "orchestration/adaptive_heat.py";
  auto compile = [&](int comments) {
    fs::path file = write_with_comments(dir / "model", "adaptive_heat.py", example, comments);
    auto r = run_weir("compile " + q(file) + "::adaptive_heat", env);
    INFO(r.out);
    REQUIRE(r.code == 0);
    return r.out.find("(cached, ") != std::string::npos ? "cached" : "compiled";
  };
  // The `for` line's debuginfo as `weir sdfg` writes it.
  auto for_line = [&](int comments) {
    fs::path file = write_with_comments(dir / "model", "adaptive_heat.py", example, comments);
    auto r = run_weir("sdfg " + q(file) + "::adaptive_heat -o " + q(dir / "x.sdfg"), env);
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto sdfg = weir::load_sdfg((dir / "x.sdfg").string());
    for (const weir::ControlFlowBlock* b : sdfg->blocks()) {
      if (b->label != "for1") continue;
      const std::string* info = b->extra.find("debuginfo");
      REQUIRE(info != nullptr);
      std::size_t at = info->find("\"start_line\"");
      REQUIRE(at != std::string::npos);
      return std::atoi(info->c_str() + info->find(':', at) + 1);
    }
    FAIL("no region 'for1'");
    return 0;
  };
  CHECK(compile(0) == std::string("compiled"));
  CHECK(compile(1) == std::string("cached"));
  CHECK(compile(4) == std::string("cached"));
  // In examples/orchestration/adaptive_heat.py the loop stands at line 36.
  CHECK(for_line(0) == 36);
  CHECK(for_line(2) == 38);
}
