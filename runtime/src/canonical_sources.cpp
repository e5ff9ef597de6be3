#include "canonical_sources.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::runtime::detail {
namespace {

namespace fs = std::filesystem;

class Canonicalizer {
 public:
  void sdfg(SDFG& g) {
    for (SDFGState* st : g.all_states()) {
      for (Node* n : st->nodes()) {
        fix(n->extra);
        if (auto* nested = n->as<NestedSDFGNode>(); nested && nested->sdfg) sdfg(*nested->sdfg);
      }
      for (const DataflowEdge* e : st->edges()) fix(st->edge(e->id).memlet.extra);
    }
  }

 private:
  std::map<std::string, std::string> done_;  // file name as lowered -> canonical

  const std::string& canonical(const std::string& file) {
    auto it = done_.find(file);
    if (it != done_.end()) return it->second;
    std::error_code ec;
    std::string c = file;
    if (fs::is_regular_file(file, ec)) {
      fs::path p = fs::weakly_canonical(fs::absolute(file, ec), ec);
      if (!ec) c = p.string();
    }
    return done_.emplace(file, c).first->second;
  }

  void fix(UnknownAttributes& extra) {
    const std::string* text = extra.find("debuginfo");
    if (!text) return;
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object() || !j.contains("filename") || !j["filename"].is_string()) return;
    const std::string& file = j["filename"].get_ref<const std::string&>();
    if (file.empty()) return;
    const std::string& c = canonical(file);
    if (c == file) return;
    j["filename"] = c;
    extra.set("debuginfo", j.dump());
  }
};

}  // namespace

void canonicalize_source_files(SDFG& sdfg) { Canonicalizer().sdfg(sdfg); }

}  // namespace weir::runtime::detail
