// pycode's Code, name analyses and rewrites: statements round trip through parse and unparse;
// renaming and substitution work on the syntax tree (never inside string literals, attribute
// names, keyword argument names or longer names); read/write sets.
#include <catch2/catch.hpp>

#include "weir/pycode/code.h"
#include "weir/pycode/names.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/rewrite.h"
#include "weir/pycode/unparse.h"

using namespace weir::pycode;

namespace {

std::string renamed(const std::string& text, const std::map<std::string, std::string>& names) {
  auto out = rename(*Code::parse(text), names);
  return out ? out->text() : text;
}

std::string substituted(const std::string& text, const std::map<std::string, std::string>& values) {
  std::vector<ExprPtr> owned;
  std::map<std::string, const Expr*> view;
  for (const auto& [k, v] : values) {
    owned.push_back(parse_expression(v));
    view[k] = owned.back().get();
  }
  auto out = substitute(*Code::parse(text), view);
  return out ? out->text() : text;
}

}  // namespace

TEST_CASE("pycode: statements round trip through parse and unparse", "[pycode]") {
  const char* cases[] = {
      "__out = __in1 + __in2",
      "a = b = c * (d + e)",
      "x += 1",
      "y: float = 2.0",
      "t = a if a > 0 else -a\nout = math.sqrt(t)",
      "if a < b:\n    c = a\nelif a == b:\n    c = 0\nelse:\n    c = b",
      "out[i, j] = inp[i - 1:i + 1, ::2]",
      "s = 'text'",
      "r = f(x, *rest, key=1)",
      "return",
      "pass",
  };
  for (const char* c : cases) {
    INFO(c);
    auto code = Code::parse(c);
    CHECK(unparse(code->body()) == c);
    // The printed form parses to the same tree (printed the same again).
    CHECK(unparse(Code::parse(unparse(code->body()))->body()) == unparse(code->body()));
  }
  // Statements separated by ';' print one per line; text as given is kept by parse().
  auto semi = Code::parse("a = 1; b = a + 1");
  CHECK(semi->text() == "a = 1; b = a + 1");
  CHECK(unparse(semi->body()) == "a = 1\nb = a + 1");
  CHECK(Code::parse("")->body().empty());
  CHECK(unparse(StmtList{}) == "");
}

TEST_CASE("pycode: a condition is one expression statement", "[pycode]") {
  auto c = Code::parse("i < N and j >= 0");
  REQUIRE(c->expression());
  CHECK(unparse(*c->expression()) == "i < N and j >= 0");
  CHECK_FALSE(Code::parse("i = 0")->expression());
  CHECK_FALSE(Code::parse("a; b")->expression());
  CHECK_THROWS_AS(Code::parse("a = = 1", "<tasklet>"), SourceError);
  CHECK_THROWS_WITH(Code::parse("x = (1", "<tasklet>"), Catch::Contains("<tasklet>:1:"));
}

TEST_CASE("pycode: rename touches names only", "[pycode][rewrite]") {
  // String literals (the regression of the text scanner that promised "outside string literals").
  CHECK(renamed("__out = 'x' if x > 0 else \"x\"", {{"x", "y"}}) == "__out = 'x' if y > 0 else 'x'");
  CHECK(renamed("s = 'a b c'", {{"b", "z"}}) == "s = 'a b c'");
  // Attribute names, not their bases.
  CHECK(renamed("out = a.b + b", {{"b", "c"}}) == "out = a.b + c");
  CHECK(renamed("out = a.b", {{"a", "q"}}) == "out = q.b");
  // Keyword argument names (the value is a name like any other).
  CHECK(renamed("out = f(k=k)", {{"k", "m"}}) == "out = f(k=m)");
  // Longer names containing the old one, and names that contain it as a prefix or suffix.
  CHECK(renamed("out = xx + x_1 + x + _x", {{"x", "y"}}) == "out = xx + x_1 + y + _x");
  // Called functions are not data.
  CHECK(renamed("out = min(min, 1)", {{"min", "lo"}}) == "out = min(lo, 1)");
  // Writes, subscripts and augmented targets.
  CHECK(renamed("A[i] = A[i] + i\ni += 1", {{"i", "j"}, {"A", "B"}}) == "B[j] = B[j] + j\nj += 1");
  // Lambda parameters shadow.
  CHECK(renamed("out = (lambda x: x + y)(x)", {{"x", "z"}, {"y", "w"}}) == "out = (lambda x: x + w)(z)");
  // Nothing to rename: null (the caller keeps its text, comments included).
  CHECK_FALSE(rename(*Code::parse("a = b  # x"), {{"x", "y"}}));
  CHECK_FALSE(rename(*Code::parse("a = b"), {{"a", "a"}}));
}

