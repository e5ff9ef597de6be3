// The nesting limits hold within the default 8 MiB stack (issue 17): the parsers and the passes
// that recurse over their trees (type checker, lowering, save/load) are run at and beyond their
// limits on a thread whose stack is exactly 8 MiB, whatever `ulimit -s` the test runs under.
// A stack overflow kills the test process, so this fails in any build (Debug + ASan included)
// whose frames are too large for the limit.
#include <exception>
#include <functional>
#include <string>

#include "frontend_test_util.h"
#include "lowering_test_util.h"
#include "on_stack.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/symbolic.h"

using namespace weir::frontend;
using weir::frontend::test::check_valid_and_round_trip;
using weir::frontend::test::lower_text;
using weir::test::kDefaultStack;
using weir::test::on_stack_of;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

/// The message of the weir::Error `fn` throws, or "no error".
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const weir::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("nesting limits hold on the default 8 MiB stack", "[parser][errors][security]") {
  const std::string too_deep = "expression too deeply nested (more than 1000 levels)";
  // Each recursion shape of the expression parser at its limit (accepted) and far beyond it
  // (refused), as tests/pycode/test_parser_errors.cpp checks them on the main thread.
  const std::vector<std::pair<std::string, std::string>> at_limit = {
      {"sum", "a" + repeat(" + a", 999)},
      {"attributes", "a" + repeat(".b", 999)},
      {"unary minus", repeat("-", 999) + "a"},
      {"power", "a" + repeat(" ** a", 998)},
      {"parentheses", repeat("(", 998) + "a" + repeat(")", 998)},
      {"lists", repeat("[", 998) + repeat("]", 998)},
      {"calls", repeat("f(", 499) + "a" + repeat(")", 499)},  // a call is two levels
  };
  const std::vector<std::pair<std::string, std::string>> beyond = {
      {"sum", "a" + repeat(" + a", 20000)},
      {"unary minus", repeat("-", 20000) + "a"},
      {"not", repeat("not ", 20000) + "a"},
      {"power", "a" + repeat(" ** a", 20000)},
      {"parentheses", repeat("(", 20000) + "a" + repeat(")", 20000)},
      {"lists", repeat("[", 20000) + repeat("]", 20000)},
      {"calls", repeat("f(", 20000) + repeat(")", 20000)},
      {"subscripts", "a" + repeat("[0]", 20000)},
  };
  // clang 14 cannot capture a structured binding in a lambda: each loop names its text first.
  for (const auto& [shape, binding] : at_limit) {
    INFO(shape << " at the limit");
    const std::string& text = binding;
    const bool parentheses = shape == "parentheses";
    // Parsed, then printed back (SDFG tasklets and messages unparse the tree): the same text
    // but for the redundant parentheses of the "parentheses" shape.
    on_stack_of(kDefaultStack, [&] {
      std::string printed = weir::pycode::unparse(*parse_expression(text, "expr"));
      CHECK(printed == (parentheses ? std::string("a") : text));
    });
  }
  for (const auto& [shape, binding] : beyond) {
    INFO(shape << " beyond the limit");
    const std::string& text = binding;
    std::string what;
    on_stack_of(kDefaultStack, [&] { what = error_of([&] { parse_expression(text, "expr"); }); });
    CHECK_THAT(what, Catch::Contains(too_deep));
  }
  SECTION("a field operator at the limit type-checks, lowers, saves and loads") {
    std::string sum = "a" + repeat(" + a", 499);
    std::string neg = repeat("-", 200) + "(" + repeat("(", 200) + "a" + repeat(")", 201);
    on_stack_of(kDefaultStack, [&] {
      auto s = lower_text(
          "@gtx.field_operator\n"
          "def deep(a: Field[[I], float64]) -> Field[[I], float64]:\n"
          "    return " +
              sum + " + " + neg + "\n",
          "deep");
      check_valid_and_round_trip(*s, "deep_stack");
    });
  }
  SECTION("symbolic expressions (SDFG subsets, shapes) at and beyond their limit") {
    on_stack_of(kDefaultStack, [&] {
      CHECK(weir::sym::Expr::parse(repeat("(", 199) + "N" + repeat(")", 199)).str() == "N");
      CHECK_THAT(error_of([&] { weir::sym::Expr::parse(repeat("(", 100000) + "N" + repeat(")", 100000)); }),
                 Catch::Contains("expression too deeply nested (more than 1000 levels)"));
      // A sum's terms are one chain (pycode::ParseOptions::long_chains): 5,001 of them parse.
      CHECK(weir::sym::Expr::parse(repeat("N + ", 5000) + "N").str() == "5001*N");
    });
  }
}
