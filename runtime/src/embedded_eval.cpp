#include "embedded_eval.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "weir/runtime/errors.h"

namespace weir::runtime::embedded {

using frontend::BinaryOperator;
using frontend::CompareOperator;
using frontend::ShiftStep;
using frontend::TExpr;
using frontend::TExprKind;
using frontend::TStmt;
using frontend::TypedDefinition;
using frontend::UnaryOperator;

void fail(const frontend::SourceLocation& loc, const std::string& message) {
  throw ProgramError((loc.known() ? loc.str() + ": " : std::string()) + message);
}

namespace {

// ----------------------------------------------------------------------------- scalar operations

template <class T>
T ipow(T base, T exp) {
  T r = 1;
  while (exp > 0) {
    if (exp & 1) r *= base;
    base *= base;
    exp >>= 1;
  }
  return r;
}

Num binop(BinaryOperator op, ScalarKind k, Num a, Num b, const TExpr& e) {
  Num r{0.0};
  switch (num_class(k)) {
    case NumClass::Float: {
      double x = a.f, y = b.f;
      switch (op) {
        case BinaryOperator::Add: r.f = x + y; break;
        case BinaryOperator::Sub: r.f = x - y; break;
        case BinaryOperator::Mult: r.f = x * y; break;
        case BinaryOperator::Div: r.f = x / y; break;
        case BinaryOperator::FloorDiv: r.f = std::floor(x / y); break;
        case BinaryOperator::Pow: r.f = std::pow(x, y); break;
        case BinaryOperator::Mod: {  // Python's modulo: the sign of the divisor
          r.f = std::fmod(x, y);
          if (r.f != 0 && ((r.f < 0) != (y < 0))) r.f += y;
          break;
        }
        default: fail(e.loc, "operator not defined on floating-point values");
      }
      return r;
    }
    case NumClass::Unsigned: {
      std::uint64_t x = a.u, y = b.u;
      // By zero: 0, as NumPy's integer floor_divide and remainder (docs/adr/0014).
      if ((op == BinaryOperator::FloorDiv || op == BinaryOperator::Mod) && y == 0) return r;
      if (op == BinaryOperator::Div && y == 0) fail(e.loc, "integer division by zero");
      switch (op) {
        case BinaryOperator::Add: r.u = x + y; break;
        case BinaryOperator::Sub: r.u = x - y; break;
        case BinaryOperator::Mult: r.u = x * y; break;
        case BinaryOperator::Div:
        case BinaryOperator::FloorDiv: r.u = x / y; break;
        case BinaryOperator::Mod: r.u = x % y; break;
        case BinaryOperator::Pow: r.u = ipow<std::uint64_t>(x, y); break;
        case BinaryOperator::BitAnd: r.u = x & y; break;
        case BinaryOperator::BitOr: r.u = x | y; break;
        case BinaryOperator::BitXor: r.u = x ^ y; break;
        case BinaryOperator::LShift: r.u = x << (y & 63); break;
        case BinaryOperator::RShift: r.u = x >> (y & 63); break;
        default: fail(e.loc, "operator not defined on integers");
      }
      return r;
    }
    case NumClass::Bool:
    case NumClass::Signed: {
      std::int64_t x = a.i, y = b.i;
      // By zero: 0, as NumPy's integer floor_divide and remainder; by -1 without the trap of
      // INT64_MIN / -1 (docs/adr/0014).
      if ((op == BinaryOperator::FloorDiv || op == BinaryOperator::Mod) && (y == 0 || y == -1)) {
        r.i = op == BinaryOperator::FloorDiv && y == -1
                  ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(x))
                  : 0;
        return r;
      }
      if (op == BinaryOperator::Div && y == 0) fail(e.loc, "integer division by zero");
      switch (op) {
        case BinaryOperator::Add:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
          break;
        case BinaryOperator::Sub:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
          break;
        case BinaryOperator::Mult:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
          break;
        // Integer true division as the C++ backend does it: in double, then converted back.
        case BinaryOperator::Div:
          r.i = static_cast<std::int64_t>(static_cast<double>(x) / static_cast<double>(y));
          break;
        case BinaryOperator::FloorDiv: {
          std::int64_t q = x / y;
          if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
          r.i = q;
          break;
        }
        case BinaryOperator::Mod: {
          std::int64_t m = x % y;
          if (m != 0 && ((m < 0) != (y < 0))) m += y;
          r.i = m;
          break;
        }
        case BinaryOperator::Pow:
          if (y < 0)
            fail(e.loc, "integer power " + std::to_string(x) + " ** " + std::to_string(y) +
                            ": an integer to a negative integer power has no integer value (NumPy raises "
                            "ValueError)");
          r.i = static_cast<std::int64_t>(
              ipow<std::uint64_t>(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y)));
          break;
        case BinaryOperator::BitAnd: r.i = x & y; break;
        case BinaryOperator::BitOr: r.i = x | y; break;
        case BinaryOperator::BitXor: r.i = x ^ y; break;
        case BinaryOperator::LShift:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) << (y & 63));
          break;
        case BinaryOperator::RShift: r.i = x >> (y & 63); break;
        default: fail(e.loc, "operator not defined on integers");
      }
      return r;
    }
  }
  return r;
}

int compare3(ScalarKind k, Num a, Num b) {
  switch (num_class(k)) {
    case NumClass::Float: return a.f < b.f ? -1 : a.f > b.f ? 1 : a.f == b.f ? 0 : 2;  // 2: unordered (NaN)
    case NumClass::Unsigned: return a.u < b.u ? -1 : a.u > b.u ? 1 : 0;
    default: return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  }
}

