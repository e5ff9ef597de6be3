// What `weir run` adds when a run fails because a domain is not covered: the shapes of the
// arrays given, when an output is larger than an input (the usual mistake behind the message).
#pragma once

#include <string>

#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/signature.h"

namespace weir::cli {

/// After a run failed because a domain is not covered (a read outside a field, a result that
/// does not cover its output): "\n  'lap_out' is (4, 3, 6) but 'phi' is (12, 10, 5) over (I, J,
/// K): the output is larger along K" for the first output field larger than an input field
/// along a dimension they share (dimensions from the size symbols `__f_K_size` of field-view
/// programs); "" when there is none.
std::string larger_output_note(const runtime::Signature& sig, const runtime::Arguments& args);

/// The same for a connectivity table with fewer rows than a field has points along the
/// table's first dimension: "\n  connectivity table 'E2V' has 60 rows, but 'de' has 72 along
/// Edge (a row for every Edge)"; "" when there is none.
std::string short_table_note(const std::vector<runtime::ConnectivityParameter>& connectivities,
                             const runtime::Signature& sig, const runtime::Arguments& args);

}  // namespace weir::cli
