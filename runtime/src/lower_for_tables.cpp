// Lowering for the connectivity tables given (lower_for_tables.h).
#include "weir/runtime/lower_for_tables.h"

#include "toolchain.h"

namespace weir::runtime {

CompilableProgram lower_for_tables(const FieldViewProgram& program,
                                   const std::map<std::string, std::int64_t>& max_neighbors, bool optimized) {
  return detail::Toolchain::lower(program, DeviceType::CPU, max_neighbors, optimized);
}

}  // namespace weir::runtime
