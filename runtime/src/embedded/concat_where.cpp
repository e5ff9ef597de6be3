// concat_where in the embedded evaluator: domain conditions and the union of the branches.
#include "internal.h"

#include <functional>

namespace weir::runtime::embedded {

namespace {

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

}  // namespace

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
    // Unbounded pieces are clipped to the universe of the dimension.
    auto u = ctx_.universe.find(dims[d].name);
    Range uni = u != ctx_.universe.end() ? u->second : Range::unbounded();
    auto clip = [&](Range r) { return Range{std::max(r.lo, uni.lo), std::min(r.hi, uni.hi)}; };
    if (!on_cond) {
      if (x_in != y_in) rx = ry = x_in ? rx : ry;
      ranges[d] = {std::max(rx.lo, ry.lo), std::min(rx.hi, ry.hi)};
      if (ranges[d].hi < ranges[d].lo) ranges[d].hi = ranges[d].lo;
      // A branch's extent matters only where its condition holds (gt4py: the result is each
      // branch restricted to its region): both branches contributing, the result spans both
      // extents, and a point where the branch taken there has no value is undefined (fill).
      // concat_where(K >= 2, -4, nz) is defined at every J where K >= 2, not only on nz's J.
      Range cx = clip(rx), cy = clip(ry);
      auto bounded = [](const Range& r) { return r.lo > -kUnbounded && r.hi < kUnbounded; };
      if (x_in && y_in && bounded(cx) && bounded(cy))
        ranges[d] = {std::min(cx.lo, cy.lo), std::max(cx.hi, cy.hi)};
      continue;
    }
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
        res.set_undefined(off, o < 0 ? FieldVal::kUnknownCause : f.mark(o));
        return;
      }
      (*res.data)[static_cast<std::size_t>(off)] = (*f.data)[static_cast<std::size_t>(o)];
    });
  };
  FieldVal res = FieldVal::allocate(x.dtype, dims, ranges, true);
  fill(res);
  // Trim every bounded dimension to the points that have a value (one pass for all).
  std::vector<std::int64_t> lo(dims.size()), hi(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    lo[d] = ranges[d].hi;
    hi[d] = ranges[d].lo;
  }
  for_each_point(res, [&](const std::vector<std::int64_t>& idx, std::int64_t off) {
    if (!res.is_valid(off)) return;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      lo[d] = std::min(lo[d], idx[d]);
      hi[d] = std::max(hi[d], idx[d] + 1);
    }
  });
  std::vector<Range> trimmed = ranges;
  bool changed = false;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (ranges[d].is_unbounded()) continue;
    if (hi[d] < lo[d]) hi[d] = lo[d];
    if (lo[d] != ranges[d].lo || hi[d] != ranges[d].hi) changed = true;
    trimmed[d] = {lo[d], hi[d]};
  }
  if (changed) {
    res = FieldVal::allocate(x.dtype, dims, trimmed, true);
    fill(res);
  }
  drop_full_mask(res);
  return Value::of(std::move(res));
}

}  // namespace weir::runtime::embedded
