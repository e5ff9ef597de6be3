// `weir run`, `weir compile` and `weir cache` end to end: outputs, messages, exit codes, and that
// nothing is written when a run fails. Each test uses its own WEIR_CACHE_DIR under the build tree.
// The program cache does not depend on how a .py path is spelt; --threads sets the OpenMP
// threads of the compiled program; an SDFG file runs on the cpu backend without --backend.
#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using Run = weir::test::CliRun;
using weir::test::run_numpy;
using weir::test::run_weir;
using weir::test::cli::kBoundary;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }
std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }

// Runs `weir ARGS` with WEIR_CACHE_DIR=cache.
Run run_cli(const fs::path& cache, const std::string& args) {
  return weir::test::run_weir(args, "WEIR_CACHE_DIR=" + q(cache));
}

// Runs a NumPy check script in `dir`.
int python(const fs::path& dir, const std::string& script) { return weir::test::run_numpy(dir, script); }

fs::path kernel_dir(const std::string& k) { return weir::test::dace_corpus_dir() / k; }
fs::path sdfg(const std::string& k, const std::string& stage = "simplified") {
  return kernel_dir(k) / (k + "." + stage + ".sdfg");
}

// A copy of hdiff's simplified SDFG whose first tasklet is C++ that does not compile (run it
// with --trust-code: C++ in an SDFG file is refused otherwise).
fs::path broken_sdfg(const fs::path& dir) {
  auto j = nlohmann::json::parse(weir::test::read_text(sdfg("hdiff")));
  weir::test::first_of_type(j, "Tasklet", [](nlohmann::json& n) {
    n["attributes"]["code"] = {{"string_data", "this is not C++ at all;"}, {"language", "CPP"}};
  });
  auto p = dir / "broken.sdfg";
  std::ofstream(p) << j.dump();
  return p;
}

}  // namespace

TEST_CASE("weir run hdiff on cpu writes out_field matching DaCe's result", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-hdiff");
  auto cache = dir / "cache", out = dir / "out";
  auto in = kernel_dir("hdiff") / "inputs";
  auto before = weir::test::read_text(in / "out_field.npy");
  auto r = run_cli(cache, "run --backend cpu " + q(sdfg("hdiff")) + " --in-dir " + q(in) + " --set-json " +
                              q(kernel_dir("hdiff") / "symbols.json") + " --out " + q(out));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("on backend 'cpu'") && Catch::Contains("call 1: "));
  CHECK_THAT(r.out, Catch::Contains("out_field: float64 (16, 16, 8)  min ") && Catch::Contains("checksum "));
  CHECK_THAT(r.out, Catch::Contains("wrote 1 file to"));
  // Only what the program writes; the inputs on disk are untouched.
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(out)) files.push_back(e.path().filename().string());
  CHECK(files == std::vector<std::string>{"out_field.npy"});
  CHECK(weir::test::read_text(in / "out_field.npy") == before);
  CHECK(
      python(dir,
             "a = np.load('" + (out / "out_field.npy").string() + "'); e = np.load('" +
                 (kernel_dir("hdiff") / "expected" / "out_field.npy").string() +
                 "')\nsys.exit(0 if a.shape == e.shape and np.allclose(a, e, rtol=1e-12, atol=0) else 1)") ==
      0);

  // Second run: the cached library, sizes inferred from the shapes (no symbols given).
  auto again = run_cli(cache, "run --backend cpu " + q(sdfg("hdiff")) + " --in-dir " + q(in));
  CHECK(again.code == 0);
  auto checksum = [](const std::string& s) { return s.substr(s.find("checksum "), 25); };
  CHECK(checksum(again.out) == checksum(r.out));
}

TEST_CASE("weir run laplace2d with scalars, --repeat and --in", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-laplace");
  auto k = kernel_dir("laplace2d");
  auto out = dir / "out";
  auto r = run_cli(dir / "cache", "run --backend cpu " + q(sdfg("laplace2d", "auto_optimized_cpu")) +
                                      " --in A=" + q(k / "inputs" / "A.npy") +
                                      " --in B=" + q(k / "inputs" / "B.npy") + " --set-json " +
                                      q(k / "scalars.json") + " --set NL=64 --repeat 3 --out " + q(out));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("call 3: "));
  // Every call starts from the inputs, so the result is one call's.
  CHECK(python(dir, "ok = all(np.allclose(np.load('" + out.string() + "/%s.npy' % n), np.load('" +
                        (k / "expected").string() +
                        "/%s.npy' % n), rtol=1e-12, atol=0) for n in 'AB')\n"
                        "sys.exit(0 if ok else 1)") == 0);
}

