// The bandwidth probe (STREAM's copy and triad, McCalpin): the machine's reference memory
// bandwidth for weir-bench's tables and `weir run --profile`'s "% of probe".
#pragma once

#include <cstdint>

namespace weir::bench::hand {

/// Three arrays of `n` doubles, 64-byte aligned and first-touched in parallel with the probes'
/// OpenMP static schedule (so each thread streams the pages it placed). Make `n` much larger
/// than the last-level cache (weir-bench: 2^25 at full size). Throws std::bad_alloc.
class StreamProbe {
 public:
  explicit StreamProbe(std::int64_t n);
  ~StreamProbe();
  StreamProbe(const StreamProbe&) = delete;
  StreamProbe& operator=(const StreamProbe&) = delete;

  /// Seconds (steady clock) of one copy a = b / one triad a = b + 3 c over the arrays.
  double copy();
  double triad();
  /// Bytes each moves: 16 n (copy: read b, write a) and 24 n (triad: read b and c, write a),
  /// STREAM's counting (no write-allocate traffic).
  double copy_bytes() const { return 16.0 * static_cast<double>(n_); }
  double triad_bytes() const { return 24.0 * static_cast<double>(n_); }
  std::int64_t n() const { return n_; }

 private:
  std::int64_t n_;
  double *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
};

}  // namespace weir::bench::hand
