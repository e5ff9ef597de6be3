// Loading what `weir run` runs (run_target.h).
#include "run_target.h"

#include "run_allocated_outputs.h"
#include "targets.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/sdfg.h"

namespace weir::cli {

using namespace weir::runtime;

RunTarget load_target(const RunOptions& o, const Backend& backend) {
  RunTarget t;
  if (is_field_view_reference(o.program)) require_definition_reference("run", o.program);
  bool compiled = dynamic_cast<const CompiledBackend*>(&backend) != nullptr;
  if (is_field_view_reference(o.program)) {
    FieldViewProgram fv = load_field_view_reference(o.program, o.includes);
    check_backend(backend, fv);
    t.connectivities = connectivities_of(fv);
    t.outputs_only = output_only_parameters(fv);
    if (compiled) {
      t.sdfg = lower(fv);
    } else {
      t.sig = field_view_signature(fv);
      t.field_view = std::move(fv);
      return t;
    }
  } else {
    t.sdfg = load_program_source(o.program);
    t.sdfg.options.trust_code = o.trust_code;
    check_backend(backend, t.sdfg);
    t.connectivities = recorded_connectivities(*t.sdfg.sdfg);  // an SDFG lowered from a .py
  }
  t.sig = Signature::from_sdfg(*t.sdfg.sdfg);
  return t;
}

void require_tables(const RunTarget& t, const Arguments& args) {
  for (const auto& c : t.connectivities) {
    const Parameter* p = t.sig.find(c.name);
    if (!p || p->kind != Parameter::Kind::Array || args.arrays.count(c.name)) continue;
    std::optional<long long> n;
    if (p->shape.size() == 2) n = p->shape[1].try_evaluate({});
    throw ArgumentError("missing connectivity table '" + c.name + "' (an int32 or int64 array of shape (n_" +
                        c.from + ", " + (n ? std::to_string(*n) : "max_neighbours") + "))");
  }
}

}  // namespace weir::cli
