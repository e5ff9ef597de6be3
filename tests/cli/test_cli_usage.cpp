// The same command line rules in every `weir` command, with exact messages: options before or
// after positionals; the same exit code (2) for the same usage mistake everywhere (--set of a
// name the program lacks, --in given twice); warnings for values that would be ignored; near
// misses (a device in capitals, a file in --in-dir named almost like an argument, a scalar given
// as an array, a symbol --random-inputs needs) accepted or named with the option that fixes them,
// and outputs written through symbolic links. (FILE.py without ::NAME, a field-view file where
// an SDFG is read, a backend that cannot do the job, --emit-cpp and --help's words:
// tests/lit/cli/ and tests/lit/codegen/emit-cpp.test.)
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string ex(const std::string& rel) { return q(fs::path(WEIR_SOURCE_DIR) / "examples" / rel); }
std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }
std::string ex_path(const std::string& rel) {
  return (fs::path(WEIR_SOURCE_DIR) / "examples" / rel).string();
}

}  // namespace

TEST_CASE("weir: options may come before or after positionals in every command", "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-order");
  std::string mm = ex("multimodule"), prog = ex("multimodule/mymodel/program.py");
  // -I before the target used to swallow it ("target is required").
  auto r = run_weir("sdfg -I " + mm + " " + ex("multimodule/mymodel/program.py::potential_program") + " -o " +
                    q(dir / "a.sdfg"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out == "wrote " + (dir / "a.sdfg").string() + "\n");
  r = run_weir("sdfg -o " + q(dir / "b.sdfg") + " -I " + mm + " -I " + mm + " " +
               ex("multimodule/mymodel/program.py::potential_program"));
  CHECK(r.code == 0);
  r = run_weir("check -I " + mm + " " + prog);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::EndsWith("program.py: 3 definitions checked\n"));
  r = run_weir("validate -q " + q(dir / "a.sdfg"));
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  r = run_weir("info --json " + q(dir / "a.sdfg"));
  CHECK(r.code == 0);
  r = run_weir("run --backend embedded --set I=5 --set J=4 --set K=1 " +
               ex("cartesian/laplacian.py::laplacian") + " --random-inputs");
  INFO(r.out);
  CHECK(r.code == 0);
}

TEST_CASE("weir: a module missing from the search path suggests -I", "[cli][usage]") {
  // From outside the repository the folder is shown as an absolute path.
  auto r = run_weir("check " + ex("multimodule/mymodel/program.py"), "cd / &&");
  CHECK(r.code == 1);
  // `weir check` names the module once, with the folder that holds it, then its counts.
  const std::string hint = "\n  hint: add -I " + ex_path("multimodule") + " (it holds 'mymodel'), or list " +
                           ex_path("multimodule") + " in WEIR_PATH\n";
  CHECK_THAT(r.out, Catch::StartsWith(
                        "weir: error: module 'mymodel' not found (3 errors come from it; the first:)\n") &&
                        Catch::Contains("not on the search path: no module 'mymodel' in ") &&
                        Catch::Contains(hint) && Catch::Contains("with errors"));
  r = run_weir("sdfg " + ex("multimodule/mymodel/program.py::potential_program") + " -o x.sdfg", "cd / &&");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::StartsWith("weir: error: module 'mymodel' not found\n  ") && Catch::EndsWith(hint));
}

