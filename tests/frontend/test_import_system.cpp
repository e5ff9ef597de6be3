// Python's import system in the module loader: namespace packages over several roots
// (PEP 420), regular packages and modules winning over namespace portions, search order,
// relative imports inside a package's own __init__.py, import cycles, and errors that say
// which directories were searched.
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

const std::string kGrid =
    "import gt4py.next as gtx\n"
    "CellDim = gtx.Dimension('Cell')\n"
    "KDim = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
    "Koff = gtx.FieldOffset('Koff', source=KDim, target=(KDim,))\n";

std::vector<std::string> roots(const TempDir& d, std::initializer_list<const char*> names) {
  std::vector<std::string> out;
  for (const char* n : names) out.push_back(d.str(n));
  return out;
}

}  // namespace

TEST_CASE("imports: a namespace package over three roots, relative imports in __init__.py",
          "[loader][imports]") {
  TempDir d("ns3");
  // `model` has no __init__.py anywhere: one portion per root.
  d.write("r1/model/grid/__init__.py", "from . import dims\nfrom .dims import CellDim, KDim\n");
  d.write("r1/model/grid/dims.py", kGrid);
  d.write("r2/model/ops/__init__.py", "from .shift import up\nfrom . import shift as shift_module\n");
  d.write("r2/model/ops/shift.py",
          "import gt4py.next as gtx\nfrom model.grid import CellDim, KDim, dims\n"
          "@gtx.field_operator\ndef up(a: gtx.Field[[CellDim, KDim], float]) -> gtx.Field[[CellDim, KDim], "
          "float]:\n"
          "    return a(dims.Koff[1])\n");
  d.write(
      "r3/model/app/main.py",
      "import gt4py.next as gtx\nfrom ..grid import CellDim, KDim\nfrom ..ops import up\nimport model.ops\n"
      "@gtx.program\ndef p(a: gtx.Field[[CellDim, KDim], float], b: gtx.Field[[CellDim, KDim], float]):\n"
      "    up(a, out=b)\n"
      "    model.ops.shift_module.up(b, out=a)\n");
  ModuleLoader loader(LoaderOptions{roots(d, {"r1", "r2", "r3"}), false});
  const LoadedModule& m = loader.load_file(d.str("r3/model/app/main.py"));
  CHECK(m.name == "model.app.main");  // named from its root, so `..` is `model`
  TypeChecker tc;
  auto defs = tc.check_module(m);
  REQUIRE(defs.size() == 1);
  CHECK(signature(*defs[0]) == "program p(a: Field[[Cell, K], float64], b: Field[[Cell, K], float64])");
  const LoadedModule* model = nullptr;
  for (const LoadedModule* x : loader.modules())
    if (x->name == "model") model = x;
  REQUIRE(model);
  CHECK(model->portions.size() == 3);  // every root, in search order
  CHECK(model->portions[0] == d.str("r1/model"));
  CHECK(model->portions[2] == d.str("r3/model"));
  // each module once: model, model.grid, model.grid.dims, model.ops, model.ops.shift, model.app, main
  CHECK(loader.modules().size() == 7);
}

TEST_CASE("imports: regular packages and modules win over namespace portions, first root first",
          "[loader][imports]") {
  TempDir d("order");
  d.write("r1/pkg/only_here.py", "X = 1\n");        // a namespace portion of pkg...
  d.write("r2/pkg/__init__.py", "WHERE = 'r2'\n");  // ...loses to the regular package in r2
  d.write("r2/pkg/only_here.py", "X = 2\n");
  d.write("r1/mod/readme.txt", "");        // a namespace portion of mod...
  d.write("r2/mod.py", "WHERE = 'r2'\n");  // ...loses to the module in r2
  d.write("r1/first.py", "WHERE = 'r1'\n");
  d.write("r2/first.py", "WHERE = 'r2'\n");  // the earlier root wins
  d.write("main.py", "import pkg\nfrom pkg import only_here\nimport mod\nimport first\n");
  ModuleLoader loader(LoaderOptions{roots(d, {"r1", "r2"}), false});
  const LoadedModule& m = loader.load_file(d.str("main.py"));
  const LoadedModule* pkg = m.names.at("pkg").module;
  CHECK(pkg->names.at("WHERE").constant.str_value == "r2");
  // a regular package's submodules come from its own directory only
  CHECK(m.names.at("only_here").module->names.at("X").constant.int_value == 2);
  CHECK(m.names.at("mod").module->names.at("WHERE").constant.str_value == "r2");
  CHECK(m.names.at("first").module->names.at("WHERE").constant.str_value == "r1");
}

TEST_CASE("imports: a module that is not found names the directories searched", "[loader][imports]") {
  TempDir d("missing");
  d.write("r1/model/grid.py", kGrid);
  d.write("r2/model/other.py", "");
  d.write("main.py",
          "import gt4py.next as gtx\nfrom model.grid import CellDim\nfrom model.atmosphere import KDim\n"
          "@gtx.field_operator\ndef f(a: gtx.Field[[CellDim, KDim], float]) -> gtx.Field[[CellDim, KDim], "
          "float]:\n"
          "    return a\n");
  ModuleLoader loader(LoaderOptions{roots(d, {"r1", "r2"}), false});
  const LoadedModule& m = loader.load_file(d.str("main.py"));
  TypeChecker tc;
  std::string what =
      expect_error([&] { tc.check_module(m); }, 5, 30, "expected a dimension, got 'model.atmosphere.KDim'");
  CHECK_THAT(what, Catch::Matchers::Contains("no module 'model.atmosphere' in " + d.str("r1/model") + ", " +
                                             d.str("r2/model")));
}

TEST_CASE("imports: cycles Python allows", "[loader][imports]") {
  TempDir d("cycles");
  // a and b import each other; the names each uses exist by the time a definition uses them.
  d.write("pkg/__init__.py", "from . import a\nfrom .b import shifted\n");
  d.write("pkg/a.py", kGrid + "from . import b\nFieldT = gtx.Field[[CellDim, KDim], float]\n");
  d.write("pkg/b.py",
          "import gt4py.next as gtx\nfrom pkg import a\n"
          "@gtx.field_operator\ndef shifted(x: a.FieldT) -> a.FieldT:\n"
          "    return x(a.Koff[1])\n");
  d.write("main.py", "from pkg import shifted\n");
  ModuleLoader loader(LoaderOptions{{d.str()}, false});
  const LoadedModule& m = loader.load_file(d.str("main.py"));
  const Value& s = m.names.at("shifted");
  REQUIRE(s.kind == ValueKind::Definition);
  TypeChecker tc;
  CHECK(signature(tc.check(*s.definition)) ==
        "field_operator shifted(x: Field[[Cell, K], float64]) -> Field[[Cell, K], float64]");
}
