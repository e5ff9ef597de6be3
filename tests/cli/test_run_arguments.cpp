// `weir run`'s arguments, with exact messages on every backend: a missing argument says which
// option gives it (--set NAME=VALUE, --in NAME=FILE.npy, `weir mesh` for connectivity tables);
// --set and --set-json are checked against the program (a name it lacks warns, an int32 out of
// range or a decimal is refused, --set DIM=N must agree with the fields given); the one array of
// a wrong size is blamed; an orchestration function's fields have sizes of their own, and a call
// that reads past one is refused naming it;
// --random-inputs names every extent it lacks, and --save-inputs writes what it made.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;
using weir::test::cli::kBackends;
using weir::test::cli::kBoundary;
using weir::test::cli::kEdges;
using weir::test::cli::kNumpyLaplacian;
using weir::test::cli::python;
using weir::test::cli::Scans;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }
std::string ex(const std::string& rel) { return q(ex_path(rel)); }
std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }

}  // namespace

TEST_CASE("first hour: a missing argument says which option gives it", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-missing-argument");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // A scalar: --set NAME=VALUE, on both backends.
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r =
        run_weir("run " + ex("unstructured/edge_stencil.py::edge_smooth") +
                 " --random-inputs --set Vertex=5 --set Edge=7 --set K=2 --set E2C2V=4 --backend " + backend);
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: missing argument 'strength' (float64 scalar)\n  hint: give it with --set "
          "strength=VALUE\n");
  }
  // A @field_operator run directly: weir allocates its result `__out` like its input (only
  // inputs must be given), and a stencil with shifts says how to run it on a smaller domain.
  python(dir, "make.py", "np.save(d + '/f.npy', np.zeros((6, 4, 2)))\n");
  const std::string lap_py = ex_path("cartesian/laplacian.py").string();
  // The embedded backend's message names the computed domain in every dimension (K too), so its
  // hint slices all three; the cpu backend's names the dimensions read outside (I and J), so its
  // hint slices those two, which leaves K whole the same way.
  const std::string hint_head =
      "  hint: 'lap' is a @field_operator run directly, so its result must cover the whole output array "
      "'__out' (shaped like its inputs); to compute it on part of the domain, run a @program that calls it "
      "with a sliced out=, e.g. lap(f, out=";
  // The same call on both backends: the cpu backend's bounds check names every dimension read
  // outside.
  const std::string out_hint = hint_head + "out[1:-1, 1:-1, :])\n";
  const std::string cpu_out_hint = out_hint;
  auto r = run_weir("run " + ex("cartesian/laplacian.py::lap") + " --in f=" + q(dir / "f.npy"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: " + lap_py +
                             ":14:1: the result of 'lap' is computed over (I: [1, 5), J: [1, 3), K: [0, "
                             "2)), which does not cover the output domain of '__out' (I: [0, 6), J: [0, "
                             "4), K: [0, 2)) (shifted reads need a larger input or a smaller output "
                             "domain)\n" +
                             out_hint));
  CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: __out float64 (6, 4, 2)\n"));
  r = run_weir("run " + ex("cartesian/laplacian.py::lap") + " --in f=" + q(dir / "f.npy") + " --backend cpu");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: program 'lap' stopped with an error: " + lap_py +
                             ":15:23: 'f' is read over I: [-1, 7) and J: [-1, 5), outside its domain "
                             "I: [0, 6) and J: [0, 4)\n"
                             "  in the SDFG: state 'call_0_lap', map 'lap_map': reads f[-1 .. 6] in "
                             "dimension 0 of f with shape 6 and f[-1 .. 4] in dimension 1 of f with "
                             "shape 4 (shifted reads need a larger input or a smaller output domain)\n" +
                             cpu_out_hint));
  // Connectivity tables: --in NAME=FILE.npy; `weir mesh` for the tables it writes, and what a
  // table holds for one it does not write.
  std::ofstream(dir / "ring.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64, neighbor_sum\n"
         "V = gtx.Dimension('V')\nE = gtx.Dimension('E')\n"
         "E2VDim = gtx.Dimension('E2VDim', kind=gtx.DimensionKind.LOCAL)\n"
         "NDim = gtx.Dimension('NDim', kind=gtx.DimensionKind.LOCAL)\n"
         "E2V = gtx.FieldOffset('E2V', source=V, target=(E, E2VDim))\n"
         "N2N = gtx.FieldOffset('N2N', source=V, target=(V, NDim))\n\n"
         "@gtx.field_operator\ndef both(v: Field[[V], float64]) -> tuple[Field[[E], float64], Field[[V], "
         "float64]]:\n"
         "    return v(E2V[0]), neighbor_sum(v(N2N), axis=NDim)\n\n"
         "@gtx.program\ndef ring(v: Field[[V], float64], e: Field[[E], float64], w: Field[[V], float64]):\n"
         "    both(v, out=(e, w))\n";
  python(dir, "ring_in.py",
         "np.save(d + '/v.npy', np.ones(4))\nnp.save(d + '/e.npy', np.zeros(3))\n"
         "np.save(d + '/w.npy', np.zeros(4))\n");
  r = run_weir("run " + q(dir / "ring.py") + "::ring --in v=" + q(dir / "v.npy") +
               " --in e=" + q(dir / "e.npy") + " --in w=" + q(dir / "w.npy"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: missing connectivity table 'E2V' (an int32 or int64 array of shape (n_E, "
        "max_neighbours))\n"
        "  hint: give them with --in E2V=FILE.npy --in N2N=FILE.npy\n"
        "  'N2N' has a row per V with the V index of each neighbour (int32 or int64; -1 = no neighbour)\n"
        "  'weir mesh --nx 8 --ny 6 -o mesh/' writes E2V.npy and the other connectivity tables of a periodic "
        "triangular mesh\n");
}

TEST_CASE("first hour: --save-inputs writes what --random-inputs made, for NumPy", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-save-inputs");
  auto r =
      run_weir("run " + ex("cartesian/laplacian.py::laplacian") +
                   " --random-inputs --set I=6 --set J=5 --set K=2 --seed 4 --backend cpu --save-inputs " +
                   q(dir / "inputs") + " --out " + q(dir / "results"),
               cache_env(dir));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("\nrandom inputs (seed 4): f float64 (6, 5, 2)\nsaved 1 random input to " +
                             (dir / "inputs").string() +
                             " (NAME.npy each)\n"
                             "outputs allocated as zeros: out float64 (6, 5, 2)\n"));
  // Only the inputs are saved (the output is the program's); NumPy on them gives the results.
  CHECK(fs::exists(dir / "inputs" / "f.npy"));
  CHECK_FALSE(fs::exists(dir / "inputs" / "out.npy"));
  CHECK(run_numpy(dir, std::string(kNumpyLaplacian) +
                           "f = np.load('inputs/f.npy'); o = np.load('results/out.npy')\n"
                           "ok = f.shape == (6, 5, 2) and f.dtype == np.float64 and (0 <= f).all() and "
                           "(f < 1).all() and len(np.unique(f)) == f.size\n"
                           "ok = ok and np.array_equal(o[1:-1, 1:-1], lap(f)) and (o[0] == 0).all()\n"
                           "sys.exit(0 if ok else 1)\n") == 0);
  // The same seed makes the same inputs on the embedded backend.
  r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") +
               " --random-inputs --set I=6 --set J=5 --set K=2 --seed 4 --save-inputs " + q(dir / "again"));
  REQUIRE(r.code == 0);
  CHECK(run_numpy(dir,
                  "sys.exit(0 if np.array_equal(np.load('inputs/f.npy'), np.load('again/f.npy')) else "
                  "1)\n") == 0);
  // Without --random-inputs there is nothing to save.
  r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") + " --in f=" + q(dir / "inputs" / "f.npy") +
               " --save-inputs " + q(dir / "x"));
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --save-inputs " + (dir / "x").string() +
                     " saves the inputs --random-inputs makes: give --random-inputs too\n");
  // --help says what it does.
  CHECK_THAT(run_weir("run --help").out,
             Catch::Contains("--save-inputs DIR") && Catch::Contains("write NAME.npy for every input"));
}

