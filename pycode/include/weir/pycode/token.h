// Tokens of the Python tokenizer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "weir/pycode/source.h"

namespace weir::pycode {

enum class TokenKind {
  Name,       ///< identifier or keyword (keywords are not distinguished here)
  Number,     ///< integer, float or imaginary literal, text as written
  String,     ///< one string or bytes literal including prefix and quotes
  FString,    ///< one f-string literal, opaque (prefix, quotes and replacement fields)
  Op,         ///< operator or delimiter, e.g. "+", "**=", "->", "...", "(", ":="
  Newline,    ///< end of a logical line (text "\n", or "" at end of file)
  Indent,     ///< indentation increased (text empty)
  Dedent,     ///< indentation decreased by one level (text empty)
  EndOfFile,  ///< end of input (always the last token)
};

/// "name", "number", ... for messages.
std::string_view to_string(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  /// The token's source text. A view into the SourceFile's text: valid while the file lives.
  std::string_view text;
  /// Where the token starts.
  SourceLocation loc;
  /// Byte offsets of the token in the file's text: [begin, end).
  std::size_t begin = 0;
  std::size_t end = 0;

  bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool is_op(std::string_view t) const { return is(TokenKind::Op, t); }
  bool is_name(std::string_view t) const { return is(TokenKind::Name, t); }
  /// How the token is named in messages: "'foo'", "')'", "end of line", "end of file", ...
  std::string describe() const;
};

}  // namespace weir::pycode
