// Memlet construction helpers, and which end of a copy a memlet's subsets describe.
#include "weir/sdfg/memlet.h"

namespace weir {

Memlet Memlet::simple(std::string data, Subset subset, std::string wcr) {
  Memlet m;
  m.data = std::move(data);
  m.volume = subset.num_elements();
  m.subset = std::move(subset);
  m.wcr = std::move(wcr);
  return m;
}

std::optional<bool> data_is_source(const Memlet& m, const std::string& src, const std::string& dst) {
  bool s = m.data == src, d = m.data == dst;
  if (s && d) return m.is_data_src.value_or(true);
  if (s || d) return s;
  return std::nullopt;
}

CopySubsets copy_subsets(const Memlet& m, const std::string& src, const std::string& dst) {
  CopySubsets out;
  std::optional<bool> on_src = data_is_source(m, src, dst);
  if (!on_src) return out;
  (*on_src ? out.src : out.dst) = m.subset;
  (*on_src ? out.dst : out.src) = m.other_subset;
  return out;
}

}  // namespace weir
