// Frontend speed on a big code base: generates a common package (dimensions, offsets, type
// aliases, constants, shared operators) and N stencil files importing it, then loads,
// type-checks and lowers every program of every file in ONE process with one loader (each
// module parsed once), as `weir check FILES...` does. Prints the time per phase; the target
// is under 2 s for 200 files (issue 14).
//
//   weir_bench_frontend [--files N] [--dir DIR] [--keep 1]
// (default 200 files in a temporary dir, removed afterwards unless --keep 1; the kept files
// time the CLI too: `weir check DIR/stencils/*.py -I DIR --lower`).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"

namespace fs = std::filesystem;
using namespace weir::frontend;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

/// The common package `common`: the grid, constants and operators every stencil file uses.
void write_common(const fs::path& root) {
  write(root / "common/__init__.py",
        "from . import dims\nfrom .dims import *\nfrom .constants import Consts\nfrom .ops import average, "
        "grad\n");
  write(root / "common/dims.py",
        "from typing import TypeAlias, TypeVar\nimport gt4py.next as gtx\n"
        "CellDim = gtx.Dimension('Cell')\nEdgeDim = gtx.Dimension('Edge')\nVertexDim = "
        "gtx.Dimension('Vertex')\n"
        "KDim = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
        "C2EDim = gtx.Dimension('C2E', kind=gtx.DimensionKind.LOCAL)\n"
        "E2CDim = gtx.Dimension('E2C', kind=gtx.DimensionKind.LOCAL)\n"
        "C2E = gtx.FieldOffset('C2E', source=EdgeDim, target=(CellDim, C2EDim))\n"
        "E2C = gtx.FieldOffset('E2C', source=CellDim, target=(EdgeDim, E2CDim))\n"
        "Koff = gtx.FieldOffset('Koff', source=KDim, target=(KDim,))\n"
        "T = TypeVar('T')\n"
        "CellKField: TypeAlias = gtx.Field[gtx.Dims[CellDim, KDim], T]\n"
        "EdgeKField: TypeAlias = gtx.Field[gtx.Dims[EdgeDim, KDim], T]\n"
        "wpfloat = gtx.float64\n");
  write(root / "common/constants.py", "class Consts:\n    A = 2.0\n    B = A * 0.25\n    C = B / 3.0\n");
  write(root / "common/ops.py",
        "import gt4py.next as gtx\nfrom .dims import C2E, C2EDim, E2C, CellKField, EdgeKField, wpfloat\n"
        "@gtx.field_operator\ndef average(e: EdgeKField[wpfloat]) -> CellKField[wpfloat]:\n"
        "    return gtx.neighbor_sum(e(C2E), axis=C2EDim) / 3.0\n"
        "@gtx.field_operator\ndef grad(c: CellKField[wpfloat]) -> EdgeKField[wpfloat]:\n"
        "    return c(E2C[1]) - c(E2C[0])\n");
}

/// Stencil file `i`: two operators and a program, with a few variations.
std::string stencil(int i) {
  std::string n = std::to_string(i);
  return "import gt4py.next as gtx\n"
         "from common import CellDim, KDim, Koff, E2C, Consts, CellKField, EdgeKField, wpfloat, average, "
         "grad\n"
         "from common import dims\n"
         "@gtx.field_operator\n"
         "def step_" +
         n +
         "(c: CellKField[wpfloat], e: EdgeKField[wpfloat], w: wpfloat) -> CellKField[wpfloat]:\n"
         "    a, b = gtx.astype((c, e), wpfloat)\n"
         "    s = average(grad(a) * Consts.B + b * " +
         std::to_string(1 + i % 7) +
         ".0)\n"
         "    up = a(Koff[1]) * Consts.C\n"
         "    return gtx.where(s > 0.0, s + up * w, s - up)\n"
         "@gtx.field_operator\n"
         "def edge_" +
         n +
         "(c: CellKField[wpfloat]) -> EdgeKField[wpfloat]:\n"
         "    return c(E2C[0])(Koff[1]) + grad(c)\n"
         "@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)\n"
         "def program_" +
         n +
         "(c: CellKField[wpfloat], e: EdgeKField[wpfloat], out: CellKField[wpfloat],\n"
         "        eout: EdgeKField[wpfloat], w: wpfloat, n_cells: gtx.int32, nlev: gtx.int32):\n"
         "    step_" +
         n +
         "(c, e, w * 0.5, out=out, domain={CellDim: (0, n_cells), KDim: (0, nlev - 1)})\n"
         "    edge_" +
         n + "(out, out=eout, domain={dims.EdgeDim: (0, 10), KDim: (0, nlev - 1)})\n";
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int files = 200;
  bool keep = false;
  fs::path dir = fs::temp_directory_path() / "weir_frontend_bench";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--files")
      files = std::stoi(argv[i + 1]);
    else if (a == "--dir")
      dir = argv[i + 1];
    else if (a == "--keep")
      keep = std::string(argv[i + 1]) == "1";
    else {
      std::cerr << "usage: weir_bench_frontend [--files N] [--dir DIR] [--keep 1]\n";
      return 2;
    }
  }
  fs::remove_all(dir);
  write_common(dir);
  for (int i = 0; i < files; ++i)
    write(dir / "stencils" / ("stencil_" + std::to_string(i) + ".py"), stencil(i));

  auto t0 = std::chrono::steady_clock::now();
  ModuleLoader loader(LoaderOptions{{dir.string()}, false});
  std::vector<const LoadedModule*> mods;
  for (int i = 0; i < files; ++i)
    mods.push_back(&loader.load_file((dir / "stencils" / ("stencil_" + std::to_string(i) + ".py")).string()));
  double t_load = since(t0);
  auto t1 = std::chrono::steady_clock::now();
  TypeChecker tc;
  std::size_t defs = 0, errors = 0;
  std::vector<const TypedDefinition*> programs;
  for (const LoadedModule* m : mods) {
    ModuleCheck r = tc.check_all(*m);
    defs += r.definitions;
    errors += r.errors.size();
    for (const FrontendError& e : r.errors) std::cerr << e.what() << "\n";
    for (const TypedDefinition* d : r.checked)
      if (d->kind == DefinitionKind::Program) programs.push_back(d);
  }
  double t_check = since(t1);
  auto t2 = std::chrono::steady_clock::now();
  std::size_t states = 0;
  for (const TypedDefinition* p : programs) states += lower_to_sdfg(*p)->num_blocks();
  double t_lower = since(t2);
  double total = since(t0);
  std::printf(
      "files %d, modules loaded %zu, definitions %zu, errors %zu, programs lowered %zu (%zu states)\n", files,
      loader.modules().size(), defs, errors, programs.size(), states);
  std::printf("load+parse %.3f s, type-check %.3f s, lower %.3f s, total %.3f s (target < 2 s)\n", t_load,
              t_check, t_lower, total);
  if (!keep) fs::remove_all(dir);
  return errors ? 1 : 0;
}