TEST_CASE("weir run: a missing scalar argument is said the same way on every backend", "[cli][run]") {
  Scans s("scalar");
  // k1 is a domain bound: a symbol in the lowered SDFG, an argument in the program.
  for (const char* backend : {"cpu", "embedded"}) {
    INFO(backend);
    auto r = s.run(backend, "--set k0=2");
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: missing argument 'k1' (int32 scalar)\n  hint: give it with --set k1=VALUE\n");
    // A decimal for it: the program's words on both backends (cpu said "a symbol").
    r = s.run(backend, "--set k0=2 --set k1=3.7");
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --set k1=3.7: expected an integer ('k1' is an int32 argument of program "
          "'bprod_prog')\n");
  }
}

TEST_CASE("weir run: --set DIM=N that disagrees with a field given is refused", "[cli][run]") {
  // It sized the allocated output (10, 9, 9) next to f of 4 levels, after a warning that it was
  // not used, and the run failed on a domain f does not cover.
  auto dir = weir::test::scratch_dir("cli-run-set-dim");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.ones((6, 4, 4)))\n") == 0);
  const std::string lap = q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") + "::laplacian";
  for (const char* backend : {"embedded", "cpu"}) {
    auto r = run_weir("run " + lap + " --backend " + std::string(backend) + " --in f=" + q(dir / "f.npy") +
                      " --set K=9");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --set K=9: 'f' is 4 long along K; --set K=N sizes the fields weir makes "
          "(--random-inputs, "
          "outputs it allocates) and must agree with the fields given\n");
  }
}

