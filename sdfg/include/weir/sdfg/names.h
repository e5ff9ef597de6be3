// Names in SDFGs: containers, symbols, connectors, map parameters, labels that codegen uses.
// The one identifier check of weir: the validator, the symbolic layer, the IR builder and the
// code generator all use these (a name that passes is_identifier is safe to paste into C++).
#pragma once

#include <string_view>

namespace weir {

/// True if `name` is an ASCII identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_ascii_identifier(std::string_view name);

/// True if `name` is a Python keyword (True, False, None, and, if, lambda, ...).
bool is_python_keyword(std::string_view name);

/// True if `name` is an ASCII identifier and not a Python keyword: the names DaCe accepts for
/// data, symbols, connectors and labels, and that generated C++ can use (after renaming C++
/// keywords).
bool is_identifier(std::string_view name);

}  // namespace weir
