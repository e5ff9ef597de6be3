// Hints for missing `weir run` arguments (run_missing.h).
#include "run_missing.h"

#include <stdexcept>
#include <vector>

#include "weir/mesh/triangular_mesh.h"
#include "weir/sdfg/text.h"

namespace weir::cli {

using namespace weir::runtime;

namespace {

const ConnectivityParameter* table_of(const RunTarget& t, const std::string& name) {
  for (const auto& c : t.connectivities)
    if (c.name == name) return &c;
  return nullptr;
}

// Whether `weir mesh` writes a table of this name (it writes the same tables for every size).
bool mesh_writes(const std::string& table) {
  try {
    mesh::make_triangular_mesh(3, 3).table(table);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace

std::string missing_argument_hint(const RunTarget& t, const Arguments& args) {
  std::vector<std::string> options;
  std::vector<const ConnectivityParameter*> tables;
  std::vector<std::string> allocated;
  bool out = false;
  for (const auto& p : t.sig.params) {
    if (p.returned) continue;
    // A program's scalar argument that its lowered SDFG has as a symbol (a domain bound).
    const Parameter* fv = t.field_view_sig.find(p.name);
    if (p.kind == Parameter::Kind::Symbol && !(fv && fv->kind == Parameter::Kind::Scalar)) continue;
    if (p.kind != Parameter::Kind::Array) {
      if (!args.values.count(p.name)) options.push_back("--set " + p.name + "=VALUE");
      continue;
    }
    if (args.arrays.count(p.name)) continue;
    if (t.outputs_only.count(p.name)) {  // allocated once the inputs that size it are given
      allocated.push_back("'" + p.name + "'");
      continue;
    }
    options.push_back("--in " + p.name + "=FILE.npy");
    if (const auto* c = table_of(t, p.name)) tables.push_back(c);
    out = out || p.name == "__out";
  }
  if (options.empty() && allocated.empty()) return "";
  std::string hint;
  if (!options.empty()) {
    hint = "\n  hint: give " + std::string(options.size() == 1 ? "it" : "them") + " with";
    for (const auto& o : options) hint += " " + o;
  }
  if (!allocated.empty())
    hint += "\n  " + join(allocated) + (allocated.size() == 1 ? " is an output" : " are outputs") +
            ": weir allocates " + (allocated.size() == 1 ? "it" : "them") +
            " (zeros, sized like the inputs) once the inputs are given";
  if (out)
    hint += "\n  '__out' is the array the result of '" + t.sig.program_name +
            "' is written into (a @field_operator run directly returns its result there; a @program "
            "names its outputs itself)";
  std::string from_mesh;
  for (const auto* c : tables) {
    if (mesh_writes(c->name)) {
      from_mesh += (from_mesh.empty() ? "" : ", ") + c->name + ".npy";
      continue;
    }
    hint += "\n  '" + c->name + "' has a row per " + c->from + " with the " + c->to +
            " index of each neighbour (int32 or int64; -1 = no neighbour)";
  }
  if (!from_mesh.empty())
    hint += "\n  'weir mesh --nx 8 --ny 6 -o mesh/' writes " + from_mesh +
            " and the other connectivity tables of a periodic triangular mesh";
  return hint;
}

}  // namespace weir::cli