TEST_CASE("weir run: bad input fails clearly, exits non-zero and writes nothing", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-bad");
  auto cache = dir / "cache", out = dir / "out";
  auto in = kernel_dir("hdiff") / "inputs";
  auto hdiff = q(sdfg("hdiff"));

  SECTION("the embedded backend does not run SDFG files (an SDFG file's default backend is cpu)") {
    auto r = run_cli(cache, "run --backend embedded " + hdiff + " --in-dir " + q(in) + " --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out,
               Catch::Contains("the embedded backend runs field-view programs; an SDFG file needs a compiled "
                               "backend such as 'cpu'"));
  }
  SECTION("unknown backend") {
    auto r = run_cli(cache, "run --backend tpu " + hdiff + " --in-dir " + q(in) + " --out " + q(out));
    CHECK(r.code == 2);
    CHECK_THAT(r.out,
               Catch::Contains("unknown backend 'tpu'; did you mean 'cpu'? (known: cpu, embedded, gpu)"));
  }
  SECTION("missing arguments") {
    auto r = run_cli(cache, "run --backend cpu " + hdiff + " --in in_field=" + q(in / "in_field.npy") +
                                " --out " + q(out));
    CHECK(r.code == 1);
    // out_field is only written: allocated (tests/cli/test_run_outputs.cpp); coeff is read.
    CHECK_THAT(r.out, Catch::Contains("missing argument 'coeff' (float64 array of shape (16, 16, 8))\n"
                                      "  hint: give it with --in coeff=FILE.npy\n"));
  }
  SECTION("an .npy file of the wrong dtype or shape") {
    REQUIRE(python(dir, "np.save('" + (dir / "coeff_i8.npy").string() +
                            "', np.ones((16, 16, 8), dtype=np.int64))\n"
                            "np.save('" +
                            (dir / "coeff_small.npy").string() + "', np.ones((16, 16, 7)))") == 0);
    auto r = run_cli(cache, "run --backend cpu " + hdiff + " --in-dir " + q(in) +
                                " --in coeff=" + q(dir / "coeff_i8.npy") + " --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out,
               Catch::Contains(
                   "argument 'coeff': expected float64 array of shape (16, 16, 8), got int64 (16, 16, 8)"));
    r = run_cli(cache, "run --backend cpu " + hdiff + " --in-dir " + q(in) +
                           " --in coeff=" + q(dir / "coeff_small.npy") + " --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("argument 'coeff': expected float64 array of shape (16, 16, 8), got "
                                      "float64 (16, 16, 7) (K = 8 from "
                                      "argument 'in_field'"));
  }
  SECTION("a truncated .npy file") {
    auto bytes = weir::test::read_text(in / "coeff.npy");
    std::ofstream(dir / "coeff.npy", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    auto r = run_cli(cache, "run --backend cpu " + hdiff + " --in-dir " + q(in) +
                                " --in coeff=" + q(dir / "coeff.npy") + " --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains((dir / "coeff.npy").string() + ": truncated"));
  }
  SECTION("generated code that does not compile") {
    auto r = run_cli(cache, "run --backend cpu " + q(broken_sdfg(dir)) + " --trust-code --in-dir " + q(in) +
                                " --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("compiling program 'hdiff_simplified' failed: c++ exited with code 1"));
    CHECK_THAT(r.out, Catch::Contains("generated source: ") && Catch::Contains("error"));
  }
  SECTION("a field-view program file that does not exist") {
    auto r = run_cli(cache, "run --backend cpu stencils.py::laplace --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("stencils.py"));
  }
  SECTION("a --set value that is not a number, or an unknown name") {
    auto r =
        run_cli(cache, "run --backend cpu " + hdiff + " --in-dir " + q(in) + " --set I=abc --out " + q(out));
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: --set I=abc: expected a number (an integer, a decimal or true/false)\n");
    // A usage error (2) in every command and on every backend (issue 16).
    r = run_cli(cache, "run --backend cpu " + hdiff + " --in-dir " + q(in) + " --set Q=1 --out " + q(out));
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --set Q=1: program 'hdiff_simplified' has no parameter, symbol or dimension 'Q' "
          "(parameters: in_field, out_field, coeff, I, J, K)\n");
  }
  SECTION("--out onto the inputs") {
    auto copy = dir / "inputs";
    fs::copy(in, copy);
    auto before = weir::test::read_text(copy / "out_field.npy");
    auto r = run_cli(cache, "run --backend cpu " + hdiff + " --in-dir " + q(copy) + " --out " + q(copy));
    // A usage error, refused before compiling (issue 16).
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: --out " + copy.string() + ": would overwrite the input file " +
                       (copy / "out_field.npy").string() + "; choose another output directory\n");
    CHECK(weir::test::read_text(copy / "out_field.npy") == before);
  }
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("weir run --random-inputs uses --set sizes and a seed", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-random");
  auto cmd = "run --backend cpu " + q(sdfg("hdiff")) + " --random-inputs --set I=8 --set J=6 --set K=3";
  auto a = run_cli(dir / "cache", cmd);
  INFO(a.out);
  REQUIRE(a.code == 0);
  CHECK_THAT(a.out, Catch::Contains("out_field: float64 (8, 6, 3)"));
  auto b = run_cli(dir / "cache", cmd);
  auto c = run_cli(dir / "cache", cmd + " --seed 7");
  auto checksum = [](const std::string& s) { return s.substr(s.find("checksum "), 25); };
  CHECK(checksum(a.out) == checksum(b.out));
  CHECK(checksum(a.out) != checksum(c.out));
  auto r = run_cli(dir / "cache", "run --backend cpu " + q(sdfg("hdiff")) + " --random-inputs --set I=8");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("--random-inputs: the shape of 'in_field'") &&
                        Catch::Contains("needs J, K; give them"));
}

TEST_CASE("weir compile: parallel runs share one entry and one failure keeps the others", "[cli][compile]") {
  auto dir = weir::test::scratch_dir("cli-compile");
  auto cache = dir / "cache";
  // Two weir processes compile the same file at once into an empty cache.
  std::string cmd = "WEIR_CACHE_DIR=" + q(cache) + " " + WEIR_BIN + " compile " + q(sdfg("jacobi_2d"));
  std::string both = "(" + cmd + " > " + q(dir / "a.log") + " 2>&1 & a=$!; " + cmd + " > " +
                     q(dir / "b.log") + " 2>&1 & b=$!; wait $a; ra=$?; wait $b; rb=$?; exit $((ra + rb)))";
  int rc = std::system(("bash -c " + q(both)).c_str());
  INFO(weir::test::read_text(dir / "a.log") << weir::test::read_text(dir / "b.log"));
  CHECK((WIFEXITED(rc) && WEXITSTATUS(rc) == 0));
  CHECK_THAT(weir::test::read_text(dir / "a.log"), Catch::Contains("[1/1] ok"));
  CHECK_THAT(weir::test::read_text(dir / "b.log"), Catch::Contains("[1/1] ok"));
  auto info = run_cli(cache, "cache info");
  CHECK(info.code == 0);
  CHECK_THAT(info.out, Catch::Contains("entries: 1\n") && Catch::Contains(cache.string()));

  auto r = run_cli(cache, "compile --trust-code " + q(sdfg("hdiff")) + " " + q(broken_sdfg(dir)) + " " +
                              q(sdfg("jacobi_2d")));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("ok " + sdfg("hdiff").string() + " (compiled"));
  CHECK_THAT(r.out, Catch::Contains("ok " + sdfg("jacobi_2d").string() + " (cached"));
  CHECK_THAT(r.out, Catch::Contains("FAILED " + (dir / "broken.sdfg").string()));
  CHECK_THAT(r.out, Catch::Contains("1 of 3 programs failed"));
  CHECK_THAT(run_cli(cache, "cache info").out, Catch::Contains("entries: 2\n"));

  CHECK(run_cli(cache, "compile --backend embedded " + q(sdfg("hdiff"))).code == 2);  // refused up front
  CHECK(run_cli(cache, "compile --backend nope " + q(sdfg("hdiff"))).code == 2);

  auto clear = run_cli(cache, "cache clear");
  CHECK(clear.code == 0);
  CHECK_THAT(clear.out, Catch::Contains("removed 2 entries"));
  CHECK_THAT(run_cli(cache, "cache info").out, Catch::Contains("entries: 0\n"));
  CHECK(run_cli(cache, "cache").code == 2);
}

