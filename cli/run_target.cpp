// Loading what `weir run` runs (run_target.h).
#include "run_target.h"

#include <filesystem>
#include <iostream>

#include "run_allocated_outputs.h"
#include "targets.h"
#include "weir/frontend/lowering.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/lower_for_tables.h"
#include "weir/runtime/npy.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/sdfg.h"

namespace weir::cli {

using namespace weir::runtime;

namespace {

// The neighbours per row of the connectivity tables given as files (--in NAME=FILE.npy, or
// DIR/NAME.npy of --in-dir): a compiled program is lowered for them, as gt4py takes the count
// from the table (an E2V of 3 columns runs as on the embedded backend). Tables that do not
// read, or are no 2-d integer arrays, are left to the argument checks.
std::map<std::string, std::int64_t> table_widths(const RunOptions& o,
                                                 const std::vector<ConnectivityParameter>& conns) {
  std::map<std::string, std::int64_t> widths;
  for (const auto& c : conns) {
    std::string file;
    for (const auto& in : o.ins)
      if (in.rfind(c.name + "=", 0) == 0) file = in.substr(c.name.size() + 1);
    for (const auto& dir : o.in_dirs)
      if (file.empty() && std::filesystem::exists(std::filesystem::path(dir) / (c.name + ".npy")))
        file = (std::filesystem::path(dir) / (c.name + ".npy")).string();
    std::error_code ec;
    if (file.empty() || !std::filesystem::is_regular_file(file, ec)) continue;
    try {
      Field t = read_npy(file);
      if (t.ndim() == 2 && (t.dtype() == ScalarType::Int32 || t.dtype() == ScalarType::Int64))
        widths[c.name] = t.shape()[1];
    } catch (const weir::Error&) {
    }
  }
  return widths;
}

}  // namespace

RunTarget load_target(const RunOptions& o, const Backend& backend) {
  RunTarget t;
  if (is_field_view_reference(o.program)) require_definition_reference("run", o.program);
  bool compiled = dynamic_cast<const CompiledBackend*>(&backend) != nullptr;
  if (is_field_view_reference(o.program)) {
    FieldViewProgram fv = load_field_view_reference(o.program, o.includes);
    check_backend(backend, fv);
    // Outputs computed through a temporary and a copy (an out= field read at another point).
    if (o.verbose && fv.definition && compiled)
      for (const auto& note : frontend::out_copy_notes(*fv.definition))
        std::cerr << "weir: " << o.program << ": " << note << "\n";
    t.connectivities = connectivities_of(fv);
    t.outputs_only = output_only_parameters(fv);
    t.field_view_sig = field_view_signature(fv);
    if (fv.definition)
      for (const auto& p : fv.definition->declared_params) t.declared_params.push_back(p.name);
    if (compiled) {
      t.sdfg = lower_for_tables(fv, table_widths(o, t.connectivities), !o.lowered_only);
      t.sdfg.options.bounds_checks = !o.no_bounds_checks;
      if (fv.orchestration)
        t.orchestration = std::move(fv);
      else
        t.program = std::move(fv);
    } else {
      t.sig = t.field_view_sig;
      t.field_view = std::move(fv);
      return t;
    }
  } else {
    std::vector<std::string> notes;
    t.sdfg = load_program_source(o.program, notes);
    t.sdfg.options.trust_code = o.trust_code;
    t.sdfg.options.bounds_checks = !o.no_bounds_checks;
    if (o.verbose)
      for (const auto& note : notes) std::cerr << "weir: " << o.program << ": " << note << "\n";
    check_backend(backend, t.sdfg);
    t.connectivities = recorded_connectivities(*t.sdfg.sdfg);  // an SDFG lowered from a .py
    t.outputs_only = output_only_containers(*t.sdfg.sdfg);
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

void require_scalars(const RunTarget& t, const Arguments& args) {
  for (const auto& p : t.field_view_sig.params)
    if (p.kind == Parameter::Kind::Scalar && !args.values.count(p.name) && !args.arrays.count(p.name))
      throw ArgumentError("missing argument '" + p.name + "' (" + std::string(to_string(p.dtype)) +
                          " scalar)");
}

void check_table_kinds(const RunTarget& t, const Arguments& args) {
  for (const auto& c : t.connectivities) {
    auto a = args.arrays.find(c.name);
    if (a == args.arrays.end()) continue;
    const Field& f = a->second;
    if ((f.dtype() != ScalarType::Int32 && f.dtype() != ScalarType::Int64) || f.ndim() != 2)
      throw ArgumentError("connectivity table '" + c.name +
                          "': expected an int32 or int64 array of shape (n_" + c.from +
                          ", max_neighbours), got " + f.describe());
  }
}

}  // namespace weir::cli
