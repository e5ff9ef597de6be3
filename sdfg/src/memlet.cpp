// Memlet construction helpers.
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

}  // namespace weir
