// The embedded evaluator's expressions: names, literals, operators, calls, tuples.
#include "internal.h"

namespace weir::runtime::embedded {

Value Evaluator::eval(const TExpr& e, Env& env) {
  switch (e.kind) {
    case TExprKind::Name: {
      auto it = env.find(e.name);
      if (it == env.end()) fail(e.loc, "'" + e.name + "' has no value here");
      return it->second;
    }
    case TExprKind::Literal: {
      ScalarKind k = e.type.dtype;
      const auto& c = e.literal;
      Num v = c.kind == frontend::ConstantValue::Kind::Float  ? from_double(k, c.float_value)
              : c.kind == frontend::ConstantValue::Kind::Bool ? from_int(k, c.bool_value ? 1 : 0)
                                                              : from_int(k, c.int_value);
      return Value::of(FieldVal::scalar(k, v));
    }
    case TExprKind::Tuple: {
      std::vector<Value> el;
      for (const auto& a : e.args) el.push_back(eval(*a, env));
      return Value::tuple(std::move(el));
    }
    case TExprKind::TupleGet: {
      Value t = eval(*e.args[0], env);
      if (!t.is_tuple || e.index >= t.elements.size()) fail(e.loc, "tuple index out of range");
      return t.elements[e.index];
    }
    case TExprKind::Unary: {
      Value x = eval(*e.args[0], env);
      const FieldVal& f = leaf(x, e);
      ScalarKind k = f.dtype;
      UnaryOperator op = e.unary_op;
      return Value::of(elementwise({&f}, e.type.dtype, [&](const Num* a) {
        Num r = a[0];
        switch (op) {
          case UnaryOperator::UAdd: break;
          case UnaryOperator::USub:
            if (num_class(k) == NumClass::Float)
              r.f = -r.f;
            else if (num_class(k) == NumClass::Unsigned)
              r.u = 0 - r.u;
            else
              r.i = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(r.i));
            break;
          case UnaryOperator::Not: r.i = !truthy(k, r); break;
          case UnaryOperator::Invert:
            if (k == ScalarKind::Bool)
              r.i = !r.i;
            else if (num_class(k) == NumClass::Unsigned)
              r.u = ~r.u;
            else
              r.i = ~r.i;
            break;
        }
        return r;
      }));
    }
    case TExprKind::Binary: {
      Value a = eval(*e.args[0], env), b = eval(*e.args[1], env);
      const FieldVal &x = leaf(a, e), &y = leaf(b, e);
      ScalarKind k = x.dtype, ky = y.dtype;
      BinaryOperator op = e.binary_op;
      // The type checker lets the operands' dtypes differ only for `float ** integer`: the
      // exponent is converted to the base's dtype, as NumPy computes it (a Num holds an integer
      // in another member than a float, so reading it as one would be garbage).
      return Value::of(elementwise({&x, &y}, e.type.dtype, [&](const Num* v) {
        return binop(op, k, v[0], ky == k ? v[1] : convert(ky, k, v[1]), e);
      }));
    }
    case TExprKind::Compare: {
      Value a = eval(*e.args[0], env), b = eval(*e.args[1], env);
      const FieldVal &x = leaf(a, e), &y = leaf(b, e);
      ScalarKind k = x.dtype;
      CompareOperator op = e.compare_op;
      return Value::of(elementwise({&x, &y}, ScalarKind::Bool, [&](const Num* v) {
        return bool_num(compare(op, compare3(k, v[0], v[1])));
      }));
    }
    case TExprKind::Ternary: {
      const FieldVal c = leaf(eval(*e.args[0], env), e);
      return eval(*e.args[truthy(c.dtype, (*c.data)[static_cast<std::size_t>(c.base)]) ? 1 : 2], env);
    }
    case TExprKind::Shift: {
      FieldVal f = leaf(eval(*e.args[0], env), e);
      for (const ShiftStep& s : e.shifts) f = shift(std::move(f), s, env, e);
      return Value::of(std::move(f));
    }
    case TExprKind::LocalIndex: {
      FieldVal f = leaf(eval(*e.args[0], env), e);
      int p = f.find(e.dim);
      if (p < 0) fail(e.loc, "the field has no local dimension '" + e.dim.name + "'");
      auto pu = static_cast<std::size_t>(p);
      auto i = static_cast<std::int64_t>(e.index);
      if (!f.ranges[pu].is_unbounded()) {
        if (!f.ranges[pu].contains(i))
          fail(e.loc,
               "local index " + std::to_string(i) + " is outside " + e.dim.name + ": " + f.ranges[pu].str());
        f.base += (i - f.ranges[pu].lo) * f.strides[pu];
      }
      f.dims.erase(f.dims.begin() + p);
      f.ranges.erase(f.ranges.begin() + p);
      f.strides.erase(f.strides.begin() + p);
      return Value::of(std::move(f));
    }
    case TExprKind::Builtin: return builtin(e, env);
    case TExprKind::DomainCompare:
      fail(e.loc, "a domain condition can only be the first argument of concat_where");
    case TExprKind::Call: {
      std::vector<Value> args;
      for (const auto& a : e.args) args.push_back(eval(*a, env));
      return call(*e.callee, args, e.loc);
    }
  }
  fail(e.loc, "unsupported expression");
}

}  // namespace weir::runtime::embedded
