// The standard headers of generated CPU programs, for a precompiled header (runtime).
#pragma once

#include <string>

namespace weir::codegen {

/// The #include lines every generated CPU program starts with (the lean prelude's light C and
/// language-support headers; ADR 0024), one per line. Programs with complex numbers or trusted
/// user C++ include more after them.
std::string generated_headers();

}  // namespace weir::codegen