TEST_CASE("weir run: an orchestration function's fields of two sizes, a call reading past the shorter",
          "[cli][run][orchestration]") {
  // Every field has its own size (docs/adr/0049): one step writes v[1:-1] from u, fine; after
  // the swap the second writes u[1:-1] (19 points) reading v (17 long) past its end.
  auto dir = weir::test::scratch_dir("cli-run-orchestration-sizes");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "orch.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64, int32\n\n"
         "I = gtx.Dimension('I')\nF1 = Field[Dims[I], float64]\n\n"
         "@gtx.field_operator\n"
         "def step(u: F1, nu: float64) -> F1:\n"
         "    return u + nu * (u(I + 1) - 2.0 * u + u(I - 1))\n\n"
         "@gtx.program\n"
         "def step_prog(u: F1, nu: float64, out: F1):\n"
         "    step(u, nu, out=out[1:-1])\n\n"
         "def run(u: F1, v: F1, nu: float64, steps: int32):\n"
         "    for n in range(steps):\n"
         "        step_prog(u, nu, v)\n"
         "        u, v = v, u\n";
  REQUIRE(weir::test::run_numpy(dir, "np.save('u.npy', np.ones(20))\nnp.save('v.npy', np.ones(17))\n") == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    for (int steps : {1, 2}) {
      auto r = run_weir("run " + q(dir / "orch.py") + "::run --backend " + backend +
                        " --in u=" + q(dir / "u.npy") + " --in v=" + q(dir / "v.npy") +
                        " --set nu=0.2 --set steps=" + std::to_string(steps));
      INFO(r.out);
      CHECK(r.code == steps - 1);
      if (steps == 1) continue;
      CHECK_THAT(r.out,
                 Catch::Contains(std::string(backend) == "cpu"
                                     ? "orch.py:9:22: 'v' is read over I: [0, 20), outside its domain "
                                       "I: [0, 17)"
                                     : "orch.py:17:9: in the call of 'step_prog' (its 'u' is the argument "
                                       "'v', 'out' is 'v', the argument 'u'): "));
    }
  }
}

