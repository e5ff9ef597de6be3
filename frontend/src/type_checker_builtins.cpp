// Type checking of builtin calls: constructors (float64(x), ...), math, reductions, where,
// concat_where, broadcast, astype.
#include "type_checker_internal.h"

namespace weir::frontend::typecheck {

TExprPtr FunctionChecker::constructor(const Call& c, ScalarKind k, const std::string& fn, Scope& scope) {
  expect_args(c, fn, 1);
  const Expr* a = c.args[0].get();
  const Expr* lit = a;
  bool neg = false;
  if (auto* u = dyn_cast<UnaryOp>(a); u && u->op == UnaryOperator::USub) {
    lit = u->operand.get();
    neg = true;
  }
  auto* cst = dyn_cast<Constant>(lit);
  if (!cst && (isa<Name>(lit) || isa<Attribute>(lit)) && !is_local(*lit)) {
    // a module-level constant: `float64(N)`
    Value v = global(*lit);
    if (v.kind == ValueKind::Constant && v.constant.kind != ConstantValue::Kind::String) {
      double d = v.constant.as_double();
      if (neg) d = -d;
      return typed_constant(k, d, c.loc);
    }
  }
  if (!cst && def_.kind == DefinitionKind::Program) {
    // gt4py's programs convert scalars with the type's constructor (`int32(nlev - 1)`, a
    // parameter of another type): astype of a scalar. Field operators take only literals.
    TExprPtr x = expr(*a, scope);
    if (!x->type.is_scalar())
      throw FrontendError(a->loc,
                          "type constructor '" + fn + "' converts a scalar, got " + to_string(x->type));
    auto r = mk(TExprKind::Builtin, Type::scalar(k), c.loc);
    r->name = "astype";
    r->args = {x};
    return r;
  }
  if (!cst || !(cst->value_kind == ConstantKind::Int || cst->value_kind == ConstantKind::Float ||
                cst->value_kind == ConstantKind::Bool || cst->value_kind == ConstantKind::String))
    throw FrontendError(a->loc, "type constructor '" + fn +
                                    "' takes only a literal (use astype "
                                    "to convert values)");
  double d = 0;
  if (cst->value_kind == ConstantKind::String) {
    try {
      std::size_t used = 0;
      d = std::stod(cst->str_value, &used);
      if (used != cst->str_value.size()) throw std::invalid_argument("x");
    } catch (const std::exception&) {
      throw FrontendError(a->loc, "'" + cst->str_value + "' is not a number");
    }
  } else if (cst->value_kind == ConstantKind::Int) {
    d = static_cast<double>(cst->int_value);
  } else if (cst->value_kind == ConstantKind::Float) {
    d = cst->float_value;
  } else {
    d = cst->bool_value;
  }
  if (neg) d = -d;
  return typed_constant(k, d, c.loc);
}

TExprPtr FunctionChecker::typed_constant(ScalarKind k, double d, const SourceLocation& loc) {
  ConstantValue v;
  if (is_floating(k)) {
    v.kind = ConstantValue::Kind::Float;
    v.float_value = d;
  } else if (k == ScalarKind::Bool) {
    v.kind = ConstantValue::Kind::Bool;
    v.bool_value = d != 0;
  } else {
    v.kind = ConstantValue::Kind::Int;
    // NumPy refuses a value its integer type cannot hold; C++'s conversion would be undefined.
    if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0))
      throw FrontendError(
          loc, "the value " + std::to_string(d) + " does not fit in " + to_string(Type::scalar(k)));
    v.int_value = static_cast<std::int64_t>(d);
  }
  auto e = mk(TExprKind::Literal, Type::scalar(k), loc);
  e->literal = v;
  return e;
}

