// Printing expressions back as Python source.
#pragma once

#include <string>

#include "weir/frontend/ast.h"

namespace weir::frontend {

/// The expression as Python source with the fewest parentheses Python's precedence needs
/// (as Python's ast.unparse): `-a ** b`, `(a + b) * c`, `a if b else c`, `f(x, *y, k=1)`,
/// `a[1:-1, ::2]`. Tuples are always parenthesized except as subscript indices. Numbers are
/// printed as written; strings as Python's repr. Never throws for a well-formed tree.
std::string unparse(const Expr& expr);

/// A string literal as Python's repr() writes it ('...' unless the text has ' but no ").
std::string python_repr(const std::string& value, bool bytes = false);

}  // namespace weir::frontend