bool compare(CompareOperator op, int c) {
  switch (op) {
    case CompareOperator::Eq: return c == 0;
    case CompareOperator::NotEq: return c != 0;
    case CompareOperator::Lt: return c == -1;
    case CompareOperator::LtE: return c == -1 || c == 0;
    case CompareOperator::Gt: return c == 1;
    case CompareOperator::GtE: return c == 1 || c == 0;
    default: return false;
  }
}

Num bool_num(bool b) {
  Num r{0.0};
  r.i = b;
  return r;
}

double math1(const std::string& n, double x) {
  static const std::map<std::string, double (*)(double)> fns = {
      {"sqrt", [](double v) { return std::sqrt(v); }},
      {"exp", [](double v) { return std::exp(v); }},
      {"log", [](double v) { return std::log(v); }},
      {"sin", [](double v) { return std::sin(v); }},
      {"cos", [](double v) { return std::cos(v); }},
      {"tan", [](double v) { return std::tan(v); }},
      {"arcsin", [](double v) { return std::asin(v); }},
      {"arccos", [](double v) { return std::acos(v); }},
      {"arctan", [](double v) { return std::atan(v); }},
      {"sinh", [](double v) { return std::sinh(v); }},
      {"cosh", [](double v) { return std::cosh(v); }},
      {"tanh", [](double v) { return std::tanh(v); }},
      {"arcsinh", [](double v) { return std::asinh(v); }},
      {"arccosh", [](double v) { return std::acosh(v); }},
      {"arctanh", [](double v) { return std::atanh(v); }},
      {"gamma", [](double v) { return std::tgamma(v); }},
      {"cbrt", [](double v) { return std::cbrt(v); }},
      {"floor", [](double v) { return std::floor(v); }},
      {"ceil", [](double v) { return std::ceil(v); }},
      {"trunc", [](double v) { return std::trunc(v); }},
  };
  return fns.at(n)(x);
}

// ----------------------------------------------------------------------------- field helpers

// Puts dims (and their ranges and strides) into canonical order.
void canonicalize(FieldVal& f) {
  std::vector<Dimension> order = frontend::canonical_dims(f.dims);
  if (order == f.dims) return;
  FieldVal g = f;
  for (std::size_t i = 0; i < order.size(); ++i) {
    auto p = static_cast<std::size_t>(f.find(order[i]));
    g.dims[i] = f.dims[p];
    g.ranges[i] = f.ranges[p];
    g.strides[i] = f.strides[p];
  }
  f = std::move(g);
}

// Position of each of `dims` in `f` (-1 where f lacks it).
std::vector<int> positions(const FieldVal& f, const std::vector<Dimension>& dims) {
  std::vector<int> p(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) p[d] = f.find(dims[d]);
  return p;
}

// The sub-index of `f` for the point `idx` over the dims `pos` was computed for.
void project(const std::vector<int>& pos, const std::vector<std::int64_t>& idx,
             std::vector<std::int64_t>& sub) {
  for (std::size_t d = 0; d < pos.size(); ++d)
    if (pos[d] >= 0) sub[static_cast<std::size_t>(pos[d])] = idx[d];
}

bool covers(const FieldVal& f, const std::vector<std::int64_t>& sub) {
  for (std::size_t d = 0; d < f.dims.size(); ++d)
    if (!f.ranges[d].is_unbounded() && !f.ranges[d].contains(sub[d])) return false;
  return true;
}

// Drops the validity mask when every value is defined.
void drop_full_mask(FieldVal& f) {
  if (f.valid && std::all_of(f.valid->begin(), f.valid->end(), [](std::uint8_t v) { return v != 0; }))
    f.valid.reset();
}

const FieldVal& leaf(const Value& v, const TExpr& e) {
  if (v.is_tuple) fail(e.loc, "expected a field or scalar, got a tuple");
  return v.field;
}

template <class F>
Value map_leaves(const Value& v, F&& fn) {
  if (!v.is_tuple) return Value::of(fn(v.field));
  std::vector<Value> out;
  for (const Value& x : v.elements) out.push_back(map_leaves(x, fn));
  return Value::tuple(std::move(out));
}

// ----------------------------------------------------------------------------- domain conditions

struct Cond {
  enum Kind { Cmp, And, Or, Not } kind = Cmp;
  Dimension dim;
  CompareOperator op = CompareOperator::Eq;
  std::int64_t value = 0;
  std::vector<Cond> kids;

  bool holds(const std::vector<Dimension>& dims, const std::vector<std::int64_t>& idx) const {
    switch (kind) {
      case Cmp: {
        for (std::size_t d = 0; d < dims.size(); ++d)
          if (dims[d] == dim) {
            std::int64_t i = idx[d];
            return compare(op, i < value ? -1 : i > value ? 1 : 0);
          }
        return false;
      }
      case And: return kids[0].holds(dims, idx) && kids[1].holds(dims, idx);
      case Or: return kids[0].holds(dims, idx) || kids[1].holds(dims, idx);
      case Not: return !kids[0].holds(dims, idx);
    }
    return false;
  }
  void collect(std::vector<Dimension>& out) const {
    if (kind == Cmp) out = frontend::union_dims(out, {dim});
    for (const Cond& k : kids) k.collect(out);
  }
};

std::int64_t reach(const TExpr& e, std::map<const TypedDefinition*, std::int64_t>& memo);