TEST_CASE("weir run: the one array of a wrong size is blamed, whatever its place", "[cli][run]") {
  // DaCe's hdiff: in_field is (I + 4, J + 4, K), out_field and coeff (I, J, K). An in_field one
  // row short gave "argument 'out_field': expected (15, 16, 8)": I was taken from the first array.
  auto dir = weir::test::scratch_dir("cli-run-wrong-size");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const fs::path k = weir::test::dace_corpus_dir() / "hdiff";
  REQUIRE(weir::test::run_numpy(dir, "np.save('bad.npy', np.zeros((19, 20, 8)))\n") == 0);
  auto r = run_weir("run " + q(k / "hdiff.simplified.sdfg") + " --in-dir " + q(k / "inputs") +
                    " --in in_field=" + q(dir / "bad.npy"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: argument 'in_field': expected float64 array of shape (20, 20, 8), got float64 "
        "(19, 20, 8) (I = 16 from argument 'out_field' (dimension 0 is I = 16))\n");
}

TEST_CASE("weir run: a --set-json name the program lacks is a warning, and the run goes on", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-set-json");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  // One symbols file shared by several programs: nz is another program's.
  std::ofstream(dir / "sym.json") << R"({"nx": 5, "nz": 3})";
  for (const char* backend : kBackends) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) + " --set-json " +
                      q(dir / "sym.json") + " --backend " + backend);
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(
        r.out,
        Catch::StartsWith(
            "weir: warning: --set-json: program 'boundary' has no parameter, symbol "
            "or dimension 'nz'; did you mean 'nx'? (parameters: f, nx, out; dimensions: I); ignored\n"));
    // 0 and 4 kept, 1..3 doubled: 2 + 4 + 6 = 12 over five points.
    CHECK_THAT(r.out, Catch::Contains("  out: float64 (5,)  min 0  max 6  mean 3.2"));
    CHECK(r.out.find("error") == std::string::npos);
  }
}

TEST_CASE("weir run: an int32 scalar out of range is refused on every backend, not wrapped", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-int32");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  for (const char* backend : kBackends) {
    INFO(backend);
    // 2**32 + 5 wrapped to 5 on the embedded backend (and ran); 3e9 to a negative number.
    for (const std::string& nx : std::vector<std::string>{"4294967301", "3000000000", "-2147483649"}) {
      auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) + " --set nx=" + nx +
                        " --backend " + backend);
      CHECK(r.code == 2);
      CHECK(r.out == "weir: error: --set nx=" + nx +
                         ": expected an integer from -2147483648 to 2147483647 ('nx' is an int32 argument of "
                         "program 'boundary')\n");
    }
    auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) +
                      " --set nx=2.5 --backend " + backend);
    CHECK(r.code == 2);
    CHECK(
        r.out ==
        "weir: error: --set nx=2.5: expected an integer ('nx' is an int32 argument of program 'boundary')\n");
  }
}

TEST_CASE("weir run: --random-inputs names every extent it lacks at once", "[cli][run][unstructured]") {
  auto dir = weir::test::scratch_dir("cli-run-random-sizes");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "edges.py") << kEdges;
  const std::string mesh =
      " (--set DIM=N sizes every field along DIM); or take a mesh's tables and sizes from files: weir mesh "
      "--nx "
      "8 --ny 6 -o mesh, then --in-dir mesh\n";
  // The embedded backend takes the neighbours per row from the table; a compiled program has 2.
  auto r = run_weir("run " + q(dir / "edges.py") + "::edges --random-inputs");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: --random-inputs: the arrays not given ('v', 'de', 'se', 'E2V') need the extents of "
        "Vertex, "
        "Edge, E2V; give them with --set Vertex=N --set Edge=N --set E2V=N" +
            mesh);
  r = run_weir("run " + q(dir / "edges.py") + "::edges --random-inputs --backend cpu");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: --random-inputs: the arrays not given ('v', 'de', 'se', 'E2V') need the extents of "
        "Vertex, "
        "Edge; give them with --set Vertex=N --set Edge=N" +
            mesh);
  // Given, it runs.
  r = run_weir("run " + q(dir / "edges.py") +
               "::edges --random-inputs --set Vertex=5 --set Edge=6 --set E2V=2");
  CHECK(r.code == 0);
}

