// Read-after-write hazards: a program call whose out= field is read by the callee at another
// point than the one written (gt4py leaves the result undefined: it depends on the order points
// are computed) is refused at the call, line:column; a read at the written point is allowed.
// The embedded backend and the lowering both start from the type checker, so both refuse.
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

const std::string kOps =
    "@gtx.field_operator\n"                                                                    // 11
    "def shifted(a: Field[[I], float64]) -> Field[[I], float64]:\n"                            // 12
    "    return a(I + 1) + a\n"                                                                // 13
    "@gtx.field_operator\n"                                                                    // 14
    "def pointwise(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], float64]:\n"  // 15
    "    return a * 2.0 + b(I - 1)\n"                                                          // 16
    "@gtx.field_operator\n"                                                                    // 17
    "def through_names(a: Field[[I], float64]) -> Field[[I], float64]:\n"                      // 18
    "    c = a * 2.0\n"                                                                        // 19
    "    d = c\n"                                                                              // 20
    "    return d(I - 1)\n"                                                                    // 21
    "@gtx.field_operator\n"                                                                    // 22
    "def calls(a: Field[[I], float64]) -> Field[[I], float64]:\n"                              // 23
    "    return shifted(a * 1.0)\n"                                                            // 24
    "@gtx.field_operator\n"                                                                    // 25
    "def rebound(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], float64]:\n"    // 26
    "    x = a\n"                                                                              // 27
    "    x = b\n"                                                                              // 28
    "    return x(I + 1) + a\n";                                                               // 29

const std::string kProgramHead =
    "@gtx.program\n"                                             // 30
    "def p(a: Field[[I], float64], b: Field[[I], float64]):\n";  // 31

}  // namespace

TEST_CASE("out= hazards: a shifted read of the written field is refused at the call",
          "[typecheck][out-hazard]") {
  struct Case {
    const char* what;
    std::string call;   // line 32
    std::string where;  // the shifted read
  };
  const std::vector<Case> cases = {
      {"direct shift", "    shifted(a, out=a)\n", "test.py:13:12"},
      {"sliced out=", "    shifted(a, out=a[0:-1])\n", "test.py:13:12"},
      {"second argument", "    pointwise(b, a, out=a)\n", "test.py:16:22"},
      {"through names", "    through_names(a, out=a)\n", "test.py:21:12"},
      {"through a call", "    calls(a, out=a)\n", "test.py:13:12"},
  };
  for (const Case& c : cases) {
    SECTION(c.what) {
      std::string what = expect_error([&] { check_text(kPrelude + kOps + kProgramHead + c.call); }, 32, 5,
                                      "reads 'a' at another point");
      CHECK_THAT(what, Catch::Matchers::Contains("(" + c.where + ")"));
      CHECK_THAT(what, Catch::Matchers::Contains("out=a"));
    }
  }
}

TEST_CASE("out= hazards: point-wise reads of the written field are allowed", "[typecheck][out-hazard]") {
  for (const std::string call : {"    pointwise(a, b, out=a)\n", "    shifted(b, out=a)\n",
                                 "    rebound(b, a, out=b)\n", "    pointwise(a, b, out=a[1:])\n"}) {
    INFO(call);
    CHECK_NOTHROW(check_text(kPrelude + kOps + kProgramHead + call));
  }
  // ...but rebinding a name does not hide a read of the field it was bound to before.
  expect_error([&] { check_text(kPrelude + kOps + kProgramHead + "    rebound(a, b, out=b)\n"); }, 32, 5,
               "reads 'b' at another point (test.py:29:12)");
}
