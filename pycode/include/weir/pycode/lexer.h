// The Python 3.12 tokenizer.
#pragma once

#include <cstddef>
#include <vector>

#include "weir/pycode/source.h"
#include "weir/pycode/token.h"

namespace weir::pycode {

/// Indentation levels of the stack, the file's own level 0 included: CPython's MAXINDENT, so 99
/// nested blocks are accepted and a line opening the 100th is "too many levels of indentation"
/// (CPython's IndentationError).
inline constexpr std::size_t kMaxIndentLevels = 100;

/// Splits a whole file into tokens, as Python's tokenizer does: NEWLINE at the end of each
/// logical line, INDENT/DEDENT from an indentation stack (tabs advance to the next multiple of
/// 8 and must be used consistently), no NEWLINE/INDENT inside brackets (implicit line
/// joining) or after a backslash continuation, comments and blank lines dropped. Strings of
/// every form are single tokens; f-strings (including 3.12 nesting of quotes inside
/// replacement fields) are opaque FString tokens. The result ends with NEWLINE (if the last
/// logical line was not empty), the DEDENTs that close open blocks, and EndOfFile.
/// Throws SourceError (located) on: unterminated strings and f-strings, inconsistent
/// dedent, inconsistent tabs/spaces, more than kMaxIndentLevels - 1 nested blocks, invalid characters,
/// invalid number literals, unmatched or never-closed brackets, and a stray character after a
/// line-continuation backslash.
std::vector<Token> tokenize(const SourceFile& file);

}  // namespace weir::pycode