TEST_CASE("weir run: 0-d fields given and written as 0-d .npy files", "[cli][run]") {
  // gt4py passes Field[Dims[()], T] as 0-d arrays: a read-only one is a scalar of the program
  // (--in takes its 0-d file), a written one an out= array that --out writes with shape ().
  auto dir = weir::test::scratch_dir("cli-run-zero-dim");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const fs::path py = fs::path(WEIR_SOURCE_DIR) / "python/tests/programs/zero_dim.py";
  REQUIRE(run_numpy(dir,
                    "np.save('a.npy', np.array(2.0)); np.save('z.npy', np.array(0.0))\n"
                    "np.save('f.npy', np.arange(5.0)); np.save('o.npy', np.zeros(5))\n"
                    "np.save('v.npy', np.zeros(3))\n") == 0);
  const std::string in = " --in a=" + q(dir / "a.npy") + " --set b=3 --in s=" + q(dir / "z.npy") +
                         " --in p=" + q(dir / "z.npy") + " --in f=" + q(dir / "f.npy") +
                         " --in out=" + q(dir / "o.npy");
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    const fs::path res = dir / (std::string("res_") + backend);
    auto r = run_weir("run " + q(py) + "::chain --backend " + backend + in + " --out " + q(res));
    INFO(r.out);
    REQUIRE(r.code == 0);
    // s = 2 - 3 = -1, p = 6, out = f * -1
    CHECK(run_numpy(res,
                    "s = np.load('s.npy'); p = np.load('p.npy'); o = np.load('out.npy')\n"
                    "ok = s.shape == () and s == -1.0 and p.shape == () and p == 6.0 and "
                    "(o == -np.arange(5.0)).all()\n"
                    "sys.exit(0 if ok else 1)\n") == 0);
    // A scalar's file must be 0-d.
    r = run_weir("run " + q(py) + "::chain --backend " + backend + " --in a=" + q(dir / "v.npy") +
                 " --set b=3 --in s=" + q(dir / "z.npy") + " --in p=" + q(dir / "z.npy") +
                 " --in f=" + q(dir / "f.npy") + " --in out=" + q(dir / "o.npy"));
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: --in a=" + (dir / "v.npy").string() +
                       ": 'a' is a scalar of program 'chain': give it with --set a=VALUE or as a 0-d array "
                       "(shape ()), not float64 (3,)\n");
  }
}

TEST_CASE("weir run: a field with an extent 0 in any dimension gives an empty result", "[cli][run]") {
  // A user's report: `--set I=3 --set K=0` was refused on the cpu backend (NumPy's strides of an
  // empty array, (1, 1), against the program's, (0, 1)); the embedded backend ran it. An array
  // without elements is never addressed: every backend writes an empty out.npy of that shape.
  auto dir = weir::test::scratch_dir("cli-run-empty-extent");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const fs::path py = fs::path(WEIR_SOURCE_DIR) / "python/tests/programs/column_sum.py";
  for (const char* backend : kBackends)
    for (const auto& [i, k] : std::vector<std::pair<int, int>>{{3, 0}, {0, 4}, {1, 0}}) {
      INFO(backend << " I=" << i << " K=" << k);
      const fs::path res = dir / (std::string(backend) + std::to_string(i) + "x" + std::to_string(k));
      auto r = run_weir("run " + q(py) + "::column_sum --backend " + backend + " --random-inputs --set I=" +
                        std::to_string(i) + " --set K=" + std::to_string(k) + " --out " + q(res));
      INFO(r.out);
      REQUIRE(r.code == 0);
      CHECK(run_numpy(res, "o = np.load('out.npy')\nsys.exit(0 if o.shape == (" + std::to_string(i) + ", " +
                               std::to_string(k) + ") and o.dtype == np.float64 else 1)\n") == 0);
    }
}

TEST_CASE("weir run: a negative --set DIM=N is a usage error naming the option", "[cli][run][usage]") {
  // A user's report: `--set I=-4 --random-inputs` exited 1 ("negative extent in shape (-4, 3)");
  // a value no field can have is a mistake in the command (exit 2, README), on every backend.
  auto dir = weir::test::scratch_dir("cli-run-negative-extent");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const fs::path py = fs::path(WEIR_SOURCE_DIR) / "python/tests/programs/column_sum.py";
  for (const char* backend : kBackends) {
    INFO(backend);
    auto r = run_weir("run " + q(py) + "::column_sum --backend " + backend +
                      " --random-inputs --set I=-4 --set K=3");
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --set I=-4: an extent cannot be negative (--set I=N gives the number of points along "
          "dimension I, 0 or more)\n");
  }
}

