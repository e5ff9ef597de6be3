// Lowering a field-view program for the connectivity tables it will run with: gt4py takes the
// number of neighbours per row from the table given, where the SDFG lowering otherwise fixes
// the conventional count (E2V 2, V2E 6, ...) in the table's shape.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "weir/runtime/backend.h"
#include "weir/runtime/field_view_program.h"

namespace weir::runtime {

/// lower() (dispatch.h) with the neighbours per row of some connectivity tables (offset name ->
/// the table's second extent, frontend::LoweringOptions::max_neighbors): an E2V table of 3
/// columns then runs on a compiled backend as on the embedded one (`neighbor_sum` over all 3,
/// E2V[0] and E2V[1] read with a row stride of 3). `optimized` false skips the optimization
/// pipeline (the SDFG as lowered and validated, as `weir sdfg` writes it). Throws what lower()
/// throws.
CompilableProgram lower_for_tables(const FieldViewProgram& program,
                                   const std::map<std::string, std::int64_t>& max_neighbors,
                                   bool optimized = true);

}  // namespace weir::runtime