std::int64_t reach_def(const TypedDefinition& d, std::map<const TypedDefinition*, std::int64_t>& memo) {
  auto it = memo.find(&d);
  if (it != memo.end()) return it->second;
  memo[&d] = 0;  // recursion is rejected by the type checker; this only guards
  std::int64_t r = 0;
  std::function<void(const std::vector<TStmt>&)> stmts = [&](const std::vector<TStmt>& body) {
    for (const TStmt& s : body) {
      if (s.value) r += reach(*s.value, memo);
      stmts(s.body);
      stmts(s.orelse);
    }
  };
  stmts(d.body);
  for (const auto& c : d.calls) r += reach_def(*c.callee, memo);
  memo[&d] = r;
  return r;
}

std::int64_t reach(const TExpr& e, std::map<const TypedDefinition*, std::int64_t>& memo) {
  std::int64_t r = 0;
  for (const auto& a : e.args) r += reach(*a, memo);
  for (const ShiftStep& s : e.shifts) {
    if (s.kind == ShiftStep::Kind::Cartesian) r += std::abs(s.amount);
    if (s.index_field) r += reach(*s.index_field, memo);
  }
  if (e.callee) r += reach_def(*e.callee, memo);
  return r;
}

}  // namespace

std::int64_t shift_reach(const TypedDefinition& def) {
  std::map<const TypedDefinition*, std::int64_t> memo;
  return reach_def(def, memo);
}

// ----------------------------------------------------------------------------- statements

Value Evaluator::call(const TypedDefinition& def, const std::vector<Value>& args,
                      const frontend::SourceLocation& loc) {
  if (def.kind == frontend::DefinitionKind::ScanOperator) return scan(def, args, loc);
  if (def.kind != frontend::DefinitionKind::FieldOperator)
    fail(loc, "'" + def.name + "' is a program; only field and scan operators can be called");
  Env env;
  for (std::size_t i = 0; i < def.params.size() && i < args.size(); ++i) env[def.params[i].name] = args[i];
  Value result;
  if (!exec(def.body, env, result)) fail(def.loc, "'" + def.name + "' ended without returning a value");
  return result;
}

bool Evaluator::exec(const std::vector<TStmt>& body, Env& env, Value& result) {
  for (const TStmt& s : body) {
    switch (s.kind) {
      case TStmt::Kind::Return: result = eval(*s.value, env); return true;
      case TStmt::Kind::If: {
        const FieldVal c = leaf(eval(*s.value, env), *s.value);
        if (exec(truthy(c.dtype, (*c.data)[static_cast<std::size_t>(c.base)]) ? s.body : s.orelse, env,
                 result))
          return true;
        break;
      }
      case TStmt::Kind::Assign: {
        Value v = eval(*s.value, env);
        if (!s.tuple_target) {
          env[s.targets[0]] = std::move(v);
          break;
        }
        std::size_t n = s.targets.size(), vi = 0;
        std::size_t rest = v.elements.size() - (n - 1);
        for (std::size_t i = 0; i < n; ++i) {
          if (static_cast<int>(i) == s.starred) {
            std::vector<Value> part(v.elements.begin() + static_cast<long>(vi),
                                    v.elements.begin() + static_cast<long>(vi + rest));
            env[s.targets[i]] = Value::tuple(std::move(part));
            vi += rest;
          } else {
            env[s.targets[i]] = v.elements[vi++];
          }
        }
        break;
      }
    }
  }
  return false;
}

// ----------------------------------------------------------------------------- expressions

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

// ----------------------------------------------------------------------------- shifts

const Table& Evaluator::table(const frontend::FieldOffset& off, const frontend::SourceLocation& loc) const {
  auto it = ctx_.tables.find(off.name);
  if (it == ctx_.tables.end())
    fail(loc,
         "no connectivity table '" + off.name + "': pass it as an array argument named '" + off.name + "'");
  return it->second;
}

FieldVal Evaluator::shift(FieldVal f, const ShiftStep& s, Env& env, const TExpr& e) {
  const Dimension& src = s.offset.source;
  int p = f.find(src);
  if (p < 0)
    fail(e.loc,
         "cannot shift " + f.describe() + " by '" + s.offset.name + "': no dimension '" + src.name + "'");
  auto pu = static_cast<std::size_t>(p);
  switch (s.kind) {
    case ShiftStep::Kind::Cartesian: {
      if (!f.ranges[pu].is_unbounded()) {
        f.ranges[pu].lo -= s.amount;
        f.ranges[pu].hi -= s.amount;
      }
      if (!(s.offset.targets[0] == src)) {
        f.dims[pu] = s.offset.targets[0];
        canonicalize(f);
      }
      return f;
    }
    case ShiftStep::Kind::Neighbor:
    case ShiftStep::Kind::AllNeighbors: return gather(f, s, e);
    case ShiftStep::Kind::Dynamic: {
      const FieldVal idx = leaf(eval(*s.index_field, env), e);
      // Result: over the union of dims; src's range comes from the index field (or f).
      std::vector<Dimension> dims = frontend::union_dims(f.dims, idx.dims);
      std::vector<Range> ranges(dims.size(), Range::unbounded());
      for (std::size_t d = 0; d < dims.size(); ++d) {
        int pf = f.find(dims[d]), pi = idx.find(dims[d]);
        Range r = Range::unbounded();
        if (pi >= 0) r = idx.ranges[static_cast<std::size_t>(pi)];
        if (pf >= 0 && !(dims[d] == src)) {
          const Range& q = f.ranges[static_cast<std::size_t>(pf)];
          r = {std::max(r.lo, q.lo), std::min(r.hi, q.hi)};
        } else if (pf >= 0 && pi < 0) {
          r = f.ranges[static_cast<std::size_t>(pf)];
        }
        if (r.hi < r.lo) r.hi = r.lo;
        ranges[d] = r;
      }
      FieldVal res = FieldVal::allocate(f.dtype, dims, ranges, true);
      std::vector<int> pf = positions(f, dims), pi = positions(idx, dims);
      std::vector<std::int64_t> sf(f.dims.size()), si(idx.dims.size());
      for_each_point(res, [&](const std::vector<std::int64_t>& p2, std::int64_t off) {
        project(pf, p2, sf);
        project(pi, p2, si);
        std::int64_t io = idx.offset(si);
        bool ok = idx.is_valid(io);
        if (ok) {
          sf[pu] +=
              static_cast<std::int64_t>(to_double(idx.dtype, (*idx.data)[static_cast<std::size_t>(io)]));
          ok = covers(f, sf) && f.is_valid(f.offset(sf));
        }
        if (!ok) {
          (*res.valid)[static_cast<std::size_t>(off)] = 0;
          return;
        }
        (*res.data)[static_cast<std::size_t>(off)] = (*f.data)[static_cast<std::size_t>(f.offset(sf))];
      });
      drop_full_mask(res);
      return res;
    }
  }
  return f;
}

