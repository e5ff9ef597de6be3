// The orchestration language's located errors: every construct outside it is refused at its
// file:line:column with a message naming it.
#include "orchestration_test_util.h"
#include "weir/runtime/errors.h"

using namespace weir;
using namespace weir::test::orchestration;

namespace {

// Loads `body` (after the prelude) and expects a FrontendError at body line `line`, `column`.
void expect_error(const std::string& body, std::uint32_t line, std::uint32_t column,
                  const std::string& message) {
  INFO(body);
  try {
    load(body, "f");
  } catch (const frontend::FrontendError& e) {
    INFO(e.what());
    CHECK(e.location().file.path() == "orch.py");
    CHECK(e.location().line == prelude_lines() + line);
    CHECK(e.location().column == column);
    CHECK_THAT(e.message(), Catch::Matchers::Contains(message));
    return;
  }
  FAIL("expected a FrontendError containing: " << message);
}

const std::string kSig = "def f(u: IJ, v: IJ, a: float64, n: int32):\n";

}  // namespace

TEST_CASE("orchestration errors: statements outside the language", "[orchestration][errors]") {
  expect_error(kSig + "    print(a)\n", 2, 5, "'print' is not supported in an orchestrated function");
  expect_error(kSig + "    import math\n", 2, 5, "an import inside the function");
  expect_error(kSig + "    def g():\n        pass\n", 2, 5, "a nested function definition ('g')");
  expect_error(kSig + "    class C:\n        pass\n", 2, 5, "a class definition");
  expect_error(kSig + "    with open('x') as h:\n        pass\n", 2, 5, "unsupported statement 'with'");
  expect_error(kSig + "    try:\n        pass\n    except Exception:\n        pass\n", 2, 5,
               "unsupported statement 'try'");
  expect_error(kSig + "    laplace(u, v)\n    return u\n", 3, 12, "returning a value is not supported");
  expect_error(kSig + "    return\n    laplace(u, v)\n", 2, 5, "'return' before the end of the function");
  expect_error(kSig + "    a + 1\n", 2, 5, "an expression statement ('a + 1')");
  expect_error(kSig + "    x = y = a\n", 2, 9, "chained assignment");
  expect_error(kSig + "    break\n", 2, 5, "'break' outside loop");
  expect_error(kSig + "    for i in range(n):\n        pass\n    else:\n        pass\n", 5, 9,
               "'for ... else'");
  expect_error(kSig + "    while n > 0:\n        n = n - 1\n    else:\n        pass\n", 5, 9,
               "'while ... else'");
  expect_error(kSig + "    u[0] = a\n", 2, 5, "assignment to 'u[0]'");
}

