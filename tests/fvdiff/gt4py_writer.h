// Prints generated programs as gt4py field-view source: one module with a field operator (and
// scan operator) per program and one @program that calls them all, each writing its own outputs.
#pragma once

#include <string>
#include <vector>

#include "fv_program.h"

namespace weir::fvdiff {

/// The @program of write_gt4py_module.
inline constexpr const char* kProgramName = "fuzz";

/// The module: the universe's declarations, then every program's operators, then
/// `@gtx.program def fuzz(<inputs used>, <outputs>)` calling them in order.
std::string write_gt4py_module(const std::vector<const SubProgram*>& programs);

/// The output field of result `r` of `sp` as the @program declares it.
std::string field_type(const Universe& u, unsigned dims, DType t);

/// The connectivity tables `programs` use, in the universe's order.
std::vector<const Table*> tables_used(const std::vector<const SubProgram*>& programs);

/// The inputs `programs` read, in the universe's order.
std::vector<const Input*> inputs_used(const std::vector<const SubProgram*>& programs);

}  // namespace weir::fvdiff
