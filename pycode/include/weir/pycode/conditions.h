// Conditions made from other conditions on their syntax trees, as DaCe's astutils.negate_expr
// puts a `not` node in front of a condition's tree: the negation of a condition, all of several
// conditions, any of them, and the code of such a composed condition. Its text shows every
// operand of the composing `not`, `and` and `or` in parentheses, "not (t < N)",
// "(not (x < 0)) and (x == 0)", so that a reader sees the conditions it was made of; the
// operands themselves print as unparse() prints them. No text is parsed or pasted together.
#pragma once

#include <cstdint>
#include <memory>
#include <set>

#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"

namespace weir::pycode {

/// Builds one composed condition (use one builder per condition: it remembers the operands to
/// print in parentheses by their address).
class ConditionBuilder {
 public:
  /// `not (c)`.
  ExprPtr negation(ExprPtr c);
  /// `(a) and (b) and ...`; a single part is returned as it is; no part gives `1` (always true).
  ExprPtr all_of(ExprList parts);
  /// `(a) or (b) or ...`; a single part is returned as it is; no part gives `0` (never true).
  ExprPtr any_of(ExprList parts);
  /// The code of the one expression statement `condition` (Code::expression() is it), its text
  /// printed with the parentheses described above.
  std::shared_ptr<const Code> code(ExprPtr condition) const;

 private:
  ExprPtr bool_op(BoolOperator op, ExprList parts, std::int64_t if_none);
  std::set<const Expr*> operands_;
};

/// An integer constant (`1`, `0`), located nowhere.
ExprPtr int_constant(std::int64_t value);

/// Whether `d` is `not c` for the same expression c (same_expression: parentheses and
/// locations do not count), as "not (x > 0)" is of "x > 0". Never throws.
bool is_negation_of(const Expr& d, const Expr& c);

}  // namespace weir::pycode
