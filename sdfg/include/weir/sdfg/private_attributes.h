// How weir's own attributes (map, node, state and SDFG attributes named `weir_...` in memory:
// weir_threads, weir_vectorize, weir_connectivities, the history weir_transformation_hist, ...)
// are spelled in SDFG files: `_meta_weir_...`. DaCe's deserializer
// (dace/serialize.py, set_properties_from_json) warns "Unused properties: ..." for every key
// that is not a property of the object, except keys starting with "_meta", which it skips
// silently (its own editor metadata); DaCe does not keep them either (a DaCe round trip drops
// them, as it drops any unknown key). Files written before session 32 spell them `weir_...`,
// which is still read (docs/adr/0050-dace-runs-what-weir-writes.md, session 32).
#pragma once

#include <string>

namespace weir {

/// The prefix DaCe's deserializer skips without a warning.
inline constexpr const char* kDaceSkippedPrefix = "_meta_";

/// The key attribute `key` is written under: `weir_x` as `_meta_weir_x`; any other as it is.
inline std::string attribute_key_in_file(const std::string& key) {
  return key.rfind("weir_", 0) == 0 ? kDaceSkippedPrefix + key : key;
}

/// The key an attribute read from a file is kept under: `_meta_weir_x` as `weir_x`; any other
/// (`weir_x` of an older file included) as it is.
inline std::string attribute_key_in_memory(const std::string& key) {
  const std::string prefix = std::string(kDaceSkippedPrefix) + "weir_";
  return key.rfind(prefix, 0) == 0 ? key.substr(6) : key;
}

}  // namespace weir