TEST_CASE("weir run: --set of a name the program lacks, --in twice are errors, an unused --set warns",
          "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-set");
  std::string lap = ex("cartesian/laplacian.py::laplacian");
  auto r = run_weir("run " + lap + " --random-inputs --set I=5 --set J=4 --set K=1 --set TSTEPS=3");
  CHECK(r.code == 2);
  CHECK(r.out ==
        "weir: error: --set TSTEPS=3: program 'laplacian' has no parameter, symbol or dimension 'TSTEPS' "
        "(parameters: f, out; dimensions: I, J, K)\n");
  // The same on the cpu backend, whose argument list also has internal size symbols: not listed.
  r = run_weir("run " + lap + " --backend cpu --random-inputs --set I=5 --set J=4 --set K=1 --set TSTEPS=3");
  CHECK(r.code == 2);
  CHECK_THAT(
      r.out,
      Catch::Contains(
          "has no parameter, symbol or dimension 'TSTEPS' (parameters: f, out; dimensions: I, J, K)\n"));
  CHECK_THAT(r.out, !Catch::Contains("__"));

  REQUIRE(
      run_weir("run " + lap + " --random-inputs --set I=5 --set J=4 --set K=1 --out " + q(dir / "in")).code ==
      0);
  r = run_weir("run " + lap + " --in f=" + q(dir / "in" / "out.npy") +
               " --in f=" + q(dir / "in" / "out.npy") + " --random-inputs");
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --in f is given twice (" + (dir / "in" / "out.npy").string() + " and " +
                     (dir / "in" / "out.npy").string() + ")\n");
  // Every field is given: --set K=1 sizes nothing (it agrees with the fields; one that does not
  // is an error, tests/cli/test_run_arguments.cpp).
  r = run_weir("run " + lap + " --in f=" + q(dir / "in" / "out.npy") +
               " --in out=" + q(dir / "in" / "out.npy") + " --set K=1 --out " + q(dir / "out"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith(
                        "weir: warning: --set K=1 is not used: sizes come from the arrays given (--set DIM=N "
                        "sizes fields made by --random-inputs)\n"));
  r = run_weir("run " + lap + " --in f=" + q(dir / "in" / "out.npy") +
               " --in out=" + q(dir / "in" / "out.npy") + " --set K=8");
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::StartsWith("weir: error: --set K=8: 'f' is 1 long along K; "));
}

TEST_CASE("weir run says whether it compiled or loaded from the cache, and explains the checksum",
          "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-run-output");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::string args =
      "run " + ex("cartesian/laplacian.py::laplacian") + " --random-inputs --set I=6 --set J=5 --set K=2";
  auto first = run_weir(args + " --backend cpu --threads 1");
  INFO(first.out);
  REQUIRE(first.code == 0);
  CHECK_THAT(first.out, Catch::Contains("\ncompiled in ") && Catch::Contains(" (cached for the next run: "));
  auto again = run_weir(args + " --backend cpu --threads 2");
  INFO(again.out);
  REQUIRE(again.code == 0);
  CHECK_THAT(again.out, Catch::Contains("\nloaded from cache in "));
  CHECK_THAT(again.out, !Catch::Contains("compiled in"));
  auto embedded = run_weir(args);
  REQUIRE(embedded.code == 0);
  CHECK_THAT(embedded.out, Catch::Contains("\ninterpreted by the embedded backend (nothing to compile)\n"));
  // Same seeded inputs, same results: on 1 or 2 threads and on the reference backend.
  auto checksum = [](const std::string& s) { return s.substr(s.find("checksum "), 25); };
  CHECK(checksum(first.out) == checksum(again.out));
  CHECK(checksum(first.out) == checksum(embedded.out));
  CHECK_THAT(first.out, Catch::Contains(
                            "  (checksum: the first 16 hex digits of the SHA-256 of the array's bytes; equal "
                            "checksums mean bit-identical results)\n"));
  // Progress goes to stderr only on request here (no terminal): each line names the work.
  auto progress = run_weir(args + " --progress 2>/dev/null");
  CHECK(progress.code == 0);
}

