#include "probe_size.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace weir::bench {

namespace {

std::string mib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

/// A sysfs cache size such as "32768K" or "32M" in bytes; 0 when it does not parse.
double parse_cache_size(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  char unit = 0;
  if (!(in >> value)) return 0;
  in >> unit;
  if (unit == 'K' || unit == 'k') return value * 1024;
  if (unit == 'M' || unit == 'm') return value * 1024 * 1024;
  return value;
}

/// The highest-level data or unified cache of cpu0 in sysfs, in bytes; 0 when none is listed.
double sysfs_last_level_cache() {
  int best_level = 0;
  double best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_in(dir + "level"), type_in(dir + "type"), size_in(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_in >> level) || !(type_in >> type) || !(size_in >> size)) continue;
    if (type == "Instruction" || level < best_level) continue;
    best_level = level;
    best = parse_cache_size(size);
  }
  return best;
}

double memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace

ProbeSize probe_size_for(double cache_bytes, double memory_available_bytes) {
  ProbeSize p;
  p.cache_bytes = std::max(cache_bytes, 0.0);
  p.memory_available_bytes = std::max(memory_available_bytes, 0.0);
  const double q = static_cast<double>(kProbeElementsQuantum);
  if (p.cache_bytes > 0) {
    p.elements = static_cast<std::int64_t>(std::ceil(kProbeArraysPerCache * p.cache_bytes / 8 / q)) *
                 kProbeElementsQuantum;
    p.rule = "STREAM's rule: each array at least 4x the last-level cache (" + mib(p.cache_bytes) + ")";
  } else {
    p.elements = kProbeFallbackElements;
    p.rule = "the last-level cache could not be read: " + mib(8.0 * kProbeFallbackElements) + " per array";
  }
  if (p.memory_available_bytes > 0) {
    const auto cap =
        static_cast<std::int64_t>(std::floor(kProbeMemoryShare * p.memory_available_bytes / 24 / q)) *
        kProbeElementsQuantum;
    if (std::max(cap, kProbeElementsQuantum) < p.elements) {
      p.elements = std::max(cap, kProbeElementsQuantum);
      p.capped = true;
      char text[160];
      std::snprintf(text, sizeof text, "; the three arrays capped at a quarter of the %s available",
                    mib(p.memory_available_bytes).c_str());
      p.rule += text;
      if (p.cache_bytes > 0) {
        std::snprintf(text, sizeof text, ": each array %.2fx the cache", 8.0 * p.elements / p.cache_bytes);
        p.rule += text;
      }
    }
  }
  return p;
}

ProbeSize machine_probe_size() {
  double cache = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  cache = static_cast<double>(sysconf(_SC_LEVEL3_CACHE_SIZE));
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (cache <= 0) cache = static_cast<double>(sysconf(_SC_LEVEL2_CACHE_SIZE));
#endif
  if (cache <= 0) cache = sysfs_last_level_cache();
  return probe_size_for(cache, memory_available());
}

ProbeSize fixed_probe_size(std::int64_t elements) {
  ProbeSize p;
  p.elements = elements;
  p.rule = "fixed by the size preset";
  return p;
}

std::int64_t footprint_probe_elements(double min_bytes) {
  return std::max(kFootprintProbeMinElements, static_cast<std::int64_t>(std::ceil(min_bytes / 24)));
}

}  // namespace weir::bench
