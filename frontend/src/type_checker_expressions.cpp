// Type checking of expressions: operators, names, literals, tuples, attributes, subscripts,
// comparisons.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "literal_value.h"
#include "type_checker_internal.h"

namespace weir::frontend::typecheck {
namespace {

// "; write the literal 2 as 2.0 ..." when one operand is an integer literal and the other is
// floating-point: gt4py converts no integer to a float implicitly, so `2 * f` with a float64
// field `f` is a type error whose fix is the float literal.
std::string int_literal_hint(const TExprPtr& l, const TExprPtr& r) {
  for (const auto& [lit, other] : {std::pair{l, r}, std::pair{r, l}})
    if (lit->kind == TExprKind::Literal && lit->literal.kind == ConstantValue::Kind::Int &&
        other->type.is_data() && is_floating(other->type.dtype)) {
      std::string v = std::to_string(lit->literal.int_value);
      return "; write the literal " + v + " as " + v + ".0 (integers are not converted to floating point)";
    }
  return "";
}

// Where the types do not promote, the same for a literal of the other operand's kind but
// another width: a float literal is float64 and an integer literal int32, so `f32 + 0.1` and
// `i64 ** 3` need `float32(0.1)` and `int64(3)`.
std::string width_literal_hint(const TExprPtr& l, const TExprPtr& r) {
  for (const auto& [lit, other] : {std::pair{l, r}, std::pair{r, l}}) {
    if (lit->kind != TExprKind::Literal || !other->type.is_data() || !lit->type.is_data() ||
        other->type.dtype == lit->type.dtype)
      continue;
    const auto k = lit->literal.kind;
    if ((k == ConstantValue::Kind::Float && is_floating(other->type.dtype)) ||
        (k == ConstantValue::Kind::Int && is_integral(other->type.dtype))) {
      std::string v = lit->literal.str();
      // A float as Python writes it: the shortest text that reads back the same (0.1, not
      // 0.10000000000000001).
      if (k == ConstantValue::Kind::Float && std::isfinite(lit->literal.float_value))
        for (int digits = 1; digits <= 17; ++digits) {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.*g", digits, lit->literal.float_value);
          if (std::strtod(buf, nullptr) != lit->literal.float_value) continue;
          v = buf;
          if (v.find_first_of(".eEn") == std::string::npos) v += ".0";
          break;
        }
      return "; write the literal " + v + " as " + std::string(to_string(other->type.dtype)) + "(" + v +
             ") (the literal is " + std::string(to_string(lit->type.dtype)) +
             ", and no width is converted implicitly)";
    }
  }
  return "";
}

}  // namespace

Type FunctionChecker::promote_with_hint(const TExprPtr& l, const TExprPtr& r, std::string_view what,
                                        const SourceLocation& loc) {
  try {
    return promote(l->type, r->type, what, loc);
  } catch (const FrontendError& e) {
    std::string hint = width_literal_hint(l, r);
    if (hint.empty()) throw;
    throw FrontendError(
        loc, "cannot " + std::string(what) + " " + to_string(l->type) + " and " + to_string(r->type) + hint);
  }
}

TExprPtr FunctionChecker::binary(BinaryOperator op, TExprPtr l, TExprPtr r, const SourceLocation& loc) {
  const Type& a = l->type;
  const Type& b = r->type;
  Type t;
  if (a.kind == Type::Kind::Domain && b.kind == Type::Kind::Domain &&
      (op == BinaryOperator::BitAnd || op == BinaryOperator::BitOr)) {
    t = Type::domain(union_dims(a.dims, b.dims));
  } else if (op == BinaryOperator::Pow && a.is_data() && b.is_scalar() && is_floating(a.dtype) &&
             is_integral(b.dtype)) {
    t = a;
  } else {
    if (op == BinaryOperator::MatMult || op == BinaryOperator::LShift || op == BinaryOperator::RShift)
      throw FrontendError(loc, "operator '" + std::string(to_string(op)) + "' is not supported");
    if (std::string hint = int_literal_hint(l, r); !hint.empty())
      throw FrontendError(
          loc, "cannot " + std::string(verb(op)) + " " + to_string(a) + " and " + to_string(b) + hint);
    t = promote_with_hint(l, r, verb(op), loc);
    bool logical =
        op == BinaryOperator::BitAnd || op == BinaryOperator::BitOr || op == BinaryOperator::BitXor;
    if (logical && is_floating(t.dtype))
      throw FrontendError(loc, "operator '" + std::string(to_string(op)) +
                                   "' needs bool or integer operands, got " + to_string(a) + " and " +
                                   to_string(b));
    if (!logical && t.dtype == ScalarKind::Bool)
      throw FrontendError(loc, "cannot " + std::string(verb(op)) + " " + to_string(a) + " and " +
                                   to_string(b) + " (arithmetic on bool)");
    // NumPy refuses integers to negative integer powers; a literal exponent is caught here,
    // located (a run-time exponent is refused by the embedded backend).
    if (op == BinaryOperator::Pow && is_integral(t.dtype) && r->kind == TExprKind::Literal &&
        r->literal.kind == ConstantValue::Kind::Int && r->literal.int_value < 0)
      throw FrontendError(loc, "integers to negative integer powers are not allowed (" + to_string(a) +
                                   " ** " + std::to_string(r->literal.int_value) + "); use a float base");
    if (op == BinaryOperator::Mod && !is_integral(t.dtype))
      throw FrontendError(loc, "operator '%' needs integer operands (use fmod), got " + to_string(a) +
                                   " and " + to_string(b));
  }
  auto e = mk(TExprKind::Binary, t, loc);
  e->binary_op = op;
  e->args = {std::move(l), std::move(r)};
  return e;
}

TExprPtr FunctionChecker::expr(const Expr& e, Scope& scope) {
  switch (e.kind) {
    case ExprKind::Name: return name_expr(static_cast<const Name&>(e), scope);
    case ExprKind::Attribute: return attribute_expr(static_cast<const Attribute&>(e), scope);
    case ExprKind::Constant: return constant_expr(static_cast<const Constant&>(e));
    case ExprKind::Tuple: return tuple_expr(static_cast<const Tuple&>(e), scope);
    case ExprKind::Subscript: return subscript(static_cast<const Subscript&>(e), scope);
    case ExprKind::UnaryOp: return unary_expr(static_cast<const UnaryOp&>(e), scope);
    case ExprKind::BinOp: return binop_expr(static_cast<const BinOp&>(e), scope);
    case ExprKind::Compare: return compare(static_cast<const Compare&>(e), scope);
    case ExprKind::IfExp: return ifexp_expr(static_cast<const IfExp&>(e), scope);
    case ExprKind::Call: return call(static_cast<const Call&>(e), scope);
    default: break;
  }
  unsupported_expr(e);
}

void FunctionChecker::unsupported_expr(const Expr& e) {
  if (auto* b = dyn_cast<BoolOp>(&e))
    throw FrontendError(e.loc, std::string("'") + std::string(to_string(b->op)) +
                                   "' is not supported in field operators; use & and |");
  throw FrontendError(e.loc, std::string(to_string(e.kind)) + " expressions are not supported in a " +
                                 std::string(to_string(def_.kind)));
}

TExprPtr FunctionChecker::attribute_expr(const Attribute& a, Scope& scope) {
  // `scan(x).value`, `op(x).u`: an element of a call's collection result. A call is never a
  // module-level value here (module-level calls are evaluated where they are bound).
  if (rooted_in(*a.value, scope) || isa<Call>(a.value.get())) return element(a, expr(*a.value, scope));
  return value_expr(global(a), a);
}

TExprPtr FunctionChecker::name_expr(const Name& n, Scope& scope) {
  auto it = scope.find(n.id);
  if (it != scope.end()) {
    auto r = mk(TExprKind::Name, it->second, n.loc);
    r->name = n.id;
    return r;
  }
  return value_expr(global(n), n);
}

TExprPtr FunctionChecker::constant_expr(const Constant& c) {
  std::optional<ConstantValue> v = literal_value(c);
  if (!v || v->kind == ConstantValue::Kind::String)
    throw FrontendError(c.loc,
                        "literal " + c.text + " is not supported in a " + std::string(to_string(def_.kind)));
  return literal(*v, c.loc);
}

TExprPtr FunctionChecker::tuple_expr(const Tuple& t, Scope& scope) {
  auto r = mk(TExprKind::Tuple, Type{}, t.loc);
  std::vector<Type> types;
  for (const ExprPtr& x : t.elts) {
    if (isa<Starred>(x.get())) throw FrontendError(x->loc, "starred expressions are not supported here");
    r->args.push_back(expr(*x, scope));
    types.push_back(r->args.back()->type);
  }
  r->type = Type::tuple(std::move(types));
  return r;
}

TExprPtr FunctionChecker::unary_expr(const UnaryOp& u, Scope& scope) {
  return unary_result(u, expr(*u.operand, scope));
}

TExprPtr FunctionChecker::unary_result(const UnaryOp& u, TExprPtr x) {
  if (u.op == UnaryOperator::USub && x->kind == TExprKind::Literal &&
      x->literal.kind != ConstantValue::Kind::Bool) {
    ConstantValue c = x->literal;
    if (c.kind == ConstantValue::Kind::Int)
      c.int_value = -c.int_value;
    else
      c.float_value = -c.float_value;
    return literal(c, u.loc);
  }
  const Type& t = x->type;
  bool ok = t.is_data();
  if (ok && (u.op == UnaryOperator::UAdd || u.op == UnaryOperator::USub)) ok = is_numeric(t.dtype);
  if (ok && u.op == UnaryOperator::Not) ok = t.dtype == ScalarKind::Bool;
  if (ok && u.op == UnaryOperator::Invert) ok = !is_floating(t.dtype);
  if (!ok)
    throw FrontendError(
        u.loc, "operator '" + std::string(to_string(u.op)) + "' cannot be applied to " + to_string(t));
  auto r = mk(TExprKind::Unary, t, u.loc);
  r->unary_op = u.op;
  r->args = {std::move(x)};
  return r;
}

TExprPtr FunctionChecker::binop_expr(const BinOp& b, Scope& scope) {
  TExprPtr l = expr(*b.left, scope);
  return binop_result(b, std::move(l), expr(*b.right, scope));
}

TExprPtr FunctionChecker::binop_result(const BinOp& b, TExprPtr l, TExprPtr r) {
  if (l->type.kind == Type::Kind::Dimension)
    throw FrontendError(b.op_loc, "dimension arithmetic '" + unparse(b) +
                                      "' is only allowed as a shift argument: f(" + unparse(b) + ")");
  return binary(b.op, std::move(l), std::move(r), b.op_loc);
}

TExprPtr FunctionChecker::ifexp_expr(const IfExp& i, Scope& scope) {
  TExprPtr c = expr(*i.test, scope);
  TExprPtr a = expr(*i.body, scope);
  return ifexp_result(i, std::move(c), std::move(a), expr(*i.orelse, scope));
}

TExprPtr FunctionChecker::ifexp_result(const IfExp& i, TExprPtr c, TExprPtr a, TExprPtr b) {
  if (!(c->type == Type::scalar(ScalarKind::Bool)))
    throw FrontendError(i.test->loc, "the condition of a conditional expression must be a scalar bool, got " +
                                         to_string(c->type) + " (use where)");
  if (!(a->type == b->type))
    throw FrontendError(i.loc, "the branches of a conditional expression have different types: " +
                                   to_string(a->type) + " and " + to_string(b->type));
  auto r = mk(TExprKind::Ternary, a->type, i.loc);
  r->args = {std::move(c), std::move(a), std::move(b)};
  return r;
}

// Whether `e` is (an attribute, subscript or call of) a local name.
bool FunctionChecker::rooted_in(const Expr& e, const Scope& scope) {
  if (auto* n = dyn_cast<Name>(&e)) return scope.count(n->id) > 0;
  if (auto* a = dyn_cast<Attribute>(&e)) return rooted_in(*a->value, scope);
  if (auto* s = dyn_cast<Subscript>(&e)) return rooted_in(*s->value, scope);
  return false;
}

// `state.u`: the element `u` of a named collection.
TExprPtr FunctionChecker::element(const Attribute& a, TExprPtr base) {
  const Type& t = base->type;
  auto it = std::find(t.names.begin(), t.names.end(), a.attr);
  if (!t.is_tuple() || it == t.names.end())
    throw FrontendError(a.attr_loc, to_string(t) + " has no attribute '" + a.attr + "'");
  std::size_t i = static_cast<std::size_t>(it - t.names.begin());
  auto r = mk(TExprKind::TupleGet, t.elements[i], a.loc);
  r->index = i;
  r->args = {std::move(base)};
  return r;
}

// `State(u, v=x)`: a named collection built from its elements (positional, then by name),
// each `arg(expr)` of the element's type.
TExprPtr FunctionChecker::collection(const Call& c, const Type& t,
                                     const std::function<TExprPtr(const Expr&)>& arg) {
  std::vector<TExprPtr> elts(t.elements.size());
  if (c.args.size() > elts.size())
    throw FrontendError(c.loc, "'" + t.collection + "' has " + std::to_string(elts.size()) +
                                   " elements, got " + std::to_string(c.args.size()) + " arguments");
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    if (isa<Starred>(c.args[i].get()))
      throw FrontendError(c.args[i]->loc, "starred arguments are not supported");
    elts[i] = arg(*c.args[i]);
  }
  for (const Keyword& k : c.keywords) {
    auto it = std::find(t.names.begin(), t.names.end(), k.arg);
    if (it == t.names.end())
      throw FrontendError(k.loc, "'" + t.collection + "' has no element '" + k.arg + "'");
    std::size_t i = static_cast<std::size_t>(it - t.names.begin());
    if (elts[i]) throw FrontendError(k.loc, "element '" + k.arg + "' given twice");
    elts[i] = arg(*k.value);
  }
  auto r = mk(TExprKind::Tuple, t, c.loc);
  for (std::size_t i = 0; i < elts.size(); ++i) {
    if (!elts[i])
      throw FrontendError(c.loc, "missing element '" + t.names[i] + "' of '" + t.collection + "'");
    if (in_scan_init_ && !(elts[i]->type == t.elements[i])) adapt_literals(*elts[i], t.elements[i]);
    if (!(elts[i]->type == t.elements[i]))
      throw FrontendError(elts[i]->loc, "element '" + t.names[i] + "' of '" + t.collection + "' must be " +
                                            to_string(t.elements[i]) + ", got " + to_string(elts[i]->type));
  }
  r->args = std::move(elts);
  return r;
}

