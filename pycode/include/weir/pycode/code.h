// Parsed Python code of an SDFG element (a tasklet, an interstate condition, a loop statement):
// the text and its statements, immutable once made, so that copies of an SDFG share it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "weir/pycode/ast.h"

namespace weir::pycode {

/// Python code as statements (a condition is one expression statement, as in DaCe's CodeBlock).
/// Made by parse() from text or by from_statements() from a rewritten tree; never changed after.
class Code {
 public:
  /// Parses `text` as statements (separated by newlines or ';'). `name` is the file name in
  /// locations ("<tasklet>"). Throws SourceError at the first syntax error.
  static std::shared_ptr<const Code> parse(std::string text, std::string name = "<code>");
  /// Code whose text is the printed form of `body` (see unparse(const StmtList&)).
  static std::shared_ptr<const Code> from_statements(StmtList body);

  /// The source text (as given to parse(), or as printed by from_statements()).
  const std::string& text() const { return text_; }
  const StmtList& body() const { return body_; }
  /// The expression when the code is exactly one expression statement (`i < N`), else null.
  const Expr* expression() const;

  Code(std::string text, StmtList body) : text_(std::move(text)), body_(std::move(body)) {}

 private:
  std::string text_;
  StmtList body_;
};

}  // namespace weir::pycode
