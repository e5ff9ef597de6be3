// The check of connectivity table entries against the fields the entries index (user32 H1):
// gt4py's domain is the out field's, so an `out`, or a field read at the domain's own points,
// over a table's target dimension may be smaller than the field read through the table; the
// entries must stay below the extent of the field they index, not of every argument over that
// dimension (docs/adr/0005, session 33).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weir/runtime/connectivity_check.h"

namespace weir::runtime {

/// Per connectivity table, the array parameters whose values its entries index (the shifted
/// fields, frontend::indexed_fields). A table absent from the map (an orchestration's, a
/// table that also indexes a local or a call's result, an SDFG without the record) is checked
/// against every array argument over its target dimension, as check_connectivities does.
using IndexedFields = std::map<std::string, std::vector<std::string>>;

/// The fields each table of a @program or field operator indexes; empty for an orchestration
/// function (its callees' parameter names are not its own).
IndexedFields indexed_fields_of(const FieldViewProgram& program);

/// The same from the lowering's record (the "indexed" of SDFG attribute weir_connectivities);
/// empty without one. A malformed record is left to recorded_connectivities to report.
IndexedFields recorded_indexed_fields(const SDFG& sdfg);

/// check_connectivities, a table of `indexed` compared with the smallest extent along its
/// target dimension of the arguments it indexes only.
void check_connectivities(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                          const Arguments& args, const IndexedFields& indexed);

/// with_connectivity_checks whose run() checks with `indexed`.
std::shared_ptr<Program> with_connectivity_checks(std::shared_ptr<Program> program,
                                                  std::vector<ConnectivityParameter> connectivities,
                                                  IndexedFields indexed);

}  // namespace weir::runtime