TExprPtr FunctionChecker::subscript(const Subscript& s, Scope& scope) {
  TExprPtr base = expr(*s.value, scope);
  if (base->type.is_tuple()) {
    TExprPtr idx = expr(*s.index, scope);
    if (!is_int_literal(idx)) throw FrontendError(s.index->loc, "a tuple index must be an integer literal");
    std::int64_t i = idx->literal.int_value;
    std::int64_t n = static_cast<std::int64_t>(base->type.elements.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n)
      throw FrontendError(s.index->loc, "tuple index " + std::to_string(idx->literal.int_value) +
                                            " out of range for " + to_string(base->type));
    auto r = mk(TExprKind::TupleGet, base->type.elements[static_cast<std::size_t>(i)], s.loc);
    r->index = static_cast<std::size_t>(i);
    r->args = {base};
    return r;
  }
  if (base->type.is_field()) {
    auto* c = dyn_cast<Call>(s.index.get());
    Value dv;
    if (c && c->args.size() == 1 && !is_local(*c->func)) dv = global(*c->func);
    if (!c || dv.kind != ValueKind::Dimension)
      throw FrontendError(s.index->loc,
                          "a field can only be indexed by a local dimension "
                          "entry such as f[E2VDim(0)]");
    if (dv.dim.kind != DimensionKind::Local)
      throw FrontendError(s.index->loc, "'" + dv.dim.name + "' is not a LOCAL dimension");
    if (!base->type.has_dim(dv.dim))
      throw FrontendError(s.index->loc, to_string(base->type) + " has no dimension '" + dv.dim.name + "'");
    TExprPtr idx = expr(*c->args[0], scope);
    if (!is_int_literal(idx) || idx->literal.int_value < 0)
      throw FrontendError(c->args[0]->loc, "a local index must be a non-negative integer literal");
    std::vector<Dimension> dims;
    for (const Dimension& d : base->type.dims)
      if (!(d == dv.dim)) dims.push_back(d);
    auto r = mk(TExprKind::LocalIndex, Type::field(dims, base->type.dtype), s.loc);
    r->dim = dv.dim;
    r->index = static_cast<std::size_t>(idx->literal.int_value);
    r->args = {base};
    return r;
  }
  throw FrontendError(s.loc, "cannot subscript " + to_string(base->type));
}