TEST_CASE("weir compile: field-view files compile every @program, and a failing one keeps the others",
          "[cli][compile]") {
  auto dir = weir::test::scratch_dir("cli-compile-fv");
  auto cache = dir / "cache";
  fs::path src = fs::path(WEIR_SOURCE_DIR) / "examples";
  // laplacian.py has two programs (laplacian, bi_laplacian); multimodule needs -I.
  auto r =
      run_cli(cache, "compile " + q(src / "cartesian/laplacian.py") + " " +
                         q(src / "multimodule/mymodel/program.py") + "::smooth -I " + q(src / "multimodule"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("[3/3]"));
  CHECK_THAT(r.out, Catch::Contains("laplacian.py::laplacian (compiled") &&
                        Catch::Contains("laplacian.py::bi_laplacian (compiled") &&
                        Catch::Contains("program.py::smooth (compiled"));
  CHECK_THAT(run_cli(cache, "cache info").out, Catch::Contains("entries: 3\n"));

  // An unknown program fails alone; the others are still compiled (here: cached). A misspelt
  // name is a command-line mistake: exit code 2, as in every command.
  auto bad = run_cli(cache, "compile " + q(src / "cartesian/laplacian.py") + "::nope " +
                                q(src / "cartesian/laplacian.py") + "::laplacian");
  INFO(bad.out);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out,
             Catch::Contains("FAILED " + (src / "cartesian/laplacian.py").string() + "::nope") &&
                 Catch::Contains(
                     "no @program, @field_operator, @scan_operator or orchestration function named 'nope'") &&
                 Catch::Contains("laplacian.py::laplacian (cached") &&
                 Catch::Contains("1 of 2 programs failed"));

  // A file without programs, and one that does not load, stop before compiling anything.
  fs::path none = dir / "ops_only.py";
  {
    std::ofstream f(none);
    f << "import gt4py.next as gtx\nfrom gt4py.next import Dims, Field, float64\nI = gtx.Dimension(\"I\")\n\n"
         "@gtx.field_operator\ndef twice(a: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n    return "
         "2.0 * a\n";
  }
  auto empty = run_cli(cache, "compile " + q(none));
  CHECK(empty.code == 1);
  CHECK_THAT(empty.out, Catch::Contains("no @program to compile (name one as FILE.py::NAME)"));
  auto missing = run_cli(cache, "compile " + q(dir / "missing.py"));
  CHECK(missing.code == 1);
  CHECK_THAT(run_cli(cache, "cache info").out, Catch::Contains("entries: 3\n"));
}

