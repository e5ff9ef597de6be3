// Text helpers shared by the layers above the SDFG (transforms, codegen, runtime): the one
// `join` of weir.
#pragma once

#include <string>
#include <vector>

namespace weir {

/// The elements of `parts` with `sep` between them ("" for none), as Python's `sep.join(parts)`.
std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ");

}  // namespace weir