FieldVal Evaluator::gather(const FieldVal& f, const ShiftStep& s, const TExpr& e) {
  const Table& t = table(s.offset, e.loc);
  const Dimension& src = s.offset.source;
  const Dimension& from = s.offset.targets[0];
  bool all = s.kind == ShiftStep::Kind::AllNeighbors;
  const Dimension* local = all ? &s.offset.targets[1] : nullptr;
  if (!all && (s.amount < 0 || s.amount >= t.cols))
    fail(e.loc, "neighbour " + std::to_string(s.amount) + " of '" + s.offset.name + "', but its table has " +
                    std::to_string(t.cols) + " column" + (t.cols == 1 ? "" : "s"));
  auto ps = static_cast<std::size_t>(f.find(src));
  std::vector<Dimension> dims;
  std::vector<Range> ranges;
  for (std::size_t d = 0; d < f.dims.size(); ++d) {
    dims.push_back(d == ps ? from : f.dims[d]);
    ranges.push_back(d == ps ? Range{0, t.rows} : f.ranges[d]);
  }
  if (local) {
    dims.push_back(*local);
    ranges.push_back({0, t.cols});
  }
  // Canonical order of (dims, ranges) together.
  std::vector<Dimension> order = frontend::canonical_dims(dims);
  std::vector<Range> ordered(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t j = 0; j < dims.size(); ++j)
      if (dims[j] == order[i]) ordered[i] = ranges[j];
  FieldVal res = FieldVal::allocate(f.dtype, order, ordered, true);
  int pfrom = res.find(from), ploc = local ? res.find(*local) : -1;
  std::vector<int> pf(order.size(), -1);  // result dim -> f's dim
  for (std::size_t d = 0; d < order.size(); ++d) {
    if (static_cast<int>(d) == pfrom)
      pf[d] = static_cast<int>(ps);
    else if (static_cast<int>(d) != ploc)
      pf[d] = f.find(order[d]);
  }
  std::vector<std::int64_t> sub(f.dims.size());
  for_each_point(res, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
    std::int64_t row = idx[static_cast<std::size_t>(pfrom)];
    std::int64_t col = ploc >= 0 ? idx[static_cast<std::size_t>(ploc)] : s.amount;
    std::int64_t v = t.data[static_cast<std::size_t>(row * t.cols + col)];
    if (v < 0) {
      (*res.valid)[static_cast<std::size_t>(off)] = 0;
      return;
    }
    for (std::size_t d = 0; d < order.size(); ++d)
      if (pf[d] >= 0) sub[static_cast<std::size_t>(pf[d])] = idx[d];
    sub[ps] = v;
    if (!f.ranges[ps].is_unbounded() && !f.ranges[ps].contains(v))
      fail(e.loc, "connectivity '" + s.offset.name + "' entry [" + std::to_string(row) + ", " +
                      std::to_string(col) + "] is " + std::to_string(v) +
                      ", outside the shifted field's range " + src.name + ": " + f.ranges[ps].str());
    if (!covers(f, sub)) {
      (*res.valid)[static_cast<std::size_t>(off)] = 0;
      return;
    }
    std::int64_t o = f.offset(sub);
    if (!f.is_valid(o)) {
      (*res.valid)[static_cast<std::size_t>(off)] = 0;
      return;
    }
    (*res.data)[static_cast<std::size_t>(off)] = (*f.data)[static_cast<std::size_t>(o)];
  });
  drop_full_mask(res);
  return res;
}

// ----------------------------------------------------------------------------- builtins

