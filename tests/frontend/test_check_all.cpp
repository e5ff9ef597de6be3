// Checking a whole module: definitions nested in plain functions (as gt4py's own tests write
// them) are checked where their names resolve at module scope, and every independent error is
// reported (once, where it is), up to a limit.
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

ModuleCheck check_all_text(const std::string& text, std::size_t max_errors = 20) {
  static std::vector<std::unique_ptr<ModuleLoader>> keep;  // the results point into the loader
  static std::vector<std::unique_ptr<TypeChecker>> checkers;
  keep.push_back(std::make_unique<ModuleLoader>(LoaderOptions{{}, false}));
  checkers.push_back(std::make_unique<TypeChecker>());
  const LoadedModule& m = keep.back()->load_source(SourceFile("test.py", text));
  return checkers.back()->check_all(m, max_errors);
}

}  // namespace

TEST_CASE("check_all: definitions nested in plain functions are checked", "[typecheck][check_all]") {
  std::string src = kPrelude +
                    "import pytest\n"                                                   // 11
                    "@gtx.field_operator\n"                                             // 12
                    "def top(a: Field[[I], float64]) -> Field[[I], float64]:\n"         // 13
                    "    return a\n"                                                    // 14
                    "def test_shift(cartesian_case):\n"                                 // 15
                    "    for _ in range(2):\n"                                          // 16 (not parsed)
                    "        pass\n"                                                    // 17
                    "    @gtx.field_operator\n"                                         // 18
                    "    def testee(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 19
                    "        return top(a)(I + 1)\n"                                    // 20
                    "    @gtx.program\n"                                                // 21
                    "    def prog(a: Field[[I], float64], b: Field[[I], float64]):\n"   // 22
                    "        testee(a, out=b)\n"                                        // 23
                    "    assert cartesian_case is not None\n"                           // 24
                    "    def helper():\n"                                               // 25
                    "        @gtx.field_operator\n"                                     // 26
                    "        def inner(a: Field[[K], int32]) -> Field[[K], int32]:\n"   // 27
                    "            return a + 1\n"                                        // 28
                    "        return inner\n";                                           // 29
  ModuleCheck r = check_all_text(src);
  CHECK(r.errors.empty());
  CHECK(r.definitions == 4);
  CHECK(r.nested == 3);
  REQUIRE(r.checked.size() == 4);
  CHECK(r.checked[1]->source->scope == "test_shift");
  CHECK(signature(*r.checked[2]) == "program prog(a: Field[[I], float64], b: Field[[I], float64])");
  CHECK(r.checked[3]->source->scope == "test_shift.helper");
}

TEST_CASE("check_all: a fixture used in a nested definition is an error there", "[typecheck][check_all]") {
  std::string src = kPrelude +
                    "def test_x(cartesian_case):\n"                                       // 11
                    "    @gtx.field_operator\n"                                           // 12
                    "    def testee(a: cartesian_case.IField) -> Field[[I], float64]:\n"  // 13
                    "        return a\n";                                                 // 14
  ModuleCheck r = check_all_text(src);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].location().line == 13);
  CHECK_THAT(r.errors[0].message(), Catch::Matchers::Contains("unknown name 'cartesian_case'"));
}

TEST_CASE("check_all: every independent error, once, with a limit", "[typecheck][check_all]") {
  std::string src =
      kPrelude +
      "@gtx.field_operator\n"                                                                   // 11
      "def bad_add(a: Field[[I], float64], b: Field[[I], float32]) -> Field[[I], float64]:\n"   // 12
      "    return a + b\n"                                                                      // 13
      "@gtx.field_operator\n"                                                                   // 14
      "def uses_bad(a: Field[[I], float64], b: Field[[I], float32]) -> Field[[I], float64]:\n"  // 15
      "    return bad_add(a, b)\n"                                                              // 16
      "@gtx.field_operator\n"                                                                   // 17
      "def good(a: Field[[I], float64]) -> Field[[I], float64]:\n"                              // 18
      "    return a\n"                                                                          // 19
      "@gtx.field_operator\n"                                                                   // 20
      "def unknown(a: Field[[I], float64]) -> Field[[I], float64]:\n"                           // 21
      "    return a + nothing\n";                                                               // 22
  ModuleCheck r = check_all_text(src);
  CHECK(r.definitions == 4);
  CHECK(r.failed == 3);  // bad_add, uses_bad (through its callee), unknown
  // The callee's error is not repeated for its caller, which gets a line of its own instead.
  REQUIRE(r.errors.size() == 3);
  CHECK(r.errors[0].location().line == 13);
  CHECK(r.errors[1].location().line == 15);
  CHECK_THAT(r.errors[1].message(), Catch::Matchers::StartsWith(
                                        "'uses_bad' is not checked: it calls 'bad_add', which has errors ("));
  CHECK(r.errors[2].location().line == 22);
  CHECK_THAT(r.errors[2].message(), Catch::Matchers::Contains("unknown name 'nothing'"));
  REQUIRE(r.checked.size() == 1);
  CHECK(r.checked[0]->name == "good");
  CHECK_FALSE(r.truncated);
  ModuleCheck one = check_all_text(src, 1);
  CHECK(one.errors.size() == 1);
  CHECK(one.truncated);
}

TEST_CASE("check_all: definitions in methods of test classes are checked", "[typecheck][check_all]") {
  std::string src = kPrelude +
                    "class TestShifts:\n"                                               // 11
                    "    def test_up(self):\n"                                          // 12
                    "        @gtx.field_operator\n"                                     // 13
                    "        def up(a: Field[[K], float64]) -> Field[[K], float64]:\n"  // 14
                    "            return a(Koff[1])\n";                                  // 15
  ModuleCheck r = check_all_text(src);
  CHECK(r.errors.empty());
  REQUIRE(r.checked.size() == 1);
  CHECK(r.checked[0]->source->scope == "TestShifts.test_up");
  CHECK(r.nested == 1);
}
