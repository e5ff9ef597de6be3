// Whole example files against golden AST dumps (tests/pycode/data/<name>.py -> <name>.ast).
// Set WEIR_UPDATE_GOLDEN=1 to rewrite the golden files from the current output.
#include <cstdlib>

#include "pycode_test_util.h"

using namespace weir::pycode;
using namespace weir::pycode::test;

namespace {

void check_golden(const std::string& name) {
  std::string source = read_text(data_path(name + ".py"));
  REQUIRE_FALSE(source.empty());
  Module m = parse_module(SourceFile(name + ".py", source));
  std::string actual = dump(m);
  std::string golden_path = data_path(name + ".ast");
  if (std::getenv("WEIR_UPDATE_GOLDEN")) {
    std::ofstream(golden_path, std::ios::binary) << actual;
  }
  std::string expected = read_text(golden_path);
  if (actual != expected) {
    std::string out = std::string(WEIR_BINARY_DIR) + "/" + name + ".ast.actual";
    std::ofstream(out, std::ios::binary) << actual;
    FAIL("AST dump of " << name << ".py differs from " << golden_path << "; actual output in " << out
                        << " (WEIR_UPDATE_GOLDEN=1 rewrites the golden file)");
  }
}

}  // namespace

TEST_CASE("examples: the spec's Laplacian", "[parser][examples]") {
  check_golden("lap");
  Module m = parse_module_file(data_path("lap.py"));
  REQUIRE(m.body.size() == 5);  // import, IDim, JDim (one line, ';'), lap, lap_program
  auto* lap = dyn_cast<FunctionDef>(m.body[3].get());
  REQUIRE(lap);
  CHECK(lap->name == "lap");
  CHECK(lap->loc.line == 5);
  CHECK(unparse(*lap->params[0].annotation) == "gtx.Field[[IDim, JDim], float]");
  auto* ret = dyn_cast<Return>(lap->body[0].get());
  REQUIRE(ret);
  CHECK(unparse(*ret->value) == "-4.0 * f + f(IDim + 1) + f(IDim - 1) + f(JDim + 1) + f(JDim - 1)");
}

TEST_CASE("examples: scan operators with a tuple carry", "[parser][examples]") {
  check_golden("scan");
  Module m = parse_module_file(data_path("scan.py"));
  const FunctionDef* forward = nullptr;
  for (const StmtPtr& s : m.body)
    if (auto* f = dyn_cast<FunctionDef>(s.get()); f && f->name == "tridiag_forward") forward = f;
  REQUIRE(forward);
  auto* deco = dyn_cast<Call>(forward->decorators[0].get());
  REQUIRE(deco);
  REQUIRE(deco->keywords.size() == 3);
  CHECK(deco->keywords[2].arg == "init");
  CHECK(unparse(*deco->keywords[2].value) == "(0.0, 0.0)");
  CHECK(unparse(*forward->returns) == "tuple[float64, float64]");
}

TEST_CASE("examples: stencils mixed with arbitrary Python 3.12", "[parser][examples]") {
  check_golden("mixed");
  Module m = parse_module_file(data_path("mixed.py"));
  int unparsed = 0, defs = 0;
  for (const StmtPtr& s : m.body) {
    if (s->kind == StmtKind::Unparsed) ++unparsed;
    if (auto* f = dyn_cast<FunctionDef>(s.get())) {
      ++defs;
      if (f->name == "add" || f->name == "shifted") CHECK_FALSE(f->body_skipped);
    }
  }
  CHECK(unparsed >= 20);
  CHECK(defs >= 6);
}
