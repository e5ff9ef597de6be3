// `weir run FILE.py::PROGRAM` end to end on the embedded and cpu backends: outputs against NumPy
// references, connectivity tables as .npy arguments, --random-inputs with dimension sizes, and
// bad input (missing argument, wrong dtype, unknown backend, unknown program) failing with a clear
// message, a non-zero exit code, no output files and unchanged inputs. README's unstructured
// example (`weir mesh`, then nabla on both backends) runs end to end and matches NumPy.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string example(const std::string& rel) { return q(fs::path(WEIR_SOURCE_DIR) / "examples" / rel); }
using weir::test::run_weir;
using weir::test::cli::python;

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

TEST_CASE("first hour: README's unstructured example runs end to end and matches NumPy",
          "[cli][run][fieldview]") {
  auto dir = weir::test::scratch_dir("cli-readme-unstructured");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // README's commands, from the repository root: the mesh's tables, then nabla on both backends
  // with the same seeded inputs (sizes along Vertex and Edge from the tables' rows).
  const std::string in_root = "cd " + q(WEIR_SOURCE_DIR) + " &&";
  const std::string mesh = q(dir / "mesh");
  auto r = run_weir("mesh --nx 8 --ny 6 -o " + mesh, in_root);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "wrote 9 tables of a 8 x 6 mesh (48 vertices, 144 edges, 96 cells) to " + dir.string() + "/mesh\n");
  const std::string run =
      "run examples/unstructured/nabla.py::nabla_program --in-dir " + mesh + " --random-inputs --set K=4";
  auto embedded = run_weir(run, in_root);
  // (--out with a trailing slash, as README writes it.)
  auto cpu = run_weir(run + " --backend cpu --out '" + (dir / "results").string() + "/'", in_root);
  INFO(embedded.out << cpu.out);
  REQUIRE(embedded.code == 0);
  REQUIRE(cpu.code == 0);
  auto summary = [](const std::string& out) {
    auto at = out.find("\n  out_x: ");
    return out.substr(at, out.find("\n  (checksum", at) - at);
  };
  CHECK_THAT(embedded.out, Catch::Contains("\n  out_x: float64 (48, 4)  min "));
  CHECK(summary(cpu.out) == summary(embedded.out));
  CHECK_THAT(cpu.out, Catch::EndsWith("wrote 2 files to " + (dir / "results").string() + "/\n"));
  CHECK(fs::exists(dir / "results" / "out_x.npy"));
  CHECK(fs::exists(dir / "results" / "out_y.npy"));

  // The same program on inputs NumPy knows: every array from one folder (--in-dir), the results
  // against NumPy's gathers and sums over the same tables.
  python(dir, "inputs.py",
         "e2v = np.load(d + '/mesh/E2V.npy'); v2e = np.load(d + '/mesh/V2E.npy')\n"
         "nv, ne, k = v2e.shape[0], e2v.shape[0], 3\n"
         "rng = np.random.default_rng(7)\n"
         "np.save(d + '/mesh/pp.npy', rng.random((nv, k)))\n"
         "np.save(d + '/mesh/S_MXX.npy', rng.random(ne))\n"
         "np.save(d + '/mesh/S_MYY.npy', rng.random(ne))\n"
         "np.save(d + '/mesh/sign.npy', np.where(rng.random((nv, 6)) < 0.5, -1.0, 1.0))\n"
         "np.save(d + '/mesh/vol.npy', 1.0 + rng.random(nv))\n"
         "np.save(d + '/mesh/out_x.npy', np.zeros((nv, k)))\n"
         "np.save(d + '/mesh/out_y.npy', np.zeros((nv, k)))\n");
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    r = run_weir("run " + example("unstructured/nabla.py::nabla_program") + " --in-dir " + mesh +
                 " --backend " + backend + " --out " + q(dir / backend));
    INFO(r.out);
    REQUIRE(r.code == 0);
    python(dir, std::string("check_") + backend + ".py",
           "m = d + '/mesh/'\n"
           "e2v = np.load(m + 'E2V.npy'); v2e = np.load(m + 'V2E.npy')\n"
           "assert (e2v >= 0).all() and (v2e >= 0).all()\n"
           "pp, sxx, syy = np.load(m + 'pp.npy'), np.load(m + 'S_MXX.npy'), np.load(m + 'S_MYY.npy')\n"
           "sign, vol = np.load(m + 'sign.npy'), np.load(m + 'vol.npy')\n"
           "zavg = 0.5 * (pp[e2v[:, 0]] + pp[e2v[:, 1]])\n"
           "want_x = ((sxx[:, None] * zavg)[v2e] * sign[:, :, None]).sum(axis=1) / vol[:, None]\n"
           "want_y = ((syy[:, None] * zavg)[v2e] * sign[:, :, None]).sum(axis=1) / vol[:, None]\n"
           "o = d + '/" +
               std::string(backend) +
               "/'\n"
               "ok = np.allclose(np.load(o + 'out_x.npy'), want_x, rtol=1e-13, atol=0) and "
               "np.allclose(np.load(o + 'out_y.npy'), want_y, rtol=1e-13, atol=0)\n"
               "sys.exit(0 if ok else 1)\n");
  }
}