TEST_CASE("weir run writes a program's return value to --out without being given it", "[cli][run][return]") {
  // npbench's atax as DaCe writes it: `return A.T @ (A @ x)` is the non-transient __return.
  auto dir = weir::test::scratch_dir("cli-run-return");
  auto cache = dir / "cache", out = dir / "out";
  auto kernel = weir::test::npbench_corpus_dir() / "atax";
  auto r = run_cli(cache, "run --backend cpu " + q(kernel / "atax.simplified.sdfg") + " --in-dir " +
                              q(kernel / "inputs") + " --out " + q(out));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("__return: float64 (500,)"));
  CHECK(
      python(dir,
             "a = np.load('" + (out / "__return.npy").string() + "'); e = np.load('" +
                 (kernel / "expected" / "__return.npy").string() +
                 "')\nsys.exit(0 if a.shape == e.shape and np.allclose(a, e, rtol=1e-10, atol=0) else 1)") ==
      0);
}

TEST_CASE("weir run summarizes and writes complex outputs", "[cli][run][return]") {
  // npbench's mandelbrot1 returns a complex128 array: the summary failed ("value_as_double:
  // unsupported dtype complex128") after the run, so nothing was written. Complex values are
  // summarized by their real and imaginary parts.
  auto dir = weir::test::scratch_dir("cli-run-complex");
  auto cache = dir / "cache", out = dir / "out";
  auto kernel = weir::test::npbench_corpus_dir() / "mandelbrot1";
  auto r = run_cli(cache, "run --backend cpu " + q(kernel / "mandelbrot1.simplified.sdfg") + " --set-json " +
                              q(kernel / "symbols.json") + " --set-json " + q(kernel / "scalars.json") +
                              " --out " + q(out));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("__return_0: complex128 (125, 125)  real part: min "));
  CHECK(
      python(dir, "a = np.load('" + (out / "__return_0.npy").string() + "'); e = np.load('" +
                      (kernel / "expected" / "__return_0.npy").string() +
                      "')\nsys.exit(0 if a.shape == e.shape and np.allclose(a, e, equal_nan=True) else 1)") ==
      0);
}

