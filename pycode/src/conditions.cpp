// Conditions composed on their syntax trees (see conditions.h).
#include "weir/pycode/conditions.h"

#include <string>
#include <utility>

#include "weir/pycode/compare.h"
#include "weir/pycode/unparse_marked.h"

namespace weir::pycode {

ExprPtr int_constant(std::int64_t value) {
  auto c = std::make_unique<Constant>(SourceLocation{});
  c->value_kind = ConstantKind::Int;
  c->int_value = value;
  c->text = std::to_string(value);
  return c;
}

ExprPtr ConditionBuilder::negation(ExprPtr c) {
  auto n = std::make_unique<UnaryOp>(SourceLocation{});
  n->op = UnaryOperator::Not;
  operands_.insert(c.get());
  n->operand = std::move(c);
  return n;
}

ExprPtr ConditionBuilder::bool_op(BoolOperator op, ExprList parts, std::int64_t if_none) {
  if (parts.empty()) return int_constant(if_none);
  if (parts.size() == 1) return std::move(parts[0]);
  auto n = std::make_unique<BoolOp>(SourceLocation{});
  n->op = op;
  for (ExprPtr& p : parts) {
    operands_.insert(p.get());
    n->values.push_back(std::move(p));
  }
  return n;
}

ExprPtr ConditionBuilder::all_of(ExprList parts) { return bool_op(BoolOperator::And, std::move(parts), 1); }

ExprPtr ConditionBuilder::any_of(ExprList parts) { return bool_op(BoolOperator::Or, std::move(parts), 0); }

std::shared_ptr<const Code> ConditionBuilder::code(ExprPtr condition) const {
  std::string text = unparse_marked(*condition, operands_);
  auto st = std::make_unique<ExprStmt>(SourceLocation{});
  st->value = std::move(condition);
  StmtList body;
  body.push_back(std::move(st));
  return std::make_shared<const Code>(std::move(text), std::move(body));
}

bool is_negation_of(const Expr& d, const Expr& c) {
  const auto* n = dyn_cast<UnaryOp>(&d);
  return n && n->op == UnaryOperator::Not && same_expression(n->operand.get(), &c);
}

}  // namespace weir::pycode
