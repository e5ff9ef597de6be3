// What `weir run` makes of a program's outputs, on both backends: outputs a program only writes
// are allocated as zeros (for a .py program, a @field_operator's `__out` and an SDFG that `weir
// sdfg` wrote), an output given with --in keeps what the program does not write; the run
// summary prints -0.0 as 0 (the file keeps its bits) and complex outputs by their real and
// imaginary parts.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;
using weir::test::cli::kNumpyLaplacian;
using weir::test::cli::python;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }
std::string ex(const std::string& rel) { return q(ex_path(rel)); }
std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }

}  // namespace

TEST_CASE("first hour: the run summary prints -0.0 as 0, and the output file keeps its bits", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-negzero");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "negate.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
                                      "I = gtx.Dimension('I')\n@gtx.field_operator\n"
                                      "def neg(f: Field[[I], float64]) -> Field[[I], float64]:\n"
                                      "    return -f\n@gtx.program\n"
                                      "def negate(f: Field[[I], float64], out: Field[[I], float64]):\n"
                                      "    neg(f, out=out)\n";
  python(dir, "make.py", "np.save(d + '/f.npy', np.zeros(3))\nnp.save(d + '/out.npy', np.ones(3))\n");
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "negate.py") + "::negate --in f=" + q(dir / "f.npy") + " --in out=" +
                      q(dir / "out.npy") + " --backend " + backend + " --out " + q(dir / backend));
    INFO(r.out);
    CHECK(r.code == 0);
    // -0.0 three times: SHA-256 of its bytes as NumPy computes it (7fd0131fa29e1bbc).
    CHECK_THAT(r.out,
               Catch::Contains("\n  out: float64 (3,)  min 0  max 0  mean 0  checksum 7fd0131fa29e1bbc\n"));
    python(dir, std::string("check_") + backend + ".py",
           "o = np.load(d + '/" + std::string(backend) +
               "/out.npy')\n"
               "sys.exit(0 if (o == 0).all() and np.signbit(o).all() else 1)\n");
  }
}

TEST_CASE("first hour: outputs a program only writes are allocated by weir", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-only-written");
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.random.default_rng(3).random((7, 6, 2)))\n", "make.py") == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") + " --in f=" + q(dir / "f.npy") +
                          " --backend " + backend + " --out " + q(dir / backend),
                      cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: out float64 (7, 6, 2)\n"));
    if (std::string(backend) == "cpu")  // what was done before compiling
      CHECK_THAT(r.out,
                 Catch::Contains("\nlowered to an SDFG and optimized by auto-optimize-cpu ('weir sdfg' and "
                                 "'weir optimize' write and tune it yourself)\ncompiled in "));
    // The interior is the Laplacian, the border the zeros weir allocated.
    CHECK(run_numpy(dir, std::string(kNumpyLaplacian) + "f = np.load('f.npy'); o = np.load('" + backend +
                             "/out.npy')\n"
                             "want = np.zeros_like(f); want[1:-1, 1:-1] = lap(f)\n"
                             "sys.exit(0 if o.shape == f.shape and np.array_equal(o, want) else 1)\n") == 0);
  }
  // A @field_operator run directly: its result `__out` is allocated like its input.
  std::ofstream(dir / "scale.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
         "I = gtx.Dimension('I')\nJ = gtx.Dimension('J')\nK = gtx.Dimension('K')\n"
         "@gtx.field_operator\n"
         "def twice(f: Field[[I, J, K], float64]) -> Field[[I, J, K], float64]:\n"
         "    return 2.0 * f\n";
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "scale.py") + "::twice --in f=" + q(dir / "f.npy") + " --backend " +
                          backend + " --out " + q(dir / (std::string("twice_") + backend)),
                      cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: __out float64 (7, 6, 2)\n"));
    CHECK(run_numpy(dir, "f = np.load('f.npy'); o = np.load('twice_" + std::string(backend) +
                             "/__out.npy')\nsys.exit(0 if np.array_equal(o, 2.0 * f) else 1)\n") == 0);
  }
  // An output given with --in keeps its values where the program does not write.
  REQUIRE(run_numpy(dir, "np.save('ones.npy', np.ones((7, 6, 2)))\n", "ones.py") == 0);
  auto r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") + " --in f=" + q(dir / "f.npy") +
                    " --in out=" + q(dir / "ones.npy") + " --out " + q(dir / "given"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("allocated"));
  CHECK(run_numpy(dir, "o = np.load('given/out.npy')\nsys.exit(0 if (o[0] == 1).all() else 1)\n") == 0);
}

TEST_CASE("weir run: complex outputs are summarised and written", "[cli][run][npbench]") {
  // npbench's mandelbrot1 returns a complex128 array: the run summary stopped with
  // "value_as_double: unsupported dtype complex128" and --out wrote nothing.
  auto dir = weir::test::scratch_dir("cli-run-complex-summary");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const fs::path k = weir::test::npbench_corpus_dir() / "mandelbrot1";
  auto r = run_weir("run " + q(k / "mandelbrot1.frontend.sdfg") + " --set-json " + q(k / "symbols.json") +
                    " --set-json " + q(k / "scalars.json") + " --out " + q(dir / "res"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\n  __return_0: complex128 (125, 125)  real part: min ") &&
                        Catch::Contains("  imaginary part: min ") && Catch::Contains("wrote 2 files to "));
  CHECK(weir::test::run_numpy(
            dir, "e = " + q(k / "expected") +
                     "\nok = all(np.allclose(np.load('res/' + n), np.load(e + '/' + n)) for n in "
                     "('__return_0.npy', '__return_1.npy'))\nsys.exit(0 if ok else 1)\n") == 0);
}

TEST_CASE("weir run: an SDFG written by weir sdfg runs with its inputs alone", "[cli][run]") {
  // Its outputs only written (out of laplacian) are allocated as zeros, as when the .py runs;
  // they had to be given as files.
  auto dir = weir::test::scratch_dir("cli-run-sdfg-outputs");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const std::string lap = q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") + "::laplacian";
  REQUIRE(run_weir("sdfg " + lap + " -o " + q(dir / "lap.sdfg")).code == 0);
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.random.default_rng(5).random((6, 5, 3)))\n") == 0);
  auto r =
      run_weir("run " + q(dir / "lap.sdfg") + " --in f=" + q(dir / "f.npy") + " --out " + q(dir / "res"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: out float64 (6, 5, 3)\n"));
  CHECK(weir::test::run_numpy(
            dir,
            "f = np.load('f.npy')\nw = np.zeros((6, 5, 3))\n"
            "w[1:-1, 1:-1] = -4.0 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + "
            "f[1:-1, :-2]\n"
            "sys.exit(0 if np.allclose(np.load('res/out.npy'), w, rtol=0, atol=1e-14) else 1)\n") == 0);
}
