#include "weir/sdfg/source_files.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "weir/sdfg/input_file.h"

namespace weir {
namespace {

void collect(const nlohmann::json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    if (auto d = j.find("debuginfo"); d != j.end() && d->is_object())
      if (auto f = d->find("filename"); f != d->end() && f->is_string()) out.insert(f->get<std::string>());
    if (auto s = j.find("source_files"); s != j.end() && s->is_array())
      for (const nlohmann::json& f : *s)
        if (f.is_string()) out.insert(f.get<std::string>());
    for (const auto& [k, v] : j.items()) collect(v, out);
  } else if (j.is_array()) {
    for (const nlohmann::json& v : j) collect(v, out);
  }
}

}  // namespace

std::set<std::string> source_files_named(std::string_view json_text) {
  std::set<std::string> out;
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_discarded()) collect(j, out);
  out.erase("");
  return out;
}

void protect_source_files(std::string_view json_text, const std::string& sdfg_file) {
  if (!inputs_protected()) return;
  const std::filesystem::path beside = std::filesystem::path(sdfg_file).parent_path();
  for (const std::string& f : source_files_named(json_text)) {
    protect_input_file(f);
    if (!beside.empty() && std::filesystem::path(f).is_relative()) protect_input_file(beside / f);
  }
}

}  // namespace weir
