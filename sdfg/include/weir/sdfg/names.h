// Names in SDFGs: containers, symbols, connectors, map parameters, labels that codegen uses.
#pragma once

#include <string_view>

namespace weir {

/// True if `name` is an ASCII identifier ([A-Za-z_][A-Za-z0-9_]*) and not a Python keyword
/// (True, False, None, and, if, lambda, ...), the names DaCe accepts for data and symbols.
bool is_identifier(std::string_view name);

}  // namespace weir
