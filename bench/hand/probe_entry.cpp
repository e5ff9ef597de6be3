// The C entry point of the probe library weir_stream_probe (bench/hand/CMakeLists.txt), which
// `weir run --profile` loads to measure the machine's bandwidth in the same run.
#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "stream_probe.h"

/// The median triad bandwidth (GB/s, STREAM's 24 bytes per element) of `repeats` triads over
/// arrays of `n` doubles, after one warm-up triad, on OpenMP's default number of threads; -1
/// when the arrays cannot be allocated or the arguments are not positive.
extern "C" __attribute__((visibility("default"))) double weir_stream_triad_gbps(std::int64_t n, int repeats) {
  if (n <= 0 || repeats <= 0) return -1;
  try {
    weir::bench::hand::StreamProbe probe(n);
    probe.triad();
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) t.push_back(probe.triad());
    std::sort(t.begin(), t.end());
    const double median = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
    return median > 0 ? probe.triad_bytes() / median / 1e9 : -1;
  } catch (const std::bad_alloc&) {
    return -1;
  }
}
