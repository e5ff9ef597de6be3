// first_dimension and primary_entity (mesh_program.h).
#include "mesh_program.h"

#include <set>

#include "run_sizes.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/lower_for_tables.h"

namespace weir::cli {

std::string first_dimension(const runtime::Signature& sig, const std::string& name) {
  const runtime::Parameter* p = sig.find(name);
  if (!p || p->kind != runtime::Parameter::Kind::Array || p->shape.empty()) return "";
  return size_dimension(p->shape[0].str());
}

bool is_orchestration(const RunTarget& t) {
  return t.orchestration.has_value() || (t.field_view && t.field_view->orchestration);
}

std::string primary_entity(const RunTarget& t) {
  const std::string& program = t.field_view_sig.program_name;
  if (t.connectivities.empty())
    throw Error("'" + program + "' reads no connectivity table: only unstructured programs are partitioned");
  std::string primary, first;
  for (const auto& p : t.field_view_sig.params) {
    if (!p.written || p.kind != runtime::Parameter::Kind::Array) continue;
    const std::string dim = first_dimension(t.field_view_sig, p.name);
    if (primary.empty()) {
      primary = dim;
      first = p.name;
    } else if (dim != primary && !is_orchestration(t)) {
      throw Error("'" + program + "' writes '" + first + "' on " + primary + " and '" + p.name + "' on " +
                  dim + ": a partition splits one entity, so every output must be on the same one");
    }
  }
  if (primary.empty()) throw Error("'" + program + "' writes no field: nothing to partition");
  return primary;
}

std::vector<mesh::CallChains> call_chains(const RunTarget& t) {
  if (!t.field_view || !t.field_view->orchestration) return {};
  std::set<std::string> tables, entities;
  for (const auto& c : t.connectivities) {
    tables.insert(c.name);
    entities.insert(c.from);
    entities.insert(c.to);
  }
  const runtime::CompilableProgram lowered = runtime::lower_for_tables(*t.field_view, {}, false);
  std::vector<mesh::CallChains> out;
  for (const SDFGState* st : lowered.sdfg->all_states())
    for (const Node* node : st->nodes()) {
      const auto* n = node->as<NestedSDFGNode>();
      if (!n || !n->sdfg) continue;
      mesh::CallChains c;
      // The piece of a program a call is holds the containers it accesses: its tables among them.
      for (const auto& [name, desc] : n->sdfg->arrays)
        if (tables.count(name)) c.tables.insert(name);
      for (const auto& [conn, type] : n->out_connectors) {
        auto a = n->sdfg->arrays.find(conn);
        if (a == n->sdfg->arrays.end() || a->second.shape.empty()) continue;
        const std::string e = size_dimension(a->second.shape[0].str());
        if (entities.count(e)) c.writes.insert(e);
      }
      if (!c.writes.empty()) out.push_back(std::move(c));
    }
  return out;
}

}  // namespace weir::cli
