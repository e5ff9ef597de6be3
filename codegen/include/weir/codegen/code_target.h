// The target seam of the Python -> C++ translator: what the code of one target (the CPU now,
// CUDA next) spells differently. The translator (python_to_cpp.h) walks pycode's syntax tree
// once for every target and asks the target for these spellings.
#pragma once

#include <string>
#include <string_view>

#include "weir/sdfg/types.h"

namespace weir::codegen {

/// One target of the generated C++. Implementations are stateless singletons.
class CodeTarget {
 public:
  virtual ~CodeTarget() = default;
  /// "cpu", "cuda".
  virtual std::string_view name() const = 0;
  /// The function for a C math function of <cmath> (`sqrt`, `atan2`, `tgamma`, `nearbyint`,
  /// `pow`, `abs`, `floor`, `isnan`, ...): the CPU's `std::sqrt`; a GPU's device function.
  virtual std::string math_function(std::string_view c_name) const = 0;
  /// The write-conflict resolution `target op= value` (op "+", "*", "-", "&", "|", "^") as an
  /// atomic statement (lines separated by '\n', ending in ';'), for writes that threads may race
  /// on; empty when the target has no such atomic for `type` (atomic_update_general is used).
  virtual std::string atomic_update(const std::string& target, const std::string& op,
                                    const std::string& value, ScalarType type) const = 0;
  /// The same for any other resolution: `combine` is a C++ lambda `[](T a, T b) { return ...; }`.
  virtual std::string atomic_update_general(const std::string& target, const std::string& value,
                                            const std::string& combine, ScalarType type) const = 0;
  /// Declaration specifiers of the prelude's helper functions (`inline`; CUDA adds
  /// `__host__ __device__`).
  virtual std::string_view helper_specifiers() const = 0;
};

/// The CPU target: <cmath>'s std:: functions, OpenMP atomics, the prelude's weir_atomic_update.
const CodeTarget& cpu_target();
/// The CUDA target: <cmath>'s std:: functions (nvcc has device overloads of them), atomicAdd
/// for sums of float, double and 32-bit integers, the prelude's weir_atomic_update (a
/// compare-and-swap loop in device code) for the rest; helpers are __host__ __device__.
const CodeTarget& cuda_target();

}  // namespace weir::codegen