TEST_CASE("weir run --exact-math: the cpu backend's sin and exp match the embedded backend bit for bit",
          "[cli][run][vector-math]") {
  // A program of math functions on both backends with the same random inputs: with --exact-math
  // the cpu backend calls glibc's scalar functions, as the embedded backend does, so the
  // checksums (SHA-256 of the output's bytes) are equal. Without it the values may differ in
  // the last bits (libmvec, ADR 0031); that is not asserted either way.
  auto dir = weir::test::scratch_dir("cli-run-exact-math");
  std::ofstream(dir / "m.py") << "import gt4py.next as gtx\n"
                                 "from gt4py.next import Field, float64, sin, exp\n"
                                 "I = gtx.Dimension(\"I\")\n\n"
                                 "@gtx.field_operator\n"
                                 "def wave(a: Field[[I], float64]) -> Field[[I], float64]:\n"
                                 "    return sin(a) * exp(a / 8.0)\n\n"
                                 "@gtx.program\n"
                                 "def p(a: Field[[I], float64], out: Field[[I], float64]):\n"
                                 "    wave(a, out=out)\n";
  std::string prog = q(dir / "m.py") + "::p --random-inputs --set I=4096";
  auto cpu = run_cli(dir / "cache", "run --backend cpu --exact-math " + prog);
  INFO(cpu.out);
  REQUIRE(cpu.code == 0);
  auto embedded = run_cli(dir / "cache", "run --backend embedded " + prog);
  INFO(embedded.out);
  REQUIRE(embedded.code == 0);
  auto checksum = [](const std::string& s) { return s.substr(s.find("checksum "), 25); };
  CHECK(checksum(cpu.out) == checksum(embedded.out));

  auto wrong = run_cli(dir / "cache", "run --backend embedded --exact-math " + prog);
  CHECK(wrong.code == 2);
  CHECK_THAT(wrong.out,
             Catch::Contains("--exact-math applies to --backend cpu only (the backend is 'embedded'; "
                             "the embedded backend always calls the scalar functions)"));
}

TEST_CASE("first hour: the program cache does not depend on how the .py path is spelt", "[cli][run][cache]") {
  auto dir = weir::test::scratch_dir("cli-cache-paths");
  const std::string env = cache_env(dir);
  const std::string args = " --random-inputs --set I=5 --set J=4 --set K=1 --backend cpu";
  // Relative to the examples folder, then absolute, then with `..` and `.` in it.
  auto r = run_weir("run cartesian/laplacian.py::laplacian" + args, "cd " + q(ex_path("")) + " && " + env);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\ncompiled in "));
  for (const std::string& spelt : {ex_path("cartesian/laplacian.py").string(),
                                   ex_path("cartesian/../cartesian/./laplacian.py").string()}) {
    INFO(spelt);
    r = run_weir("run " + q(spelt) + "::laplacian" + args, env);
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\nloaded from cache in "));
  }
  // A run-time error names the file as typed, in the user's terms.
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.ones((5, 4, 1))); np.save('o.npy', np.zeros((5, 4, 2)))\n",
                    "make.py") == 0);
  r = run_weir("run cartesian/laplacian.py::laplacian --backend cpu --in f=" + q(dir / "f.npy") +
                   " --in out=" + q(dir / "o.npy"),
               "cd " + q(ex_path("")) + " && " + env);
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::Contains("\nloaded from cache in ") &&
                 Catch::Contains("weir: error: program 'laplacian' stopped with an error: "
                                 "cartesian/laplacian.py:25:5: 'f' is read over K: [0, 2), outside its "
                                 "domain K: [0, 1)\n"));
}

