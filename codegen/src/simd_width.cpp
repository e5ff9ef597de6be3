// Whether an innermost SIMD loop asks for every lane of the machine's vector registers, and
// whether it reads rows at shifted offsets (see the header, docs/adr/0055, "session 33" and
// "session 35").
#include "simd_width.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

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

/// Whether two of `offsets` (along the parameter, in elements of `bytes` bytes) are a distance
/// apart that is no whole number of 64-byte lines; a distance that is not a constant is not
/// counted.
bool offsets_straddle_lines(const std::vector<sym::Expr>& offsets, std::size_t bytes) {
  for (std::size_t a = 0; a < offsets.size(); ++a)
    for (std::size_t b = a + 1; b < offsets.size(); ++b) {
      const sym::Expr d = offsets[a] - offsets[b];
      if (d.is_integer() && (d.value() * static_cast<long long>(bytes)) % 64 != 0) return true;
    }
  return false;
}

}  // namespace

std::optional<ContiguousLoop> contiguous_simd_loop(const SDFG& sdfg, const SDFGState& st, const MapEntry& e) {
  const MapInfo& m = *e.map;
  if (m.params.size() != 1 || m.range.dims() != 1 || !is_one(m.range[0].step)) return std::nullopt;
  const std::string& param = m.params[0];
  const sym::Expr p = sym::Expr::symbol(param);
  std::size_t widest = 0;
  // Per container moving with the parameter: its element's bytes and the offsets of its accesses.
  std::map<std::string, std::pair<std::size_t, std::vector<sym::Expr>>> offsets;
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
    if (mm.subset.free_symbols().count(param)) {
      auto& [bytes, at] = offsets[mm.data];
      bytes = size_of(t);
      at.push_back(mm.subset[mm.subset.dims() - 1].start - p);
    }
    return true;
  };
  for (EdgeId id : st.out_edges(e.id()))
    if (!take(id, false)) return std::nullopt;
  for (EdgeId id : st.in_edges(e.exit))
    if (!take(id, true)) return std::nullopt;
  if (widest == 0) return std::nullopt;
  ContiguousLoop loop;
  loop.element_bytes = widest;
  for (const auto& container : offsets) {
    const auto& [bytes, at] = container.second;
    loop.shifted = loop.shifted || offsets_straddle_lines(at, bytes);
  }
  return loop;
}

}  // namespace weir::codegen::detail
