// first_dimension and primary_entity (mesh_program.h).
#include "mesh_program.h"

#include "run_sizes.h"
#include "weir/runtime/errors.h"

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

}  // namespace weir::cli
