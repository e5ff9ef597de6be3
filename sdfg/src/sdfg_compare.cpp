// Semantic equality of SDFGs, for round-trip tests and "did this transformation change
// anything" checks. Both SDFGs are written in weir's canonical JSON form (dense ids, canonical
// expressions) and compared with identity-only keys removed.
#include <nlohmann/json.hpp>

#include "weir/sdfg/serialize.h"

namespace weir {
namespace {

using json = nlohmann::json;

// Keys that identify or lay out elements but carry no meaning.
bool ignored_key(const std::string& k) {
  return k == "guid" || k == "hash" || k == "scope_dict" || k == "cfg_list_id" || k == "collapsed";
}

std::string first_difference(const json& a, const json& b, const std::string& path) {
  if (a.type() != b.type()) return path + ": " + a.dump() + " vs " + b.dump();
  if (a.is_object()) {
    for (const auto& [k, v] : a.items()) {
      if (ignored_key(k)) continue;
      if (!b.contains(k)) return path + "/" + k + ": only in the first SDFG";
      auto d = first_difference(v, b[k], path + "/" + k);
      if (!d.empty()) return d;
    }
    for (const auto& [k, v] : b.items())
      if (!ignored_key(k) && !a.contains(k)) return path + "/" + k + ": only in the second SDFG";
    return {};
  }
  if (a.is_array()) {
    if (a.size() != b.size())
      return path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " elements";
    for (std::size_t i = 0; i < a.size(); ++i) {
      auto d = first_difference(a[i], b[i], path + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return {};
  }
  if (a != b) return path + ": " + a.dump() + " vs " + b.dump();
  return {};
}

}  // namespace

std::string sdfg_difference(const SDFG& a, const SDFG& b) {
  return first_difference(json::parse(sdfg_to_json_text(a)), json::parse(sdfg_to_json_text(b)), "");
}

}  // namespace weir
