// `weir run` on the cpu backend with arrays too small for the program's accesses: the compiled
// program's bounds checks (CodegenOptions::bounds_checks) stop it before it reads or writes outside
// an array; the run exits 1 with a message naming the state, the map, the array, the dimension,
// the range and the shape, and writes no outputs.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("weir run FILE.py::OPERATOR --backend cpu: shifted reads outside the input fail clearly",
          "[cli][run][bounds]") {
  auto dir = weir::test::scratch_dir("cli-run-bounds");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  auto out = dir / "out";
  auto lap = q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") + "::lap";
  // lap called directly: __out as large as f, so f(I - 1) and f(I + 1) reach one point past f
  // on both sides of I (and of J).
  auto r = weir::test::run_weir(
      "run " + lap + " --backend cpu --random-inputs --set I=16 --set J=8 --set K=2 --out " + q(out));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("map '") &&
                        Catch::Contains(
                            ": reads f[-1 .. 16] in dimension 0 of f with shape 16 and f[-1 .. 8] in "
                            "dimension 1 of f with shape 8 (shifted reads need a larger input or a smaller "
                            "output domain)"));
  CHECK_FALSE(fs::exists(out));
  // The embedded backend reports the same fault as a domain error.
  r = weir::test::run_weir(
      "run " + lap + " --backend embedded --random-inputs --set I=16 --set J=8 --set K=2 --out " + q(out));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("does not cover the output domain"));
  CHECK_FALSE(fs::exists(out));

  // A program whose out= is the whole field: f(I + 1) reads one point past f.
  std::ofstream(dir / "whole.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field\nI = gtx.Dimension('I')\n"
         "@gtx.field_operator\ndef d(f: Field[[I], float]) -> Field[[I], float]:\n"
         "    return f(I + 1) - f\n"
         "@gtx.program\ndef p(f: Field[[I], float], out: Field[[I], float]):\n"
         "    d(f, out=out)\n";
  r = weir::test::run_weir("run " + q(dir / "whole.py") +
                           "::p --backend cpu --random-inputs --set I=5 --out " + q(out));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("reads f[0 .. 5] in dimension 0 of f with shape 5"));
  CHECK_FALSE(fs::exists(out));

  // A program called with an output larger than its input: the map over out's domain reads f
  // past its end (f and out have independent sizes).
  std::ofstream(dir / "copy.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field\nI = gtx.Dimension('I')\n"
         "@gtx.field_operator\ndef ident(f: Field[[I], float]) -> Field[[I], float]:\n"
         "    return f\n"
         "@gtx.program\ndef copy(f: Field[[I], float], out: Field[[I], float]):\n"
         "    ident(f, out=out)\n";
  fs::create_directories(dir / "in");
  std::ofstream(dir / "make.py") << "import numpy as np\nnp.save(" << q(dir / "in/f.npy")
                                 << ", np.arange(4.0))\n"
                                 << "np.save(" << q(dir / "in/out.npy") << ", np.zeros(6))\n";
  REQUIRE(std::system(("/usr/bin/python3 " + q(dir / "make.py")).c_str()) == 0);
  r = weir::test::run_weir("run " + q(dir / "copy.py") + "::copy --backend cpu --in-dir " + q(dir / "in") +
                           " --out " + q(out));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("reads f[0 .. 5] in dimension 0 of f with shape 4"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("weir run FILE.py::PROGRAM: a connectivity entry outside its dimension fails before the call",
          "[cli][run][bounds]") {
  auto dir = weir::test::scratch_dir("cli-run-bounds-conn");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  auto out = dir / "out";
  auto prog = q(fs::path(WEIR_SOURCE_DIR) / "examples/unstructured/cell_laplacian.py") + "::cell_laplacian";
  fs::create_directories(dir / "in");
  // 6 cells, 2 levels; row 3 of C2E2CO points at cell 100000000 (the indirect read is not
  // covered by the scope-entry bounds checks), then at cell 6 (one past the end), then at -2.
  auto make =
      [&](const std::string& bad) {
        std::ofstream(dir / "make.py")
            << "import numpy as np\nd = " << q(dir / "in") << "\n"
            << "t = np.array([[i, (i + 1) % 6, (i + 5) % 6, -1] for i in range(6)], dtype=np.int32)\n"
            << "t[3, 1] = " << bad << "\n"
            << "np.save(d + '/C2E2CO.npy', t)\n"
            << "np.save(d + '/psi.npy', np.ones((6, 2)))\nnp.save(d + '/weights.npy', np.ones((6, 4)))\n"
            << "np.save(d + '/lap.npy', np.zeros((6, 2)))\n";
        REQUIRE(std::system(("/usr/bin/python3 " + q(dir / "make.py")).c_str()) == 0);
      };
  for (const std::string bad : {"100000000", "6", "-2"})
    for (const char* backend : {"cpu", "embedded"}) {
      make(bad);
      auto r = weir::test::run_weir("run " + prog + " --backend " + backend + " --in-dir " + q(dir / "in") +
                                    " --out " + q(out));
      INFO(bad << " on " << backend << "\n" << r.out);
      CHECK(r.code == 1);
      // Only 'psi' is read through C2E2CO, so its extent alone bounds the entries (user32's H1:
      // 'weights' and 'lap' are on Cell but not indexed by the table).
      CHECK_THAT(r.out, Catch::Contains("weir: error: connectivity 'C2E2CO': entry [3, 1] = " + bad +
                                        " is outside Cell (size 6, the Cell extent of 'psi' (6, 2))\n"));
      CHECK_FALSE(fs::exists(out));
    }
  // -1 entries (no neighbour) are valid.
  make("-1");
  auto r =
      weir::test::run_weir("run " + prog + " --backend cpu --in-dir " + q(dir / "in") + " --out " + q(out));
  INFO(r.out);
  CHECK(r.code == 0);
}

// A field transposed as a Fortran port keeps it ((K, Cell) for (Cell, K)), with a valid table
// (user32 H2): the entry the table cannot keep below the transposed extent is reported with the
// arrays that disagree on Cell, each with its shape, so the array is blamed, not the table.
TEST_CASE("weir run FILE.py::PROGRAM: a transposed field is named when a table entry passes its extent",
          "[cli][run][bounds]") {
  auto dir = weir::test::scratch_dir("cli-run-bounds-transposed");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  auto prog = q(fs::path(WEIR_SOURCE_DIR) / "examples/unstructured/cell_laplacian.py") + "::cell_laplacian";
  fs::create_directories(dir / "in");
  std::ofstream(dir / "make.py")
      << "import numpy as np\nd = " << q(dir / "in") << "\n"
      << "t = np.array([[i, (i + 1) % 6, (i + 5) % 6, -1] for i in range(6)], dtype=np.int32)\n"
      << "np.save(d + '/C2E2CO.npy', t)\n"
      << "np.save(d + '/psi.npy', np.ones((2, 6)))\nnp.save(d + '/weights.npy', np.ones((6, 4)))\n"
      << "np.save(d + '/lap.npy', np.zeros((6, 2)))\n";
  REQUIRE(std::system(("/usr/bin/python3 " + q(dir / "make.py")).c_str()) == 0);
  for (const char* backend : {"cpu", "embedded"}) {
    auto r = weir::test::run_weir("run " + prog + " --backend " + backend + " --in-dir " + q(dir / "in") +
                                  " --out " + q(dir / "out"));
    INFO(backend << "\n" << r.out);
    CHECK(r.code == 1);
    // Row 0 is [0, 1, 5, -1]: 5 is the first entry not below psi's 2 rows.
    CHECK_THAT(
        r.out,
        Catch::Contains(
            "weir: error: connectivity 'C2E2CO': entry [0, 2] = 5 is outside Cell (size "
            "2, the Cell extent of 'psi' (2, 6); the arguments disagree on Cell: 'psi' "
            "(2, 6) has 2, 'weights' (6, 4) has 6, 'lap' (6, 2) has 6 (is an array of the wrong size, or "
            "transposed, e.g. (K, Cell) for (Cell, K)?))"));
  }
}
