// Rewrites of Python code on its syntax tree (as DaCe's ASTFindReplace): renaming names and
// substituting expressions for names. String literals, attribute names (`b` in `a.b`), keyword
// argument names (`k` in `f(k=1)`), names bound by a lambda inside the code and longer names that
// contain a renamed one are never touched; called function names (`min` in `min(a, b)`) neither.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"

namespace weir::pycode {

/// `code` with every name in `names` renamed (reads, writes, subscripted and attribute bases):
/// `x[i] = a.b + i` with {i: j, b: c} gives `x[j] = a.b + j`. Null when no name occurs (the
/// caller keeps its text unchanged).
std::shared_ptr<const Code> rename(const Code& code, const std::map<std::string, std::string>& names);

/// `code` with every read of a name in `values` replaced by a copy of its expression. The tree
/// is the one precedence gives (`x * 2` with {x: a + b} is `(a + b) * 2`, a product); the text
/// prints every substituted value in parentheses, so that it shows what was substituted
/// (`x + m` with {m: 4} prints `x + (4)`). Assigned names are left as they are. Null when no
/// name occurs.
std::shared_ptr<const Code> substitute(const Code& code, const std::map<std::string, const Expr*>& values);

/// The same on one expression (a copy; `expr` itself is not changed; print it with unparse()).
ExprPtr substitute(const Expr& expr, const std::map<std::string, const Expr*>& values);

/// A copy of `expr` with the called functions in `functions` renamed (`Min(a, b)` with
/// {Min: min} gives `min(a, b)`); nothing else changes.
ExprPtr rename_calls(const Expr& expr, const std::map<std::string, std::string>& functions);

}  // namespace weir::pycode
