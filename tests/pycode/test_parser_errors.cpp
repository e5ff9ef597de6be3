// Syntax errors: message text and exact line:column, inside gt4py definitions and tasklets.
#include "pycode_test_util.h"

using namespace weir::pycode;
using weir::pycode::test::expect_error;
using weir::pycode::test::parse_text;

namespace {

// A module whose field operator has `body` (indented by 4) as its body, starting on line 4.
std::function<void()> in_field_operator(const std::string& body) {
  std::string text =
      "import gt4py.next as gtx\n"
      "\n"
      "@gtx.field_operator\n"
      "def f(a: gtx.Field[[IDim], float]) -> gtx.Field[[IDim], float]:\n" +
      body;
  return [text] { parse_text(text, "fo.py"); };
}

std::function<void()> module(const std::string& text) {
  return [text] { parse_text(text, "m.py"); };
}

std::function<void()> statements(const std::string& text) {
  return [text] { parse_statements(text, "tasklet"); };
}

std::function<void()> expression(const std::string& text) {
  return [text] { parse_expression(text, "expr"); };
}

}  // namespace

TEST_CASE("errors: brackets in a field operator", "[parser][errors]") {
  // The lexer notices first: the '(' is never closed in the rest of the file.
  std::string what = expect_error(in_field_operator("    return foo(a + 1\n"), 5, 15, "'(' was never closed");
  CHECK(what ==
        "fo.py:5:15: error: '(' was never closed\n"
        "    return foo(a + 1\n"
        "              ^");
  // A missing ')' that a later ')' seems to close: the parser sees the next token.
  expect_error(in_field_operator("    b = foo(a + 1\n    return (b))\n"), 6, 5,
               "expected ',' or ')', found 'return'");
  expect_error(in_field_operator("    return foo(a b)\n"), 5, 18, "expected ',' or ')', found 'b'");
  expect_error(in_field_operator("    return [a, b\n    ]]\n"), 6, 6, "unmatched ']'");
}

TEST_CASE("errors: indentation in a field operator", "[parser][errors]") {
  expect_error(in_field_operator("    x = a\n        return x\n"), 6, 9, "unexpected indent");
  expect_error(in_field_operator("        x = a\n    return x\n"), 6, 5,
               "unindent does not match any outer indentation level");
  expect_error(in_field_operator("return a\n"), 5, 1,
               "expected an indented block after function definition on line 4");
  expect_error(in_field_operator("    if a:\n    return a\n"), 6, 5,
               "expected an indented block after 'if' statement on line 5");
}

TEST_CASE("errors: signatures of gt4py definitions", "[parser][errors]") {
  expect_error(module("@gtx.field_operator\ndef f(x: ) -> float:\n    return x\n"), 2, 10,
               "expected expression, found ')'");
  expect_error(module("@gtx.field_operator\ndef f(x) -> float\n    return x\n"), 2, 18,
               "expected ':', found end of line");
  expect_error(module("@gtx.program\ndef p(a=1, b):\n    pass\n"), 2, 12,
               "parameter without a default follows parameter with a default");
  expect_error(module("@gtx.program\ndef p(a, a):\n    pass\n"), 2, 10,
               "duplicate argument 'a' in function definition");
  expect_error(module("@gtx.program\ndef p(a, *):\n    pass\n"), 2, 10, "named arguments must follow bare *");
  expect_error(module("@gtx.scan_operator(axis=KDim, init=0.0\ndef s(c, x):\n    return c\n"), 1, 19,
               "'(' was never closed");
  expect_error(module("@gtx.scan_operator(axis=KDim, init=0.0\ndef s(c, x):\n    return (c)\n)"), 2, 1,
               "expected ',' or ')', found 'def'");
  expect_error(module("@gtx.field_operator\nx = 1\n"), 2, 1,
               "expected 'def' or 'class' after decorator, found 'x'");
  expect_error(module("@gtx.field_operator\ndef (x):\n    return x\n"), 2, 5,
               "expected function name, found '('");
}

