// The numeric attributes of DaCe's library nodes (alpha, beta, transA, ...) as the expansions
// (transforms/) and the code generator's BLAS lowering (codegen/) read them.
#pragma once

#include <optional>
#include <string>

#include "weir/sdfg/nodes.h"

namespace weir {

/// Attribute `key` of library node `n` as DaCe leaves it out at its default (alpha 1, beta 0,
/// transA False): `dflt` when absent or JSON null; "true"/"false" for a boolean (JSON or
/// Python's spelling, quoted or not); the text of a number (a JSON number or a string of one,
/// quotes removed). nullopt for anything else (a symbol, an expression): the caller reports it.
std::optional<std::string> numeric_library_attribute(const LibraryNode& n, const std::string& key,
                                                     const std::string& dflt);

}  // namespace weir
