// Structural equality of expressions and conditions composed on their trees (negation,
// conjunction, disjunction): the printed texts are worked out by hand from the rules in
// conditions.h (each operand of a composed not/and/or in parentheses, the operands as
// ast.unparse prints them); subscript counts of names_used.
#include <catch2/catch.hpp>

#include <initializer_list>

#include "weir/pycode/compare.h"
#include "weir/pycode/conditions.h"
#include "weir/pycode/names.h"
#include "weir/pycode/parser.h"

using namespace weir::pycode;

namespace {

bool same(const std::string& a, const std::string& b) {
  return same_expression(parse_expression(a).get(), parse_expression(b).get());
}

/// The trees of `first` (already built) followed by those of `texts`.
ExprList parts(ExprPtr first, std::initializer_list<const char*> texts) {
  ExprList out;
  if (first) out.push_back(std::move(first));
  for (const char* t : texts) out.push_back(parse_expression(t));
  return out;
}

}  // namespace

TEST_CASE("pycode: same_expression ignores parentheses and locations, nothing else", "[pycode]") {
  CHECK(same("x > 0", "(x > 0)"));
  CHECK(same("(t % 2) == 0", "t % 2 == 0"));
  CHECK(same("a  and\tb", "(a) and (b)"));
  CHECK(same("1.0", "1.00"));
  CHECK(same("0x10", "16"));
  CHECK(same("f(a, k=1)[i:j]", "f(a, k = 1)[i : j]"));
  CHECK(same("(a, b)", "a, b"));
  CHECK_FALSE(same("x > 0", "x >= 0"));
  CHECK_FALSE(same("a - b - c", "a - (b - c)"));
  CHECK_FALSE(same("x", "y"));
  CHECK_FALSE(same("'x'", "x"));
  CHECK_FALSE(same("1", "1.0"));
  CHECK_FALSE(same("f(a, k=1)", "f(a, j=1)"));
  CHECK_FALSE(same("a and b", "a or b"));
  CHECK_FALSE(same("a.b", "a.c"));
  CHECK(same_expression(nullptr, nullptr));
  CHECK_FALSE(same_expression(parse_expression("x").get(), nullptr));
}

TEST_CASE("pycode: conditions composed on the tree", "[pycode]") {
  SECTION("negation parenthesizes its operand once") {
    ConditionBuilder b;
    auto c = b.code(b.negation(parse_expression("(t < N)")));
    CHECK(c->text() == "not (t < N)");
    REQUIRE(c->expression());
    CHECK(is_negation_of(*c->expression(), *parse_expression("t < N")));
  }
  SECTION("a comment in the condition does not swallow the composed text") {
    ConditionBuilder b;
    auto tree = Code::parse("x > 0  # positive");
    auto c = b.code(b.negation(clone(tree->expression())));
    CHECK(c->text() == "not (x > 0)");
  }
  SECTION("none of several conditions") {
    ConditionBuilder b;
    auto c = b.code(b.negation(b.any_of(parts(nullptr, {"x > 0", "x < -5"}))));
    CHECK(c->text() == "not ((x > 0) or (x < -5))");
  }
  SECTION("an elif branch: not the earlier ones, and its own") {
    ConditionBuilder b;
    auto c = b.code(b.all_of(parts(b.negation(parse_expression("x < 0")), {"x == 0"})));
    CHECK(c->text() == "(not (x < 0)) and (x == 0)");
  }
  SECTION("operands that are and/or themselves keep their own parentheses") {
    ConditionBuilder b;
    CHECK(b.code(b.all_of(parts(nullptr, {"a or b", "c and d"})))->text() == "(a or b) and (c and d)");
  }
  SECTION("one part is itself, none is a constant") {
    ConditionBuilder b;
    CHECK(b.code(b.all_of(parts(nullptr, {"x == 1"})))->text() == "x == 1");
    ConditionBuilder none;
    CHECK(none.code(none.all_of({}))->text() == "1");
    CHECK(none.code(none.any_of({}))->text() == "0");
  }
  SECTION("the printed text parses back to the composed tree") {
    ConditionBuilder b;
    auto c = b.code(b.all_of(parts(b.negation(parse_expression("i < N")), {"f(a[i], 'not (x)')"})));
    CHECK(c->text() == "(not (i < N)) and (f(a[i], 'not (x)'))");
    CHECK(same_expression(parse_expression(c->text()).get(), c->expression()));
  }
}

TEST_CASE("pycode: is_negation_of on trees", "[pycode]") {
  CHECK(is_negation_of(*parse_expression("not (x > 0)"), *parse_expression("x > 0")));
  CHECK(is_negation_of(*parse_expression("(not ((x > 0)))"), *parse_expression("(x > 0)")));
  CHECK(is_negation_of(*parse_expression("not x"), *parse_expression("(x)")));
  CHECK_FALSE(is_negation_of(*parse_expression("not (x > 0)"), *parse_expression("x >= 0")));
  CHECK_FALSE(is_negation_of(*parse_expression("-(x > 0)"), *parse_expression("x > 0")));
  CHECK_FALSE(is_negation_of(*parse_expression("x <= 0"), *parse_expression("x > 0")));
}

TEST_CASE("pycode: names_used counts the subscripts of each name", "[pycode]") {
  auto u = names_used(*Code::parse("out = nb[i, 0] + nb[i, 1] * w[0][1] + g('nb[2]') + nbx[0]"));
  CHECK(u.subscript_count == std::map<std::string, std::size_t>{{"nb", 2}, {"nbx", 1}, {"w", 1}});
}
