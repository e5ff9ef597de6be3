// The outputs `weir run` allocates itself: fields a field-view program only writes (the out=
// of a @program's calls that no call reads, the result `__out` of a @field_operator run
// directly). Only inputs must be given; these are made as zeros sized like the inputs.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "run_target.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/field_view_program.h"

namespace weir::cli {

/// The parameters of `program` it only writes: for a @program the fields named in some call's
/// out= and in no call's arguments; for a @field_operator or @scan_operator run directly its
/// result `__out` (`__out_0`, ... for a tuple). Orchestration functions: none (their calls may
/// read what earlier calls wrote).
std::set<std::string> output_only_parameters(const runtime::FieldViewProgram& program);

/// The same for an SDFG file: its non-transient arrays that some access node writes and none
/// reads (no out-edge from an access node of it, no write-conflict resolution on a write, the
/// name in no interstate condition, assignment or loop statement), so that an SDFG written by
/// `weir sdfg` runs with its inputs alone as the program it came from does. DaCe's return
/// values are left out (binding allocates those itself).
std::set<std::string> output_only_containers(const SDFG& sdfg);

/// Adds to `args` each parameter of `t.outputs_only` it lacks, allocated by `backend` and
/// filled with zeros, its shape from the sizes given (shape_symbols: the inputs' extents along
/// each dimension, --set DIM=N); returns the names added, in call order. An output whose shape
/// cannot be evaluated is left out (binding then names it with the option that gives it).
std::vector<std::string> allocate_outputs(const RunTarget& t, const runtime::Backend& backend,
                                          runtime::Arguments& args, const std::set<std::string>& hints);

}  // namespace weir::cli
