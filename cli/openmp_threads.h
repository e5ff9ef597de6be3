// The OpenMP thread count of compiled programs loaded into the weir process (`weir run
// --threads`, `weir tune`'s thread counts).
#pragma once

namespace weir::cli {

/// The most OpenMP threads `weir run --threads` accepts. A count past it is far beyond any host
/// weir runs on (each thread gets a stack, the team is started at the first parallel region)
/// and reads as a typo: it is refused ("--threads 100000: expected an integer from 0 to 1024"),
/// not clamped, so that the count printed is the count asked for (README, "Threads").
inline constexpr unsigned kMaxOpenMPThreads = 1024;

/// For a program whose OpenMP runtime is already loaded (OMP_NUM_THREADS is read only when
/// libgomp starts): sets the thread count of later parallel regions of this thread to `n` (0
/// leaves it). Returns the number of threads the program's parallel regions get
/// (omp_get_max_threads), or 0 when no OpenMP runtime is loaded.
int set_openmp_threads(unsigned n);

}  // namespace weir::cli
