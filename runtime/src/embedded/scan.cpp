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

// The argument leaves of a scan call, each with the name of its parameter and, for an element
// of a tuple argument, its index there (-1 otherwise).
struct ArgLeaf {
  const FieldVal* field;
  std::string param;
  int element = -1;
};

// Leaf `a` of scan operator `def` at level `k` of the axis, the scan running over `run`: gt4py's
// scan reads every argument at every point of its domain, also one its body never uses (unlike
// an inlined field operator), so a level outside an argument is an error, as on the cpu backend.
void check_level(const ArgLeaf& a, const TypedDefinition& def, std::int64_t k, const Range& run,
                 const frontend::SourceLocation& loc) {
  int p = a.field->find(def.axis);
  if (p < 0) return;
  const Range& have = a.field->ranges[static_cast<std::size_t>(p)];
  if (have.is_unbounded() || have.contains(k)) return;
  std::string arg = "'" + a.param + "'";
  if (a.element >= 0) arg += " (tuple element " + std::to_string(a.element) + ")";
  const std::string& ax = def.axis.name;
  fail(loc,
       "scan operator '" + def.name + "' reads its argument " + arg + " at " + ax + " = " +
           std::to_string(k) + ", outside its domain " + ax + ": " + have.str() +
           " (the scan runs over the output domain " + ax + ": " + run.str() + "; " +
           (have.lo != 0 ? "shifted reads need a larger input or a smaller output domain)"
                         : "an input is smaller than the output domain, or a shifted read reaches past its "
                           "end; pass larger inputs or a smaller output domain)"));
}

// The value of `t` (the scan's return type) made of `fields`, one per leaf in order.
Value assemble(const frontend::Type& t, std::vector<FieldVal>& fields, std::size_t& next) {
  if (!t.is_tuple()) return Value::of(fields[next++]);
  std::vector<Value> el;
  for (const auto& x : t.elements) el.push_back(assemble(x, fields, next));
  return Value::tuple(std::move(el));
}

std::vector<ArgLeaf> arg_leaves(const TypedDefinition& def, const std::vector<Value>& args) {
  std::vector<ArgLeaf> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::vector<const FieldVal*> fs;
    flatten(args[i], fs);
    for (std::size_t j = 0; j < fs.size(); ++j)
      out.push_back({fs[j], i + 1 < def.params.size() ? def.params[i + 1].name : std::to_string(i + 1),
                     fs.size() > 1 ? static_cast<int>(j) : -1});
  }
  return out;
}

}  // namespace

// All columns at once, one level at a time: the body's element-wise operations run over the
// column dimensions (no data-dependent control flow, so every column takes the same path).
// A column is undefined from the first level where an argument has no value (a -1 neighbour,
// a concat_where branch outside its field) on: the carry has none after it. Only a write of
// such a point is an error, as for any undefined value.
void Evaluator::scan_levels(const TypedDefinition& def, const std::vector<Value>& args, const Value& init,
                            std::vector<FieldVal>& outs, std::size_t pax,
                            const frontend::SourceLocation& loc) {
  const Range r = outs[0].ranges[pax];
  const std::vector<ArgLeaf> leaves = arg_leaves(def, args);
  // why[off - level base]: the column's mark, undefined from a level on with its cause (every
  // output shares outs[0]'s layout).
  std::vector<std::uint32_t> why(outs[0].data->size(), FieldVal::kDefined);
  Value carry = init;
  for (std::int64_t step = 0; step < r.size(); ++step) {
    std::int64_t k = def.forward ? r.lo + step : r.hi - 1 - step;
    for (const ArgLeaf& a : leaves) check_level(a, def, k, r, loc);
    Env env;
    env[def.params[0].name] = carry;
    for (std::size_t i = 0; i < args.size() && i + 1 < def.params.size(); ++i)
      env[def.params[i + 1].name] =
          map_leaves(args[i], [&](const FieldVal& f) { return level(f, def.axis, k); });
    Value result;
    if (!exec(def.body, env, result)) fail(def.loc, "'" + def.name + "' ended without returning a value");
    std::vector<const FieldVal*> rl;
    flatten(result, rl);
    std::vector<FieldVal> levels;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      FieldVal dst = level(outs[i], def.axis, k);
      const FieldVal& src = *rl[i];
      std::vector<int> pos = positions(src, dst.dims);
      std::vector<std::int64_t> sub(src.dims.size());
      std::vector<std::vector<int>> apos;
      std::vector<FieldVal> alevel;
      std::vector<std::vector<std::int64_t>> asub;
      for (const ArgLeaf& a : leaves)
        if (a.field->valid) {
          alevel.push_back(level(*a.field, def.axis, k));
          apos.push_back(positions(alevel.back(), dst.dims));
          asub.emplace_back(alevel.back().dims.size());
        }
      for_each_point(dst, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
        std::uint32_t& w = why[static_cast<std::size_t>(off - dst.base)];
        for (std::size_t j = 0; j < alevel.size() && w == FieldVal::kDefined; ++j) {
          project(apos[j], idx, asub[j]);
          w = alevel[j].mark(alevel[j].offset(asub[j]));
        }
        project(pos, idx, sub);
        std::int64_t o = covers(src, sub) ? src.offset(sub) : -1;
        if (w == FieldVal::kDefined) w = o < 0 ? FieldVal::kUnknownCause : src.mark(o);
        if (w != FieldVal::kDefined) {
          dst.set_undefined(off, w);
          return;
        }
        (*dst.data)[static_cast<std::size_t>(off)] = (*src.data)[static_cast<std::size_t>(o)];
      });
      levels.push_back(std::move(dst));
    }
    // The carry is what was written: its undefined columns stay undefined.
    std::size_t next = 0;
    carry = assemble(def.returns, levels, next);
  }
}

