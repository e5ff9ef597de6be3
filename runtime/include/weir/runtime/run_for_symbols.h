// One run of a program that also gives the symbol values it was bound with, for the report of a
// profiled call (docs/adr/0048-profiling.md, session 37).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "weir/runtime/arguments.h"
#include "weir/runtime/program.h"

namespace weir::runtime {

/// Runs `program` once as Program::run does and sets `symbols` to the value of every free
/// symbol the call was bound with (BoundArguments::symbols(): given, or inferred from array
/// shapes). The arguments are bound once: a CompiledProgram, also behind the tables' checks of
/// with_connectivity_checks, runs the binding whose symbols are kept (runs with the same result
/// and the same errors as run()). Any other program runs, then `args` are bound once more for
/// the symbols. `symbols` is left unchanged when the run throws.
void run_for_symbols(Program& program, Arguments& args, std::map<std::string, std::int64_t>& symbols);

}  // namespace weir::runtime
