// A deterministic, indented text form of the AST (for golden tests and debugging).
#pragma once

#include <string>

#include "weir/pycode/ast.h"

namespace weir::pycode {

struct DumpOptions {
  bool locations = true;  ///< append " @line:col" to every node
};

/// One node per line, children indented by two spaces and labelled where the role is not
/// obvious, e.g.
///   FunctionDef lap @4:1
///     decorator: Attribute .field_operator @3:2
///       Name gtx @3:2
///     param f (normal) @4:9
///       annotation: Subscript @4:12
/// Output ends with a newline. Never throws.
std::string dump(const Module& module, const DumpOptions& options = {});
std::string dump(const Stmt& stmt, const DumpOptions& options = {});
std::string dump(const Expr& expr, const DumpOptions& options = {});

}  // namespace weir::pycode