Value Evaluator::scan(const TypedDefinition& def, const std::vector<Value>& args,
                      const frontend::SourceLocation& loc) {
  std::vector<const FieldVal*> leaves;
  for (const Value& v : args) flatten(v, leaves);
  const std::vector<ArgLeaf> named = arg_leaves(def, args);
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
  // top, not at the top of the arguments); a level outside an argument is an error (check_level).
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
    outs.push_back(FieldVal::allocate(t.dtype, dims, ranges, true));
  };
  alloc(def.returns);
  std::vector<std::vector<int>> pos;
  for (const FieldVal* f : leaves) pos.push_back(positions(*f, dims));
  // A column template: every dim but the axis pinned to one point.
  FieldVal columns = outs[0];
  columns.ranges[pax] = {0, 1};
  Env base_env;
  Value init = eval(*def.init, base_env);
  auto result = [&] {
    for (FieldVal& f : outs) drop_full_mask(f);
    std::size_t next = 0;
    return assemble(def.returns, outs, next);
  };
  if (!branches(def.body)) {
    scan_levels(def, args, init, outs, pax, loc);
    return result();
  }
  std::vector<std::vector<std::int64_t>> subs(leaves.size());
  for (std::size_t k = 0; k < leaves.size(); ++k) subs[k].resize(leaves[k]->dims.size());
  for_each_point(columns, [&](const std::vector<std::int64_t>& col, std::int64_t) {
    std::vector<std::int64_t> idx = col;
    Value carry = init;
    const Range& r = ranges[pax];
    // Undefined once an argument had no value at a level (see scan_levels), with its cause.
    std::uint32_t why = FieldVal::kDefined;
    for (std::int64_t step = 0; step < r.size(); ++step) {
      idx[pax] = def.forward ? r.lo + step : r.hi - 1 - step;
      std::int64_t o = outs[0].offset(idx);
      for (std::size_t k = 0; k < leaves.size(); ++k) {
        check_level(named[k], def, idx[pax], r, loc);
        project(pos[k], idx, subs[k]);
        if (why == FieldVal::kDefined) why = leaves[k]->mark(leaves[k]->offset(subs[k]));
      }
      if (why != FieldVal::kDefined) {
        for (FieldVal& f : outs) f.set_undefined(o, why);
        continue;
      }
      // The arguments at this level, as scalars with the structure of the parameters.
      std::size_t li = 0;
      std::function<Value(const Value&)> at = [&](const Value& v) -> Value {
        if (v.is_tuple) {
          std::vector<Value> el;
          for (const Value& x : v.elements) el.push_back(at(x));
          return Value::tuple(std::move(el));
        }
        std::size_t k = li++;
        std::int64_t lo = leaves[k]->offset(subs[k]);
        return Value::of(
            FieldVal::scalar(leaves[k]->dtype, (*leaves[k]->data)[static_cast<std::size_t>(lo)]));
      };
      Env env;
      env[def.params[0].name] = carry;
      for (std::size_t i = 0; i < args.size() && i + 1 < def.params.size(); ++i)
        env[def.params[i + 1].name] = at(args[i]);
      Value res;
      if (!exec(def.body, env, res)) fail(def.loc, "'" + def.name + "' ended without returning a value");
      std::vector<const FieldVal*> rl;
      flatten(res, rl);
      for (std::size_t i = 0; i < outs.size(); ++i)
        (*outs[i].data)[static_cast<std::size_t>(o)] = (*rl[i]->data)[static_cast<std::size_t>(rl[i]->base)];
      carry = std::move(res);
    }
  });
  return result();
}

}  // namespace weir::runtime::embedded
