// The source files an SDFG names: where its elements came from (DaCe's DebugInfo).
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace weir {

/// Every file name a DebugInfo in the SDFG JSON `json_text` names (the `filename` of any
/// `debuginfo` object, at any depth: nodes, memlets, states, nested SDFGs) and every name in a
/// root `source_files` list (DaCe 2 writes one). Names as written: relative ones are relative to
/// the directory the program was lowered in, or to the SDFG file's. Empty for text that is not
/// JSON. Never throws.
std::set<std::string> source_files_named(std::string_view json_text);

/// source_files_named() of the SDFG file `sdfg_file`'s text, each remembered with
/// protect_input_file() (weir/sdfg/input_file.h) as written and beside `sdfg_file`, so that no
/// output of the command replaces the user's sources. Does nothing without a ProtectedInputs scope.
void protect_source_files(std::string_view json_text, const std::string& sdfg_file);

}  // namespace weir
