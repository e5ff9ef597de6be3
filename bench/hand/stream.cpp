// The bandwidth probe: STREAM-like copy and triad over arrays much larger than the last-level
// cache, with the same OpenMP static schedule as the first-touch fill (so each thread streams
// the pages it placed).
#include <chrono>
#include <cstdlib>
#include <new>

#include "hand_kernels.h"
#include "stream_probe.h"

namespace weir::bench::hand {

using i64 = std::int64_t;

void stream_copy(double* __restrict a, const double* __restrict b, i64 n) {
#pragma omp parallel for simd schedule(static)
  for (i64 i = 0; i < n; ++i) a[i] = b[i];
}

void stream_triad(double* __restrict a, const double* __restrict b, const double* __restrict c, double s,
                  i64 n) {
#pragma omp parallel for simd schedule(static)
  for (i64 i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void stream_fill(double* a, double value, i64 n) {
#pragma omp parallel for simd schedule(static)
  for (i64 i = 0; i < n; ++i) a[i] = value;
}

// --- the probe's arrays (stream_probe.h) ------------------------------------------------------

StreamProbe::StreamProbe(i64 n) : n_(n) {
  const std::size_t bytes = ((static_cast<std::size_t>(n) * sizeof(double) + 63) / 64) * 64;
  a_ = static_cast<double*>(std::aligned_alloc(64, bytes));
  b_ = static_cast<double*>(std::aligned_alloc(64, bytes));
  c_ = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (!a_ || !b_ || !c_) {
    std::free(a_);
    std::free(b_);
    std::free(c_);
    throw std::bad_alloc();
  }
  stream_fill(a_, 1.0, n);
  stream_fill(b_, 2.0, n);
  stream_fill(c_, 0.5, n);
}

StreamProbe::~StreamProbe() {
  std::free(a_);
  std::free(b_);
  std::free(c_);
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

double StreamProbe::copy() {
  const auto t = std::chrono::steady_clock::now();
  stream_copy(a_, b_, n_);
  return seconds_since(t);
}

double StreamProbe::triad() {
  const auto t = std::chrono::steady_clock::now();
  stream_triad(a_, b_, c_, 3.0, n_);
  return seconds_since(t);
}

}  // namespace weir::bench::hand