FieldVal Evaluator::reduce(const FieldVal& f, const Dimension& dim, const std::string& op) {
  auto pl = static_cast<std::size_t>(f.find(dim));
  FieldVal shape = f;
  shape.dims.erase(shape.dims.begin() + static_cast<long>(pl));
  shape.ranges.erase(shape.ranges.begin() + static_cast<long>(pl));
  FieldVal res = FieldVal::allocate(f.dtype, shape.dims, shape.ranges);
  ScalarKind k = f.dtype;
  Num init{0.0};
  NumClass c = num_class(k);
  if (op == "neighbor_sum")
    init = from_int(k, 0);
  else if (c == NumClass::Float)
    init.f = op == "max_over" ? -INFINITY : INFINITY;
  else if (c == NumClass::Unsigned)
    init.u = op == "max_over" ? 0 : ~std::uint64_t{0};
  else {
    // the dtype's lowest / highest value
    std::int64_t hi = k == ScalarKind::Int8    ? INT8_MAX
                      : k == ScalarKind::Int16 ? INT16_MAX
                      : k == ScalarKind::Int32 ? INT32_MAX
                      : k == ScalarKind::Bool  ? 1
                                               : INT64_MAX;
    init.i = op == "max_over" ? (k == ScalarKind::Bool ? 0 : -hi - 1) : hi;
    init = normalize(k, init);
  }
  if (c == NumClass::Unsigned) init = normalize(k, init);
  Range lr = f.ranges[pl];
  std::vector<std::int64_t> sub(f.dims.size());
  TExpr dummy;
  for_each_point(res, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
    for (std::size_t d = 0, j = 0; d < f.dims.size(); ++d)
      if (d != pl) sub[d] = idx[j++];
    Num acc = init;
    for (std::int64_t l = lr.lo; l < lr.hi; ++l) {
      sub[pl] = l;
      std::int64_t o = f.offset(sub);
      if (!f.is_valid(o)) continue;
      Num v = (*f.data)[static_cast<std::size_t>(o)];
      if (op == "neighbor_sum")
        acc = normalize(k, binop(BinaryOperator::Add, k, acc, v, dummy));
      else if (op == "max_over")
        acc = compare3(k, v, acc) == 1 ? v : acc;
      else
        acc = compare3(k, v, acc) == -1 ? v : acc;
    }
    (*res.data)[static_cast<std::size_t>(off)] = acc;
  });
  return res;
}

Value Evaluator::builtin(const TExpr& e, Env& env) {
  const std::string& n = e.name;
  if (n == "neighbor_sum" || n == "max_over" || n == "min_over") {
    Value x = eval(*e.args[0], env);
    const FieldVal& f = leaf(x, e);
    if (f.find(e.dim) < 0) fail(e.loc, "'" + n + "' over '" + e.dim.name + "' of " + f.describe());
    if (f.ranges[static_cast<std::size_t>(f.find(e.dim))].is_unbounded())
      fail(e.loc, "'" + n + "' over the unbounded local dimension '" + e.dim.name + "'");
    return Value::of(reduce(f, e.dim, n));
  }
  if (n == "where") {
    Value m = eval(*e.args[0], env), a = eval(*e.args[1], env), b = eval(*e.args[2], env);
    const FieldVal& mask = leaf(m, e);
    std::function<Value(const Value&, const Value&)> pick = [&](const Value& x, const Value& y) -> Value {
      if (x.is_tuple) {
        std::vector<Value> el;
        for (std::size_t i = 0; i < x.elements.size(); ++i) el.push_back(pick(x.elements[i], y.elements[i]));
        return Value::tuple(std::move(el));
      }
      ScalarKind mk = mask.dtype;
      return Value::of(elementwise({&mask, &x.field, &y.field}, x.field.dtype,
                                   [&](const Num* v) { return truthy(mk, v[0]) ? v[1] : v[2]; }));
    };
    return pick(a, b);
  }
  if (n == "concat_where") {
    Value a = eval(*e.args[1], env), b = eval(*e.args[2], env);
    return concat_where(*e.args[0], a, b, env, e);
  }
  if (n == "broadcast") {
    FieldVal f = leaf(eval(*e.args[0], env), e);
    FieldVal g;
    g.dtype = f.dtype;
    g.base = f.base;
    g.data = f.data;
    g.valid = f.valid;
    for (const Dimension& d : e.type.dims) {
      int p = f.find(d);
      g.dims.push_back(d);
      g.ranges.push_back(p >= 0 ? f.ranges[static_cast<std::size_t>(p)] : Range::unbounded());
      g.strides.push_back(p >= 0 ? f.strides[static_cast<std::size_t>(p)] : 0);
    }
    return Value::of(std::move(g));
  }
  if (n == "astype") {
    // The target dtype: every leaf of the result type has it.
    std::function<ScalarKind(const frontend::Type&)> first = [&](const frontend::Type& t) {
      return t.is_tuple() ? first(t.elements[0]) : t.dtype;
    };
    ScalarKind to = first(e.type);
    return map_leaves(eval(*e.args[0], env), [&](const FieldVal& f) {
      ScalarKind from = f.dtype;
      return elementwise({&f}, to, [&](const Num* v) { return convert(from, to, v[0]); });
    });
  }
  if (n == "minimum" || n == "maximum" || n == "fmod" || n == "power") {
    Value a = eval(*e.args[0], env), b = eval(*e.args[1], env);
    const FieldVal &x = leaf(a, e), &y = leaf(b, e);
    ScalarKind k = x.dtype;
    return Value::of(elementwise({&x, &y}, k, [&](const Num* v) {
      if (n == "minimum") return compare3(k, v[1], v[0]) == -1 ? v[1] : v[0];
      if (n == "maximum") return compare3(k, v[1], v[0]) == 1 ? v[1] : v[0];
      if (n == "power") return binop(BinaryOperator::Pow, k, v[0], v[1], e);
      if (num_class(k) == NumClass::Float) return from_double(k, std::fmod(v[0].f, v[1].f));
      if (truthy(k, v[1]) == false) fail(e.loc, "fmod: integer division by zero");
      Num r{0.0};
      if (num_class(k) == NumClass::Unsigned)
        r.u = v[0].u % v[1].u;
      else
        r.i = v[0].i % v[1].i;  // C semantics (sign of the dividend), as numpy.fmod
      return r;
    }));
  }
  // abs, math functions, isfinite/isinf/isnan
  Value x = eval(*e.args[0], env);
  const FieldVal& f = leaf(x, e);
  ScalarKind k = f.dtype;
  return Value::of(elementwise({&f}, e.type.dtype, [&](const Num* v) {
    Num r = v[0];
    if (n == "abs") {
      if (num_class(k) == NumClass::Float)
        r.f = std::fabs(r.f);
      else if (num_class(k) == NumClass::Signed)
        r.i = r.i < 0 ? -r.i : r.i;
      return r;
    }
    if (n == "isfinite") return bool_num(std::isfinite(r.f));
    if (n == "isinf") return bool_num(std::isinf(r.f));
    if (n == "isnan") return bool_num(std::isnan(r.f));
    return from_double(k, math1(n, r.f));
  }));
}

