// The OpenMP loop schedule recorded on a parallel map (weir/sdfg/omp_schedule.h).
#include "weir/sdfg/omp_schedule.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace weir {

namespace {

constexpr long long kMaxChunk = 1000000000;

/// The decimal integer `digits` (1 to kMaxChunk), or nullopt.
std::optional<long long> chunk_value(const std::string& digits) {
  if (digits.empty() || digits.size() > 10) return std::nullopt;
  long long v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > kMaxChunk) return std::nullopt;
  return v;
}

}  // namespace

OmpSchedule parse_omp_schedule(const std::string& text) {
  const std::size_t comma = text.find(',');
  OmpSchedule s;
  s.kind = text.substr(0, comma);
  if (s.kind != "static" && s.kind != "dynamic" && s.kind != "guided")
    throw std::invalid_argument("OpenMP schedule '" + text +
                                "': expected static, dynamic or guided, optionally followed by ,CHUNK "
                                "(\"dynamic,16\")");
  if (comma == std::string::npos) return s;
  std::optional<long long> chunk = chunk_value(text.substr(comma + 1));
  if (!chunk)
    throw std::invalid_argument("OpenMP schedule '" + text +
                                "': the chunk after the comma must be an integer from 1 to " +
                                std::to_string(kMaxChunk));
  s.chunk = *chunk;
  return s;
}

std::string omp_schedule_text(const OmpSchedule& s) {
  return s.chunk > 0 ? s.kind + "," + std::to_string(s.chunk) : s.kind;
}

std::string omp_schedule_clause(const OmpSchedule& s) {
  return "schedule(" + s.kind + (s.chunk > 0 ? ", " + std::to_string(s.chunk) : std::string()) + ")";
}

std::optional<OmpSchedule> recorded_omp_schedule(const MapInfo& m) {
  const std::string* text = m.extra.find(kOmpScheduleAttribute);
  if (!text) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_string())
    throw std::invalid_argument(std::string(kOmpScheduleAttribute) + " is " + *text +
                                ", expected a string such as \"dynamic,16\"");
  try {
    return parse_omp_schedule(j.get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(kOmpScheduleAttribute) + ": " + e.what());
  }
}

void record_omp_schedule(MapInfo& m, const OmpSchedule& s) {
  m.extra.set(kOmpScheduleAttribute, nlohmann::json(omp_schedule_text(s)).dump());
}

}  // namespace weir
