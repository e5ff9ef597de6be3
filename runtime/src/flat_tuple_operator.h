// A @field_operator run directly whose parameters include tuples or named collections: run as a
// field operator of the same name whose parameters are their leaves, as a @program's are.
#pragma once

#include <memory>

#include "weir/frontend/typed_ir.h"

namespace weir::runtime {

/// `op` itself when it is not a field operator or no parameter of it is a tuple or named
/// collection. Otherwise a field operator of the same name, location and result whose
/// parameters are the leaves of `op`'s, in order, named as a @program's flattened tuple
/// parameters (`x_0`, `x_1_0`, ...; frontend::flat_parameter_names), and whose body returns
/// `op` called with each tuple rebuilt from its leaves. Every backend runs and lowers it as any
/// field operator calling another; the result shares ownership of `op`.
std::shared_ptr<const frontend::TypedDefinition> with_flat_tuple_parameters(
    const std::shared_ptr<const frontend::TypedDefinition>& op);

}  // namespace weir::runtime
