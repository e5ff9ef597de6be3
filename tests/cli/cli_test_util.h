// Helpers shared by several CLI test files: small field-view programs (a Cartesian one with
// integer scalars, an unstructured one over edges), NumPy's Laplacian, a backward scan with a
// shifted read, and a python3 runner for scripts that write or check .npy files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.h"
#include "corpus.h"

namespace weir::test::cli {

/// The backends that run field-view programs.
inline const char* const kBackends[] = {"embedded", "cpu"};

/// A Cartesian program with integer scalars (concat_where over one dimension): boundary(f, nx, out).
inline const char* const kBoundary =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, Dims, float64, int32, concat_where\n"
    "I = gtx.Dimension('I')\n"
    "@gtx.field_operator\n"
    "def bc(f: Field[Dims[I], float64], nx: int32) -> Field[Dims[I], float64]:\n"
    "    return concat_where((I == 0) | (I == nx - 1), f, 2.0 * f)\n"
    "@gtx.program\n"
    "def boundary(f: Field[Dims[I], float64], nx: int32, out: Field[Dims[I], float64]):\n"
    "    bc(f, nx, out=out)\n";

/// Edges to vertices: a direct difference (E2V[0], E2V[1]) and a sum over all of a row:
/// edges(v, de, se).
inline const char* const kEdges =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, Dims, float64, neighbor_sum\n"
    "Vertex = gtx.Dimension('Vertex')\n"
    "Edge = gtx.Dimension('Edge')\n"
    "E2VDim = gtx.Dimension('E2V', kind=gtx.DimensionKind.LOCAL)\n"
    "E2V = gtx.FieldOffset('E2V', source=Vertex, target=(Edge, E2VDim))\n"
    "@gtx.field_operator\n"
    "def diff(v: Field[Dims[Vertex], float64]) -> Field[Dims[Edge], float64]:\n"
    "    return v(E2V[1]) - v(E2V[0])\n"
    "@gtx.field_operator\n"
    "def total(v: Field[Dims[Vertex], float64]) -> Field[Dims[Edge], float64]:\n"
    "    return neighbor_sum(v(E2V), axis=E2VDim)\n"
    "@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)\n"
    "def edges(v: Field[Dims[Vertex], float64], de: Field[Dims[Edge], float64], "
    "se: Field[Dims[Edge], float64]):\n"
    "    diff(v, out=de)\n"
    "    total(v, out=se)\n";

/// NumPy's Laplacian of f on the interior, as examples/cartesian/laplacian.py computes it.
inline const char* const kNumpyLaplacian =
    "def lap(f):\n"
    "    return -4.0 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2]\n";

/// Writes `code` to dir/name after `import numpy as np`, `import sys` and `d = 'DIR'`, and runs
/// it with Debian's python3; REQUIREs exit code 0.
inline void python(const std::filesystem::path& dir, const std::string& name, const std::string& code) {
  const std::string at = "'" + dir.string() + "'";
  std::ofstream(dir / name) << "import numpy as np\nimport sys\nd = " << at << "\n" << code;
  REQUIRE(std::system(("/usr/bin/python3 '" + (dir / name).string() + "'").c_str()) == 0);
}

/// A backward scan over f(K - 1) on domain={I: (1, 3), K: (k0, k1)}; f, g, out are (4, 8).
struct Scans {
  std::filesystem::path dir, py;
  // `name`: the test's own scratch folder (ctest runs the test cases in parallel).
  explicit Scans(const std::string& name) {
    dir = weir::test::scratch_dir("cli-scans-" + name);
    ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
    py = dir / "scans2.py";
    std::ofstream(py) << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64, int32\n\n"
                         "I = gtx.Dimension('I')\n"
                         "K = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
                         "F2 = Field[Dims[I, K], float64]\n\n"
                         "@gtx.scan_operator(axis=K, forward=False, init=1.0)\n"
                         "def bprod(acc: float64, v: float64, w: float64) -> float64:\n"
                         "    return acc * v + w\n\n"
                         "@gtx.field_operator\n"
                         "def bprod_op(f: F2, g: F2) -> F2:\n"
                         "    return bprod(f(K - 1), g)\n\n"
                         "@gtx.program\n"
                         "def bprod_prog(f: F2, g: F2, out: F2, k0: int32, k1: int32):\n"
                         "    bprod_op(f, g, out=out, domain={I: (1, 3), K: (k0, k1)})\n";
    REQUIRE(weir::test::run_numpy(dir,
                                  "np.save('f.npy', np.ones((4, 8)))\nnp.save('g.npy', np.ones((4, 8)))\n"
                                  "np.save('out.npy', np.zeros((4, 8)))\n") == 0);
  }
  weir::test::CliRun run(const std::string& backend, const std::string& sets) const {
    auto q = [](const std::filesystem::path& p) { return "'" + p.string() + "'"; };
    return weir::test::run_weir("run " + q(py) + "::bprod_prog --backend " + backend +
                                " --in f=" + q(dir / "f.npy") + " --in g=" + q(dir / "g.npy") +
                                " --in out=" + q(dir / "out.npy") + " " + sets);
  }
};

}  // namespace weir::test::cli
