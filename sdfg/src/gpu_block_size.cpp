// Which thread-block sizes fit a GPU kernel map (see the header).
#include "weir/sdfg/gpu_block_size.h"

#include <algorithm>

#include "weir/sdfg/text.h"

namespace weir {

std::string gpu_block_size_misfit(const std::vector<long long>& block, const MapInfo& m) {
  std::vector<std::string> text;
  for (long long v : block) text.push_back(std::to_string(v));
  const std::string shown = "block (" + join(text, ", ") + ")";
  if (block.size() > 3)
    return shown + " has " + std::to_string(block.size()) + " values; a thread block has three (x, y, z)";
  const std::size_t n = m.params.size();
  for (std::size_t d = std::max<std::size_t>(n, 1); d < block.size(); ++d)
    if (block[d] > 1)
      return shown + " has " + std::to_string(block[d]) + " threads along " + std::string(1, "xyz"[d]) +
             ", but map '" + m.label + "' has " + std::to_string(n) +
             (n == 1 ? " parameter (" : " parameters (") + join(m.params, ", ") + "): each point would run " +
             std::to_string(block[d]) + " times; give 1 there";
  return {};
}

}  // namespace weir
