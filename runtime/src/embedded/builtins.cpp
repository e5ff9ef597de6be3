// Builtins of the embedded evaluator: neighbour reductions, where, broadcast, astype, math.
#include "internal.h"

#include <cmath>

namespace weir::runtime::embedded {

FieldVal Evaluator::reduce(const FieldVal& f, const Dimension& dim, const std::string& op) {
  auto pl = static_cast<std::size_t>(f.find(dim));
  FieldVal shape = f;
  shape.dims.erase(shape.dims.begin() + static_cast<long>(pl));
  shape.ranges.erase(shape.ranges.begin() + static_cast<long>(pl));
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
  // The neighbours to skip: -1 entries of the connectivity gathered along `dim` (gt4py masks a
  // reduction by its axis' connectivity). Any other undefined value makes the result undefined
  // there. A local field that no neighbour shift made here has no table: only its undefined
  // values are skipped, as before.
  const Table* skips = nullptr;
  int prow = -1;
  if (auto g = gathered_.find(dim.name); g != gathered_.end()) {
    auto t = ctx_.tables.find(g->second.offset);
    prow = f.find(g->second.rows);
    if (t != ctx_.tables.end() && prow >= 0) skips = &t->second;
  }
  FieldVal out = FieldVal::allocate(f.dtype, shape.dims, shape.ranges, skips != nullptr);
  std::vector<std::int64_t> sub(f.dims.size());
  TExpr dummy;
  for_each_point(out, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
    for (std::size_t d = 0, j = 0; d < f.dims.size(); ++d)
      if (d != pl) sub[d] = idx[j++];
    Num acc = init;
    for (std::int64_t l = lr.lo; l < lr.hi; ++l) {
      sub[pl] = l;
      std::int64_t o = f.offset(sub);
      if (skips) {
        std::int64_t row = sub[static_cast<std::size_t>(prow)];
        bool absent = row >= 0 && row < skips->rows && l >= 0 && l < skips->cols &&
                      skips->data[static_cast<std::size_t>(row * skips->cols + l)] < 0;
        if (absent) continue;
        if (!f.is_valid(o)) {
          out.set_undefined(off, f.mark(o));
          return;
        }
      }
      if (!f.is_valid(o)) continue;
      Num v = (*f.data)[static_cast<std::size_t>(o)];
      if (op == "neighbor_sum")
        acc = normalize(k, binop(BinaryOperator::Add, k, acc, v, dummy));
      else if (op == "max_over")  // np.max: NaN propagates (from the neutral -inf on, a left fold)
        acc = maximum(k, acc, v);
      else
        acc = minimum(k, acc, v);
    }
    (*out.data)[static_cast<std::size_t>(off)] = acc;
  });
  if (skips) drop_full_mask(out);
  return out;
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
      if (n == "minimum") return minimum(k, v[0], v[1]);
      if (n == "maximum") return maximum(k, v[0], v[1]);
      if (n == "power") return binop(BinaryOperator::Pow, k, v[0], v[1], e);
      if (num_class(k) == NumClass::Float) return from_double(k, std::fmod(v[0].f, v[1].f));
      // NumPy's fmod of integers: C semantics (the sign of the dividend); by 0 it is 0 (NumPy
      // warns), by -1 0 without the trap of INT64_MIN % -1.
      Num r{0.0};
      if (num_class(k) == NumClass::Unsigned)
        r.u = v[1].u == 0 ? 0 : v[0].u % v[1].u;
      else
        r.i = v[1].i == 0 || v[1].i == -1 ? 0 : v[0].i % v[1].i;
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

}  // namespace weir::runtime::embedded
