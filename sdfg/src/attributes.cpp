// Unknown attributes: an ordered key -> JSON-text list (order kept for faithful saving).
#include "weir/sdfg/attributes.h"

#include <algorithm>

namespace weir {

void UnknownAttributes::set(std::string key, std::string json_text) {
  // Replacing keeps the key's original position so a round trip preserves file order.
  for (auto& [k, v] : items_) {
    if (k == key) {
      v = std::move(json_text);
      return;
    }
  }
  items_.emplace_back(std::move(key), std::move(json_text));
}

const std::string* UnknownAttributes::find(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

bool UnknownAttributes::erase(const std::string& key) {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const auto& kv) { return kv.first == key; });
  if (it == items_.end()) return false;
  items_.erase(it);
  return true;
}

}  // namespace weir