// ----------------------------------------------------------------------------- concat_where

Value Evaluator::concat_where(const TExpr& ce, const Value& a, const Value& b, Env& env, const TExpr& e) {
  if (a.is_tuple) {
    std::vector<Value> el;
    for (std::size_t i = 0; i < a.elements.size(); ++i)
      el.push_back(concat_where(ce, a.elements[i], b.elements[i], env, e));
    return Value::tuple(std::move(el));
  }
  std::function<Cond(const TExpr&)> build = [&](const TExpr& c) -> Cond {
    Cond r;
    if (c.kind == TExprKind::DomainCompare) {
      r.kind = Cond::Cmp;
      r.dim = c.dim;
      r.op = c.compare_op;
      const FieldVal v = leaf(eval(*c.args[0], env), c);
      r.value = static_cast<std::int64_t>(to_double(v.dtype, (*v.data)[static_cast<std::size_t>(v.base)]));
      return r;
    }
    if (c.kind == TExprKind::Binary &&
        (c.binary_op == BinaryOperator::BitAnd || c.binary_op == BinaryOperator::BitOr)) {
      r.kind = c.binary_op == BinaryOperator::BitAnd ? Cond::And : Cond::Or;
      r.kids = {build(*c.args[0]), build(*c.args[1])};
      return r;
    }
    if (c.kind == TExprKind::Unary &&
        (c.unary_op == UnaryOperator::Invert || c.unary_op == UnaryOperator::Not)) {
      r.kind = Cond::Not;
      r.kids = {build(*c.args[0])};
      return r;
    }
    fail(c.loc, "unsupported domain condition in concat_where");
  };
  Cond cond = build(ce);
  std::vector<Dimension> cdims;
  cond.collect(cdims);
  const FieldVal &x = a.field, &y = b.field;
  // A branch whose region (where the condition holds, resp. not, over the branch's extent along
  // the condition's dimensions) is empty contributes no point: gt4py's result is the other
  // branch, whose extent alone bounds the other dimensions (concat_where(I < 0, a, b) is b).
  auto contributes = [&](const FieldVal& f, bool want) {
    std::vector<Range> rs;
    for (const Dimension& cd : cdims) {
      int p = f.find(cd);
      Range r = p >= 0 ? f.ranges[static_cast<std::size_t>(p)] : Range::unbounded();
      auto u = ctx_.universe.find(cd.name);
      if (u != ctx_.universe.end()) r = {std::max(r.lo, u->second.lo), std::min(r.hi, u->second.hi)};
      if (r.lo <= -kUnbounded || r.hi >= kUnbounded) return true;  // not known to be empty
      if (r.size() == 0) return false;
      rs.push_back(r);
    }
    std::vector<std::int64_t> idx(rs.size());
    for (std::size_t d = 0; d < rs.size(); ++d) idx[d] = rs[d].lo;
    for (;;) {
      if (cond.holds(cdims, idx) == want) return true;
      std::size_t d = 0;
      while (d < rs.size() && ++idx[d] == rs[d].hi) idx[d] = rs[d].lo, ++d;
      if (d == rs.size()) return false;
    }
  };
  const bool x_in = contributes(x, true), y_in = contributes(y, false);
  std::vector<Dimension> dims = frontend::union_dims(frontend::union_dims(x.dims, y.dims), cdims);
  std::vector<Range> ranges(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    int px = x.find(dims[d]), py = y.find(dims[d]);
    Range rx = px >= 0 ? x.ranges[static_cast<std::size_t>(px)] : Range::unbounded();
    Range ry = py >= 0 ? y.ranges[static_cast<std::size_t>(py)] : Range::unbounded();
    bool on_cond = std::find(cdims.begin(), cdims.end(), dims[d]) != cdims.end();
    if (!on_cond) {
      if (x_in != y_in) rx = ry = x_in ? rx : ry;
      ranges[d] = {std::max(rx.lo, ry.lo), std::min(rx.hi, ry.hi)};
      if (ranges[d].hi < ranges[d].lo) ranges[d].hi = ranges[d].lo;
      continue;
    }
    // Unbounded pieces are clipped to the universe of the dimension.
    auto u = ctx_.universe.find(dims[d].name);
    Range uni = u != ctx_.universe.end() ? u->second : Range::unbounded();
    auto clip = [&](Range r) { return Range{std::max(r.lo, uni.lo), std::min(r.hi, uni.hi)}; };
    rx = clip(rx);
    ry = clip(ry);
    Range h{std::min(rx.lo, ry.lo), std::max(rx.hi, ry.hi)};
    if (rx.size() == 0) h = ry;
    if (ry.size() == 0) h = rx;
    if (h.is_unbounded() || h.lo <= -kUnbounded || h.hi >= kUnbounded)
      fail(e.loc,
           "concat_where: the extent of dimension '" + dims[d].name + "' is unbounded (no argument has it)");
    ranges[d] = h;
  }
  auto fill = [&](FieldVal& res) {
    std::vector<int> px = positions(x, res.dims), py = positions(y, res.dims);
    std::vector<std::int64_t> sx(x.dims.size()), sy(y.dims.size());
    for_each_point(res, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
      bool first = cond.holds(res.dims, idx);
      const FieldVal& f = first ? x : y;
      std::vector<std::int64_t>& s = first ? sx : sy;
      project(first ? px : py, idx, s);
      std::int64_t o = covers(f, s) ? f.offset(s) : -1;
      if (o < 0 || !f.is_valid(o)) {
        (*res.valid)[static_cast<std::size_t>(off)] = 0;
        return;
      }
      (*res.data)[static_cast<std::size_t>(off)] = (*f.data)[static_cast<std::size_t>(o)];
    });
  };
  FieldVal res = FieldVal::allocate(x.dtype, dims, ranges, true);
  fill(res);
  // Trim the condition dimensions to the points that have a value.
  std::vector<Range> trimmed = ranges;
  bool changed = false;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (std::find(cdims.begin(), cdims.end(), dims[d]) == cdims.end()) continue;
    std::int64_t lo = ranges[d].hi, hi = ranges[d].lo;
    for_each_point(res, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
      if (!(*res.valid)[static_cast<std::size_t>(off)]) return;
      lo = std::min(lo, idx[d]);
      hi = std::max(hi, idx[d] + 1);
    });
    if (hi < lo) hi = lo;
    if (lo != ranges[d].lo || hi != ranges[d].hi) changed = true;
    trimmed[d] = {lo, hi};
  }
  if (changed) {
    res = FieldVal::allocate(x.dtype, dims, trimmed, true);
    fill(res);
  }
  drop_full_mask(res);
  return Value::of(std::move(res));
}

