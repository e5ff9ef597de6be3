// The helper code every generated translation unit starts with: the standard headers it needs,
// then the text of the prelude headers codegen/prelude/*.h (faults, Python's semantics of
// numbers, allocation, bounds checks), embedded at build time. Everything has internal linkage,
// except the fault state of a program of several translation units (unit_prelude_text).
#include "codegen_internal.h"
#include "prelude_files.h"
#include "weir/codegen/generated_headers.h"

namespace weir::codegen {

std::string generated_headers() { return detail::prelude_headers(false, false); }

}  // namespace weir::codegen

namespace weir::codegen::detail {

std::string prelude_headers(bool complex_numbers, bool user_code) {
  // Only light C and language-support headers: <string>, <stdexcept> and <complex> cost more
  // to parse than most programs' own code (docs/benchmarks.md, "Compiling a small program").
  // glibc declares the SIMD variants of its math functions (libmvec: sin, cos, exp, log, pow,
  // atan2, ... on 2, 4 or 8 doubles, at most 4 ulp from the exact result, as NumPy's own SIMD
  // kernels) only under -ffast-math's __FAST_MATH__. Declared here, loops of them vectorize with
  // -fno-math-errno alone (ADR 0031); WEIR_EXACT_MATH keeps glibc's scalar functions (< 1 ulp).
  std::string h =
      "#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && \\\n"
      "    !defined(__FAST_MATH__) && !defined(WEIR_EXACT_MATH)\n"
      "#define __FAST_MATH__ 1\n#include <math.h>\n#undef __FAST_MATH__\n#endif\n"
      "#include <atomic>\n#include <cmath>\n#include <cstdarg>\n#include <cstdint>\n#include <cstdio>\n"
      "#include <cstdlib>\n#include <cstring>\n#include <exception>\n#include <limits>\n#include <new>\n"
      "#include <type_traits>\n"
      // omp_get_max_threads / omp_get_thread_num: per-thread copies of scatter reductions.
      "#ifdef _OPENMP\n#include <omp.h>\n#endif\n";
  // |z| and complex products as NumPy computes them (codegen/prelude/weir_complex.h).
  if (complex_numbers || user_code) h += prelude::weir_complex_h;
  // User-written C++ (trusted) was written against the full set the prelude once had.
  if (user_code) h += "#include <algorithm>\n#include <stdexcept>\n#include <string>\n";
  // The names DaCe's runtime gives C++ written for it (dace::complex128, ...): weir's own header.
  if (user_code) h += prelude::weir_dace_compat_h;
  return h;
}

const std::string& prelude_text() {
  // The three parts of codegen/prelude/ in their order, as one text (each part's guarded
  // includes of the others are skipped there).
  static const std::string text =
      std::string(prelude::weir_faults_h) + prelude::weir_numbers_h + prelude::weir_support_h;
  return text;
}

std::string unit_prelude_text() {
  // The fault state must be one for the whole program: a fault recorded in a state function of
  // one unit is raised by weir_run in unit 0. Inline variables are merged by the linker.
  return "#define WEIR_PROGRAM_STATE [[gnu::visibility(\"hidden\")]] inline\n" + prelude_text();
}

}  // namespace weir::codegen::detail
