// The definition a FILE.py::NAME reference names: a @program, @field_operator or
// @scan_operator of the file, or a plain function of it (an orchestration function calling
// @programs). One lookup, one message for a name the file does not define, in every command.
#pragma once

#include <string>

#include "weir/frontend/module_loader.h"
#include "weir/pycode/error.h"

namespace weir {

/// A name the caller chose (the NAME of FILE.py::NAME) that the input does not define: a
/// mistake in the command line, which the CLI reports with exit code 2 in every command.
class UnknownNameError : public Error {
 public:
  using Error::Error;
};

}  // namespace weir

namespace weir::frontend {

/// What `name` is in a module: a decorated definition or a plain function (exactly one set).
struct NamedDefinition {
  const Definition* definition = nullptr;
  const FunctionDef* plain_function = nullptr;
};

/// `name` in `module` (loaded from `file`). Throws UnknownNameError "FILE: no @program,
/// @field_operator, @scan_operator or orchestration function named 'NAME'; did you mean
/// 'CLOSE'? (defined: ...)" when the module defines neither.
NamedDefinition find_named_definition(const LoadedModule& module, const std::string& name,
                                      const std::string& file);

}  // namespace weir::frontend