TEST_CASE("errors: statements and expressions in a field operator", "[parser][errors]") {
  expect_error(in_field_operator("    x = \n    return x\n"), 5, 9, "expected expression, found end of line");
  expect_error(in_field_operator("    return f(x=1, a)\n"), 5, 19,
               "positional argument follows keyword argument");
  expect_error(in_field_operator("    f(a) = 1\n    return a\n"), 5, 5, "cannot assign to function call");
  expect_error(in_field_operator("    a, b += 1\n    return a\n"), 5, 5,
               "'tuple' is an illegal expression for augmented assignment");
  expect_error(in_field_operator("    *a, *b = c\n    return a\n"), 5, 9,
               "multiple starred expressions in assignment");
  expect_error(in_field_operator("    for i in range(3):\n        a = a + 1\n    return a\n"), 5, 5,
               "unsupported statement 'for'");
  expect_error(in_field_operator("    return [x for x in a]\n"), 5, 15,
               "comprehensions and generator expressions are not supported");
  expect_error(in_field_operator("    return (y := a)\n"), 5, 15,
               "assignment expressions (':=') are not supported");
  expect_error(in_field_operator("    return f\"{a}\"\n"), 5, 12, "f-strings are not supported");
  expect_error(in_field_operator("    return a if a > 0\n"), 5, 22,
               "expected 'else' in conditional expression, found end of line");
  expect_error(in_field_operator("    return a +* b\n"), 5, 15, "cannot use starred expression here");
  expect_error(in_field_operator("    return a.if\n"), 5, 14,
               "expected attribute name after '.', found 'if'");
  expect_error(in_field_operator("    return a b\n"), 5, 14, "expected end of line, found 'b'");
  expect_error(in_field_operator("    else:\n        return a\n"), 5, 5, "unexpected 'else'");
  expect_error(in_field_operator("    return 99999999999999999999\n"), 5, 12, "is too large");
}

TEST_CASE("errors: strict decorators reach through aliases and classes", "[parser][errors]") {
  expect_error(module("from gt4py.next import field_operator as fo\n@fo\ndef f(x: ):\n    return x\n"), 3, 10,
               "expected expression, found ')'");
  expect_error(module("class K:\n    @gtx.program\n    def p(a):\n        lap(a out=a)\n"), 4, 15,
               "expected ',' or ')', found 'out'");
  // The same mistakes outside gt4py definitions are skipped, not errors.
  CHECK_NOTHROW(module("def f(x: ):\n    return x\n")());
  CHECK_NOTHROW(
      module("@other\ndef f(x: ):\n    return x\nclass K:\n    def p(a):\n        lap(a out=a)\n")());
}

TEST_CASE("errors: lexical errors anywhere in a module", "[parser][errors]") {
  expect_error(module("x = 1\ny = 'abc\n"), 2, 5, "unterminated string literal (detected at line 2)");
  expect_error(module("def helper():\n    return \"\"\"never closed\n"), 2, 12,
               "unterminated triple-quoted string literal (detected at line 2)");
  expect_error(module("if x:\n\tpass\n        pass\n"), 3, 9,
               "inconsistent use of tabs and spaces in indentation");
  expect_error(module("x = a $ b\n"), 1, 7, "invalid character '$' (U+0024)");
}

TEST_CASE("errors: tasklet statements and expressions", "[parser][errors]") {
  expect_error(statements("__out = (__in1 + __in2"), 1, 9, "'(' was never closed");
  expect_error(statements("a = 1\n  b = 2"), 2, 3, "unexpected indent");
  expect_error(statements("a = 1\nwhile a:\n    a -= 1\n"), 2, 1, "unsupported statement 'while'");
  expect_error(statements("x = yield 1"), 1, 5, "'yield' is not supported");
  expect_error(statements("1 = x"), 1, 1, "cannot assign to literal");
  expect_error(expression("*a"), 1, 1, "cannot use starred expression here");
  expect_error(statements("return *a"), 1, 8, "cannot use starred expression here");
  expect_error(expression("a +"), 1, 4, "expected expression, found end of line");
  expect_error(expression("a b"), 1, 3, "expected end of expression, found 'b'");
  expect_error(expression(""), 1, 1, "expected expression, found end of file");
  expect_error(expression("f(**k, *a)"), 1, 8,
               "iterable argument unpacking follows keyword argument unpacking");
  expect_error(expression("'a' b'b'"), 1, 5, "cannot mix bytes and nonbytes literals");
  expect_error(expression("lambda x: (yield)"), 1, 12, "'yield' is not supported");
}

