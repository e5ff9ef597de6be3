// The identifiers of C++ text, without parsing it: the one scanner of C++ code in weir (a CPP
// tasklet's reads in code_rewrite.cpp, the symbols generated bounds checks read in codegen's
// bounds_checks.cpp; issue 33, point 4).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace weir {

/// The identifiers of C++ `text` outside comments, string and character literals and numbers
/// (`1e5`, `0x1F`, `2.0f` name nothing), each once, in order of first use. Keywords and type
/// names are identifiers too: C++ is not parsed, so this over-approximates the names read.
std::vector<std::string> cpp_identifiers(std::string_view text);

}  // namespace weir
