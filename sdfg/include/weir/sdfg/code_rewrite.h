// Name analyses and rewrites of the Python code in an SDFG (tasklets, interstate conditions and
// assignments, loop statements) on its cached syntax tree (see CodeBlock, pycode/rewrite.h).
// C++ code is text the IR does not parse: its names are its identifiers (outside comments and
// literals, an over-approximation) and it is never rewritten; other languages have no names.
#pragma once

#include <map>
#include <string>

#include "weir/pycode/names.h"
#include "weir/sdfg/types.h"

namespace weir {

/// Whether a code block holds no code at all: its text is empty or only whitespace (an absent
/// loop statement, an empty condition). The one question asked of the text of any code block;
/// everything else reads the tree (Python) or the identifiers (C++).
bool is_blank(const CodeBlock& code);

/// The names Python code uses (pycode::names_used); for C++ code every identifier as a read;
/// empty for other languages. Throws pycode::SourceError when Python text is not valid Python.
pycode::NameUse code_names(const CodeBlock& code);

/// Renames names in Python code (pycode::rename); true when it changed, and only then is its
/// text re-printed. Throws pycode::SourceError on invalid Python.
bool rename_in_code(CodeBlock& code, const std::map<std::string, std::string>& names);

/// Substitutes Python expressions (text, e.g. "(i + 1)" or "N - 1") for the names Python code
/// reads (pycode::substitute); true when it changed. Throws pycode::SourceError on invalid Python.
bool substitute_in_code(CodeBlock& code, const std::map<std::string, std::string>& values);

}  // namespace weir
