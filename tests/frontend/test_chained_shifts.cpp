// Calls and shifts of any expression yielding a field: `a(E2V[0])(Koff[1])`, `a(E2V[0])(K + 1)`,
// `(a + b)(Koff[1])`, `f(a)(Koff[1])`, `t[0](E2V[1])`.
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

TEST_CASE("chained shifts: every expression yielding a field can be shifted", "[typecheck][shifts]") {
  std::string src = kPrelude +
                    "@gtx.field_operator\n"                                              // 11
                    "def ident(a: Field[[V, K], float64]) -> Field[[V, K], float64]:\n"  // 12
                    "    return a\n"                                                     // 13
                    "@gtx.field_operator\n"                                              // 14
                    "def f(a: Field[[V, K], float64]) -> Field[[E, K], float64]:\n"      // 15
                    "    t = (a, a)\n"                                                   // 16
                    "    return a(E2V[0])(Koff[1]) + a(E2V[1])(K + 1) + (a + a)(E2V[0]) + "
                    "ident(a)(E2V[1])(Koff[-1]) + t[0](E2V[1])\n";
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(SourceFile("test.py", src));
  TypeChecker tc;
  auto defs = tc.check_module(m);
  REQUIRE(defs.size() == 2);
  CHECK(signature(*defs[1]) == "field_operator f(a: Field[[V, K], float64]) -> Field[[E, K], float64]");
  // the first term: a Shift (Koff[1]) of a Shift (E2V[0]) of `a`
  const TExpr* e = defs[1]->body[1].value.get();
  while (e->kind == TExprKind::Binary) e = e->args[0].get();
  REQUIRE(e->kind == TExprKind::Shift);
  CHECK(e->shifts[0].offset.name == "Koff");
  REQUIRE(e->args[0]->kind == TExprKind::Shift);
  CHECK(e->args[0]->shifts[0].offset.name == "E2V");
  CHECK(e->args[0]->args[0]->kind == TExprKind::Name);
}

TEST_CASE("chained shifts: shifting what is not a field is a located error", "[typecheck][shifts]") {
  expect_error(
      [&] {
        check_text(kPrelude +
                   "@gtx.field_operator\n"                                          // 11
                   "def f(a: Field[[V, K], float64]) -> Field[[E, K], float64]:\n"  // 12
                   "    return (a, a)(E2V[0])\n");                                  // 13
      },
      13, 12, "only fields can be shifted");
  // a shift the result no longer has the dimension for: `E2V` moved it to E
  expect_error(
      [&] {
        check_text(kPrelude +
                   "@gtx.field_operator\n"                                          // 11
                   "def f(a: Field[[V, K], float64]) -> Field[[E, K], float64]:\n"  // 12
                   "    return a(E2V[0])(E2V[1])\n");                               // 13
      },
      13, 22, "it has no dimension 'V'");
}