TExprPtr FunctionChecker::compare(const Compare& c, Scope& scope) {
  if (c.ops.size() > 1)
    throw FrontendError(c.op_locs[1],
                        "comparison chains are not supported; combine "
                        "comparisons with & and |");
  CompareOperator op = c.ops[0];
  if (op == CompareOperator::Is || op == CompareOperator::IsNot || op == CompareOperator::In ||
      op == CompareOperator::NotIn)
    throw FrontendError(c.op_locs[0], "operator '" + std::string(to_string(op)) + "' is not supported");
  TExprPtr l = expr(*c.left, scope);
  TExprPtr r = expr(*c.comparators[0], scope);
  bool ldim = l->type.kind == Type::Kind::Dimension, rdim = r->type.kind == Type::Kind::Dimension;
  if (ldim || rdim) {
    if (ldim && rdim) throw FrontendError(c.op_locs[0], "cannot compare two dimensions");
    if (rdim) {
      std::swap(l, r);
      switch (op) {
        case CompareOperator::Lt: op = CompareOperator::Gt; break;
        case CompareOperator::LtE: op = CompareOperator::GtE; break;
        case CompareOperator::Gt: op = CompareOperator::Lt; break;
        case CompareOperator::GtE: op = CompareOperator::LtE; break;
        default: break;
      }
    }
    if (!r->type.is_scalar() || !is_integral(r->type.dtype))
      throw FrontendError(
          r->loc, "a dimension can only be compared with a scalar integer, got " + to_string(r->type));
    auto d = mk(TExprKind::DomainCompare, Type::domain(l->type.dims), c.loc);
    d->dim = l->type.dims[0];
    d->compare_op = op;
    d->args = {r};
    return d;
  }
  if (std::string hint = int_literal_hint(l, r); !hint.empty())
    throw FrontendError(c.op_locs[0],
                        "cannot compare " + to_string(l->type) + " and " + to_string(r->type) + hint);
  Type t = promote_with_hint(l, r, "compare", c.op_locs[0]);
  auto e = mk(TExprKind::Compare, Type::field(t.dims, ScalarKind::Bool), c.loc);
  e->compare_op = op;
  e->args = {l, r};
  return e;
}

}  // namespace weir::frontend::typecheck
