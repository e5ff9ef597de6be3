// Module loading: search path, packages, relative imports, caching, cycles, re-exports,
// module-level evaluation and lazy errors.
#include <cstdlib>

#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {
const std::string kDims =
    "import gt4py.next as gtx\n"
    "from typing import TypeAlias, TypeVar\n"
    "CellDim = gtx.Dimension('Cell')\n"
    "KDim = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
    "T = TypeVar('T')\n"
    "CellKField: TypeAlias = gtx.Field[gtx.Dims[CellDim, KDim], T]\n";
}  // namespace

TEST_CASE("loader: packages, relative imports, re-exports and caching", "[loader]") {
  TempDir d("pkg");
  d.write("pkg/__init__.py", "");
  d.write("pkg/dims.py", kDims);
  d.write("pkg/reexport.py", "from .dims import KDim, CellKField\nfrom . import dims\n");
  d.write("pkg/ops.py",
          "import gt4py.next as gtx\nimport numpy as np\nimport pkg.dims\n"
          "from pkg.reexport import CellKField, dims as d2\n"
          "@gtx.field_operator\n"
          "def ident(a: CellKField[gtx.float64]) -> pkg.dims.CellKField[float]:\n"
          "    return a(d2.KDim + 1)\n");
  d.write("main.py",
          "from gt4py.next import program\nfrom pkg.ops import ident\nfrom pkg import dims\n"
          "@program\ndef p(a: dims.CellKField[float], b: dims.CellKField[float]):\n"
          "    ident(a, out=b)\n");
  ModuleLoader loader(LoaderOptions{{d.str()}, false});
  const LoadedModule& m = loader.load_file(d.str("main.py"));
  CHECK(m.definitions.size() == 1);
  // pkg, pkg.dims, pkg.reexport, pkg.ops, main: each once
  CHECK(loader.modules().size() == 5);
  const Value& dims = m.names.at("dims");
  REQUIRE(dims.kind == ValueKind::Module);
  CHECK(dims.module->name == "pkg.dims");
  CHECK(dims.module->names.at("KDim").dim.kind == DimensionKind::Vertical);
  CHECK(dims.module->names.at("CellKField").kind == ValueKind::GenericAlias);
  TypeChecker tc;
  auto defs = tc.check_module(m);
  CHECK(signature(*defs[0]) == "program p(a: Field[[Cell, K], float64], b: Field[[Cell, K], float64])");
}

TEST_CASE("loader: WEIR_PATH and namespace packages", "[loader]") {
  TempDir d("env");
  d.write("ns/sub/dims.py", kDims);  // no __init__.py anywhere
  d.write("main.py",
          "import gt4py.next as gtx\nfrom ns.sub.dims import KDim\nimport ns.sub.dims as nd\n"
          "@gtx.field_operator\ndef f(a: gtx.Field[[KDim], float]) -> nd.CellKField[float]:\n"
          "    return gtx.broadcast(a, (nd.CellDim, KDim))\n");
  ::setenv("WEIR_PATH", ("/nonexistent:" + d.str()).c_str(), 1);
  ModuleLoader loader;
  ::unsetenv("WEIR_PATH");
  const LoadedModule& m = loader.load_file(d.str("main.py"));
  TypeChecker tc;
  CHECK(signature(*tc.check_module(m)[0]) ==
        "field_operator f(a: Field[[K], float64]) -> Field[[Cell, K], float64]");
}

TEST_CASE("loader: a name missing from a module in an import cycle is a located lazy error", "[loader]") {
  // As in Python: b gets the partially initialised a, which has no `y` yet.
  TempDir d("cycle");
  d.write("a.py", "import b\ny = 2\n");
  d.write("b.py", "x = 1\nfrom a import y\n");
  ModuleLoader loader(LoaderOptions{{d.str()}, false});
  const LoadedModule& a = loader.load_file(d.str("a.py"));
  CHECK(a.names.at("y").constant.int_value == 2);
  const Value& b = a.names.at("b");
  REQUIRE(b.kind == ValueKind::Module);
  const Value& y = b.module->names.at("y");
  REQUIRE(y.kind == ValueKind::Failed);
  CHECK_THAT(y.error, Catch::Matchers::Contains("cannot import name 'y' from 'a'") &&
                          Catch::Matchers::Contains("partially initialized module"));
  CHECK(y.defined_at.line == 2);
  CHECK(y.defined_at.column == 15);
}

