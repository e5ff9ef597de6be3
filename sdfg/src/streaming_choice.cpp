// The recorded streaming-stores choice of a map (weir/sdfg/streaming_choice.h).
#include "weir/sdfg/streaming_choice.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace weir {

std::optional<bool> recorded_streaming_stores(const MapInfo& m) {
  const std::string* text = m.extra.find(kStreamingStoresAttribute);
  if (!text) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_string() && j.get<std::string>() == "off") return false;
  if (j.is_string() && j.get<std::string>() == "on") return true;
  throw std::invalid_argument(std::string(kStreamingStoresAttribute) + " is " + *text +
                              ", expected the string \"off\" or \"on\"");
}

void record_streaming_stores(MapInfo& m, bool allowed) {
  m.extra.set(kStreamingStoresAttribute, nlohmann::json(allowed ? "on" : "off").dump());
}

}  // namespace weir
