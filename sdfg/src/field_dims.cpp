// The dimensions of a field-view array (field_dims.h).
#include "weir/sdfg/field_dims.h"

#include <nlohmann/json.hpp>

namespace weir {

namespace {
constexpr const char* kKey = "weir_dims";
}  // namespace

void set_field_dims(DataDescriptor& d, const std::vector<std::string>& dims) {
  d.extra.set(kKey, nlohmann::json(dims).dump());
}

std::vector<std::string> field_dims(const DataDescriptor& d) {
  const std::string* text = d.extra.find(kKey);
  if (!text) return {};
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_array() || j.size() != d.shape.size()) return {};
  std::vector<std::string> out;
  for (const auto& e : j) {
    if (!e.is_string() || e.get<std::string>().empty()) return {};
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace weir
