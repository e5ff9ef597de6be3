// Connectivity tables given to `weir run`: both backends say the same of a table's dtype, width
// and rows, run tables of two or three columns to NumPy's results, and refuse a local field wider
// or narrower than its table.
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
using weir::test::cli::kEdges;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("weir run: both backends say the same of a connectivity table's dtype, width and rows",
          "[cli][run][unstructured]") {
  auto dir = weir::test::scratch_dir("cli-run-tables");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "edges.py") << kEdges;
  // 6 edges over 5 vertices; a third column (gt4py takes the neighbours per row from the table).
  REQUIRE(run_numpy(
              dir,
              "e2v = np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 0], [4, 0, 1], [0, 2, 4]], np.int32)\n"
              "v = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])\n"
              "for d, t in (('two', e2v[:, :2]), ('three', e2v), ('short', e2v[:4, :2]),\n"
              "             ('float', e2v[:, :2].astype(np.float64))):\n"
              "    os.makedirs(d)\n"
              "    np.save(d + '/E2V.npy', np.ascontiguousarray(t))\n"
              "    np.save(d + '/v.npy', v)\n"
              "    np.save(d + '/de.npy', np.zeros(6))\n"
              "    np.save(d + '/se.npy', np.zeros(6))\n"
              "    if d in ('two', 'three'):\n"
              "        np.save(d + '/de_ref.npy', v[t[:, 1]] - v[t[:, 0]])\n"
              "        np.save(d + '/se_ref.npy', v[t].sum(axis=1))\n") == 0);
  auto run = [&](const std::string& in, const std::string& backend, const std::string& extra = "") {
    return run_weir("run " + q(dir / "edges.py") + "::edges --in-dir " + q(dir / in) + " --backend " +
                    backend + extra);
  };
  for (const char* backend : kBackends) {
    INFO(backend);
    auto r = run("float", backend);
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: connectivity table 'E2V': expected an int32 or int64 array of shape (n_Edge, "
          "max_neighbours), got float64 (6, 2)\n");
    // Two and three columns run, and agree with NumPy (the sum takes every column given).
    for (const std::string& in : std::vector<std::string>{"two", "three"}) {
      INFO(in);
      r = run(in, backend, " --out " + q(dir / (in + "-" + backend)));
      INFO(r.out);
      CHECK(r.code == 0);
      CHECK(run_numpy(dir,
                      "for n in ('de', 'se'):\n"
                      "    a = np.load('" +
                          in + "-" + backend +
                          "/' + n + '.npy')\n"
                          "    b = np.load('" +
                          in +
                          "/' + n + '_ref.npy')\n"
                          "    assert (a == b).all(), (n, a, b)\n") == 0);
    }
    // 4 rows for 6 edges: the cause is named after the backend's own message.
    r = run("short", backend);
    CHECK(r.code == 1);
    CHECK_THAT(r.out,
               Catch::EndsWith("\n  connectivity table 'E2V' has 4 rows, but 'de' has 6 along Edge (a row "
                               "for every Edge)\n"));
  }
}

TEST_CASE("weir run: a local field wider or narrower than its connectivity table is refused on every backend",
          "[cli][run][unstructured]") {
  auto dir = weir::test::scratch_dir("cli-run-local-width");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "w.py")
      << "import gt4py.next as gtx\n"
         "from gt4py.next import Field, Dims, float64, neighbor_sum\n"
         "Vertex = gtx.Dimension('Vertex')\n"
         "Edge = gtx.Dimension('Edge')\n"
         "E2VDim = gtx.Dimension('E2VDim', kind=gtx.DimensionKind.LOCAL)\n"
         "E2V = gtx.FieldOffset('E2V', source=Vertex, target=(Edge, E2VDim))\n"
         "@gtx.field_operator\n"
         "def wsum(v: Field[Dims[Vertex], float64], w: Field[Dims[Edge, E2VDim], float64]) -> "
         "Field[Dims[Edge], float64]:\n"
         "    return neighbor_sum(v(E2V) * w, axis=E2VDim)\n"
         "@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)\n"
         "def weighted(v: Field[Dims[Vertex], float64], w: Field[Dims[Edge, E2VDim], float64], "
         "se: Field[Dims[Edge], float64]):\n"
         "    wsum(v, w, out=se)\n";
  REQUIRE(run_numpy(dir,
                    "e2v = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 0], [0, 2]], np.int32)\n"
                    "v = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])\n"
                    "for cols in (1, 2, 3):\n"
                    "    d = 'w%d' % cols\n"
                    "    os.makedirs(d)\n"
                    "    np.save(d + '/E2V.npy', e2v)\n"
                    "    np.save(d + '/v.npy', v)\n"
                    "    np.save(d + '/w.npy', np.arange(6.0 * cols).reshape(6, cols))\n"
                    "    np.save(d + '/se.npy', np.zeros(6))\n"
                    "np.save('se_ref.npy', (v[e2v] * np.arange(12.0).reshape(6, 2)).sum(axis=1))\n") == 0);
  for (const char* backend : kBackends) {
    INFO(backend);
    for (int cols : {3, 1}) {
      auto r = run_weir("run " + q(dir / "w.py") + "::weighted --in-dir " +
                        q(dir / ("w" + std::to_string(cols))) + " --backend " + backend);
      CHECK(r.code == 1);
      CHECK(r.out ==
            "weir: error: argument 'w': expected float64 array of shape (6, 2), got float64 (6, " +
                std::to_string(cols) +
                ")\n  'w' is over E2VDim, which has one entry per column of connectivity table 'E2V' "
                "(2)\n");
    }
    const std::string out = "out-" + std::string(backend);
    auto r = run_weir("run " + q(dir / "w.py") + "::weighted --in-dir " + q(dir / "w2") + " --backend " +
                      backend + " --out " + q(dir / out));
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(run_numpy(dir, "a = np.load('" + out +
                             "/se.npy')\nb = np.load('se_ref.npy')\nassert (a == b).all(), (a, b)\n") == 0);
  }
}