TEST_CASE("weir run: a DaCe GPU SDFG on the cpu backend says that its GPU maps run on the host",
          "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-gpu");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  auto k = weir::test::dace_corpus_dir() / "laplace2d";
  auto r = run_weir("run --backend cpu " + q(k / "laplace2d.auto_optimized_gpu.sdfg") + " --in-dir " +
                    q(k / "inputs") + " --set-json " + q(k / "symbols.json") + " --set-json " +
                    q(k / "scalars.json"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(
                        "\nnote: this SDFG was optimized for a GPU; the cpu backend runs its GPU maps (") &&
                        Catch::Contains(") on the host as OpenMP loops and keeps its GPU containers ("));
  r = run_weir("run --backend cpu " + q(k / "laplace2d.auto_optimized_cpu.sdfg") + " --in-dir " +
               q(k / "inputs") + " --set-json " + q(k / "symbols.json") + " --set-json " +
               q(k / "scalars.json"));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("GPU"));
}

TEST_CASE("weir run: one command line runs an unstructured program on both backends, sizes from the tables",
          "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-unstructured");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // A 4 x 3 periodic mesh: 12 vertices, 36 edges; V2E has 6 neighbours per vertex.
  REQUIRE(run_weir("mesh --nx 4 --ny 3 -o " + q(dir / "mesh")).code == 0);
  std::string tables =
      " --in V2E=" + q(dir / "mesh" / "V2E.npy") + " --in E2V=" + q(dir / "mesh" / "E2V.npy");
  std::string args =
      "run " + ex("unstructured/nabla.py::nabla_program") + tables + " --random-inputs --set K=2";
  auto embedded = run_weir(args + " --backend embedded");
  INFO(embedded.out);
  REQUIRE(embedded.code == 0);
  auto cpu = run_weir(args + " --backend cpu");
  INFO(cpu.out);
  REQUIRE(cpu.code == 0);
  // Vertex (12) and Edge (36) come from the tables' rows: no --set Vertex= / Edge=.
  auto line = [](const std::string& out, const std::string& name) {
    auto at = out.find("  " + name + ": ");
    return at == std::string::npos ? std::string("(none)") : out.substr(at, out.find("  checksum", at) - at);
  };
  CHECK(line(embedded.out, "out_x").rfind("  out_x: float64 (12, 2)  min ", 0) == 0);
  // Same seeded inputs on both backends: the same results (min, max, mean printed to 6 digits).
  CHECK(line(cpu.out, "out_x") == line(embedded.out, "out_x"));
  CHECK(line(cpu.out, "out_y") == line(embedded.out, "out_y"));
  // `--set V2E=6` (neighbours per row) is accepted by both; a number the compiled program does not have is
  // refused.
  std::string sized = "run " + ex("unstructured/nabla.py::nabla_program") +
                      " --random-inputs --set Vertex=5 --set Edge=7 --set K=2 --set E2V=2 --set V2E=";
  CHECK(run_weir(sized + "6 --backend embedded").code == 0);
  CHECK(run_weir(sized + "6 --backend cpu").code == 0);
  auto r = run_weir(sized + "3 --backend cpu");
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --set V2E=3: this program has 6 neighbours per row in 'V2E'\n");
}

TEST_CASE("weir run: --random-inputs takes sizes from the arrays given", "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-random-sizes");
  std::string lap = ex("cartesian/laplacian.py::laplacian");
  REQUIRE(
      run_weir("run " + lap + " --random-inputs --set I=7 --set J=4 --set K=3 --out " + q(dir / "a")).code ==
      0);
  // Only f is given: out gets f's extents (7, 4, 3) without --set.
  auto r = run_weir("run " + lap + " --in f=" + q(dir / "a" / "out.npy") + " --random-inputs");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("  out: float64 (7, 4, 3)  min "));
}

TEST_CASE("weir run: a @field_operator with shifts run directly says how to give it a smaller domain",
          "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-fieldop");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + ex("cartesian/laplacian.py::lap") + " --backend " + backend +
                      " --random-inputs --set I=6 --set J=6 --set K=1");
    CHECK(r.code == 1);
    CHECK_THAT(
        r.out,
        Catch::EndsWith("\n  hint: 'lap' is a @field_operator run directly, so its result must cover the "
                        "whole output array '__out' (shaped like its inputs); to compute it on part of the "
                        "domain, run a @program that calls it with a sliced out=, e.g. lap(f, out=out[1:-1, "
                        // Both backends name the dimensions read outside: sliced along I and J.
                        "1:-1, :])\n"));
  }
}