TEST_CASE("loader: module-level evaluation", "[loader]") {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(SourceFile(
      "t.py",
      "import gt4py.next as gtx\nfrom gt4py.next import Dimension, DimensionKind, FieldOffset\n"
      "from enum import IntEnum\n"
      "A = Dimension('A', kind=DimensionKind.LOCAL)\nB, C = gtx.Dimension('B'), gtx.Dimension('C')\n"
      "Off = FieldOffset('Off', source=B, target=(C, A))\n"
      "N = (3 + 4) * 2 // 3\nX = 2 ** 10 - 0.5\nN += 1\n"
      "class Color(IntEnum):\n    RED = 1\n    GREEN = N\n"
      "class Other:\n    pass\n"
      "match N:\n    case 1:\n        pass\n"
      "vp = gtx.float32\nbad = unknown_thing + 1\n"
      "def helper(x):\n    return [i for i in x]\n"));
  CHECK(m.names.at("A").dim.kind == DimensionKind::Local);
  CHECK(m.names.at("C").dim.name == "C");
  CHECK(m.names.at("Off").offset.targets.size() == 2);
  CHECK(m.names.at("N").constant.int_value == 5);
  CHECK(m.names.at("X").constant.float_value == 1023.5);
  CHECK(m.names.at("Color").enum_class->members.at("GREEN").constant.int_value == 5);
  // A plain class is a namespace of its attributes (none here), not an enum.
  REQUIRE(m.names.at("Other").kind == ValueKind::Enum);
  CHECK_FALSE(m.names.at("Other").enum_class->is_enum);
  CHECK(m.names.at("Other").enum_class->members.empty());
  CHECK(value_to_type(m.names.at("vp"), {}) == Type::scalar(ScalarKind::Float32));
  CHECK(m.names.at("bad").kind == ValueKind::Failed);
  CHECK(m.names.at("helper").kind == ValueKind::Failed);
}

TEST_CASE("loader: a failed module-level value is an error only where it is used", "[loader]") {
  std::string src = kPrelude +
                    "import numpy as np\n"                                     // 11
                    "Bad = gtx.Dimension(42)\n"                                // 12
                    "unused = np.linspace(0, 1)\n"                             // 13
                    "@gtx.field_operator\n"                                    // 14
                    "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 15
                    "    return a(Bad + 1)\n";                                 // 16
  std::string what = expect_error([&] { check_text(src); }, 16, 14, "'Bad' cannot be used");
  CHECK_THAT(what, Catch::Matchers::Contains("test.py:12:21"));
  CHECK_THAT(what, Catch::Matchers::Contains("the name of a Dimension must be a string"));
  // the same module without the use is fine
  CHECK_NOTHROW(check_text(kPrelude + "import numpy as np\nBad = gtx.Dimension(42)\n"));
}

TEST_CASE("loader: a missing file is a weir::Error", "[loader]") {
  ModuleLoader loader(LoaderOptions{{}, false});
  CHECK_THROWS_AS(loader.load_file("/nonexistent/x.py"), weir::Error);
}

TEST_CASE("loader: relative imports from a file named relative to the working directory", "[loader]") {
  TempDir d("relcwd");
  d.write("dims.py", kDims);
  d.write("main.py", "from . import dims\nfrom . import nothere\nfrom .gone import y\n");
  auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(d.path);
  ModuleLoader loader(LoaderOptions{{}, false});
  // "main.py" has an empty parent path: the package is the working directory, not "".
  const LoadedModule* m = nullptr;
  CHECK_NOTHROW(m = &loader.load_file("main.py"));
  std::filesystem::current_path(cwd);
  REQUIRE(m);
  const Value& dims = m->names.at("dims");
  REQUIRE(dims.kind == ValueKind::Module);
  CHECK(dims.module->names.at("KDim").dim.kind == DimensionKind::Vertical);
  const Value& missing = m->names.at("nothere");
  REQUIRE(missing.kind == ValueKind::Failed);
  CHECK(missing.error == "cannot import name 'nothere' from '.'");
  CHECK(missing.defined_at.line == 2);
  CHECK(missing.defined_at.column == 15);
  const Value& gone = m->names.at("y");
  REQUIRE(gone.kind == ValueKind::Failed);
  // the message says where it was looked for
  CHECK(gone.error == "module '.gone' was not found (no module '" + d.path.filename().string() +
                          ".gone' in " + std::filesystem::canonical(d.path).string() + ")");
  CHECK(gone.defined_at.line == 3);
}
