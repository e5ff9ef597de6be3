// Program calls: scalar expressions of parameters as arguments, and a domain per output of a
// tuple out= (`domain=({...}, {...})`).
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {
const std::string kOps =
    kPrelude +
    "@gtx.field_operator\n"                                                                            // 11
    "def scale(a: Field[[I, K], float64], s: float64, n: int32) -> Field[[I, K], float64]:\n"          // 12
    "    return a * s + astype(n, float64)\n"                                                          // 13
    "@gtx.field_operator\n"                                                                            // 14
    "def pair(a: Field[[I, K], float64]) -> tuple[Field[[I, K], float64], Field[[I, K], float64]]:\n"  // 15
    "    return a(Koff[1]), a(Koff[-1])\n";                                                            // 16

/// The typed definitions of `src` (loader and checker kept alive with them).
struct Checked {
  ModuleLoader loader{LoaderOptions{{}, false}};
  TypeChecker tc;
  std::vector<const TypedDefinition*> defs;
  explicit Checked(const std::string& src) {
    defs = tc.check_module(loader.load_source(SourceFile("test.py", src)));
  }
};
}  // namespace

TEST_CASE("program arguments: scalar expressions of parameters and literals", "[typecheck][program]") {
  std::string src =
      kOps +
      "@gtx.program\n"                                                                           // 17
      "def p(a: Field[[I, K], float64], b: Field[[I, K], float64], s: float64, nlev: int32):\n"  // 18
      "    scale(a, -s * 2.0 + 1.0, nlev - 1, out=b)\n";                                         // 19
  Checked checked(src);
  const ProgramCall& c = checked.defs[2]->calls[0];
  REQUIRE(c.args.size() == 3);
  CHECK(c.args[1]->kind == TExprKind::Binary);
  CHECK(to_string(c.args[1]->type) == "float64");
  CHECK(to_string(c.args[2]->type) == "int32");
  // a field expression is not a program argument
  expect_error(
      [&] {
        check_text(
            kOps +
            "@gtx.program\n"                                                                           // 17
            "def p(a: Field[[I, K], float64], b: Field[[I, K], float64], s: float64, nlev: int32):\n"  // 18
            "    scale(a + a, s, nlev, out=b)\n");                                                     // 19
      },
      19, 11, "program arguments must be parameters, literals or scalar expressions of them");
  // the types still have to match
  expect_error(
      [&] {
        check_text(
            kOps +
            "@gtx.program\n"                                                                           // 17
            "def p(a: Field[[I, K], float64], b: Field[[I, K], float64], s: float64, nlev: int32):\n"  // 18
            "    scale(a, s, nlev * 1.5, out=b)\n");                                                   // 19
      },
      19, 22, "cannot multiply int32 and float64");
}

TEST_CASE("program domains: one domain per output of a tuple out=", "[typecheck][program]") {
  std::string src =
      kOps +
      "@gtx.program\n"  // 17
      "def p(a: Field[[I, K], float64], x: Field[[I, K], float64], y: Field[[I, K], float64], n: "
      "int32):\n"                                                                                // 18
      "    pair(a, out=(x, y), domain=({I: (0, n), K: (0, n - 1)}, {I: (0, n), K: (1, n)}))\n";  // 19
  Checked checked(src);
  const ProgramCall& c = checked.defs[2]->calls[0];
  CHECK(c.domain.empty());
  REQUIRE(c.outs.size() == 2);
  REQUIRE(c.outs[0].domain.size() == 2);
  REQUIRE(c.outs[1].domain.size() == 2);
  CHECK(c.outs[1].domain[1].lo->literal.int_value == 1);
  CHECK(&c.domain_of(1) == &c.outs[1].domain);
  expect_error(
      [&] {
        check_text(kOps +
                   "@gtx.program\n"  // 17
                   "def p(a: Field[[I, K], float64], x: Field[[I, K], float64], y: Field[[I, K], float64], "
                   "n: int32):\n"                                        // 18
                   "    pair(a, out=(x, y), domain=({I: (0, n)},))\n");  // 19
      },
      19, 32, "domain= gives 1 domain for 2 output fields");
  expect_error(
      [&] {
        check_text(kOps +
                   "@gtx.program\n"  // 17
                   "def p(a: Field[[I, K], float64], x: Field[[I, K], float64], y: Field[[I, K], float64], "
                   "n: int32):\n"                                                    // 18
                   "    pair(a, out=(x, y), domain=({I: (0, n)}, {J: (0, n)}))\n");  // 19
      },
      19, 47, "'J' is not a dimension of out= element 'y'");
}