TEST_CASE("pycode: substitution follows precedence and shows what it substituted", "[pycode][rewrite]") {
  CHECK(substituted("out = x * 2", {{"x", "a + b"}}) == "out = (a + b) * 2");
  // Substituted values print in parentheses whatever their precedence; the tree is the same.
  CHECK(substituted("out = x + 2", {{"x", "a * b"}}) == "out = (a * b) + 2");
  CHECK(substituted("out = x + m", {{"m", "4"}}) == "out = x + (4)");
  CHECK(substituted("out = -x", {{"x", "a - b"}}) == "out = -(a - b)");
  CHECK(substituted("out = x ** 2", {{"x", "-a"}}) == "out = (-a) ** 2");
  CHECK(substituted("out = 2 - x", {{"x", "a - b"}}) == "out = 2 - (a - b)");
  CHECK(substituted("out = A[x, 0]", {{"x", "i + 1"}}) == "out = A[(i + 1), 0]");
  // The tree of `x * 2` with x = a + b is a product of a sum, whatever the text shows.
  {
    auto e = parse_expression("a + b");
    auto out = substitute(*Code::parse("out = x * 2"), {{"x", e.get()}});
    REQUIRE(out);
    CHECK(unparse(out->body()) == "out = (a + b) * 2");
    CHECK(unparse(Code::parse("out = (a * b) + 2")->body()) == "out = a * b + 2");
  }
  // Assigned names stay; strings, attributes and keywords too.
  CHECK(substituted("x = x + 1", {{"x", "N"}}) == "x = (N) + 1");
  CHECK(substituted("out = f(x='x', y=x.x)", {{"x", "k"}}) == "out = f(x='x', y=(k).x)");
  CHECK_FALSE(substitute(*Code::parse("out = y"), {}));
  // One expression, copied: the original is unchanged.
  auto e = parse_expression("x * x");
  auto v = parse_expression("p + q");
  CHECK(unparse(*substitute(*e, {{"x", v.get()}})) == "(p + q) * (p + q)");
  CHECK(unparse(*e) == "x * x");
  CHECK(unparse(*rename_calls(*parse_expression("Min(a, Max(b, Min))"), {{"Min", "min"}, {"Max", "max"}})) ==
        "min(a, max(b, Min))");
}

TEST_CASE("pycode: read and write sets", "[pycode][names]") {
  auto u = names_used(*Code::parse("t = a * math.sqrt(b[i]) + z.real\nout[j] = t + min(c, 'd')\nk += 1"));
  CHECK(u.reads == std::set<std::string>{"a", "b", "i", "j", "t", "c", "k"});
  CHECK(u.writes == std::set<std::string>{"t", "out", "k"});
  CHECK(u.subscripted == std::set<std::string>{"b", "out"});
  CHECK(u.called == std::set<std::string>{"min"});
  CHECK(u.attribute_bases == std::set<std::string>{"math", "z"});
  CHECK(u.data() == std::set<std::string>{"a", "b", "c", "i", "j", "k", "math", "out", "t", "z"});
  // No names inside strings, keyword names or lambda parameters.
  auto v = names_used(*parse_expression("f(key='N', n=(lambda q: q + M)(1))"));
  CHECK(v.reads == std::set<std::string>{"M"});
  CHECK(v.called == std::set<std::string>{"f"});
  CHECK(names_used(*Code::parse("")).data().empty());
}
