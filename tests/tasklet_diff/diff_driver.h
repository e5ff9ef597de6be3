// The differential test of tasklet expressions (docs/testing.md): CPython's value of each
// generated expression (tests/tasklet_diff/cpython_reference.py, run by /usr/bin/python3 once
// per batch) against weir's cpu backend (one SDFG of many tasklets per batch, one compile) and
// the reference interpreter (tests/transforms/support/interpreter.h, one tasklet at a time).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "expr_generator.h"

namespace weir::tasklet_diff {

struct DriverOptions {
  std::uint64_t seed = 1;
  std::uint64_t first = 0;    ///< number of the first expression
  std::uint64_t count = 400;  ///< expressions in all
  std::uint64_t batch = 200;  ///< expressions per SDFG (one compile)
  std::filesystem::path dir;  ///< scratch directory
  std::string opt;            ///< the cpu backend's -O flag instead of -O3 ("" keeps it)
};

/// A disagreement: the expression, where it was seen and what each side said.
struct Finding {
  std::uint64_t seed = 0, index = 0;
  std::string text, type, stage, detail;
  std::string str() const;
};

struct RunSummary {
  std::uint64_t expressions = 0;
  std::uint64_t compared = 0;              ///< CPython gave a value, cpu computed it
  std::uint64_t float_exact = 0;           ///< float results bit-identical
  std::uint64_t float_close = 0;           ///< within the ulp tolerance, or 0.0 against -0.0
  std::uint64_t refused_by_weir = 0;       ///< weir refused at translation with a located error
  std::uint64_t refused_python_value = 0;  ///< ... where CPython has a value (e.g. 2 ** 70)
  std::uint64_t python_raises = 0;         ///< CPython raises (ZeroDivisionError, math domain, ...)
  std::uint64_t interpreter_refused = 0;   ///< the interpreter refused where CPython has a value
  std::uint64_t batches = 0;
  double seconds = 0.0;
  std::vector<Finding> findings;
};

/// The largest distance in units in the last place accepted between CPython's float and
/// weir's (docs/testing.md: GCC folds math functions of constants with MPFR, correctly rounded,
/// where CPython calls glibc's, which may differ by an ulp).
constexpr std::uint64_t kUlpTolerance = 2;

RunSummary run_tasklet_diff(const DriverOptions& o);

}  // namespace weir::tasklet_diff