TEST_CASE("errors: nesting deeper than kMaxNestingDepth is located, never a stack overflow",
          "[parser][errors]") {
  const std::string msg = "expression too deeply nested (more than 1000 levels)";
  REQUIRE(kMaxNestingDepth == 1000);
  auto repeat = [](const std::string& s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
  };
  auto sum = [&](std::size_t terms) { return "a" + repeat(" + a", terms - 1); };
  // Left-deep chains: the k-th operator makes the tree k levels deep (+1 for the expression).
  CHECK_NOTHROW(parse_expression(sum(1000), "expr"));
  expect_error(expression(sum(1001)), 1, 3999, msg);  // the 1000th '+'
  expect_error(expression(sum(12000)), 1, 3999, msg);
  CHECK_NOTHROW(parse_expression("a" + repeat(".b", 999), "expr"));
  expect_error(expression("a" + repeat(".b", 20000)), 1, 2000, msg);
  expect_error(expression("f" + repeat("()", 20000)), 1, 2000, msg);
  expect_error(expression("a" + repeat("[0]", 20000)), 1, 2997, msg);
  // Recursion: unary operators, 'not', '**', brackets.
  CHECK_NOTHROW(parse_expression(repeat("-", 999) + "a", "expr"));
  expect_error(expression(repeat("-", 20000) + "a"), 1, 1000, msg);
  expect_error(expression(repeat("not ", 20000) + "a"), 1, 4 * 999 + 1, msg);
  expect_error(expression("a" + repeat(" ** a", 20000)), 1, 5 * 999 + 3, msg);
  CHECK_NOTHROW(parse_expression(repeat("(", 998) + "a" + repeat(")", 998), "expr"));
  std::string parens = repeat("(", 20000) + "a" + repeat(")", 20000);
  expect_error(expression(parens), 1, 1001, msg);
  expect_error(expression(repeat("[", 20000) + repeat("]", 20000)), 1, 1001, msg);
  expect_error(expression(repeat("f(", 20000) + repeat(")", 20000)), 1, 1001, msg);
  // inside a field operator (the tester's repro), and in a module-level statement
  expect_error(in_field_operator("    return " + parens + "\n"), 5, 1011, msg);
  expect_error(in_field_operator("    return " + sum(12000) + "\n"), 5, 4006, msg);
  Module m = parse_text("x = " + parens + "\ny = 1\n", "m.py");  // skipped, not fatal
  REQUIRE(m.body.size() == 2);
  auto* u = dyn_cast<Unparsed>(m.body[0].get());
  REQUIRE(u);
  CHECK(u->reason == msg);
}

TEST_CASE("errors: more nested blocks than CPython's tokenizer allows", "[parser][errors]") {
  // CPython 3.11 compiles 99 nested blocks and refuses the 100th with IndentationError "too many
  // levels of indentation" on the line that opens it (checked with `compile()`).
  REQUIRE(weir::pycode::kMaxIndentLevels == 100);
  auto nested_ifs = [](std::size_t n) {
    std::string text, indent;
    for (std::size_t k = 0; k < n; ++k) {
      text += indent + "if x:\n";
      indent += " ";
    }
    return text + indent + "pass\n";
  };
  CHECK_NOTHROW(parse_text(nested_ifs(99), "m.py"));
  // line 101 is `pass`, indented by 100 spaces: the 100th level.
  expect_error(module(nested_ifs(100)), 101, 101, "too many levels of indentation");
  expect_error(module(nested_ifs(5000)), 101, 101, "too many levels of indentation");
}
