// Read-after-write overlaps of out=: a program call whose out= field the callee reads at a point
// that another point of the call writes is never refused: the type checker marks that output to
// be computed into a temporary and copied (ProgramCall::Out::copy, with the read's location),
// which is gt4py's meaning (the whole right-hand side before any write; docs/adr/0043). The
// analysis follows tuple elements and domains, so reads that cannot reach a written point stay
// in place. The runtime tests (tests/runtime/test_out_aliasing.cpp) check the values.
#include <algorithm>

#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

const std::string kOps =
    "from gt4py.next.experimental import concat_where\n"                                       // 11
    "@gtx.field_operator\n"                                                                    // 12
    "def shifted(a: Field[[I], float64]) -> Field[[I], float64]:\n"                            // 13
    "    return a(I + 1) + a\n"                                                                // 14
    "@gtx.field_operator\n"                                                                    // 15
    "def pointwise(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], float64]:\n"  // 16
    "    return a * 2.0 + b(I - 1)\n"                                                          // 17
    "@gtx.field_operator\n"                                                                    // 18
    "def through_names(a: Field[[I], float64]) -> Field[[I], float64]:\n"                      // 19
    "    c = a * 2.0\n"                                                                        // 20
    "    d = c\n"                                                                              // 21
    "    return d(I - 1)\n"                                                                    // 22
    "@gtx.field_operator\n"                                                                    // 23
    "def calls(a: Field[[I], float64]) -> Field[[I], float64]:\n"                              // 24
    "    return shifted(a * 1.0)\n"                                                            // 25
    "@gtx.field_operator\n"                                                                    // 26
    "def rebound(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], float64]:\n"    // 27
    "    x = a\n"                                                                              // 28
    "    x = b\n"                                                                              // 29
    "    return x(I + 1) + a\n"                                                                // 30
    "@gtx.field_operator\n"                                                                    // 31
    "def pair(a: Field[[I], float64], b: Field[[I], float64]) -> tuple[Field[[I], float64], "
    "Field[[I], float64]]:\n"                                                                 // 32
    "    return a * 2.0, b + 1.0\n"                                                           // 33
    "@gtx.field_operator\n"                                                                   // 34
    "def elements(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], float64]:\n"  // 35
    "    x, y = pair(a, b)\n"                                                                 // 36
    "    u, v = astype((x, y), float32)\n"                                                    // 37
    "    return astype(u(I + 1), float64) + y\n"                                              // 38
    "@gtx.field_operator\n"                                                                   // 39
    "def swapped(a: Field[[I], float64], b: Field[[I], float64]) -> tuple[Field[[I], float64], "
    "Field[[I], float64]]:\n"                                                  // 40
    "    return b, a(I + 1)\n"                                                 // 41
    "@gtx.field_operator\n"                                                    // 42
    "def guarded(a: Field[[I], float64], n: int32) -> Field[[I], float64]:\n"  // 43
    "    return concat_where(I == n, a(I - 1), a * 3.0)\n"                     // 44
    "@gtx.field_operator\n"                                                    // 45
    "def back_and_forth(a: Field[[I], float64]) -> Field[[I], float64]:\n"     // 46
    "    b = a(I + 2)\n"                                                       // 47
    "    return b(I - 2)\n";                                                   // 48

const std::string kProgramHead =
    "@gtx.program\n"                                                       // 49
    "def p(a: Field[[I], float64], b: Field[[I], float64], n: int32):\n";  // 50

/// Per output of program p's one call (line 51): "" where it is computed in place, else the
/// location of the read that makes it go through a copy.
std::vector<std::string> copies_of(const std::string& call) {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(SourceFile("test.py", kPrelude + kOps + kProgramHead + call));
  TypeChecker checker;
  std::vector<std::string> out;
  for (const TypedDefinition* d : checker.check_module(m))
    if (d->name == "p") {
      REQUIRE(d->calls.size() == 1);
      for (const ProgramCall::Out& o : d->calls[0].outs) out.push_back(o.copy ? o.copy_reason.str() : "");
    }
  return out;
}

}  // namespace

TEST_CASE("out= hazards: the prelude keeps the line numbers the cases name", "[typecheck][out-hazard]") {
  std::string text = kPrelude + kOps;
  CHECK(std::count(text.begin(), text.end(), '\n') == 48);
}

TEST_CASE("out= hazards: a read of the written field at another written point goes through a copy",
          "[typecheck][out-hazard]") {
  struct Case {
    const char* what;
    std::string call;                // line 51
    std::vector<std::string> where;  // per output: the read that overlaps
  };
  const std::vector<Case> cases = {
      {"direct shift", "    shifted(a, out=a)\n", {"test.py:14:12"}},
      {"sliced out=", "    shifted(a, out=a[0:-1])\n", {"test.py:14:12"}},
      {"second argument", "    pointwise(b, a, out=a)\n", {"test.py:17:22"}},
      {"through names", "    through_names(a, out=a)\n", {"test.py:22:12"}},
      {"through a call", "    calls(a, out=a)\n", {"test.py:14:12"}},
      {"rebinding does not hide the first binding", "    rebound(a, b, out=b)\n", {"test.py:30:12"}},
      {"the element a helper's tuple passes on", "    elements(a, b, out=a)\n", {"test.py:38:19"}},
      {"one element of out= read shifted for the other",
       "    swapped(a, b, out=(b, a))\n",
       {"", "test.py:41:15"}},
      {"a guard the domain bound cannot decide",
       "    guarded(a, n, out=a, domain={I: (1, 5)})\n",
       {"test.py:44:33"}},
  };
  for (const Case& c : cases) {
    SECTION(c.what) { CHECK(copies_of(c.call) == c.where); }
  }
}

TEST_CASE("out= hazards: reads that cannot reach another written point stay in place",
          "[typecheck][out-hazard]") {
  const std::vector<std::string> calls = {
      "    pointwise(a, b, out=a)\n",
      "    shifted(b, out=a)\n",
      "    rebound(b, a, out=b)\n",
      "    pointwise(a, b, out=a[1:])\n",
      // a helper's tuple and astype of a tuple: only the element read shifted matters
      "    elements(a, b, out=b)\n",
      // one written point: its neighbour is not written
      "    shifted(a, out=a[0:1])\n",
      "    shifted(a, out=a, domain={I: (n - 1, n)})\n",
      // the shifted branch is taken only at I == 1, and reads I == 0, which is not written
      "    guarded(a, 1, out=a, domain={I: (1, 5)})\n",
      "    guarded(a, n, out=a, domain={I: (n, n + 4)})\n",
      // shifts that add up to the point itself
      "    back_and_forth(a, out=a)\n",
  };
  for (const std::string& call : calls) {
    INFO(call);
    std::vector<std::string> c = copies_of(call);
    CHECK(std::all_of(c.begin(), c.end(), [](const std::string& s) { return s.empty(); }));
  }
}
