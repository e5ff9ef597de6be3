// How large the bandwidth probe's arrays are: STREAM's rule for the machine's reference (each
// array at least four times the last-level cache, with the probe's memory capped), and the
// kernel's own footprint for the probe a kernel's rounds are compared with (ADR 0041, session 36).
#pragma once

#include <cstdint>
#include <string>

namespace weir::bench {

/// STREAM's rule (McCalpin): each of the probe's three arrays at least this many times the
/// last-level cache, so that no array survives in any cache level between two sweeps.
inline constexpr double kProbeArraysPerCache = 4;
/// The three arrays together take at most this share of the memory available when weir-bench
/// starts (other processes share the machine).
inline constexpr double kProbeMemoryShare = 0.25;
/// Doubles per array when the last-level cache cannot be read: 256 MiB, 4x a 64 MiB cache.
inline constexpr std::int64_t kProbeFallbackElements = std::int64_t(1) << 25;
/// Array sizes are whole multiples of this many doubles (8 MiB), and never fewer.
inline constexpr std::int64_t kProbeElementsQuantum = std::int64_t(1) << 20;

/// The machine's reference probe's size and how it was chosen.
struct ProbeSize {
  std::int64_t elements = 0;          ///< doubles per array
  double cache_bytes = 0;             ///< the last-level cache read from the system; 0: unknown
  double memory_available_bytes = 0;  ///< MemAvailable when sized; 0: unknown (no cap)
  bool capped = false;                ///< the memory cap made the arrays smaller than the rule asks
  std::string rule;                   ///< one sentence: which rule gave `elements`
};

/// STREAM's rule on given sizes: kProbeArraysPerCache x `cache_bytes` per array, rounded up to
/// kProbeElementsQuantum doubles (kProbeFallbackElements when `cache_bytes` <= 0), then at most
/// kProbeMemoryShare x `memory_available_bytes` for the three arrays, rounded down (no cap when
/// it is <= 0), and at least kProbeElementsQuantum.
ProbeSize probe_size_for(double cache_bytes, double memory_available_bytes);

/// probe_size_for() on this machine: the last-level cache is sysconf's level 3 (else level 2)
/// data cache size, else /sys/devices/system/cpu/cpu0/cache's highest level; the memory is
/// /proc/meminfo's MemAvailable.
ProbeSize machine_probe_size();

/// A size fixed by the preset (`elements` per array; the tiny size, which CI runs): no rule.
ProbeSize fixed_probe_size(std::int64_t elements);

/// Fewest doubles per array of a kernel's probe: below this a triad times the start of the
/// parallel region more than memory (1024 doubles ran at 6.5 GB/s against 82 for 2^14 at the tiny
/// size, and flagged every tiny kernel "disturbed").
inline constexpr std::int64_t kFootprintProbeMinElements = std::int64_t(1) << 14;

/// Doubles per array of a probe whose triad (24 bytes per element) moves `min_bytes`: the
/// kernel's minimum traffic in the same footprint, so that the kernel and the probe meet the same
/// cache levels. At least kFootprintProbeMinElements.
std::int64_t footprint_probe_elements(double min_bytes);

}  // namespace weir::bench