// ----------------------------------------------------------------------------- scan

void Evaluator::set_call_domain(const std::vector<Dimension>& dims, const std::vector<Range>& ranges) {
  call_domain_.clear();
  for (std::size_t d = 0; d < dims.size() && d < ranges.size(); ++d) call_domain_[dims[d].name] = ranges[d];
}

namespace {

bool branches(const TExpr& e) {
  if (e.kind == TExprKind::Ternary) return true;
  for (const auto& a : e.args)
    if (branches(*a)) return true;
  return false;
}

// Whether a scan body has data-dependent control flow (if statements, conditional expressions),
// which needs one column at a time.
bool branches(const std::vector<TStmt>& body) {
  for (const TStmt& s : body) {
    if (s.kind == TStmt::Kind::If) return true;
    if (s.value && branches(*s.value)) return true;
  }
  return false;
}

// `f` at index `k` of dimension `axis` (a view without that dimension); `f` itself when it lacks it.
FieldVal level(const FieldVal& f, const Dimension& axis, std::int64_t k) {
  int p = f.find(axis);
  if (p < 0) return f;
  auto pu = static_cast<std::size_t>(p);
  FieldVal v = f;
  if (!f.ranges[pu].is_unbounded()) v.base += (k - f.ranges[pu].lo) * f.strides[pu];
  v.dims.erase(v.dims.begin() + p);
  v.ranges.erase(v.ranges.begin() + p);
  v.strides.erase(v.strides.begin() + p);
  return v;
}

}  // namespace

// All columns at once, one level at a time: the body's element-wise operations run over the
// column dimensions (no data-dependent control flow, so every column takes the same path).
void Evaluator::scan_levels(const TypedDefinition& def, const std::vector<Value>& args, const Value& init,
                            std::vector<FieldVal>& outs, std::size_t pax,
                            const frontend::SourceLocation& loc) {
  const Range r = outs[0].ranges[pax];
  Value carry = init;
  for (std::int64_t step = 0; step < r.size(); ++step) {
    std::int64_t k = def.forward ? r.lo + step : r.hi - 1 - step;
    Env env;
    env[def.params[0].name] = carry;
    for (std::size_t i = 0; i < args.size() && i + 1 < def.params.size(); ++i)
      env[def.params[i + 1].name] =
          map_leaves(args[i], [&](const FieldVal& f) { return level(f, def.axis, k); });
    Value result;
    if (!exec(def.body, env, result)) fail(def.loc, "'" + def.name + "' ended without returning a value");
    std::vector<const FieldVal*> rl;
    flatten(result, rl);
    for (std::size_t i = 0; i < outs.size(); ++i) {
      FieldVal dst = level(outs[i], def.axis, k);
      const FieldVal& src = *rl[i];
      std::vector<int> pos = positions(src, dst.dims);
      std::vector<std::int64_t> sub(src.dims.size());
      for_each_point(dst, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
        project(pos, idx, sub);
        std::int64_t o = covers(src, sub) ? src.offset(sub) : -1;
        if (o < 0 || !src.is_valid(o)) fail(loc, "scan operator '" + def.name + "' reads an undefined value");
        (*dst.data)[static_cast<std::size_t>(off)] = (*src.data)[static_cast<std::size_t>(o)];
      });
    }
    carry = std::move(result);
  }
}

