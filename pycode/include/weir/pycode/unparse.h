// Printing expressions and statements back as Python source.
#pragma once

#include <string>

#include "weir/pycode/ast.h"

namespace weir::pycode {

/// The expression as Python source with the fewest parentheses Python's precedence needs
/// (as Python's ast.unparse): `-a ** b`, `(a + b) * c`, `a if b else c`, `f(x, *y, k=1)`,
/// `a[1:-1, ::2]`. Tuples are always parenthesized except as subscript indices. Numbers are
/// printed as written; strings as Python's repr. Never throws for a well-formed tree.
std::string unparse(const Expr& expr);

/// Statements as Python source, one per line ('\n'-separated, no final newline), blocks indented
/// by four spaces; expressions as unparse(const Expr&) prints them (comments are not kept).
/// `a = b + 1`, `x += 1`, `if c:\n    y = 1\nelse:\n    y = 2`. Never throws.
std::string unparse(const StmtList& body);

/// A string literal as Python's repr() writes it ('...' unless the text has ' but no ").
std::string python_repr(const std::string& value, bool bytes = false);

}  // namespace weir::pycode
