// The OpenMP loop schedule of a parallel map: a weir extension recorded on the map
// (MapInfo::extra kOmpScheduleAttribute, a JSON string such as "dynamic,16") by cpu-schedules'
// `omp_schedule` option (docs/adr/0056-weir-tune.md, session 29) and read by the CPU code
// generator, which adds `schedule(kind[, chunk])` to the map's `#pragma omp for`. Without the
// attribute the pragma has no schedule clause (OpenMP's default: static, equal blocks).
#pragma once

#include <optional>
#include <string>

#include "weir/sdfg/nodes.h"

namespace weir {

/// The map attribute holding the schedule ("static", "dynamic,16", "guided,4"). A weir
/// extension DaCe ignores.
inline constexpr const char* kOmpScheduleAttribute = "weir_omp_schedule";

/// An OpenMP schedule kind and chunk size.
struct OmpSchedule {
  /// "static", "dynamic" or "guided".
  std::string kind;
  /// Iterations per chunk; 0: the kind's default (static: one block per thread; dynamic: 1;
  /// guided: proportional to the remaining iterations, at least 1).
  long long chunk = 0;
};

/// Parses "kind" or "kind,chunk" (kind static, dynamic or guided; chunk a decimal integer from 1
/// to 1e9). Throws std::invalid_argument saying what was expected and what was given.
OmpSchedule parse_omp_schedule(const std::string& text);

/// "static", "dynamic,16": the attribute text of `s` (parse_omp_schedule reads it back).
std::string omp_schedule_text(const OmpSchedule& s);

/// The clause for the pragma: "schedule(dynamic, 16)", "schedule(guided)".
std::string omp_schedule_clause(const OmpSchedule& s);

/// The schedule recorded on `m`, nullopt without kOmpScheduleAttribute. Throws
/// std::invalid_argument naming the attribute and its value when the value is not a JSON string
/// that parse_omp_schedule accepts.
std::optional<OmpSchedule> recorded_omp_schedule(const MapInfo& m);

/// Records `s` on `m` (as a JSON string).
void record_omp_schedule(MapInfo& m, const OmpSchedule& s);

}  // namespace weir
