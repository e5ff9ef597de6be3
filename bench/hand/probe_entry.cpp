// The C entry point of the probe library weir_stream_probe (bench/hand/CMakeLists.txt), which
// `weir run --profile` loads to measure the machine's bandwidth in the same run.
#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "stream_probe.h"

namespace {

/// One warm-up triad on newly allocated arrays of `n` doubles, then the median of `repeats`
/// triads as GB/s (0 when no time was measured). Throws std::bad_alloc.
double median_triad_gbps(std::int64_t n, int repeats) {
  weir::bench::hand::StreamProbe probe(n);
  probe.triad();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) t.push_back(probe.triad());
  std::sort(t.begin(), t.end());
  const double median = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
  return median > 0 ? probe.triad_bytes() / median / 1e9 : 0;
}

}  // namespace

/// The median triad bandwidth (GB/s, STREAM's 24 bytes per element) of `repeats` triads over
/// arrays of `n` doubles, after one warm-up triad, on OpenMP's default number of threads; -1
/// when the arrays cannot be allocated or the arguments are not positive.
extern "C" __attribute__((visibility("default"))) double weir_stream_triad_gbps(std::int64_t n, int repeats) {
  if (n <= 0 || repeats <= 0) return -1;
  try {
    const double gbps = median_triad_gbps(n, repeats);
    return gbps > 0 ? gbps : -1;
  } catch (const std::bad_alloc&) {
    return -1;
  }
}

/// `rounds` rounds of the probe, each on newly allocated and first-touched arrays of `n` doubles
/// (a round's pages are placed anew, as a new run's would be): one warm-up triad, then the
/// median of `repeats` triads, as GB/s (STREAM's 24 bytes per element) in `gbps[round]`, on
/// OpenMP's default number of threads. Returns the number of rounds measured (`rounds`), or -1
/// when the arguments are not positive or the first round's arrays cannot be allocated (a later
/// round that cannot allocate ends the series: fewer rounds are returned).
extern "C" __attribute__((visibility("default"))) int weir_stream_triad_rounds(std::int64_t n, int repeats,
                                                                               int rounds, double* gbps) {
  if (n <= 0 || repeats <= 0 || rounds <= 0 || !gbps) return -1;
  int done = 0;
  for (; done < rounds; ++done) {
    try {
      gbps[done] = median_triad_gbps(n, repeats);
    } catch (const std::bad_alloc&) {
      break;
    }
  }
  return done > 0 ? done : -1;
}
