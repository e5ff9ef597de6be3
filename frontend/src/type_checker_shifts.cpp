// Type checking of shifts: Cartesian offsets, connectivities, neighbour tables.
#include <cmath>

#include "type_checker_internal.h"

namespace weir::frontend::typecheck {

ShiftStep FunctionChecker::shift_step(const Expr& a, const Type& field, std::vector<Dimension>& dims,
                                      Scope& scope) {
  ShiftStep st;
  auto need = [&](const Dimension& d, const std::string& why) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end())
      throw FrontendError(a.loc, "cannot shift " + to_string(Type::field(dims, field.dtype)) + why +
                                     ": it has no dimension '" + d.name + "'");
  };
  if (auto* b = dyn_cast<BinOp>(&a); b && (b->op == BinaryOperator::Add || b->op == BinaryOperator::Sub)) {
    TExprPtr l = expr(*b->left, scope);
    if (l->type.kind == Type::Kind::Dimension) {
      TExprPtr r = expr(*b->right, scope);
      const Dimension& d = l->type.dims[0];
      if (d.kind == DimensionKind::Local)
        throw FrontendError(b->left->loc, "cannot shift along the LOCAL dimension '" + d.name + "'");
      if (r->kind == TExprKind::Literal && r->literal.kind == ConstantValue::Kind::Float)
        return staggered_step(*b, r->literal.float_value, d, field, dims);
      if (!is_int_literal(r)) throw FrontendError(b->right->loc, "a shift amount must be an integer literal");
      need(d, " along '" + d.name + "'");
      st.kind = ShiftStep::Kind::Cartesian;
      st.offset = FieldOffset{d.name, d, {d}};
      st.amount = b->op == BinaryOperator::Add ? r->literal.int_value : -r->literal.int_value;
      return st;
    }
  }
  if (auto* s = dyn_cast<Subscript>(&a)) {
    TExprPtr o = expr(*s->value, scope);
    if (o->type.kind == Type::Kind::Offset) {
      const FieldOffset& off = o->type.offset;
      TExprPtr i = expr(*s->index, scope);
      if (!is_int_literal(i))
        throw FrontendError(s->index->loc, "an offset index must be an integer literal");
      need(off.source, " by '" + off.name + "'");
      st.offset = off;
      st.amount = i->literal.int_value;
      if (off.cartesian()) {
        st.kind = ShiftStep::Kind::Cartesian;
        std::replace(dims.begin(), dims.end(), off.source, off.targets[0]);
      } else {
        if (st.amount < 0) throw FrontendError(s->index->loc, "a neighbour index must not be negative");
        st.kind = ShiftStep::Kind::Neighbor;
        std::replace(dims.begin(), dims.end(), off.source, off.targets[0]);
      }
      dims = canonical_dims(dims);
      return st;
    }
  }
  if (auto* c = dyn_cast<Call>(&a); c && !is_local(*c->func)) {
    Value f = global(*c->func);
    if (f.kind == ValueKind::Builtin && f.name == "as_offset") {
      expect_args(*c, "as_offset", 2);
      TExprPtr o = expr(*c->args[0], scope);
      if (o->type.kind != Type::Kind::Offset || !o->type.offset.cartesian())
        throw FrontendError(c->args[0]->loc,
                            "the first argument of as_offset must be a "
                            "Cartesian FieldOffset");
      TExprPtr idx = expr(*c->args[1], scope);
      if (!idx->type.is_data() || !is_integral(idx->type.dtype))
        throw FrontendError(c->args[1]->loc,
                            "the offsets of as_offset must be an integer field, "
                            "got " +
                                to_string(idx->type));
      need(o->type.offset.source, " by '" + o->type.offset.name + "'");
      st.kind = ShiftStep::Kind::Dynamic;
      st.offset = o->type.offset;
      st.index_field = idx;
      return st;
    }
  }
  TExprPtr o = expr(a, scope);
  if (o->type.kind == Type::Kind::Offset) {
    const FieldOffset& off = o->type.offset;
    if (off.cartesian())
      throw FrontendError(
          a.loc, "the Cartesian offset '" + off.name + "' needs an index, e.g. " + unparse(a) + "[1]");
    need(off.source, " by '" + off.name + "'");
    st.kind = ShiftStep::Kind::AllNeighbors;
    st.offset = off;
    std::replace(dims.begin(), dims.end(), off.source, off.targets[0]);
    dims.push_back(off.targets[1]);
    dims = canonical_dims(dims);
    return st;
  }
  throw FrontendError(a.loc, "'" + unparse(a) +
                                 "' is not a shift (use IDim + 1, Koff[1], "
                                 "E2V[0], E2V or as_offset)");
}