TEST_CASE("set FIELD.DIM=N sizes one field of a @program: full and half levels", "[cli][run]") {
  // user30 F14: `--set K=N` sized every field along K alike, so a @program with half-level
  // (nlev + 1) and full-level (nlev) fields could not get random inputs of both sizes.
  auto dir = weir::test::scratch_dir("cli-run-field-extent");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "levels.py") << "import gt4py.next as gtx\n"
                                      "from gt4py.next import Field, float64\n"
                                      "C = gtx.Dimension('C')\n"
                                      "K = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
                                      "CK = Field[[C, K], float64]\n"
                                      "@gtx.field_operator\n"
                                      "def to_full(w: CK) -> CK:\n"
                                      "    return 0.5 * (w + w(K + 1))\n"
                                      "@gtx.program\n"
                                      "def interp(w: CK, wfull: CK, nlev: gtx.int32):\n"
                                      "    to_full(w, out=wfull, domain={C: (0, 8), K: (0, nlev)})\n";
  const std::string prog = q(dir / "levels.py") + "::interp";
  for (const char* backend : kBackends) {
    INFO(backend);
    const fs::path in = dir / (std::string("in_") + backend), out = dir / (std::string("out_") + backend);
    auto r = run_weir("run " + prog +
                      " --random-inputs --set C=8 --set K=7 --set wfull.K=6 --set nlev=6 --backend " +
                      backend + " --save-inputs " + q(in) + " --out " + q(out));
    REQUIRE(r.code == 0);
    // w: 7 half levels; wfull: 6 full levels, each the mean of the half levels around it.
    CHECK(run_numpy(dir, "w = np.load('" + in.string() + "/w.npy'); o = np.load('" + out.string() +
                             "/wfull.npy')\n"
                             "ok = w.shape == (8, 7) and o.shape == (8, 6)\n"
                             "ok = ok and np.array_equal(o, 0.5 * (w[:, :6] + w[:, 1:]))\n"
                             "sys.exit(0 if ok else 1)\n") == 0);
  }
  // Mistakes in the name, the dimension and the extent, each a usage error.
  auto r = run_weir("run " + prog + " --random-inputs --set C=8 --set K=7 --set nlev=6 --set wful.K=6");
  CHECK(r.code == 2);
  CHECK(r.out ==
        "weir: error: --set wful.K=6: program 'interp' has no field 'wful'; did you mean 'wfull'? "
        "(--set FIELD.DIM=N sizes one field along one dimension)\n");
  r = run_weir("run " + prog + " --random-inputs --set C=8 --set K=7 --set nlev=6 --set wfull.J=6");
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --set wfull.J=6: 'wfull' has no dimension J (it is over C, K)\n");
  r = run_weir("run " + prog + " --random-inputs --set C=8 --set K=7 --set nlev=6 --set wfull.K=-1");
  CHECK(r.code == 2);
  CHECK(r.out ==
        "weir: error: --set wfull.K=-1: an extent is an integer, 0 or more (the number of points of "
        "'wfull' along K)\n");
}

TEST_CASE("an output file in a missing folder is refused before anything compiles", "[cli][run]") {
  // user31 G5: `--profile=nodir/p.json` compiled and ran the program, printed the table, then
  // failed to write; `optimize -o` likewise after its passes.
  auto dir = weir::test::scratch_dir("cli-run-output-folder");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const std::string lap =
      ex("cartesian/laplacian.py::laplacian") + " --random-inputs --set I=6 --set J=5 --set K=2";
  const fs::path missing = dir / "nodir" / "p.json";
  auto r = run_weir("run " + lap + " --backend cpu --profile=" + q(missing));
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --profile=" + missing.string() + ": no such directory '" +
                     (dir / "nodir").string() + "' (weir creates no folders for it)\n");
  r = run_weir("run " + lap + " --backend cpu --profile=" + q(dir));
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --profile=" + dir.string() + ": is a directory; give a file name (" +
                     (dir / "NAME").string() + ")\n");
  // Nothing was compiled for either.
  CHECK_FALSE(fs::exists(dir / "cache"));
  const std::string sdfg = (weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg").string();
  r = run_weir("optimize " + q(sdfg) + " --auto cpu -o " + q(missing));
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: -o " + missing.string() + ": no such directory '" + (dir / "nodir").string() +
                     "' (weir creates no folders for it)\n");
}