TEST_CASE("first hour: --threads sets the OpenMP threads of the compiled program, and run says how many",
          "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-threads");
  std::ofstream(dir / "copy.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
                                    "I = gtx.Dimension('I')\nJ = gtx.Dimension('J')\n@gtx.field_operator\n"
                                    "def copy(f: Field[[I, J], float64]) -> Field[[I, J], float64]:\n"
                                    "    return f\n";
  REQUIRE(run_weir("sdfg " + q(dir / "copy.py") + "::copy -o " + q(dir / "copy.sdfg")).code == 0);
  REQUIRE(run_weir("optimize " + q(dir / "copy.sdfg") + " --auto cpu -o " + q(dir / "fast.sdfg")).code == 0);
  // The tasklet of the parallel map writes the size of the OpenMP team that runs it.
  auto j = nlohmann::json::parse(weir::test::read_text(dir / "fast.sdfg"));
  for (const char* history : {"orig_sdfg", "transformation_hist", "_meta_weir_transformation_hist"})
    j["attributes"].erase(history);  // (orig_sdfg has a tasklet too)
  weir::test::first_of_type(j, "Tasklet", [](nlohmann::json& t) {
    std::string out = t["attributes"]["out_connectors"].begin().key();
    t["attributes"]["code"] = {{"string_data", out + " = omp_get_num_threads();"}, {"language", "CPP"}};
  });
  j["attributes"]["global_code"] = {{"frame", {{"string_data", "#include <omp.h>"}, {"language", "CPP"}}}};
  std::ofstream(dir / "team.sdfg") << j.dump();
  // 256 x 256 points: maps under 32768 points run without OpenMP (a team of one), split or not.
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.zeros((256, 256))); np.save('o.npy', np.zeros((256, 256)))\n",
                    "make.py") == 0);
  for (int threads : {1, 2}) {
    INFO(threads);
    const std::string n = std::to_string(threads);
    auto r =
        run_weir("run " + q(dir / "team.sdfg") + " --backend cpu --trust-code --in f=" + q(dir / "f.npy") +
                     " --in __out=" + q(dir / "o.npy") + " --threads " + n + " --out " + q(dir / ("t" + n)),
                 cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\nrunning on " + n + " OpenMP thread" + (threads == 1 ? "" : "s") +
                                      " (--threads " + n + ")\n"));
    CHECK(run_numpy(dir, "sys.exit(0 if (np.load('t" + n + "/__out.npy') == " + n + ").all() else 1)\n") ==
          0);
  }
  // Without --threads: one per hardware thread unless OMP_NUM_THREADS says otherwise.
  auto r = run_weir("run " + q(dir / "team.sdfg") + " --backend cpu --trust-code --in f=" + q(dir / "f.npy") +
                        " --in __out=" + q(dir / "o.npy"),
                    "OMP_NUM_THREADS=3 " + cache_env(dir));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\nrunning on 3 OpenMP threads (OMP_NUM_THREADS)\n"));
}

TEST_CASE("weir run: an SDFG file runs on the cpu backend without --backend", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-default-backend");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  auto r = run_weir("sdfg " + q(dir / "b.py") + "::boundary -o " + q(dir / "b.sdfg"));
  REQUIRE(r.code == 0);
  r = run_weir("run " + q(dir / "b.sdfg") + " --in-dir " + q(dir) + " --set nx=5");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out,
             Catch::StartsWith("program 'boundary' (" + (dir / "b.sdfg").string() + ") on backend 'cpu'\n"));
  CHECK_THAT(r.out, Catch::Contains("  out: float64 (5,)  min 0  max 6  mean 3.2"));
  // A field-view program compiled says what was done to it before compiling.
  r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) + " --set nx=5 --backend cpu");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith(
                        "program 'boundary' (" + (dir / "b.py").string() +
                        "::boundary) on backend 'cpu'\nlowered to an SDFG and optimized by auto-optimize-cpu "
                        "('weir sdfg' and 'weir optimize' write and tune it yourself)\n"));
}
