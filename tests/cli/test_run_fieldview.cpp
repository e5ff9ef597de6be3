// `weir run FILE.py::PROGRAM` end to end on the embedded and cpu backends: outputs against NumPy
// references, connectivity tables as .npy arguments, --random-inputs with dimension sizes, and
// bad input (missing argument, wrong dtype, unknown backend, unknown program) failing with a clear
// message, a non-zero exit code, no output files and unchanged inputs.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string example(const std::string& rel) { return q(fs::path(WEIR_SOURCE_DIR) / "examples" / rel); }

// Runs a NumPy script in `dir` with Debian's python3; returns its exit code.
int numpy(const fs::path& dir, const std::string& script) {
  return weir::test::run_numpy(dir, script, "script.py");
}

weir::test::CliRun weir_run(const fs::path& dir, const std::string& args) {
  return weir::test::run_weir("run " + args);
}

}  // namespace

TEST_CASE("weir run FILE.py::PROGRAM: laplacian on embedded and cpu matches NumPy", "[cli][run][fieldview]") {
  auto dir = weir::test::scratch_dir("cli-run-fieldview-lap");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  REQUIRE(numpy(dir, R"(
os.makedirs("in", exist_ok=True)
rng = np.random.default_rng(1)
np.save("in/f.npy", rng.random((9, 7, 3)))
np.save("in/out.npy", np.full((9, 7, 3), -1.0))
)") == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto out = dir / (std::string("out_") + backend);
    auto r = weir_run(dir, example("cartesian/laplacian.py") + "::laplacian --backend " + backend +
                               " --in-dir " + q(dir / "in") + " --out " + q(out));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("program 'laplacian'") &&
                          Catch::Contains("on backend '" + std::string(backend) + "'") &&
                          Catch::Contains("out: float64 (9, 7, 3)"));
    CHECK(numpy(dir, "f = np.load('in/f.npy'); o = np.load('" + out.filename().string() + R"(/out.npy')
ref = np.full(f.shape, -1.0)
ref[1:-1, 1:-1] = -4 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2]
assert np.allclose(o, ref, rtol=1e-12, atol=0), np.abs(o - ref).max()
assert (np.load('in/out.npy') == -1.0).all()  # the input file is unchanged
)") == 0);
  }
}

TEST_CASE("weir run FILE.py::PROGRAM: nabla with connectivity tables from .npy files",
          "[cli][run][fieldview]") {
  auto dir = weir::test::scratch_dir("cli-run-fieldview-nabla");
  REQUIRE(numpy(dir, R"(
os.makedirs("in", exist_ok=True)
rng = np.random.default_rng(2)
nv, ne, nk = 4, 5, 2
e2v = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]], dtype=np.int32)
v2e = np.array([[0, 3, 4], [0, 1, -1], [1, 2, 4], [2, 3, -1]], dtype=np.int64)
arrays = dict(pp=rng.random((nv, nk)), S_MXX=rng.random(ne), S_MYY=rng.random(ne), sign=rng.choice([-1.0, 1.0], (nv, 3)),
              vol=1 + rng.random(nv), out_x=np.zeros((nv, nk)), out_y=np.zeros((nv, nk)), E2V=e2v, V2E=v2e)
for k, v in arrays.items():
    np.save("in/" + k + ".npy", v)
)") == 0);
  auto r = weir_run(dir, example("unstructured/nabla.py") + "::nabla_program --in-dir " + q(dir / "in") +
                             " --out " + q(dir / "out"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(numpy(dir, R"(
a = {k[:-4]: np.load("in/" + k) for k in os.listdir("in")}
zavg = 0.5 * (a["pp"][a["E2V"][:, 0]] + a["pp"][a["E2V"][:, 1]])
for name, s in (("out_x", a["S_MXX"]), ("out_y", a["S_MYY"])):
    contrib = (s[:, None] * zavg)[a["V2E"]] * a["sign"][:, :, None]
    contrib[a["V2E"] < 0] = 0
    ref = contrib.sum(axis=1) / a["vol"][:, None]
    got = np.load("out/" + name + ".npy")
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-15), (name, np.abs(got - ref).max())
)") == 0);
}

TEST_CASE("weir run FILE.py::PROGRAM: --random-inputs with --set DIM=N, and scans", "[cli][run][fieldview]") {
  auto dir = weir::test::scratch_dir("cli-run-fieldview-random");
  auto r =
      weir_run(dir, example("cartesian/vertical_solver.py") +
                        "::vertical_solver --random-inputs --set I=4 --set J=3 --set K=6 --set nk=6 --out " +
                        q(dir / "out"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("x: float64 (4, 3, 6)"));
  r = weir_run(
      dir,
      example("unstructured/nabla.py") +
          "::nabla_program --random-inputs --set Vertex=5 --set Edge=7 --set K=2 --set V2E=3 --set E2V=2");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("out_x: float64 (5, 2)"));
  r = weir_run(dir, example("cartesian/vertical_solver.py") + "::vertical_solver --random-inputs --set nk=6");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("--random-inputs: the shape of 'a'") && Catch::Contains("--set DIM=N"));
}

