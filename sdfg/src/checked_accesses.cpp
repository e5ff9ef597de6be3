// The record of accesses whose bounds checks outlive them (checked_accesses.h): a JSON array of
// objects on the map, subsets and expressions in weir's text forms.
#include "weir/sdfg/checked_accesses.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace weir {

namespace {

nlohmann::json exprs_json(const std::vector<sym::Expr>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : v) out.push_back(e.str());
  return out;
}

nlohmann::json to_json(const CheckedAccess& a) {
  nlohmann::json j{{"data", a.data},   {"subset", a.subset.str()}, {"shape", exprs_json(a.shape)},
                   {"write", a.write}, {"scope", a.scope},         {"debuginfo", a.debuginfo}};
  if (!a.offset.empty()) j["offset"] = exprs_json(a.offset);
  if (!a.dims.empty()) j["dims"] = a.dims;
  return j;
}

[[noreturn]] void malformed(const std::string& text, const std::string& why) {
  throw std::invalid_argument(std::string(kCheckedAccessesAttribute) + " is " + text + ": " + why);
}

std::vector<sym::Expr> exprs_from(const nlohmann::json& j, const std::string& text, const char* key) {
  if (!j.is_array()) malformed(text, std::string("'") + key + "' must be an array of expressions");
  std::vector<sym::Expr> out;
  for (const auto& e : j) {
    if (!e.is_string()) malformed(text, std::string("'") + key + "' must be an array of expressions");
    out.push_back(sym::Expr::parse(e.get<std::string>()));
  }
  return out;
}

CheckedAccess from_json(const nlohmann::json& j, const std::string& text) {
  if (!j.is_object() || !j.contains("data") || !j["data"].is_string() || !j.contains("subset") ||
      !j["subset"].is_string() || !j.contains("shape"))
    malformed(text, "each record needs 'data' and 'subset' (strings) and 'shape'");
  CheckedAccess a;
  a.data = j["data"].get<std::string>();
  a.subset = Subset::parse(j["subset"].get<std::string>());
  a.shape = exprs_from(j["shape"], text, "shape");
  if (j.contains("offset")) a.offset = exprs_from(j["offset"], text, "offset");
  if (a.subset.dims() != a.shape.size() || (!a.offset.empty() && a.offset.size() != a.shape.size()))
    malformed(text, "'" + a.data + "': subset, shape and offset must have the same number of dimensions");
  for (const char* key : {"scope", "debuginfo"})
    if (j.contains(key) && !j[key].is_string())
      malformed(text, std::string("'") + key + "' must be a string");
  if (j.contains("write") && !j["write"].is_boolean()) malformed(text, "'write' must be true or false");
  a.write = j.value("write", false);
  a.scope = j.value("scope", std::string());
  a.debuginfo = j.value("debuginfo", std::string());
  // The dimensions' names (a record without them, or with a list that does not fit, names none).
  if (j.contains("dims") && j["dims"].is_array() && j["dims"].size() == a.shape.size() &&
      std::all_of(j["dims"].begin(), j["dims"].end(), [](const nlohmann::json& e) { return e.is_string(); }))
    a.dims = j["dims"].get<std::vector<std::string>>();
  return a;
}

}  // namespace

void add_checked_accesses(MapInfo& m, const std::vector<CheckedAccess>& more) {
  std::vector<CheckedAccess> all = checked_accesses(m);
  for (const auto& a : more)
    if (std::find(all.begin(), all.end(), a) == all.end()) all.push_back(a);
  if (all.empty()) return;
  nlohmann::json j = nlohmann::json::array();
  for (const auto& a : all) j.push_back(to_json(a));
  m.extra.set(kCheckedAccessesAttribute, j.dump());
}

std::vector<CheckedAccess> checked_accesses(const MapInfo& m) {
  const std::string* text = m.extra.find(kCheckedAccessesAttribute);
  if (!text) return {};
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) malformed(*text, "expected a JSON array of records");
  std::vector<CheckedAccess> out;
  try {
    for (const auto& r : j) out.push_back(from_json(r, *text));
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {  // a subset or expression that does not parse
    malformed(*text, e.what());
  }
  return out;
}

std::set<std::string> checked_access_symbols(const MapInfo& m) {
  std::set<std::string> out;
  if (!m.extra.find(kCheckedAccessesAttribute)) return out;
  try {
    for (const CheckedAccess& a : checked_accesses(m)) {
      out.merge(a.subset.free_symbols());
      for (const auto* v : {&a.shape, &a.offset})
        for (const sym::Expr& x : *v) out.merge(x.free_symbols());
    }
  } catch (const std::invalid_argument&) {
    out.clear();
  }
  return out;
}

}  // namespace weir
