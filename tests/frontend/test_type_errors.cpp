// Negative cases: each snippet (after the 10-line prelude) must fail with a FrontendError at
// an exact line:column with the expected message.
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

struct Case {
  const char* what;
  std::string body;  // starts at line 11
  std::uint32_t line, column;
  std::string message;
};

const std::string FO = "@gtx.field_operator\n";                                    // line 11
const std::string FI = "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n";  // line 12

const std::vector<Case> kCases = {
    {"syntax error in a field operator", FO + FI + "    return a +\n", 13, 15, "expected"},
    {"dtype mismatch",
     FO + "def f(a: Field[[I], float64], b: Field[[I], float32]) -> Field[[I], float64]:\n"
          "    return a + b\n",
     13, 14, "cannot add Field[[I], float64] and Field[[I], float32]"},
    {"no int/float promotion", FO + FI + "    return a * 2\n", 13, 14,
     "cannot multiply Field[[I], float64] and int32"},
    {"unknown name", FO + FI + "    return a + bogus\n", 13, 16, "unknown name 'bogus'"},
    {"unknown dimension in annotation",
     FO + "def f(a: Field[[I, XDim], float64]) -> Field[[I], float64]:\n"
          "    return a\n",
     12, 20, "unknown name 'XDim'"},
    {"not a dimension in annotation",
     FO + "def f(a: Field[[I, E2V], float64]) -> Field[[I], float64]:\n"
          "    return a\n",
     12, 20, "expected a dimension, got field offset 'E2V'"},
    {"wrong return type", FO + "def f(a: Field[[I], float64]) -> Field[[I], float32]:\n    return a\n", 13,
     12, "'f' returns Field[[I], float64] but is annotated to return Field[[I], float32]"},
    {"missing return", FO + FI + "    b = a\n", 12, 1, "must end with a return statement"},
    {"and rejected",
     FO + "def f(a: Field[[I], bool], b: Field[[I], bool]) -> Field[[I], bool]:\n"
          "    return a and b\n",
     13, 12, "'and' is not supported in field operators; use & and |"},
    {"or rejected",
     FO + "def f(a: Field[[I], bool], b: Field[[I], bool]) -> Field[[I], bool]:\n"
          "    return a or b\n",
     13, 12, "'or' is not supported"},
    {"comparison chain",
     FO + "def f(a: Field[[I], float64]) -> Field[[I], bool]:\n"
          "    return 0.0 < a < 1.0\n",
     13, 20, "comparison chains are not supported"},
    {"shift along a missing dimension", FO + FI + "    return a(J + 1)\n", 13, 14,
     "cannot shift Field[[I], float64] along 'J': it has no dimension 'J'"},
    {"offset source missing", FO + FI + "    return a(Koff[1])\n", 13, 14,
     "cannot shift Field[[I], float64] by 'Koff': it has no dimension 'K'"},
    {"connectivity source missing",
     FO + "def f(a: Field[[E], float64]) -> Field[[E], float64]:\n"
          "    return a(E2V[0])\n",
     13, 14, "it has no dimension 'V'"},
    {"unindexed Cartesian offset",
     FO + "def f(a: Field[[K], float64]) -> Field[[K], float64]:\n"
          "    return a(Koff)\n",
     13, 14, "the Cartesian offset 'Koff' needs an index"},
    {"shift of a scalar", FO + "def f(a: float64) -> float64:\n    return a(I + 1)\n", 13, 12,
     "only fields can be shifted"},
    {"undefined operator", FO + FI + "    return g(a)\n", 13, 12, "unknown name 'g'"},
    {"too many arguments",
     FO + FI + "    return a\n" + FO +
         "def h(a: Field[[I], float64]) -> Field[[I], float64]:\n    return f(a, a)\n",
     16, 12, "'f' takes 1 argument, got 2"},
    {"wrong argument type",
     FO + FI + "    return a\n" + FO +
         "def h(a: Field[[I], float32]) -> Field[[I], float64]:\n    return f(a)\n",
     16, 14, "argument 'a' of 'f' must be Field[[I], float64], got Field[[I], float32]"},
    {"missing out=",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64]):\n    f(a)\n",
     16, 5, "missing 'out=' in call to 'f'"},
    {"out= of the wrong type",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64], b: Field[[J], float64]):\n    f(a, out=b)\n",
     16, 14, "out= has type Field[[J], float64] but 'f' returns Field[[I], float64]"},
    {"a tuple out= nested otherwise than the result",
     FO + "def t(a: Field[[I], float64]) -> tuple[tuple[Field[[I], float64], Field[[I], float64]], "
          "Field[[I], float64]]:\n    return (a, a), a\n"
          "@gtx.program\ndef p(a: Field[[I], float64], b: Field[[I], float64], c: Field[[I], float64]):\n"
          "    t(a, out=(a, (b, c)))\n",
     16, 14,
     "out= has type tuple[Field[[I], float64], tuple[Field[[I], float64], Field[[I], float64]]] but 't' "
     "returns "
     "tuple[tuple[Field[[I], float64], Field[[I], float64]], Field[[I], float64]]"},
    {"a tuple parameter whose element argument clashes with a parameter",
     "@gtx.program\ndef p(x: tuple[Field[[I], float64], Field[[I], float64]], x_0: Field[[I], float64]):\n"
     "    pass\n",
     12, 7,
     "tuple parameter 'x' is passed as one argument per element (x_0 is one), but 'x_0' is also a "
     "parameter: rename one of them"},
    {"an out= element of a tuple parameter out of range",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64], t: tuple[Field[[I], float64], float64]):\n    f(a, out=t[2])\n",
     16, 16,
     "an element of 't' (tuple[Field[[I], float64], float64]) is picked with an integer literal from 0 to 1"},
    {"a scalar element of a tuple parameter as out=",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64], t: tuple[Field[[I], float64], float64]):\n    f(a, out=t[1])\n",
     16, 14, "out= must be a field, 't[1]' has type float64"},
    {"a tuple parameter as out= of a field result",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64], t: tuple[Field[[I], float64], Field[[I], float64]]):\n"
         "    f(a, out=t)\n",
     16, 14,
     "out= has type tuple[Field[[I], float64], Field[[I], float64]] but 'f' returns Field[[I], float64]"},
    {"program statement", "@gtx.program\ndef p(a: Field[[I], float64]):\n    x = a\n", 13, 5,
     "a program may only call field operators and scan operators"},
    {"domain key not a dimension of out",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64], b: Field[[I], float64]):\n    f(a, out=b, domain={J: (0, 2)})\n",
     16, 25, "'J' is not a dimension of out="},
    {"float domain bound",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64], b: Field[[I], float64], n: float64):\n"
         "    f(a, out=b, domain={I: (0, n)})\n",
     16, 32, "a domain bound must be a scalar integer"},
    {"if on a field",
     FO + "def f(a: Field[[I], bool]) -> Field[[I], bool]:\n    if a:\n"
          "        return a\n    return a\n",
     13, 8, "the condition of an if statement must be a scalar bool"},
    {"branches disagree",
     FO + "def f(a: Field[[I], float64], c: bool) -> Field[[I], float64]:\n"
          "    if c:\n        x = a\n    else:\n        x = 1.0\n    return a\n",
     13, 5, "'x' has type Field[[I], float64] in the if branch but float64 in the else branch"},
    {"variable of one branch only",
     FO + "def f(a: Field[[I], float64], c: bool) -> Field[[I], float64]:\n"
          "    if c:\n        x = a\n    return x\n",
     15, 12, "unknown name 'x'"},
    {"ternary on a field",
     FO + "def f(a: Field[[I], float64], m: Field[[I], bool]) -> Field[[I], float64]:\n"
          "    return a if m else a\n",
     13, 17, "must be a scalar bool, got Field[[I], bool] (use where)"},
    {"neighbor_sum without axis",
     FO + "def f(a: Field[[V], float64]) -> Field[[E], float64]:\n"
          "    return neighbor_sum(a(E2V))\n",
     13, 12, "'neighbor_sum' needs axis="},
    {"neighbor_sum over a horizontal dim",
     FO + "def f(a: Field[[V], float64]) -> Field[[E], float64]:\n"
          "    return neighbor_sum(a(E2V), axis=E)\n",
     13, 38, "must be a LOCAL dimension"},
    {"where with mismatched dtypes",
     FO + "def f(a: Field[[I], float64], b: Field[[I], int32]) -> Field[[I], float64]:\n"
          "    return where(a > 0.0, a, b)\n",
     13, 12, "'where' cannot combine Field[[I], float64] and Field[[I], int32]"},
    {"where with a float mask", FO + FI + "    return where(a, a, a)\n", 13, 18,
     "the mask of 'where' must be bool"},
    {"constructor of a variable", FO + FI + "    return a * float64(a)\n", 13, 24,
     "type constructor 'float64' takes only a literal"},
    {"scan carry mismatch",
     "@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
     "def s(c: float64, x: float64) -> float32:\n    return astype(c + x, float32)\n",
     12, 7, "the carry 'c' of scan operator 's' has type float64 but the operator returns float32"},
    {"scan init mismatch",
     "@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0))\n"
     "def s(c: float64, x: float64) -> float64:\n    return c + x\n",
     11, 47, "init of scan operator 's' has type tuple[float64, float64] but the carry 'c' has type float64"},
    {"scan axis not a dimension",
     "@gtx.scan_operator(axis=Koff, forward=True, init=0.0)\n"
     "def s(c: float64, x: float64) -> float64:\n    return c + x\n",
     11, 25, "the axis of a scan_operator must be a dimension"},
    {"unpacking mismatch", FO + FI + "    x, y = (a, a, a)\n    return x\n", 13, 5,
     "cannot unpack a tuple of 3 elements into 2 targets"},
    {"tuple index out of range", FO + FI + "    t = (a, a)\n    return t[2]\n", 14, 14,
     "tuple index 2 out of range"},
    {"missing annotation", FO + "def f(a) -> Field[[I], float64]:\n    return a\n", 12, 7,
     "parameter 'a' of field_operator 'f' needs a type annotation"},
    {"modulo on floats", FO + FI + "    return a % a\n", 13, 14, "operator '%' needs integer operands"},
    {"numpy in a definition", "import numpy as np\n" + FO + FI + "    return np.einsum(a)\n", 14, 12,
     "'numpy.einsum' comes from a module that is not on the search path"},
    {"a numpy function gt4py.next has too", "import numpy as np\n" + FO + FI + "    return np.sqrt(a)\n", 14,
     12,
     "'numpy.sqrt' is a NumPy function, which field operators cannot call: use gt4py.next's 'sqrt' (from "
     "gt4py.next import sqrt)"},
    {"plain function call", "def helper(x):\n    return x\n" + FO + FI + "    return helper(a)\n", 15, 12,
     "'helper' cannot be used: 'helper' is a plain Python function"},
    {"local index on a non-local dim",
     FO + "def f(a: Field[[I], float64]) -> float64:\n"
          "    return a[I(0)]\n",
     13, 14, "'I' is not a LOCAL dimension"},
    {"broadcast losing a dimension",
     FO + "def f(a: Field[[K], float64]) -> Field[[I], float64]:\n"
          "    return broadcast(a, (I,))\n",
     13, 25, "dimension 'K' is missing"},
    // Code after a return never runs (gt4py takes it) but is still checked.
    {"error in unreachable code", FO + FI + "    return a\n    b = a * undefined_name\n", 14, 13,
     "unknown name 'undefined_name'"},
    {"recursion", FO + FI + "    return f(a)\n", 13, 12, "recursive call of 'f'"},
    // A 0-d field (Field[[], T]) may be out=; a scalar parameter is passed by value.
    {"scalar as out=",
     FO + "def z(y: float64) -> Field[[], float64]:\n    return broadcast(y, ())\n"
          "@gtx.program\ndef p(y: float64, o: float64):\n    z(y, out=o)\n",
     16, 14,
     "'o' has type float64 (a scalar parameter is passed by value; declare it Field[Dims[()], float64] "
     "to write it as a 0-d field)"},
    {"0-d field sliced in out=",
     FO + "def z(y: float64) -> Field[[], float64]:\n    return broadcast(y, ())\n"
          "@gtx.program\ndef p(y: float64, o: Field[[], float64]):\n    z(y, out=o[1:])\n",
     16, 16, "'o' is a 0-d field (Field[Dims[()], float64]): it has no dimension to slice"},
    {"field result into a 0-d out=",
     FO + "def z(y: Field[[I], float64]) -> Field[[I], float64]:\n    return y\n"
          "@gtx.program\ndef p(y: Field[[I], float64], o: Field[[], float64]):\n    z(y, out=o)\n",
     16, 14, "out= has type float64 but 'z' returns Field[[I], float64]"},
    {"program called from field operator",
     "@gtx.program\ndef p(a: Field[[I], float64]):\n    pass\n" + FO + FI + "    return p(a)\n", 16, 12,
     "a program ('p') cannot be called"},
    {"generic alias without argument",
     "from typing import TypeVar\nT = TypeVar('T')\n"
     "A = Field[[I], T]\n" +
         FO + "def f(a: A) -> A:\n    return a\n",
     15, 10, "generic type alias used without type arguments"},
    {"bad dtype string", FO + "def f(a: Field[[I], 'float65']) -> Field[[I], float64]:\n    return a\n", 12,
     21, "unknown dtype 'float65'"},
    {"sliced out with a step",
     FO + FI +
         "    return a\n@gtx.program\n"
         "def p(a: Field[[I], float64], b: Field[[I], float64]):\n    f(a, out=b[1:-1:2])\n",
     16, 21, "slice steps are not supported"},
    // Two dimensions named 'K' (the prelude's K is vertical): everything below the type checker
    // names a dimension by its name (map parameters, sizes), so the lowering made a map with the
    // parameter __K twice (a fuzzer's finding).
    {"two dimensions of one name in a field type",
     "KH = gtx.Dimension('K')\n" + FO +
         "def f(a: Field[[I, KH, K], float64]) -> Field[[I], float64]:\n"
         "    return a\n",
     13, 16,
     "the dimensions of a field need distinct names: 'K' is both a HORIZONTAL and a VERTICAL dimension"},
    {"two dimensions of one name combined",
     "KH = gtx.Dimension('K')\n" + FO +
         "def f(a: Field[[KH], float64], b: Field[[K], float64]) -> Field[[KH], float64]:\n"
         "    return a + b\n",
     14, 14,
     "cannot add Field[[K], float64] and Field[[K], float64]: 'K' is both a HORIZONTAL and a VERTICAL "
     "dimension (dimensions need distinct names)"},
    // user32 H16: a vertex and an edge field combined lines before the return is reported at
    // the expression that combines them, not at the return.
    {"fields over other dimensions combined before the return",
     FO + "def f(a: Field[[V, K], float64], b: Field[[E, K], float64]) -> Field[[V, K], float64]:\n"
          "    t = a + b\n"
          "    u = t * 2.0\n"
          "    w = a * 3.0\n"
          "    return u + w\n",
     13, 11, "this expression combines Field[[V, K], float64] and Field[[E, K], float64] into Field[["},
    {"fields combined by a builtin before the return",
     FO + "def f(a: Field[[V, K], float64], b: Field[[E, K], float64]) -> Field[[V, K], float64]:\n"
          "    m = where(b > 0.0, a, 0.0)\n"
          "    return m * 2.0\n",
     13, 9, "'f' is annotated to return Field[[V, K], float64] (line 14 returns"},
};

}  // namespace

TEST_CASE("type errors: located messages", "[typecheck][errors]") {
  CHECK(kCases.size() >= 30);
  for (const Case& c : kCases) {
    SECTION(c.what) {
      INFO(c.body);
      expect_error([&] { check_text(kPrelude + c.body); }, c.line, c.column, c.message);
    }
  }
}

TEST_CASE("type errors: what() shows file, line, column and the source line", "[typecheck][errors]") {
  std::string what = expect_error(
      [] {
        check_text(kPrelude + FO +
                   "def f(a: Field[[I], float64], b: Field[[I], float32]) -> "
                   "Field[[I], float64]:\n    return a + b\n");
      },
      13, 14, "cannot add");
  CHECK_THAT(what, Catch::Matchers::Contains("test.py:13:14: error: cannot add"));
  CHECK_THAT(what, Catch::Matchers::Contains("    return a + b\n             ^"));
}