TEST_CASE("orchestration errors: loops, calls and values", "[orchestration][errors]") {
  expect_error(kSig + "    for x in [1, 2]:\n        pass\n", 2, 14,
               "iterating over '[1, 2]' (only 'for i in range(...)')");
  expect_error(kSig + "    for i, j in range(n):\n        pass\n", 2, 9, "a loop target other than one name");
  expect_error(kSig + "    for i in range(0, n, n):\n        pass\n", 2, 26,
               "the step of range() must be an integer literal");
  expect_error(kSig + "    for i in range(a):\n        pass\n", 2, 20, "range() bounds must be integers");
  expect_error(kSig + "    laplace(u)\n", 2, 5, "missing argument 'out' in call to 'laplace'");
  expect_error(kSig + "    laplace(u, v, u)\n", 2, 19, "'laplace' takes 2 arguments, got 3");
  expect_error(kSig + "    laplace(u, a)\n", 2, 16,
               "argument 'out' of 'laplace' must be a field, 'a' is float64");
  expect_error(kSig + "    laplace(u, v, w=u)\n", 2, 19, "'laplace' has no parameter 'w'");
  expect_error(kSig + "    laplace(u, out=v, domain={I: (0, 1)})\n", 2, 23,
               "'laplace' is a program: it writes its own out= fields");
  expect_error(kSig + "    lap(u)\n", 2, 5, "missing 'out=' in call to the field operator 'lap'");
  expect_error(kSig + "    x = laplace(u, v)\n", 2, 9, "assigning the result of 'laplace(...)'");
  expect_error(kSig + "    b = u + v\n", 2, 9, "using the field 'u' as a value");
  expect_error(kSig + "    u = a\n", 2, 9, "'u' names a field; it can only be rebound to another field name");
  expect_error(kSig + "    b = a\n    b = u\n", 3, 5, "'b' is a scalar here; it cannot name a field too");
  expect_error(kSig + "    b = c\n", 2, 9, "unknown name 'c'");
  expect_error(kSig + "    b = len(u)\n", 2, 9, "assigning the result of 'len(...)'");
  expect_error(kSig + "    b = 1 + len(u)\n", 2, 13, "calling 'len' in an expression");
  expect_error(kSig + "    if n is None:\n        pass\n", 2, 10, "the comparison 'is'");
  expect_error(kSig + "    if u:\n        pass\n", 2, 8, "using the field 'u' as a value");
  expect_error(kSig + "    b = ~n\n", 2, 9, "'~' on scalars");
  expect_error(kSig + "    u, v = v\n", 2, 12, "unpacking 'v'");
  expect_error(kSig + "    u, v = v, u, a\n", 2, 12, "cannot unpack 3 values into 2 names");
  expect_error(kSig + "    n = a\n", 2, 5, "'n' holds int32; assigning float64 would change its type");
  expect_error(kSig + "    f(u, v, a, n)\n", 2, 5, "recursive call of 'f'");
  expect_error("def f(u, v):\n    pass\n", 1, 7, "cannot infer the type of parameter 'u'");
  // Renamed before a use: Python's names hold fields and scalars alike (issue 34).
  expect_error(
      "def f(u, v, w):\n    u, w = w, u\n    scale_prog(u, 1.0, v)\n", 2, 12,
      "cannot infer the type of parameter 'w' (assigned to 'u' before a use that shows it): annotate it");
  expect_error("def f(u, v, s):\n    c = s\n    scale_prog(u, c, v)\n", 2, 9,
               "cannot infer the type of parameter 's' (assigned to 'c' before a use that shows it)");
  // Passed on to a function whose parameter has no annotation either.
  expect_error(
      "def g(a, b):\n    scale_prog(a, 1.0, b)\ndef f(u, v):\n    g(u, v)\n", 4, 7,
      "cannot infer the type of parameter 'u' (passed on to 'g' before a use that shows it): annotate it");
  expect_error("def f(u: IJ, *rest):\n    pass\n", 1, 15, "'*rest' is not supported");
  expect_error("def f(u: IJ, a=1.0):\n    pass\n", 1, 16, "a default value (of parameter 'a' of 'f')");
}

TEST_CASE("orchestration errors: a 0-d field a program writes", "[orchestration][errors]") {
  // A program writes its 0-d field parameter (out=); orchestration functions hold 0-d fields as
  // scalars, so passing one there is refused at the argument (it was an internal error).
  const std::string set0 =
      "@gtx.field_operator\ndef twice(x: float64) -> Field[[], float64]:\n    return x * 2.0\n"
      "@gtx.program\ndef set0(x: float64, o: Field[[], float64]):\n    twice(x, out=o)\n";
  expect_error(set0 + "def f(u: IJ, v: IJ, a: float64, n: int32):\n    set0(a, a)\n", 8, 13,
               "argument 'o' of 'set0' is a 0-d field 'set0' writes (out=); orchestration functions do not "
               "pass 0-d outputs yet: call the program on its own");
}

TEST_CASE("orchestration errors: local fields and field operator calls", "[orchestration][errors]") {
  expect_error(kSig + "    t = gtx.zeros([n, n])\n", 2, 19, "the domain of a local field must be a dict");
  expect_error(
      kSig + "    t = gtx.zeros({I: gtx.int32(a), J: n})\n", 2, 33,
      "the size of a local field must be integer arithmetic of int parameters, got a float (float64) "
      "truncated; pass the size as an int32");
  expect_error(kSig + "    t = gtx.zeros({I: a, J: n})\n", 2, 23,
               "the size of a local field must be an integer");
  expect_error(kSig + "    t = gtx.zeros({float64: 3})\n", 2, 20, "domain keys must be dimensions");
  expect_error(kSig +
                   "    w = u\n"
                   "    for i in range(n):\n"
                   "        t = gtx.zeros({I: 8, J: 8})\n"
                   "        laplace(w, t)\n"
                   "        w, t = t, w\n",
               4, 13, "'w' may still name the field this statement allocated before");
  expect_error(kSig + "    lap(u, out=v[1:-1, 1:-1], domain={I: (1, 3)})\n", 2, 38,
               "give either domain= or a sliced out=, not both");
  expect_error(kSig + "    lap(u, out=(u, v))\n", 2, 16,
               "'lap' returns Field[[I, J], float64], out= gives 2 fields");
  // `lap(u, out=u)` (u read shifted while written) is no error: it is computed into a temporary
  // and copied (docs/adr/0043; test_orchestration_out_aliasing.cpp runs it).
}
