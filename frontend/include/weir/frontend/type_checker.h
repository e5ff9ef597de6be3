// Type deduction and checking of field-view definitions (gt4py's FOAST/PAST type deduction).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "weir/frontend/module_loader.h"
#include "weir/frontend/typed_ir.h"

namespace weir::frontend {

/// Checks definitions and builds their typed IR. Definitions called by others (also from other
/// modules) are checked on first use and cached; recursion is an error. Every error is a
/// FrontendError at the exact location of the offending expression, with gt4py-like messages
/// ("cannot add float64 and float32", "unknown name 'x'", ...).
class TypeChecker {
 public:
  TypeChecker();
  ~TypeChecker();
  TypeChecker(const TypeChecker&) = delete;
  TypeChecker& operator=(const TypeChecker&) = delete;

  /// The typed form of `def` (checked once, then cached). Throws FrontendError.
  const TypedDefinition& check(const Definition& def);
  /// Checks every definition of `module`, in source order. Throws at the first error.
  std::vector<const TypedDefinition*> check_module(const LoadedModule& module);

 private:
  std::map<const Definition*, std::unique_ptr<TypedDefinition>> done_;
  std::vector<const Definition*> in_progress_;
  friend class FunctionChecker;
};

}  // namespace weir::frontend
