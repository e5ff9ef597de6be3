// The location table of one code generation (internal; ADR 0061): where the generator writes an
// element's source location, it writes table_location()'s text, which is a token of the table
// while generate_cpu_with_location_table or generate_cuda_with_location_table runs on the
// thread, else the location itself.
#pragma once

#include <string>

namespace weir::codegen::detail {

/// The text generated code holds for `location` ("file.py:12:16"): its token in the table of the
/// generation running on this thread (entered on first use, so the same program gets the same
/// tokens), else `location` itself.
std::string table_location(const std::string& location);

}  // namespace weir::codegen::detail
