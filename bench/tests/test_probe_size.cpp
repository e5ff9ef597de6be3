// The bandwidth probe's sizes (bench/src/probe_size.cpp), values worked out by hand: STREAM's
// rule on this machine's figures (a 2-vCPU VM whose last-level cache reads 508 MiB, 22 GB
// available), the memory cap, the fallback, and the kernel-footprint probe.
#include <catch2/catch.hpp>
#include <cstdint>

#include "../hand/stream_probe.h"
#include "../src/probe_size.h"

using Catch::Matchers::Contains;
using weir::bench::footprint_probe_elements;
using weir::bench::probe_size_for;

namespace {
constexpr double kCache = 532676608;  // getconf LEVEL3_CACHE_SIZE on the shared VM: 508 MiB
constexpr std::int64_t kMi = std::int64_t(1) << 20;
}  // namespace

TEST_CASE("bench probe size: STREAM's rule, 4x the last-level cache per array", "[probe_size]") {
  // 4 x 532676608 / 8 = 266338304 doubles = 254 Mi exactly; 64 GB available: cap 16e9 / 24 /
  // 2^20 = 635.8 Mi, above it.
  const auto p = probe_size_for(kCache, 64e9);
  CHECK(p.elements == 254 * kMi);
  CHECK_FALSE(p.capped);
  CHECK_THAT(p.rule, Contains("4x the last-level cache (508 MiB)"));
  // A 32 MiB cache, no memory figure: 4 x 32 MiB / 8 = 16 Mi doubles.
  CHECK(probe_size_for(32.0 * kMi, 0).elements == 16 * kMi);
  // 1 MB of cache asks 0.48 Mi doubles: rounded up to one quantum.
  CHECK(probe_size_for(1e6, 0).elements == kMi);
}

TEST_CASE("bench probe size: the three arrays take at most a quarter of the available memory",
          "[probe_size]") {
  // 22 GB available: 0.25 x 22e9 / 24 = 229166666.7 doubles = 218.55 Mi, rounded down to 218 Mi
  // (1744 MiB per array, 3.43x the cache) instead of the rule's 254 Mi.
  const auto p = probe_size_for(kCache, 22e9);
  CHECK(p.elements == 218 * kMi);
  CHECK(p.capped);
  CHECK_THAT(p.rule, Contains("capped at a quarter of the 20981 MiB available: each array 3.43x the cache"));
  // A cap below one quantum keeps one quantum: 1e7 bytes allow 0.1 Mi, the rule asks 1 Mi.
  const auto small = probe_size_for(1e6, 1e7);
  CHECK(small.elements == kMi);
  CHECK_FALSE(small.capped);
}

TEST_CASE("bench probe size: an unreadable cache falls back to 256 MiB per array", "[probe_size]") {
  const auto p = probe_size_for(0, 0);
  CHECK(p.elements == 32 * kMi);
  CHECK_THAT(p.rule, Contains("could not be read: 256 MiB per array"));
  // ... capped too: 1 GB available allows 0.25e9 / 24 / 2^20 = 9.93 -> 9 Mi.
  const auto capped = probe_size_for(-1, 1e9);
  CHECK(capped.elements == 9 * kMi);
  CHECK(capped.capped);
}

TEST_CASE("bench probe size: the kernel's probe moves the kernel's minimum bytes", "[probe_size]") {
  // laplacian at 256 x 256 x 80 (bench/src/cases_cartesian.cpp): 84544000 bytes / 24 =
  // 3522666.67 -> 3522667 doubles per array; hdiff's 127150080 / 24 = 5297920 exactly.
  CHECK(footprint_probe_elements(84544000) == 3522667);
  CHECK(footprint_probe_elements(127150080) == 5297920);
  // A tiny kernel's probe keeps 2^14 doubles per array (laplacian at 12 x 10 x 6 moves 11520
  // bytes: 480 doubles would time the parallel region's start).
  CHECK(footprint_probe_elements(11520) == 16384);
  CHECK(footprint_probe_elements(24.0 * 16385) == 16385);
  // The triad of such a probe moves the kernel's bytes, to within one element.
  weir::bench::hand::StreamProbe probe(footprint_probe_elements(84544000));
  CHECK(probe.triad_bytes() - 84544000 < 24);
  CHECK(probe.triad_bytes() >= 84544000);
}
