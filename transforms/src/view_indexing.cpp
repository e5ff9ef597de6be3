// A view's indices as its viewed container's (see the header).
#include "view_indexing.h"

#include "weir/sdfg/view_binding.h"

namespace weir::transforms::detail {

namespace {

bool equal(const sym::Expr& a, const sym::Expr& b) {
  auto d = (a - b).as_integer();
  return d && *d == 0;
}

}  // namespace

std::optional<Subset> ViewIndexing::to_viewed(const Subset& r) const {
  if (r.dims() != along.size()) return std::nullopt;
  std::vector<Range> out;
  for (std::size_t i = 0; i < at.dims(); ++i) out.push_back(Range::index(at[i].start));
  for (std::size_t j = 0; j < r.dims(); ++j) {
    if (!along[j]) {
      if (!equal(r[j].start, sym::Expr(0)) || !equal(r[j].end, sym::Expr(0))) return std::nullopt;
      continue;
    }
    const sym::Expr& s = at[*along[j]].start;
    out[*along[j]] = Range(s + r[j].start, s + r[j].end, r[j].step, r[j].tile);
  }
  return Subset(out);
}

std::variant<ViewIndexing, std::string> view_indexing(const SDFG& sdfg, const SDFGState& st,
                                                      const AccessNode& v) {
  const std::string name = "view '" + v.data + "'";
  auto binding = view_binding(sdfg, st, v);
  if (!binding || !sdfg.has_data(binding->viewed) || binding->viewed == v.data)
    return name + " has no edge from the container it views";
  const DataDescriptor& dv = sdfg.data(v.data);
  const DataDescriptor& dw = sdfg.data(binding->viewed);
  const std::string of = name + " of '" + binding->viewed + "'";
  for (const sym::Expr& o : dv.offset)
    if (!equal(o, sym::Expr(0))) return of + " has an index offset";
  if (dv.strides.size() != dv.shape.size() || dw.strides.size() != dw.shape.size() ||
      binding->subset.dims() != dw.shape.size())
    return of + " has strides or a subset of another number of dimensions than its shape";
  ViewIndexing out{binding->viewed, binding->subset, {}};
  std::vector<std::size_t> wide;  // the viewed subset's dimensions of more than one element
  for (std::size_t i = 0; i < out.at.dims(); ++i)
    if (!equal(out.at[i].start, out.at[i].end)) wide.push_back(i);
  std::size_t k = 0;
  for (const sym::Expr& extent : dv.shape) k += equal(extent, sym::Expr(1)) ? 0 : 1;
  if (k != wide.size()) return of + " reshapes [" + out.at.str() + "] (its dimensions are not the subset's)";
  k = 0;
  for (std::size_t j = 0; j < dv.shape.size(); ++j) {
    if (equal(dv.shape[j], sym::Expr(1))) {
      out.along.push_back(std::nullopt);
      continue;
    }
    const std::size_t i = wide[k++];
    if (!equal(dv.shape[j], out.at[i].end - out.at[i].start + sym::Expr(1)) ||
        !equal(dv.strides[j], dw.strides[i]))
      return of + " runs along [" + out.at.str() +
             "] with other extents or strides (a strided or transposed view)";
    out.along.push_back(i);
  }
  return out;
}

}  // namespace weir::transforms::detail
