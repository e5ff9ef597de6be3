// The text of the prelude headers codegen/prelude/*.h, embedded at build time
// (codegen/CMakeLists.txt, cmake/embed_text.cmake): one array per header, named after it.
#pragma once

namespace weir::codegen::prelude {

/// codegen/prelude/weir_faults.h: errors and run-time faults (part 1 of the common prelude).
extern const char weir_faults_h[];
/// codegen/prelude/weir_numbers.h: Python's and NumPy's semantics of numbers (part 2).
extern const char weir_numbers_h[];
/// codegen/prelude/weir_support.h: powers, thread choice, atomics, allocation, bounds (part 3).
extern const char weir_support_h[];
/// codegen/prelude/weir_complex.h: |z| and complex products as NumPy computes them.
extern const char weir_complex_h[];
/// codegen/prelude/weir_dace_compat.h: DaCe's type names (dace::complex128, ...) for trusted C++.
extern const char weir_dace_compat_h[];
/// codegen/prelude/weir_profile.h: the timers of elements whose `instrument` is Timer.
extern const char weir_profile_h[];
/// codegen/prelude/weir_stream.h: streaming (non-temporal) stores of output rows.
extern const char weir_stream_h[];
/// codegen/prelude/weir_prefetch.h: prefetch of the rows a later iteration gathers.
extern const char weir_prefetch_h[];
/// codegen/prelude/weir_blas_threads.h: one OpenBLAS thread or its own count, measured per call.
extern const char weir_blas_threads_h[];
/// codegen/prelude/weir_cuda_head.h: before the common prelude in a CUDA unit.
extern const char weir_cuda_head_h[];
/// codegen/prelude/weir_cuda_tail.h: after the common prelude in a CUDA unit.
extern const char weir_cuda_tail_h[];

}  // namespace weir::codegen::prelude