TEST_CASE("weir sdfg --neighbors: an exported SDFG takes the connectivity width the user sets",
          "[cli][run][unstructured]") {
  // C2E has 3 neighbours by convention; a mesh whose cells have 2 (or an offset without a
  // conventional count) is exported with --neighbors, and the SDFG then runs its tables.
  auto dir = weir::test::scratch_dir("cli-sdfg-neighbors");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "c.py") << "import gt4py.next as gtx\n"
                                 "from gt4py.next import Field, Dims, float64, neighbor_sum\n"
                                 "Cell = gtx.Dimension('Cell')\n"
                                 "Edge = gtx.Dimension('Edge')\n"
                                 "C2EDim = gtx.Dimension('C2E', kind=gtx.DimensionKind.LOCAL)\n"
                                 "C2E = gtx.FieldOffset('C2E', source=Edge, target=(Cell, C2EDim))\n"
                                 "X2Y = gtx.FieldOffset('X2Y', source=Edge, target=(Cell, C2EDim))\n"
                                 "@gtx.field_operator\n"
                                 "def weighted(e: Field[Dims[Edge], float64], w: Field[Dims[Cell, C2EDim], "
                                 "float64]) -> Field[Dims[Cell], float64]:\n"
                                 "    return neighbor_sum(e(C2E) * w, axis=C2EDim)\n"
                                 "@gtx.field_operator\n"
                                 "def custom(e: Field[Dims[Edge], float64]) -> Field[Dims[Cell], float64]:\n"
                                 "    return neighbor_sum(e(X2Y), axis=C2EDim)\n";
  REQUIRE(run_numpy(dir,
                    "c2e = np.array([[0, 1], [1, 2], [2, 3], [4, 5]], np.int32)\n"
                    "e = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0])\n"
                    "w = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])\n"
                    "np.save('C2E.npy', c2e)\n"
                    "np.save('e.npy', e)\n"
                    "np.save('w.npy', w)\n"
                    "np.save('ref.npy', (e[c2e] * w).sum(axis=1))\n") == 0);
  auto r = run_weir("sdfg " + q(dir / "c.py") + "::weighted -o " + q(dir / "w.sdfg") + " --neighbors C2E=2");
  INFO(r.out);
  REQUIRE(r.code == 0);
  r = run_weir("run " + q(dir / "w.sdfg") + " --in e=" + q(dir / "e.npy") + " --in w=" + q(dir / "w.npy") +
               " --in C2E=" + q(dir / "C2E.npy") + " --out " + q(dir / "out"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(run_numpy(dir,
                  "a = np.load('out/__out.npy')\nb = np.load('ref.npy')\nassert (a == b).all(), (a, b)\n") ==
        0);
  // An offset without a conventional count needs it, and the message says how to give it.
  r = run_weir("sdfg " + q(dir / "c.py") + "::custom -o " + q(dir / "x.sdfg"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::Contains("the number of neighbours of 'X2Y' is not known: give its table (`weir run "
                             "--in X2Y=FILE.npy`, offset_provider= from Python) or its width (`weir sdfg "
                             "--neighbors X2Y=N`"));
  r = run_weir("sdfg " + q(dir / "c.py") + "::custom -o " + q(dir / "x.sdfg") + " --neighbors X2Y=2");
  CHECK(r.code == 0);
  // Mistakes are usage errors that name the option.
  r = run_weir("sdfg " + q(dir / "c.py") + "::weighted -o " + q(dir / "y.sdfg") + " --neighbors C2V=2");
  CHECK(r.code == 2);
  CHECK(r.out ==
        "weir: error: --neighbors C2V=2: the program reads no connectivity 'C2V'; did you mean 'C2E'? (it "
        "reads "
        "C2E)\n");
  r = run_weir("sdfg " + q(dir / "c.py") + "::weighted -o " + q(dir / "y.sdfg") + " --neighbors C2E=x");
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --neighbors C2E=x: expected OFFSET=N, N a whole number from 1 to 4096\n");
  CHECK(!fs::exists(dir / "y.sdfg"));
}