TEST_CASE("weir run FILE.py::PROGRAM: bad input fails clearly and writes nothing", "[cli][run][fieldview]") {
  auto dir = weir::test::scratch_dir("cli-run-fieldview-bad");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  REQUIRE(numpy(dir, R"(
os.makedirs("in", exist_ok=True)
np.save("in/f.npy", np.ones((6, 5, 2)))
np.save("in/out.npy", np.zeros((6, 5, 2)))
np.save("f32.npy", np.ones((6, 5, 2), dtype=np.float32))
np.save("f2d.npy", np.ones((6, 5)))
)") == 0);
  auto out = dir / "out";
  auto lap = example("cartesian/laplacian.py") + "::laplacian";
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    std::string b = std::string(" --backend ") + backend;
    // Only inputs must be given: the output `out` is allocated by weir.
    // (into another folder: `out` must stay unwritten by the failures below)
    auto r = weir_run(dir, lap + b + " --in f=" + q(dir / "in/f.npy") + " --out " + q(dir / "ok"));
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: out float64 (6, 5, 2)\n"));
    r = weir_run(
        dir, lap + b + " --in-dir " + q(dir / "in") + " --in f=" + q(dir / "f32.npy") + " --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("argument 'f': expected") && Catch::Contains("float64") &&
                          Catch::Contains("got float32"));
    r = weir_run(
        dir, lap + b + " --in-dir " + q(dir / "in") + " --in f=" + q(dir / "f2d.npy") + " --out " + q(out));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("argument 'f': expected"));
    r = weir_run(dir, example("cartesian/laplacian.py") + "::nope" + b + " --in-dir " + q(dir / "in"));
    CHECK(r.code == 2);
    CHECK_THAT(r.out,
               Catch::Contains(
                   "no @program, @field_operator, @scan_operator or orchestration function named 'nope'"));
  }
  auto r = weir_run(dir, lap + " --backend tpu --in-dir " + q(dir / "in") + " --out " + q(out));
  CHECK(r.code == 2);
  CHECK_THAT(r.out,
             Catch::Contains("unknown backend 'tpu'; did you mean 'cpu'? (known: cpu, embedded, gpu)"));
  // A domain error at run time: lap written over the whole field.
  std::ofstream(dir / "whole.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field\nI = gtx.Dimension('I')\n"
         "@gtx.field_operator\ndef d(f: Field[[I], float]) -> Field[[I], float]:\n"
         "    return f(I + 1) - f\n"
         "@gtx.program\ndef p(f: Field[[I], float], out: Field[[I], float]):\n"
         "    d(f, out=out)\n";
  r = weir_run(dir, q(dir / "whole.py") + "::p --random-inputs --set I=5 --out " + q(out));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("whole.py:9:") &&
                        Catch::Contains("does not cover the output domain of 'out' (I: [0, 5))"));
  // A usage error (2), as in every command (issue 16).
  r = weir_run(dir, q(dir / "whole.py") + " --random-inputs --set I=5");
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("whole.py' names no definition: expected FILE.py::NAME"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("weir run FILE.py::SCAN: a scan operator run directly says what to run instead",
          "[cli][run][fieldview]") {
  // Its arguments are values at one level of a column: alone it has no fields, no columns to
  // scan. Both backends refuse it before anything runs, naming the operators that call it.
  const std::string file =
      (fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "vertical_solver.py").string();
  const std::string hint =
      "; run a @field_operator or @program that calls it with fields over K (in this file: "
      "tridiagonal_solve; e.g. weir run " +
      file + "::tridiagonal_solve)\n";
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = weir::test::run_weir("run " + q(file) + "::thomas_backward --backend " + backend +
                                  " --set x_above=1 --set c_mod=2 --set d_mod=3");
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: " + file +
              ":26:1: 'thomas_backward' is a @scan_operator: its arguments are the values at one level of "
              "a column (c_mod: float64, d_mod: float64), so run directly it has no fields to scan along K" +
              hint +
              "def thomas_backward(x_above: float64, c_mod: float64, d_mod: float64) -> float64:\n^\n");
  }
  // A tuple carry is no argument either.
  auto r = weir::test::run_weir("run " + q(file) + "::thomas_forward --random-inputs");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: " + file +
            ":17:1: 'thomas_forward' is a @scan_operator: its arguments are the values at one level of a "
            "column (a: float64, b: float64, c: float64, d: float64), so run directly it has no fields to "
            "scan along K" +
            hint + "def thomas_forward(\n^\n");
}