Value Evaluator::scan(const TypedDefinition& def, const std::vector<Value>& args,
                      const frontend::SourceLocation& loc) {
  std::vector<const FieldVal*> leaves;
  for (const Value& v : args) flatten(v, leaves);
  std::vector<Dimension> dims = {def.axis};
  for (const FieldVal* f : leaves) dims = frontend::union_dims(dims, f->dims);
  std::vector<Range> ranges(dims.size(), Range::unbounded());
  for (const FieldVal* f : leaves)
    for (std::size_t d = 0; d < dims.size(); ++d) {
      int p = f->find(dims[d]);
      if (p < 0) continue;
      const Range& r = f->ranges[static_cast<std::size_t>(p)];
      ranges[d] = {std::max(ranges[d].lo, r.lo), std::min(ranges[d].hi, r.hi)};
      if (ranges[d].hi < ranges[d].lo) ranges[d].hi = ranges[d].lo;
    }
  auto pax = static_cast<std::size_t>(std::find(dims.begin(), dims.end(), def.axis) - dims.begin());
  // The column range is the call's output domain along the axis (a backward scan starts at its
  // top, not at the top of the arguments); levels outside the arguments fail when read.
  if (auto it = call_domain_.find(def.axis.name); it != call_domain_.end()) ranges[pax] = it->second;
  if (ranges[pax].is_unbounded())
    fail(loc, "scan operator '" + def.name + "' along '" + def.axis.name + "' needs an argument over '" +
                  def.axis.name + "'");
  // One result field per leaf of the return type.
  std::vector<FieldVal> outs;
  std::function<void(const frontend::Type&)> alloc = [&](const frontend::Type& t) {
    if (t.is_tuple()) {
      for (const auto& x : t.elements) alloc(x);
      return;
    }
    outs.push_back(FieldVal::allocate(t.dtype, dims, ranges));
  };
  alloc(def.returns);
  std::vector<std::vector<int>> pos;
  for (const FieldVal* f : leaves) pos.push_back(positions(*f, dims));
  // A column template: every dim but the axis pinned to one point.
  FieldVal columns = outs[0];
  columns.ranges[pax] = {0, 1};
  Env base_env;
  Value init = eval(*def.init, base_env);
  if (!branches(def.body)) {
    scan_levels(def, args, init, outs, pax, loc);
    std::size_t oi = 0;
    std::function<Value(const frontend::Type&)> build = [&](const frontend::Type& t) -> Value {
      if (t.is_tuple()) {
        std::vector<Value> el;
        for (const auto& x : t.elements) el.push_back(build(x));
        return Value::tuple(std::move(el));
      }
      return Value::of(std::move(outs[oi++]));
    };
    return build(def.returns);
  }
  std::vector<std::vector<std::int64_t>> subs(leaves.size());
  for (std::size_t k = 0; k < leaves.size(); ++k) subs[k].resize(leaves[k]->dims.size());
  for_each_point(columns, [&](const std::vector<std::int64_t>& col, std::int64_t) {
    std::vector<std::int64_t> idx = col;
    Value carry = init;
    const Range& r = ranges[pax];
    for (std::int64_t step = 0; step < r.size(); ++step) {
      idx[pax] = def.forward ? r.lo + step : r.hi - 1 - step;
      // The arguments at this level, as scalars with the structure of the parameters.
      std::size_t li = 0;
      std::function<Value(const Value&)> at = [&](const Value& v) -> Value {
        if (v.is_tuple) {
          std::vector<Value> el;
          for (const Value& x : v.elements) el.push_back(at(x));
          return Value::tuple(std::move(el));
        }
        std::size_t k = li++;
        project(pos[k], idx, subs[k]);
        std::int64_t o = leaves[k]->offset(subs[k]);
        if (!leaves[k]->is_valid(o)) fail(loc, "scan operator '" + def.name + "' reads an undefined value");
        return Value::of(FieldVal::scalar(leaves[k]->dtype, (*leaves[k]->data)[static_cast<std::size_t>(o)]));
      };
      Env env;
      env[def.params[0].name] = carry;
      for (std::size_t i = 0; i < args.size() && i + 1 < def.params.size(); ++i)
        env[def.params[i + 1].name] = at(args[i]);
      Value result;
      if (!exec(def.body, env, result)) fail(def.loc, "'" + def.name + "' ended without returning a value");
      std::vector<const FieldVal*> rl;
      flatten(result, rl);
      std::int64_t o = outs[0].offset(idx);
      for (std::size_t i = 0; i < outs.size(); ++i)
        (*outs[i].data)[static_cast<std::size_t>(o)] = (*rl[i]->data)[static_cast<std::size_t>(rl[i]->base)];
      carry = std::move(result);
    }
  });
  std::size_t oi = 0;
  std::function<Value(const frontend::Type&)> build = [&](const frontend::Type& t) -> Value {
    if (t.is_tuple()) {
      std::vector<Value> el;
      for (const auto& x : t.elements) el.push_back(build(x));
      return Value::tuple(std::move(el));
    }
    return Value::of(std::move(outs[oi++]));
  };
  return build(def.returns);
}

}  // namespace weir::runtime::embedded
