// Helpers on FieldVal for the embedded evaluator: canonical dimension order, projection of
// points, validity masks.
#include "internal.h"

namespace weir::runtime::embedded {

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
  if (f.valid &&
      std::all_of(f.valid->begin(), f.valid->end(), [](std::uint32_t v) { return v == FieldVal::kDefined; }))
    f.valid.reset();
}

const FieldVal& leaf(const Value& v, const TExpr& e) {
  if (v.is_tuple) fail(e.loc, "expected a field or scalar, got a tuple");
  return v.field;
}

}  // namespace weir::runtime::embedded
