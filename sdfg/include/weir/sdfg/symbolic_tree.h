// sym::Expr from pycode's syntax tree: the symbolic layer's reading of Python code that has
// already been parsed (a CodeBlock's tree: interstate conditions and assignments, loop
// conditions; a transformation's pycode expression), so that such code is not printed and read
// again (issue 33, point 4; docs/adr/0033). Expr::parse reads text with the same parser.
#pragma once

#include "weir/pycode/ast.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/types.h"

namespace weir::sym {

/// The symbolic expression `tree` means (Expr::parse is pycode's parser and this): integer and
/// bool literals, names (symbols), `+ - * / // % **`, unary `+ - ~ not`, `and or`, comparison
/// chains (`a < b < c` is `a < b and b < c`), calls (`Min(a, b)`, `int_floor(a, b)`: any name,
/// positional arguments), tuples (a call of the empty name) and `symbol(N, dtype=...)` (the
/// symbol N, keywords ignored). An integral float exponent (`i ** 2.0`, as DaCe writes `i**2`)
/// is that integer. Throws SymbolicError, located at the node (the column of its source line,
/// which is the error's text), for everything else: float literals, strings, subscripts,
/// attributes, conditional expressions, bit operators other than `~`, `is`/`in`, keyword
/// arguments outside symbol(...), and for errors of the canonicalizing constructors (division by
/// zero, int64 overflow) at the operator. Nodes nested deeper than 200 are an error; a left-deep
/// chain of `+ -` or of `* / // %` (a sum's terms) counts once, whatever its length.
Expr from_tree(const pycode::Expr& tree);

/// from_tree of the one expression of Python `code` (an interstate condition or assigned value,
/// a loop condition), read from its cached tree (CodeBlock::parsed). Throws pycode::SourceError
/// when the text is not Python, SymbolicError when `code` is not exactly one expression
/// (statements, empty) and as from_tree. Code in another language has no tree: its text goes
/// through Expr::parse, as such code always did.
Expr from_code(const CodeBlock& code);

}  // namespace weir::sym