TEST_CASE("weir run: a too small input that is not shifted gets a hint about its size, not about shifts",
          "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-usage-small-input");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "copy.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
         "I = gtx.Dimension('I')\n@gtx.field_operator\n"
         "def ident(f: Field[[I], float64]) -> Field[[I], float64]:\n    return f\n"
         "@gtx.program\ndef copy(f: Field[[I], float64], out: Field[[I], float64]):\n"
         "    ident(f, out=out)\n";
  // f has 4 points, out 6.
  REQUIRE(run_weir("run " + q(dir / "copy.py") + "::copy --random-inputs --set I=4 --out " + q(dir / "four"))
              .code == 0);
  REQUIRE(run_weir("run " + q(dir / "copy.py") + "::copy --random-inputs --set I=6 --out " + q(dir / "six"))
              .code == 0);
  std::string args = "run " + q(dir / "copy.py") + "::copy --in f=" + q(dir / "four" / "out.npy") +
                     " --in out=" + q(dir / "six" / "out.npy");
  auto r = run_weir(args + " --backend embedded");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::EndsWith(
                        "copy.py:9:5: the result of 'ident' is computed over (I: [0, 4)), which does not "
                        "cover the output domain of 'out' (I: [0, 6)) (an input is smaller than the output "
                        "domain; pass larger inputs or a smaller output domain)\n"
                        "  'out' is (6,) but 'f' is (4,) over (I): the output is larger along I\n"));
  r = run_weir(args + " --backend cpu");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::EndsWith(
                        "reads f[0 .. 5] in dimension 0 of f with shape 4 (the input is smaller than the "
                        "domain it is read over; pass a larger input or a smaller domain)\n"
                        "  'out' is (6,) but 'f' is (4,) over (I): the output is larger along I\n"));
  CHECK_THAT(r.out, !Catch::Contains("shifted"));
}

TEST_CASE("first hour: every command's --help has examples and says in words what it takes", "[cli][usage]") {
  for (const char* cmd : {"validate", "info", "convert", "run", "compile", "cache", "cache info",
                          "cache clear", "transforms", "transforms list", "transforms match", "check", "sdfg",
                          "mesh", "optimize", "view", "compose", "tune"}) {
    INFO(cmd);
    auto r = run_weir(std::string(cmd) + " --help");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\nExamples:\n  weir " + std::string(cmd)));
    // CLI11's type notation (UINT, TEXT, INT in [..], FLOAT, ENUM, REQUIRED words aside).
    for (const char* notation : {"UINT", "TEXT", " INT", "FLOAT", "ENUM", ":{", "INT:"}) {
      INFO(notation);
      CHECK_THAT(r.out, !Catch::Contains(notation));
    }
  }
  // `weir compile` says that it takes field-view programs too.
  auto r = run_weir("compile --help");
  CHECK_THAT(r.out,
             Catch::StartsWith("Compile programs (SDFG files, FILE.py::NAME, FILE.py) into the program "
                               "cache, in parallel\n"));
}

