// Type deduction and checking of field-view definitions (gt4py's FOAST/PAST type deduction).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "weir/frontend/module_loader.h"
#include "weir/frontend/typed_ir.h"

namespace weir::frontend {

/// The outcome of checking every definition of a module (TypeChecker::check_all).
struct ModuleCheck {
  std::vector<const TypedDefinition*> checked;  ///< those without errors, in source order
  /// Distinct errors in the order found. An error inside a callee is reported once (where the
  /// callee is), not again for each definition that calls it.
  std::vector<FrontendError> errors;
  std::size_t definitions = 0;  ///< definitions checked: module level and nested in functions
  std::size_t nested = 0;       ///< of them, nested in plain functions
  std::size_t failed = 0;       ///< of them, with an error (their own or a callee's)
  bool truncated = false;       ///< stopped after max_errors errors
};

/// The deepest chain of operator calls a definition may start (a program calling an operator
/// that calls another is a chain of 3). Calls are inlined, so the type checker and the lowering
/// recurse once per level; the bound keeps them within the default 8 MiB stack in every build
/// (tests/frontend/test_nesting_stack.cpp). Beyond it TypeChecker::check throws a FrontendError
/// at the call that goes one level too deep.
inline constexpr int kMaxCallDepth = 64;

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
  /// Checks every definition of `module` (module level, then those nested in plain
  /// functions), each on its own, collecting up to `max_errors` errors instead of stopping at
  /// the first.
  ModuleCheck check_all(const LoadedModule& module, std::size_t max_errors = 20);
  /// The definitions being checked now, outermost first (a definition's callees are checked
  /// while it is): the chain of calls that led to the one being checked.
  const std::vector<const Definition*>& in_progress() const { return in_progress_; }

 private:
  std::map<const Definition*, std::unique_ptr<TypedDefinition>> done_;
  std::map<const Definition*, FrontendError> failed_;  ///< checked with an error (rethrown)
  std::vector<const Definition*> in_progress_;
};

}  // namespace weir::frontend
