// Scan operators in the embedded evaluator: a column at a time or all columns level by level.
#include "internal.h"

#include <functional>

namespace weir::runtime::embedded {

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

// Refuses a scan whose column range `r` along `def.axis` (the call's output domain) reaches past
// an argument: gt4py reads every argument at every level of the range (used or not), so a level
// outside one is a read outside a field (a shifted input, or an input smaller than the output).
void check_levels(const TypedDefinition& def, const std::vector<Value>& args, const Range& r,
                  const frontend::SourceLocation& loc) {
  if (r.size() <= 0) return;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::vector<const FieldVal*> leaves;
    flatten(args[i], leaves);
    for (std::size_t j = 0; j < leaves.size(); ++j) {
      const FieldVal& f = *leaves[j];
      int p = f.find(def.axis);
      if (p < 0) continue;
      const Range& have = f.ranges[static_cast<std::size_t>(p)];
      if (have.is_unbounded() || (have.lo <= r.lo && r.hi <= have.hi)) continue;
      // The first level the scan would read outside, in its order.
      std::int64_t k = def.forward ? (r.lo < have.lo ? r.lo : std::max(have.hi, r.lo))
                                   : (r.hi > have.hi ? r.hi - 1 : std::min(have.lo - 1, r.hi - 1));
      std::string arg =
          i + 1 < def.params.size() ? "'" + def.params[i + 1].name + "'" : std::to_string(i + 1);
      if (leaves.size() > 1) arg += " (tuple element " + std::to_string(j) + ")";
      const std::string& a = def.axis.name;
      fail(loc, "scan operator '" + def.name + "' reads its argument " + arg + " at " + a + " = " +
                    std::to_string(k) + ", outside its domain " + a + ": " + have.str() +
                    " (the scan runs over the output domain " + a + ": " + r.str() + "; " +
                    (have.lo != 0 ? "shifted reads need a larger input or a smaller output domain)"
                                  : "an input is smaller than the output domain, or a shifted read reaches "
                                    "past its end; pass larger inputs or a smaller output domain)"));
    }
  }
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
  check_levels(def, args, ranges[pax], loc);
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
