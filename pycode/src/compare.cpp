// Structural equality of expressions (see compare.h).
#include "weir/pycode/compare.h"

#include <cstddef>

namespace weir::pycode {

namespace {

bool same_list(const ExprList& a, const ExprList& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_expression(a[i].get(), b[i].get())) return false;
  return true;
}

bool same_constant(const Constant& a, const Constant& b) {
  if (a.value_kind != b.value_kind) return false;
  switch (a.value_kind) {
    case ConstantKind::Int: return a.int_value == b.int_value;  // every literal fits (the parser checks)
    case ConstantKind::Float:
    case ConstantKind::Imaginary: return a.float_value == b.float_value;
    case ConstantKind::String:
    case ConstantKind::Bytes: return a.str_value == b.str_value;
    case ConstantKind::Bool: return a.bool_value == b.bool_value;
    case ConstantKind::None:
    case ConstantKind::Ellipsis: return true;
  }
  return false;
}

bool same_keywords(const std::vector<Keyword>& a, const std::vector<Keyword>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].arg != b[i].arg || !same_expression(a[i].value.get(), b[i].value.get())) return false;
  return true;
}

bool same_params(const std::vector<Parameter>& a, const std::vector<Parameter>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].kind != b[i].kind ||
        !same_expression(a[i].annotation.get(), b[i].annotation.get()) ||
        !same_expression(a[i].default_value.get(), b[i].default_value.get()))
      return false;
  return true;
}

template <class T>
const T& as(const Expr& e) {
  return static_cast<const T&>(e);
}

}  // namespace

bool same_expression(const Expr* a, const Expr* b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case ExprKind::Name: return as<Name>(*a).id == as<Name>(*b).id;
    case ExprKind::Constant: return same_constant(as<Constant>(*a), as<Constant>(*b));
    case ExprKind::Attribute:
      return as<Attribute>(*a).attr == as<Attribute>(*b).attr &&
             same_expression(as<Attribute>(*a).value.get(), as<Attribute>(*b).value.get());
    case ExprKind::Subscript:
      return same_expression(as<Subscript>(*a).value.get(), as<Subscript>(*b).value.get()) &&
             same_expression(as<Subscript>(*a).index.get(), as<Subscript>(*b).index.get());
    case ExprKind::Slice: {
      const auto &x = as<Slice>(*a), &y = as<Slice>(*b);
      return same_expression(x.lower.get(), y.lower.get()) && same_expression(x.upper.get(), y.upper.get()) &&
             same_expression(x.step.get(), y.step.get());
    }
    case ExprKind::Call: {
      const auto &x = as<Call>(*a), &y = as<Call>(*b);
      return same_expression(x.func.get(), y.func.get()) && same_list(x.args, y.args) &&
             same_keywords(x.keywords, y.keywords);
    }
    case ExprKind::UnaryOp:
      return as<UnaryOp>(*a).op == as<UnaryOp>(*b).op &&
             same_expression(as<UnaryOp>(*a).operand.get(), as<UnaryOp>(*b).operand.get());
    case ExprKind::BinOp: {
      const auto &x = as<BinOp>(*a), &y = as<BinOp>(*b);
      return x.op == y.op && same_expression(x.left.get(), y.left.get()) &&
             same_expression(x.right.get(), y.right.get());
    }
    case ExprKind::BoolOp:
      return as<BoolOp>(*a).op == as<BoolOp>(*b).op &&
             same_list(as<BoolOp>(*a).values, as<BoolOp>(*b).values);
    case ExprKind::Compare: {
      const auto &x = as<Compare>(*a), &y = as<Compare>(*b);
      return x.ops == y.ops && same_expression(x.left.get(), y.left.get()) &&
             same_list(x.comparators, y.comparators);
    }
    case ExprKind::IfExp: {
      const auto &x = as<IfExp>(*a), &y = as<IfExp>(*b);
      return same_expression(x.test.get(), y.test.get()) && same_expression(x.body.get(), y.body.get()) &&
             same_expression(x.orelse.get(), y.orelse.get());
    }
    case ExprKind::Tuple: return same_list(as<Tuple>(*a).elts, as<Tuple>(*b).elts);
    case ExprKind::List: return same_list(as<List>(*a).elts, as<List>(*b).elts);
    case ExprKind::Set: return same_list(as<Set>(*a).elts, as<Set>(*b).elts);
    case ExprKind::Dict:
      return same_list(as<Dict>(*a).keys, as<Dict>(*b).keys) &&
             same_list(as<Dict>(*a).values, as<Dict>(*b).values);
    case ExprKind::Lambda:
      return same_params(as<Lambda>(*a).params, as<Lambda>(*b).params) &&
             same_expression(as<Lambda>(*a).body.get(), as<Lambda>(*b).body.get());
    case ExprKind::Starred: return same_expression(as<Starred>(*a).value.get(), as<Starred>(*b).value.get());
  }
  return false;
}

}  // namespace weir::pycode
