// The OpenMP thread count of compiled programs loaded into the weir process (`weir run
// --threads`, `weir tune`'s thread counts).
#pragma once

namespace weir::cli {

/// For a program whose OpenMP runtime is already loaded (OMP_NUM_THREADS is read only when
/// libgomp starts): sets the thread count of later parallel regions of this thread to `n` (0
/// leaves it). Returns the number of threads the program's parallel regions get
/// (omp_get_max_threads), or 0 when no OpenMP runtime is loaded.
int set_openmp_threads(unsigned n);

}  // namespace weir::cli