// `D + 0.5`, `D - 1.5` (gt4py.next.common.connectivity_for_cartesian_shift): a half-integer
// amount moves a field over D's staggered partner P to one over D. A staggered index sits half
// a cell below its base index, so the field is read at the point's D index plus floor(amount),
// plus 1 more when D is the unstaggered one (`I + 0.5`: I(i) reads IHalf(i + 1); `IHalf + 0.5`:
// IHalf(i) reads I(i)). A whole float amount (`D + 1.0`) shifts within D, as an integer one.
ShiftStep FunctionChecker::staggered_step(const BinOp& b, double amount, const Dimension& d,
                                          const Type& field, std::vector<Dimension>& dims) {
  if (b.op == BinaryOperator::Sub) amount = -amount;
  const double whole = std::floor(amount);
  const double frac = amount - whole;
  if (!std::isfinite(amount) || std::abs(whole) > 1e15 || (frac != 0.0 && frac != 0.5))
    throw FrontendError(b.right->loc, "invalid offset '" + unparse(*b.right) +
                                          "' for a Cartesian shift of '" + d.name +
                                          "': use an integer to shift within the dimension, or a "
                                          "half-integer (0.5, -1.5) to shift to its staggered partner");
  ShiftStep st;
  st.kind = ShiftStep::Kind::Cartesian;
  st.amount = static_cast<std::int64_t>(whole);
  const Dimension from = frac == 0.0 ? d : flip_staggered(d);
  auto has = [&](const Dimension& x) { return std::find(dims.begin(), dims.end(), x) != dims.end(); };
  if (!has(from))
    throw FrontendError(
        b.loc,
        "cannot shift " + to_string(Type::field(dims, field.dtype)) + " by '" + unparse(b) +
            "': it has no dimension '" + from.name + "'" +
            (frac == 0.0 ? "" : " (a half-integer shift to '" + d.name + "' reads its staggered partner)"));
  if (frac != 0.0 && has(d))
    throw FrontendError(b.loc, "cannot shift " + to_string(Type::field(dims, field.dtype)) + " to '" +
                                   d.name +
                                   "': it has that dimension already (a dimension and its staggered partner "
                                   "do not appear together in one field)");
  if (frac != 0.0 && !is_staggered(d)) st.amount += 1;
  st.offset = FieldOffset{d.name, from, {d}};
  std::replace(dims.begin(), dims.end(), from, d);
  return st;
}

TExprPtr FunctionChecker::shift(const Call& c, TExprPtr field, Scope& scope) {
  if (!field->type.is_field())
    throw FrontendError(c.loc, "'" + unparse(*c.func) + "' has type " + to_string(field->type) +
                                   "; only fields can be shifted");
  if (c.args.empty() || !c.keywords.empty())
    throw FrontendError(c.loc, "a shift needs one or more offsets: f(IDim + 1)");
  std::vector<Dimension> dims = field->type.dims;
  auto r = mk(TExprKind::Shift, Type{}, c.loc);
  for (const ExprPtr& a : c.args) r->shifts.push_back(shift_step(*a, field->type, dims, scope));
  r->type = Type::field(dims, field->type.dtype);
  r->args.push_back(std::move(field));
  return r;
}

}  // namespace weir::frontend::typecheck
