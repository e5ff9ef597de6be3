// A LoopRegion read as a counted for loop (see for_loop.h).
#include "weir/sdfg/for_loop.h"

#include "weir/pycode/code.h"
#include "weir/pycode/parser.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/symbolic_tree.h"

namespace weir {

std::optional<std::pair<std::string, const pycode::Expr*>> single_assignment(
    const CodeBlock& code, std::shared_ptr<const pycode::Code>& keep) {
  if (code.language != Language::Python) return std::nullopt;
  try {
    keep = code.parsed();
  } catch (const pycode::SourceError&) {
    return std::nullopt;
  }
  if (!keep || keep->body().size() != 1) return std::nullopt;
  const auto* a = pycode::dyn_cast<pycode::Assign>(keep->body()[0].get());
  if (!a || a->targets.size() != 1) return std::nullopt;
  const auto* target = pycode::dyn_cast<pycode::Name>(a->targets[0].get());
  if (!target) return std::nullopt;
  return std::make_pair(target->id, a->value.get());
}

namespace {

/// The value of `stmt` when it is the one statement `var = expr` (on its cached tree) and expr
/// is a symbolic expression, else nullopt.
std::optional<sym::Expr> assigned(const CodeBlock& stmt, const std::string& var) {
  std::shared_ptr<const pycode::Code> tree;
  auto a = single_assignment(stmt, tree);
  if (!a || a->first != var) return std::nullopt;
  try {
    return sym::from_tree(*a->second);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::variant<ForLoop, std::string> parse_loop(const LoopRegion& L, bool downward) {
  ForLoop f;
  f.var = L.loop_variable;
  std::string what = "loop '" + L.label + "'";
  if (f.var.empty()) return what + " has no loop variable (a while loop)";
  if (L.inverted) return what + " is a do-while loop";
  auto init = assigned(L.init_statement, f.var);
  if (!init)
    return what + ": init statement '" + L.init_statement.code + "' is not '" + f.var + " = <expression>'";
  f.start = *init;
  auto upd = assigned(L.update_statement, f.var);
  if (!upd)
    return what + ": update statement '" + L.update_statement.code + "' is not '" + f.var +
           " = <expression>'";
  f.step = *upd - sym::Expr::symbol(f.var);
  auto step = f.step.as_integer();
  if (!step) return what + ": the step '" + f.step.str() + "' is not a constant";
  if (*step == 0 || (*step < 0 && !downward))
    return what + " counts down or does not move (step " + std::to_string(*step) + ")";
  sym::Expr cond;
  try {
    cond = sym::from_code(L.loop_condition);
  } catch (const Error&) {
    return what + ": condition '" + L.loop_condition.code + "' is not a comparison";
  }
  if (cond.kind() != sym::Kind::Compare || cond.args().size() != 2)
    return what + ": condition '" + L.loop_condition.code + "' is not a comparison";
  std::string op = cond.name();
  sym::Expr lhs = cond.args()[0], rhs = cond.args()[1];
  sym::Expr v = sym::Expr::symbol(f.var);
  if (rhs == v && lhs != v) {  // "N > v" is "v < N"
    std::swap(lhs, rhs);
    op = op == ">" ? "<" : op == ">=" ? "<=" : op == "<" ? ">" : op == "<=" ? ">=" : op;
  }
  if (lhs != v || rhs.free_symbols().count(f.var))
    return what + ": condition '" + L.loop_condition.code + "' does not bound " + f.var;
  if (*step > 0 && op == "<")
    f.end = rhs - sym::Expr(1);
  else if (*step > 0 && op == "<=")
    f.end = rhs;
  else if (*step < 0 && op == ">")
    f.end = rhs + sym::Expr(1);
  else if (*step < 0 && op == ">=")
    f.end = rhs;
  else
    return what + ": condition '" + L.loop_condition.code + "' is not an " + (*step > 0 ? "upper" : "lower") +
           " bound of " + f.var;
  return f;
}

std::optional<std::pair<sym::Expr, sym::Expr>> loop_variable_bounds(const LoopRegion& L) {
  auto parsed = parse_loop(L, true);
  if (!std::holds_alternative<ForLoop>(parsed)) return std::nullopt;
  const ForLoop& f = std::get<ForLoop>(parsed);
  long long step = *f.step.as_integer();
  // The last value taken: `end` itself only for unit steps.
  sym::Expr last =
      step == 1 || step == -1 ? f.end : f.start + sym::Expr::floordiv(f.end - f.start, f.step) * f.step;
  return step > 0 ? std::make_pair(f.start, last) : std::make_pair(last, f.start);
}
}  // namespace weir
