// The recursive-descent parser of the Python subset (modules, tasklet statements, expressions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "weir/pycode/ast.h"
#include "weir/pycode/source.h"

namespace weir::pycode {

/// Deepest nesting the parser accepts: brackets, unary operators, blocks, and operators of one
/// left-deep chain (`a + b + ...`, `x.y.z`, `f()()`) each count one level. Deeper source is a
/// SourceError "expression too deeply nested (more than N levels)" at the construct, so the
/// recursive passes after parsing (type checker, lowering, unparse) stay within the stack.
inline constexpr std::size_t kMaxNestingDepth = 1000;
/// Longest left-deep chain of binary operators (`a + b + ...`) with ParseOptions::long_chains.
inline constexpr std::size_t kMaxChainLength = 10000;

struct ParseOptions {
  /// Decorators that mark a definition weir must understand: when the last component of a
  /// decorator's dotted name (`gtx.field_operator(...)` -> "field_operator") is one of these,
  /// or an alias bound to one by `from ... import field_operator as fo` earlier in the module,
  /// the definition is parsed fully and any syntax error in it is thrown.
  std::vector<std::string> strict_decorators = {"field_operator", "scan_operator", "program"};
  /// A left-deep chain of binary operators (`1*s0 + 2*s1 + ...`) counts one level of nesting, not
  /// one per operator, and may have up to kMaxChainLength operators (a longer one is a
  /// SourceError "chain of operators too long"): for a reader that walks such chains with a loop,
  /// as sym::Expr::parse does for the long sums of SDFG files. Other passes recurse over them.
  bool long_chains = false;
};

/// Parses a module. Kept: imports, assignments (plain, annotated, augmented), function and
/// class definitions (class bodies are handled like the module). Everything else at module
/// or class level (if/for/while/try/with/match/async, expression statements, `type X = ...`,
/// ...) is skipped at the token level: the whole logical line plus its indented block and
/// continuation clauses (elif/else/except/finally) becomes one Unparsed statement. A
/// statement that fails to parse is skipped the same way, except a definition with a strict
/// decorator (see ParseOptions); an undecorated (or not strictly decorated) function whose
/// header parses but whose body does not keeps its signature with body_skipped set.
/// Throws SourceError on lexical errors anywhere in the file (the file is not valid Python)
/// and on syntax errors in strictly decorated definitions, at the exact location.
Module parse_module(const SourceFile& file, const ParseOptions& options = {});

/// Reads `path` and parses it as a module. Throws weir::Error when the file cannot be read.
Module parse_module_file(const std::string& path, const ParseOptions& options = {});

/// Parses the function definition whose `def` keyword is on `line` of `file` (a plain function
/// the module parse may have skipped), accepting `for`/`while` (with `else`), `break` and
/// `continue` as statements, as orchestration functions use them. Every statement must parse.
/// Throws FrontendError on any syntax error and when no `def` starts on that line.
std::unique_ptr<FunctionDef> parse_function_with_loops(const SourceFile& file, std::uint32_t line);

/// Parses one expression (a bare tuple `a, b` is allowed), e.g. tasklet code
/// `math.sqrt(a) if a > 0 else -a`. `name` is the file name used in locations.
/// Throws SourceError on any syntax error or trailing tokens.
ExprPtr parse_expression(std::string_view text, std::string name = "<expression>");
/// parse_expression with `options` (only ParseOptions::long_chains matters to an expression).
ExprPtr parse_expression(std::string_view text, const std::string& name, const ParseOptions& options);

/// Parses statements separated by newlines or ';' (tasklet code such as
/// `__out = (__in1 + __in2)`). Every statement must parse (no skipping): assignments,
/// return, pass, expression statements, if/elif/else, def, class, imports. Consistently
/// indented text is accepted. Throws SourceError on any syntax error.
StmtList parse_statements(std::string_view text, std::string name = "<statements>");

}  // namespace weir::pycode
