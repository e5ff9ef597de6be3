// The embedded backend's run of an orchestration function (internal to the runtime): its
// statements in order, each call interpreted by the embedded program of its callee on the
// arrays its arguments name at that point; field rebinding only changes which array a name
// holds (docs/adr/0019-orchestration.md). The caller's arrays are updated only after the whole
// function succeeded.
#pragma once

#include <functional>
#include <memory>

#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"

namespace weir::runtime {

/// A Program running `program.orchestration` call by call. run() throws ArgumentError for
/// arguments that do not fit and ProgramError (naming the call) for what a call throws.
std::shared_ptr<Program> make_embedded_orchestration(const FieldViewProgram& program);

/// How a callee program becomes runnable (make_embedded_program, or prepare on a backend).
using CalleeFactory = std::function<std::shared_ptr<Program>(const FieldViewProgram&)>;

/// The same statements with every callee made by `make_callee` (e.g. compiled for the cpu
/// backend: what calling the stencils one by one from Python does). Not atomic: the caller's
/// arrays are used in place, so a failing call leaves what the earlier calls wrote.
std::shared_ptr<Program> make_call_by_call(const FieldViewProgram& program, CalleeFactory make_callee);

/// Checks `args` against the function's signature (field_view_signature): every field and
/// table present with its dtype and number of dimensions, every scalar given, no unknown names.
/// Throws ArgumentError.
void check_orchestration_arguments(const FieldViewProgram& program, const Arguments& args);

}  // namespace weir::runtime
