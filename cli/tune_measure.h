// What `weir tune` measures of a candidate (docs/adr/0056-weir-tune.md): whether its outputs
// agree with the untuned program's, and its time per call interleaved with the baseline's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/program.h"

namespace weir::cli {

/// The arrays a program writes, as they were before its first call: every call starts from them.
class InputSnapshot {
 public:
  /// Copies the arrays of `args` named in `written`.
  InputSnapshot(const runtime::Arguments& args, const std::vector<std::string>& written);
  /// Copies them back into `args` (same shapes: the arrays snapshotted).
  void restore(runtime::Arguments& args) const;

 private:
  std::map<std::string, runtime::Field> saved_;
};

/// Relative tolerance of floating-point results of a dtype: 1e-9 for float64 and complex128,
/// 1e-4 for narrower floats; 0 (bit-identical) for integers and booleans.
double tune_tolerance(ScalarType dtype);

/// Why the arrays `names` of `got` differ from those of `expected` (same shapes and dtypes),
/// "" when they agree: integers and booleans exactly; floats within tune_tolerance relative to
/// the larger magnitude of the two values or of the array's largest expected value, NaN equal
/// to NaN. Names the array, how many values differ, the first (C-order index) with both values
/// and the largest difference: "out: 12 of 320 values differ (first at [1, 2, 0]: expected
/// 0.25, got 1.25; largest difference 1)".
std::string compare_outputs(const runtime::Arguments& expected, const runtime::Arguments& got,
                            const std::vector<std::string>& names);

/// A program and the OpenMP threads its calls run on (0: leave the count).
struct TimedProgram {
  runtime::Program* program = nullptr;
  unsigned threads = 0;
};

/// Seconds per call of `a` and of `b`: `rounds` calls of each, alternating a, b, a, b (so load
/// on the machine falls on both alike), each from the inputs in `snapshot`. With `warm`, each
/// timed call follows an untimed call of the same program (from the restored inputs too), so
/// that a timed call finds the caches and pages as its own program leaves them, not as the
/// other one did (docs/adr/0056-weir-tune.md, session 35).
std::pair<std::vector<double>, std::vector<double>> time_interleaved(const TimedProgram& a,
                                                                     const TimedProgram& b,
                                                                     runtime::Arguments& args,
                                                                     const InputSnapshot& snapshot,
                                                                     int rounds, bool warm = false);

/// The median of `v` (the mean of the two middle values for an even count); 0 when empty.
double median(std::vector<double> v);

}  // namespace weir::cli
