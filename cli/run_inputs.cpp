// Completing and checking a run's arguments (run_inputs.h).
#include "run_inputs.h"

#include "random_inputs.h"
#include "run_allocated_outputs.h"
#include "run_missing.h"
#include "run_sizes.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/embedded.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/indexed_connectivity_check.h"

namespace weir::cli {

using namespace weir::runtime;

CompletedArguments complete_arguments(const RunOptions& o, const RunTarget& target, const Backend& backend,
                                      GivenArguments& given) {
  const Signature& sig = target.sig;
  Arguments& args = given.args;
  CompletedArguments done;
  const std::set<std::string> field_extents = take_field_extents(target, args);  // --set t.K=6
  std::set<std::string> hints = size_hints(sig, args);
  check_value_names(target, args, given.from_json);
  check_size_hints(o, target, args, hints);
  if (o.random_inputs) done.made = fill_random_inputs(o, target, backend, args, hints);
  done.allocated = allocate_outputs(target, backend, args, hints);
  for (const auto& h : hints) args.values.erase(h);
  for (const auto& s : field_extents) args.values.erase(s);  // the arrays made have those sizes
  take_neighbour_counts(target, args);
  // Check the arguments before compiling, so that mistakes show at once; a missing argument
  // also gets the option that gives it.
  try {
    check_table_kinds(target, args);
    // Local fields as wide as their tables, in the same words on every backend.
    check_local_dimension_widths(target.connectivities, target.field_view_sig, args);
    if (target.field_view) {
      check_embedded_arguments(*target.field_view, args);
    } else {
      // An orchestration function's arguments in the embedded backend's words (its SDFG's
      // shared size symbols would say `__u_I_size`).
      if (target.orchestration) check_embedded_arguments(*target.orchestration, args);
      require_scalars(target, args);
      require_tables(target, args);
      with_int32_tables(target.connectivities, sig, args, [&] { bind_arguments(sig, args); });
    }
  } catch (const ArgumentError& e) {
    std::string hint = missing_argument_hint(target, args);
    if (hint.empty() || std::string(e.what()).rfind("missing ", 0) != 0) throw;
    throw ArgumentError(e.what() + hint);
  }
  // Entries compared with the fields they index (the lowering's record; the program's own
  // when it runs interpreted).
  check_connectivities(target.connectivities, sig, args,
                       target.sdfg.sdfg    ? recorded_indexed_fields(*target.sdfg.sdfg)
                       : target.field_view ? indexed_fields_of(*target.field_view)
                                           : runtime::IndexedFields{});
  return done;
}

}  // namespace weir::cli
