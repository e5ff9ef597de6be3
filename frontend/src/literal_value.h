// The value of one Python literal, shared by the module-level evaluator and the type checker.
#pragma once

#include <optional>

#include "weir/frontend/module_loader.h"

namespace weir::frontend {

/// The value of an int, float, bool or str literal; nullopt for any other (None, bytes, ...),
/// which each caller rejects with its own message.
std::optional<ConstantValue> literal_value(const Constant& c);

}  // namespace weir::frontend