Type FunctionChecker::where_type(const Type& mask, const Type& a, const Type& b, const std::string& fn,
                                 const SourceLocation& loc) {
  if (a.is_tuple() && b.is_tuple() && a.elements.size() == b.elements.size()) {
    std::vector<Type> e;
    for (std::size_t i = 0; i < a.elements.size(); ++i)
      e.push_back(where_type(mask, a.elements[i], b.elements[i], fn, loc));
    return Type::tuple(std::move(e));
  }
  if (!a.is_data() || !b.is_data() || a.dtype != b.dtype)
    throw FrontendError(loc, "'" + fn + "' cannot combine " + to_string(a) + " and " + to_string(b));
  // The values' dimension order first: a condition on J must not reorder a field over (I, J, K).
  return Type::field(union_dims(union_dims(a.dims, b.dims), mask.dims), a.dtype);
}

TExprPtr FunctionChecker::builtin(const Call& c, const std::string& name, const std::string& fn,
                                  Scope& scope) {
  auto r = mk(TExprKind::Builtin, Type{}, c.loc);
  r->name = name;
  if (name == "neighbor_sum" || name == "max_over" || name == "min_over") {
    expect_args(c, fn, 1, {"axis"});
    const Expr* axis = keyword(c, "axis");
    if (!axis) throw FrontendError(c.loc, "'" + fn + "' needs axis= (a LOCAL dimension)");
    TExprPtr a = expr(*axis, scope);
    if (a->type.kind != Type::Kind::Dimension)
      throw FrontendError(axis->loc,
                          "the axis of '" + fn + "' must be a dimension, got " + to_string(a->type));
    const Dimension& d = a->type.dims[0];
    if (d.kind != DimensionKind::Local)
      throw FrontendError(axis->loc, "the axis of '" + fn + "' must be a LOCAL dimension, '" + d.name +
                                         "' is " + std::string(to_string(d.kind)));
    TExprPtr x = expr(*c.args[0], scope);
    if (!x->type.is_field() || !x->type.has_dim(d))
      throw FrontendError(c.args[0]->loc, "'" + fn + "' over '" + d.name +
                                              "' needs a field with "
                                              "dimension '" +
                                              d.name + "', got " + to_string(x->type));
    if (!is_numeric(x->type.dtype))
      throw FrontendError(c.args[0]->loc, "'" + fn + "' needs numbers, got " + to_string(x->type));
    std::vector<Dimension> dims;
    for (const Dimension& e : x->type.dims)
      if (!(e == d)) dims.push_back(e);
    r->type = Type::field(dims, x->type.dtype);
    r->dim = d;
    r->args = {x};
    return r;
  }
  if (name == "where") {
    expect_args(c, fn, 3);
    TExprPtr m = expr(*c.args[0], scope);
    if (!m->type.is_data() || m->type.dtype != ScalarKind::Bool)
      throw FrontendError(c.args[0]->loc, "the mask of 'where' must be bool, got " + to_string(m->type));
    TExprPtr a = expr(*c.args[1], scope), b = expr(*c.args[2], scope);
    r->type = where_type(m->type, a->type, b->type, fn, c.loc);
    r->args = {m, a, b};
    return r;
  }
  if (name == "concat_where") {
    expect_args(c, fn, 3);
    TExprPtr m = expr(*c.args[0], scope);
    if (m->type.kind != Type::Kind::Domain)
      throw FrontendError(c.args[0]->loc,
                          "the condition of 'concat_where' must be a domain "
                          "condition such as KDim > 0, got " +
                              to_string(m->type));
    TExprPtr a = expr(*c.args[1], scope), b = expr(*c.args[2], scope);
    r->type = where_type(m->type, a->type, b->type, fn, c.loc);
    r->args = {m, a, b};
    return r;
  }
  if (name == "broadcast") {
    expect_args(c, fn, 2);
    TExprPtr x = expr(*c.args[0], scope);
    if (!x->type.is_data()) throw FrontendError(c.args[0]->loc, "cannot broadcast " + to_string(x->type));
    Value dv = global(*c.args[1]);
    std::vector<Dimension> dims;
    if (dv.kind == ValueKind::Dimension)
      dims.push_back(dv.dim);
    else if (dv.kind == ValueKind::Sequence) {
      for (const Value& v : dv.elements) {
        if (v.kind != ValueKind::Dimension)
          throw FrontendError(c.args[1]->loc, "broadcast needs a tuple of dimensions");
        dims.push_back(v.dim);
      }
    } else {
      throw FrontendError(c.args[1]->loc, "broadcast needs a tuple of dimensions");
    }
    for (const Dimension& d : x->type.dims)
      if (std::find(dims.begin(), dims.end(), d) == dims.end())
        throw FrontendError(c.args[1]->loc, "cannot broadcast " + to_string(x->type) + ": dimension '" +
                                                d.name + "' is missing");
    r->type = Type::field(dims, x->type.dtype);
    r->dims = r->type.dims;
    r->args = {x};
    return r;
  }
  if (name == "astype") {
    expect_args(c, fn, 2);
    TExprPtr x = expr(*c.args[0], scope);
    Type t = value_to_type(global(*c.args[1]), c.args[1]->loc);
    if (!t.is_scalar())
      throw FrontendError(c.args[1]->loc, "astype needs a scalar dtype, got " + to_string(t));
    if (!x->type.is_value()) throw FrontendError(c.args[0]->loc, "cannot convert " + to_string(x->type));
    r->type = map_leaves(x->type, t.dtype);
    r->args = {x};
    return r;
  }
  if (name == "abs" || float_math().count(name) || name == "isfinite" || name == "isinf" || name == "isnan") {
    expect_args(c, fn, 1);
    TExprPtr x = expr(*c.args[0], scope);
    bool ok = x->type.is_data() && (name == "abs" ? is_numeric(x->type.dtype) : is_floating(x->type.dtype));
    if (!ok) throw FrontendError(c.args[0]->loc, "'" + fn + "' cannot be applied to " + to_string(x->type));
    r->type = x->type;
    if (name.rfind("is", 0) == 0) r->type.dtype = ScalarKind::Bool;
    r->args = {x};
    return r;
  }
  if (name == "minimum" || name == "maximum" || name == "fmod" || name == "power") {
    expect_args(c, fn, 2);
    TExprPtr a = expr(*c.args[0], scope), b = expr(*c.args[1], scope);
    r->type = promote(a->type, b->type, "apply '" + fn + "' to", c.loc);
    if (!is_numeric(r->type.dtype))
      throw FrontendError(c.loc, "'" + fn + "' needs numbers, got " + to_string(r->type));
    r->args = {a, b};
    return r;
  }
  if (name == "as_offset")
    throw FrontendError(c.loc, "as_offset can only be used as a shift: f(as_offset(Koff, offsets))");
  if (name.rfind("math.", 0) == 0)  // Python's math on numbers, at import; gt4py's on fields
    throw FrontendError(c.func->loc, "'" + fn + "' is Python's math function, which a " +
                                         std::string(to_string(def_.kind)) +
                                         " cannot call: use gt4py.next's (from gt4py.next import " +
                                         name.substr(5) + "), or compute the constant at module level");
  // Python's max, min and pow compute module-level constants; on fields gt4py spells them otherwise.
  if (name == "max" || name == "min" || name == "pow") {
    const std::string gt4py = name == "max" ? "maximum" : name == "min" ? "minimum" : "power";
    throw FrontendError(c.func->loc, "'" + fn + "' is Python's builtin, which a " +
                                         std::string(to_string(def_.kind)) +
                                         " cannot call: element-wise on fields use gt4py.next's " + gt4py +
                                         " (from gt4py.next import " + gt4py + ")");
  }
  throw FrontendError(c.func->loc,
                      "'" + fn + "' is not a supported builtin in a " + std::string(to_string(def_.kind)));
}

}  // namespace weir::frontend::typecheck
