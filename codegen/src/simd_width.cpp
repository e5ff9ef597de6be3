// Whether an innermost SIMD loop asks for every lane of the machine's vector registers (see the
// header, docs/adr/0055, "session 33").
#include "simd_width.h"

#include <algorithm>
#include <string>

namespace weir::codegen::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

/// Whether `m`, one element of `d`, is the same element at every value of `param` or the next
/// element of the last dimension at each next value (contiguous in memory: last stride 1).
bool unit_or_invariant(const Memlet& m, const DataDescriptor& d, const std::string& param) {
  if (m.dynamic || !m.wcr.empty() || m.other_subset || !m.subset.is_single_element()) return false;
  const std::size_t dims = m.subset.dims();
  if (!m.subset.free_symbols().count(param)) return true;
  if (dims == 0 || d.strides.size() != dims || !is_one(d.strides.back())) return false;
  for (std::size_t k = 0; k + 1 < dims; ++k)
    if (m.subset[k].start.free_symbols().count(param)) return false;
  const sym::Expr& last = m.subset[dims - 1].start;
  const sym::Expr p = sym::Expr::symbol(param);
  return !(last - p).free_symbols().count(param);
}

}  // namespace

std::optional<std::size_t> full_width_element_bytes(const SDFG& sdfg, const SDFGState& st,
                                                    const MapEntry& e) {
  const MapInfo& m = *e.map;
  if (m.params.size() != 1 || m.range.dims() != 1 || !is_one(m.range[0].step)) return std::nullopt;
  const std::string& param = m.params[0];
  std::size_t widest = 0;
  // `write`: a memlet into the exit, which must move with the parameter (a write of the same
  // element at every point keeps the compiler's choice).
  auto take = [&](EdgeId id, bool write) {
    const Memlet& mm = st.edge(id).memlet;
    if (mm.is_empty()) return true;
    if (write && !mm.subset.free_symbols().count(param)) return false;
    auto it = sdfg.arrays.find(mm.data);
    if (it == sdfg.arrays.end()) return false;
    const DataDescriptor& d = it->second;
    const ScalarType t = d.dtype.base;
    if (d.dtype.pointer_depth != 0 || !d.dtype.raw_json.empty() || t == ScalarType::Void ||
        t == ScalarType::Complex64 || t == ScalarType::Complex128 || !unit_or_invariant(mm, d, param))
      return false;
    widest = std::max(widest, size_of(t));
    return true;
  };
  for (EdgeId id : st.out_edges(e.id()))
    if (!take(id, false)) return std::nullopt;
  for (EdgeId id : st.in_edges(e.exit))
    if (!take(id, true)) return std::nullopt;
  if (widest == 0) return std::nullopt;
  return widest;
}

}  // namespace weir::codegen::detail