TEST_CASE("weir: near misses on the command line are accepted or named with the option that fixes them",
          "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-near-misses");
  const std::string env = cache_env(dir);
  const std::string lap = ex("cartesian/laplacian.py::laplacian");
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.ones((5, 5, 1)))\n", "make.py") == 0);
  // A --set-json name the program lacks is a warning, and the run goes on without it.
  std::ofstream(dir / "sym.json") << "{\"nz\": 3}";
  auto r = run_weir("run " + lap + " --in f=" + q(dir / "f.npy") + " --set-json " + q(dir / "sym.json"), env);
  CHECK(r.code == 0);
  CHECK_THAT(r.out,
             Catch::StartsWith("weir: warning: --set-json: program 'laplacian' has no parameter, symbol or "
                               "dimension 'nz' (parameters: f, out; dimensions: I, J, K); ignored\n"));
  // SDFG files run on the cpu backend without --backend (the only kind that runs them).
  REQUIRE(run_weir("sdfg " + lap + " -o " + q(dir / "lap.sdfg")).code == 0);
  r = run_weir("run " + q(dir / "lap.sdfg") + " --random-inputs --set I=5 --set J=5 --set K=1", env);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(" on backend 'cpu'\n"));
  // --auto takes the device in any case; its help lists the devices.
  r = run_weir("optimize " + q(dir / "lap.sdfg") + " --auto CPU -o " + q(dir / "fast.sdfg"));
  CHECK(r.code == 0);
  CHECK(r.out == "applied 1 pass (cpu-schedules); wrote " + (dir / "fast.sdfg").string() + "\n");
  CHECK_THAT(run_weir("optimize --help").out,
             Catch::Contains("auto-optimize pipeline for a device: cpu or gpu"));
  // The viewer shows orchestration functions (they have no single definition).
  r = run_weir("view " + ex("orchestration/heat.py::heat") + " --html " + q(dir / "heat.html"));
  CHECK(r.code == 0);
  CHECK(fs::file_size(dir / "heat.html") > 0);
  // An output path that is a symbolic link (as /dev/stdout is) is written through, never
  // replaced by a file.
  std::ofstream(dir / "real.sdfg") << "";
  fs::create_symlink(dir / "real.sdfg", dir / "link.sdfg");
  r = run_weir("sdfg " + lap + " -o " + q(dir / "link.sdfg"));
  CHECK(r.code == 0);
  CHECK(fs::is_symlink(dir / "link.sdfg"));
  CHECK(weir::test::read_text(dir / "real.sdfg").rfind("{", 0) == 0);
  r = run_weir("view " + lap + " --html " + q(dir / "link.sdfg"));
  CHECK(r.code == 0);
  CHECK(fs::is_symlink(dir / "link.sdfg"));
  CHECK(weir::test::read_text(dir / "real.sdfg").rfind("<!doctype html>", 0) == 0);
  // A file in --in-dir named almost like a missing argument: a warning names the argument.
  fs::create_directories(dir / "in");
  fs::copy_file(dir / "f.npy", dir / "in" / "F.npy");
  r = run_weir("run " + lap + " --in-dir " + q(dir / "in"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("weir: warning: --in-dir " + (dir / "in").string() +
                                      ": F.npy matches no array argument (ignored); did you mean f.npy?\n"));
  // A symbol --random-inputs needs is named in the option that gives it.
  r = run_weir("run " + q(weir::test::dace_corpus_dir() / "jacobi_2d" / "jacobi_2d.simplified.sdfg") +
                   " --random-inputs",
               env);
  CHECK(r.code == 1);
  CHECK(
      r.out ==
      "weir: error: --random-inputs: the shape of 'A' (float64 array of shape (N, N)) needs N; give it with "
      "--set N=VALUE\n");
  // A scalar given as an array file (not 0-d) is named with the options that give it.
  r = run_weir("run " + ex("cartesian/heat3d.py::heat3d") + " --in u=" + q(dir / "f.npy") +
                   " --in alpha=" + q(dir / "f.npy"),
               env);
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --in alpha=" + (dir / "f.npy").string() +
                     ": 'alpha' is a scalar of program 'heat3d': give it with --set alpha=VALUE or as a 0-d "
                     "array (shape ()), not float64 (5, 5, 1)\n");
  // A field-view file that is not there says why.
  r = run_weir("run " + q(dir / "none.py") + "::p");
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "none.py").string() + ": cannot open: No such file or directory\n");
}
