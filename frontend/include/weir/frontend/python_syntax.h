// The field-view language is written in weir's Python subset: the frontend names the syntax
// tree, source locations and the parser of weir::pycode unqualified, as its own vocabulary.
#pragma once

#include "weir/pycode/ast.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/source.h"

namespace weir::frontend {

using namespace weir::pycode;

/// The located error of every frontend stage (pycode's SourceError: parse, type check, lowering).
using FrontendError = pycode::SourceError;

}  // namespace weir::frontend
