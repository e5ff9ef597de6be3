// Source locations outside the generated code (ADR 0061): generated with a location table, a
// program's code holds a token where its messages name a `.py` location ("file.py:12:16", from
// the SDFG's DaCe debuginfo), and the locations come as a separate table; whoever reads the
// program's messages (the runtime's loader) puts them back with expand_locations. So the code,
// and the program cache's key, do not depend on where the source file is or on which line a
// statement stands.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "weir/codegen/cpu_codegen.h"
#include "weir/codegen/cuda_codegen.h"

namespace weir::codegen {

/// The token generated code holds in place of entry `index` of its location table:
/// "@weirloc<index>@".
std::string location_token(std::size_t index);

/// `text` with every location token replaced by its entry of `table`; a token whose index is
/// not in the table, and text without tokens, are kept as they are.
std::string expand_locations(std::string_view text, const std::vector<std::string>& table);

/// generate_cpu, with the source locations its code names written as tokens: `locations`
/// receives the table (token k's location at index k, in the order the generator first met
/// them, which the SDFG's structure fixes). The same program at another path, or with its
/// lines moved, gets the same source (and units). Errors (CodegenError) and the notes name the
/// locations themselves; weir_last_error()'s text needs expand_locations(text, locations).
GeneratedCode generate_cpu_with_location_table(const SDFG& sdfg, const CodegenOptions& options,
                                               std::vector<std::string>& locations);

/// generate_cuda with a location table, as generate_cpu_with_location_table (device faults name
/// their site by the same tokens; the host reads them into weir_last_error()).
GeneratedCode generate_cuda_with_location_table(const SDFG& sdfg, const CodegenOptions& options,
                                                std::vector<std::string>& locations);

}  // namespace weir::codegen
