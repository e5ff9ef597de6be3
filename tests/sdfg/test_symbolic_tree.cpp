// Tests of sym::from_tree (sdfg/include/weir/sdfg/symbolic_tree.h): symbolic expressions read
// from pycode's syntax tree. Values are worked out by hand with Python's rules (floor division
// and modulo round toward minus infinity, `-2 ** 2` is `-(2 ** 2)`, `**` is right-associative);
// each expression must also be the same Expr that Expr::parse reads from the same text.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "weir/pycode/code.h"
#include "weir/pycode/parser.h"
#include "weir/sdfg/symbolic_tree.h"
#include "weir/sdfg/types.h"

using weir::sym::Expr;
using weir::sym::SymbolicError;

namespace {

Expr T(const std::string& text) { return weir::sym::from_tree(*weir::pycode::parse_expression(text)); }

struct Case {
  std::string text;
  std::map<std::string, long long> values;
  long long expected;
};

}  // namespace

TEST_CASE("symbolic tree: precedence, unary minus, floor division and calls evaluate as Python",
          "[sdfg][symbolic]") {
  const std::vector<Case> cases = {
      {"2 + 3 * 4", {}, 14},
      {"(2 + 3) * 4", {}, 20},
      {"-2 ** 2", {}, -4},
      {"2 ** 3 ** 2", {}, 512},
      {"N - 3 - 2", {{"N", 10}}, 5},
      {"N - (3 - 2)", {{"N", 10}}, 9},
      {"-N + 1", {{"N", 10}}, -9},
      {"+N", {{"N", 10}}, 10},
      {"~N", {{"N", 5}}, -6},
      {"7 // -2", {}, -4},
      {"-7 // 2", {}, -4},
      {"N // 2 * 2", {{"N", 7}}, 6},
      {"-7 % 3", {}, 2},
      {"7 % -3", {}, -2},
      {"N % 4 - N // 4", {{"N", -7}}, 3},
      {"Min(N, 3) + Max(N, 3)", {{"N", 10}}, 13},
      {"min(N, M, 4)", {{"N", 10}, {"M", -1}}, -1},
      {"int_floor(N, 4)", {{"N", -7}}, -2},
      {"int_ceil(N, 4)", {{"N", -7}}, -1},
      {"i ** 2.0 + 1", {{"i", 3}}, 10},
      {"symbol(N, dtype=dace.int64) + 1", {{"N", 4}}, 5},
      {"0 < N < 5", {{"N", 3}}, 1},
      {"0 < N < 5", {{"N", 7}}, 0},
      {"not N == 3", {{"N", 3}}, 0},
      {"N >= 2 and N != 4 or N == 9", {{"N", 4}}, 0},
      {"N >= 2 and N != 4 or N == 9", {{"N", 9}}, 1},
      {"True + True", {}, 2},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Expr e = T(c.text);
    CHECK(e.evaluate(c.values) == c.expected);
    CHECK(e == Expr::parse(c.text));
  }
}

TEST_CASE("symbolic tree: tuples and a CodeBlock's condition tree", "[sdfg][symbolic]") {
  CHECK(T("(N, 2)") == Expr::call("", {Expr::symbol("N"), Expr(2)}));
  weir::CodeBlock condition("i < N - 1");
  const weir::pycode::Expr* tree = condition.parsed()->expression();
  REQUIRE(tree != nullptr);
  Expr c = weir::sym::from_tree(*tree);
  CHECK(c == Expr::compare("<", Expr::symbol("i"), Expr::symbol("N") - Expr(1)));
  CHECK(c.evaluate({{"i", 2}, {"N", 4}}) == 1);
  CHECK(c.evaluate({{"i", 3}, {"N", 4}}) == 0);
  CHECK(weir::sym::from_code(condition) == c);
  // C++ code has no tree: its text reads as Expr::parse reads it.
  CHECK(weir::sym::from_code(weir::CodeBlock("i < N - 1", weir::Language::CPP)) == c);
  // Statements are not one expression.
  CHECK_THROWS_WITH(weir::sym::from_code(weir::CodeBlock("x = 1")),
                    "not one Python expression at column 1 in 'x = 1'");
}

TEST_CASE("symbolic tree: what is not symbolic is a located error", "[sdfg][symbolic]") {
  struct Bad {
    std::string text;
    std::size_t column;
    std::string message;
  };
  const std::vector<Bad> bad = {
      {"N + 1.5", 5, "floating-point literal '1.5' is not supported (symbolic expressions are integer)"},
      {"N // 0", 3, "division by zero in floor division"},
      {"a[1] + 2", 1, "unexpected Subscript (not part of symbolic expressions)"},
      {"N + f(x=1)", 7, "keyword argument 'x' is only supported in symbol(...)"},
      {"N is None", 3, "unexpected operator 'is' (not part of symbolic expressions)"},
      {"N << 2", 3, "unexpected operator '<<' (not part of symbolic expressions)"},
      {"symbol(N + 1)", 1, "symbol(...) expects one symbol name, e.g. symbol($N, dtype=dace.int64)"},
      {"N + 'a'", 5, "unexpected str literal 'a'"},
  };
  for (const Bad& b : bad) {
    INFO(b.text);
    try {
      (void)T(b.text);
      FAIL("no error");
    } catch (const SymbolicError& e) {
      CHECK(e.message() == b.message);
      CHECK(e.column() == b.column);
      CHECK(e.text() == b.text);
    }
  }
}
