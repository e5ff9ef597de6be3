// Shifts of fields in the embedded evaluator: Cartesian offsets and gathers through
// connectivity tables.
#include "internal.h"

#include <algorithm>

namespace weir::runtime::embedded {

const Table& Evaluator::table(const frontend::FieldOffset& off, const frontend::SourceLocation& loc) const {
  auto it = ctx_.tables.find(off.name);
  if (it == ctx_.tables.end())
    fail(loc,
         "no connectivity table '" + off.name + "': pass it as an array argument named '" + off.name + "'");
  return it->second;
}

std::uint32_t Evaluator::missing_neighbour(const ShiftStep& s, const TExpr& e, std::int64_t row,
                                           std::int64_t col) {
  auto [it, fresh] = cause_of_.try_emplace({&s, row, col}, 0);
  if (fresh) {
    Cause c;
    c.loc = e.loc;
    c.offset = s.offset.name;
    c.row = row;
    c.col = col;
    if (!e.args.empty() && e.args[0]->kind == frontend::TExprKind::Name) c.read = e.args[0]->name;
    causes_.push_back(std::move(c));
    it->second = static_cast<std::uint32_t>(causes_.size() + 1);
  }
  return it->second;
}

const Evaluator::Cause* Evaluator::cause(std::uint32_t mark) const {
  if (mark < 2 || mark - 2 >= causes_.size()) return nullptr;
  return &causes_[mark - 2];
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
        std::uint32_t why = idx.mark(io);
        if (why == FieldVal::kDefined) {
          sf[pu] +=
              static_cast<std::int64_t>(to_double(idx.dtype, (*idx.data)[static_cast<std::size_t>(io)]));
          why = covers(f, sf) ? f.mark(f.offset(sf)) : FieldVal::kUnknownCause;
        }
        if (why != FieldVal::kDefined) {
          res.set_undefined(off, why);
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
    gathered_.insert_or_assign(local->name, Gathered{s.offset.name, from});
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
      res.set_undefined(off, missing_neighbour(s, e, row, col));
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
      res.set_undefined(off, FieldVal::kUnknownCause);
      return;
    }
    std::int64_t o = f.offset(sub);
    if (!f.is_valid(o)) {
      res.set_undefined(off, f.mark(o));
      return;
    }
    (*res.data)[static_cast<std::size_t>(off)] = (*f.data)[static_cast<std::size_t>(o)];
  });
  drop_full_mask(res);
  return res;
}

}  // namespace weir::runtime::embedded
