// Helpers of the lowering tests: lowering example files and snippets, validation with a save /
// load round trip, and queries of maps, tasklets and memlets.
#pragma once

#include <algorithm>

#include "typecheck_test_util.h"
#include "weir/frontend/lowering.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

namespace weir::frontend::test {

inline const TypedDefinition& find_def(TypeChecker& tc, const LoadedModule& m, const std::string& name) {
  for (const auto& d : m.definitions)
    if (d->name == name) return tc.check(*d);
  throw std::runtime_error("no definition " + name);
}

inline std::unique_ptr<SDFG> lower_file(const std::string& rel, const std::string& name) {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_file(example_path(rel));
  TypeChecker tc;
  return lower_to_sdfg(find_def(tc, m, name));
}

inline std::unique_ptr<SDFG> lower_text(const std::string& body, const std::string& name) {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(SourceFile("test.py", kPrelude + body));
  TypeChecker tc;
  return lower_to_sdfg(find_def(tc, m, name));
}

inline std::string diagnostics(const SDFG& s) {
  std::string out;
  for (const Diagnostic& d : validate(s)) out += d.str() + "\n";
  return out;
}

/// Validates, saves, loads back and compares.
inline void check_valid_and_round_trip(const SDFG& s, const std::string& tag) {
  INFO(sdfg_to_json_text(s, 1));
  CHECK(diagnostics(s) == "");
  TempDir dir("lower_" + tag);
  save_sdfg(s, dir.str(tag + ".sdfg"));
  auto back = load_sdfg(dir.str(tag + ".sdfg"));
  CHECK(sdfg_difference(s, *back) == "");
  CHECK(diagnostics(*back) == "");
}

inline std::vector<const MapEntry*> maps(const SDFG& s) {
  std::vector<const MapEntry*> out;
  for (SDFGState* st : s.all_states())
    for (Node* n : st->nodes())
      if (auto* m = n->as<MapEntry>()) out.push_back(m);
  return out;
}

inline std::vector<const Tasklet*> tasklets(const SDFG& s) {
  std::vector<const Tasklet*> out;
  for (SDFGState* st : s.all_states())
    for (Node* n : st->nodes())
      if (auto* t = n->as<Tasklet>()) out.push_back(t);
  return out;
}

/// Subsets (Python text) of the memlets into the tasklets from `data`, sorted.
inline std::vector<std::string> tasklet_reads(const SDFG& s, const std::string& data) {
  std::vector<std::string> out;
  for (SDFGState* st : s.all_states())
    for (const DataflowEdge* e : st->edges())
      if (st->node(e->dst).as<Tasklet>() && e->memlet.data == data) out.push_back(e->memlet.subset.str());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string range_text(const Range& r) { return r.start.str() + " .. " + r.end.str(); }

}  // namespace weir::frontend::test
