// Printing with some expressions in parentheses whatever their precedence: a rewrite prints the
// values it substituted as `(value)`, so the code shows what was substituted.
#pragma once

#include <set>
#include <string>

#include "weir/pycode/ast.h"

namespace weir::pycode {

/// As unparse(), with every node in `marked` in parentheses.
std::string unparse_marked(const Expr& expr, const std::set<const Expr*>& marked);
std::string unparse_marked(const StmtList& body, const std::set<const Expr*>& marked);

}  // namespace weir::pycode
