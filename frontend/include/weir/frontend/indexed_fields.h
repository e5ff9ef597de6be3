// Which of a field-view program's parameters each connectivity table indexes (the fields
// shifted through it), so that the check of the table's entries compares with the extents of
// the fields the entries index, not with every argument over the same dimension.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weir/frontend/typed_ir.h"

namespace weir::frontend {

/// Per connectivity table that `def` (a @program, or a field operator run directly) reads
/// through, the parameters of `def` whose values the table's entries index: `v` in
/// `v(E2V[0])` or `neighbor_sum(v(E2V), ...)`, also inside field operators it calls (their
/// parameters bound to the call's arguments). nullopt for a table that also indexes something
/// that is no parameter of `def`: a local variable, a call's result, the result of an earlier
/// neighbour shift (`v(E2V[0])(V2E[1])` indexes an edge field through V2E).
std::map<std::string, std::optional<std::vector<std::string>>> indexed_fields(const TypedDefinition& def);

}  // namespace weir::frontend
