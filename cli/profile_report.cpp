// The report of `weir run --profile` (see the header).
#include "profile_report.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace weir::cli {

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

/// The table's GFLOP/s: "n/a" where the count is 0 and only a lower bound (nothing known),
/// ">=" before a lower bound, "-" where no count or time is known (user31's G11).
std::string gflops_cell(const ProfiledElement& e, const ElementSummary& s) {
  if (!s.gflops) return e.flops_partial && e.flops ? "n/a" : "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%.2f", e.flops_partial ? ">=" : "", *s.gflops);
  return buf;
}

}  // namespace

ElementSummary summarize(const ProfiledElement& e, const ProfileData& d) {
  ElementSummary s;
  std::vector<double> times;
  for (const auto& c : e.samples)
    if (c.executions > 0) {
      times.push_back(static_cast<double>(c.ns) * 1e-9);
      s.executions_per_call = std::max<long long>(s.executions_per_call, c.executions);
    }
  s.calls = static_cast<long long>(times.size());
  if (times.empty()) return s;
  s.min_s = *std::min_element(times.begin(), times.end());
  s.median_s = median_of(times);
  const double call = median_of(d.call_seconds);
  s.share = call > 0 ? s.median_s / call : 0;
  const auto per_call = static_cast<double>(s.executions_per_call);
  if (e.bytes && s.median_s > 0) s.gbps = *e.bytes * per_call / s.median_s / 1e9;
  // A count of 0 that is only a lower bound (a library node, a while loop) is unknown, not 0.
  const bool flops_unknown = e.flops_partial && e.flops && *e.flops == 0;
  if (e.flops && !flops_unknown && s.median_s > 0) s.gflops = *e.flops * per_call / s.median_s / 1e9;
  if (s.gbps && d.probe_gbps && *d.probe_gbps > 0) s.probe_share = *s.gbps / *d.probe_gbps;
  return s;
}

ProbeStats probe_stats(const ProfileData& d) {
  ProbeStats p;
  if (d.probe_rounds_gbps.empty()) return p;
  const auto [lo, hi] = std::minmax_element(d.probe_rounds_gbps.begin(), d.probe_rounds_gbps.end());
  p.min = *lo;
  p.max = *hi;
  p.median = median_of(d.probe_rounds_gbps);
  p.unstable = p.max > kProbeUnstableRatio * p.min;
  return p;
}

nlohmann::json profile_report_json(const ProfileData& d) {
  nlohmann::json events = nlohmann::json::array();
  std::int64_t origin = 0;
  for (const auto& e : d.elements)
    for (const auto& c : e.samples)
      if (c.executions > 0 && (origin == 0 || c.start_ns < origin)) origin = c.start_ns;
  nlohmann::json elements = nlohmann::json::array();
  for (const auto& e : d.elements) {
    const nlohmann::json ids = {{"sdfg_id", e.sdfg_id},
                                {"cfg_id", e.info.cfg_id},
                                {"state_id", e.info.state_id},
                                {"id", e.info.node_id},
                                {"edge", e.info.edge_id}};
    for (const auto& c : e.samples) {
      if (c.executions == 0) continue;
      events.push_back({{"name", e.info.label},
                        {"cat", e.info.kind},
                        {"ph", "X"},
                        {"ts", static_cast<double>(c.start_ns - origin) / 1e3},
                        {"dur", static_cast<double>(c.ns) / 1e3},
                        {"pid", 0},
                        {"tid", 0},
                        {"args", ids}});
    }
    const ElementSummary s = summarize(e, d);
    nlohmann::json j = ids;
    j["name"] = e.info.label;
    j["kind"] = e.info.kind;
    if (!e.path.empty()) j["path"] = e.path;
    if (e.map_level > 0) j["map_level"] = e.map_level;
    j["calls"] = s.calls;
    j["executions_per_call"] = s.executions_per_call;
    j["min_ms"] = s.min_s * 1e3;
    j["median_ms"] = s.median_s * 1e3;
    j["share_of_call"] = s.share;
    j["bytes"] = optional_number(e.bytes);
    j["bytes_dynamic"] = e.bytes_dynamic;
    j["flops"] = optional_number(e.flops);
    j["flops_partial"] = e.flops_partial;
    j["GBps"] = optional_number(s.gbps);
    j["GFLOPps"] = optional_number(s.gflops);
    j["probe_share"] = optional_number(s.probe_share);
    elements.push_back(j);
  }
  std::vector<double> call_ms;
  for (double t : d.call_seconds) call_ms.push_back(t * 1e3);
  nlohmann::json probe = {
      {"kernel", "triad"}, {"elements", d.probe_elements}, {"GBps", optional_number(d.probe_gbps)}};
  if (!d.probe_rounds_gbps.empty()) {
    const ProbeStats p = probe_stats(d);
    probe["rounds_GBps"] = d.probe_rounds_gbps;
    probe["repeats_per_round"] = d.probe_repeats;
    probe["min_GBps"] = p.min;
    probe["median_GBps"] = p.median;
    probe["max_GBps"] = p.max;
    probe["used"] = "max";
    probe["unstable"] = p.unstable;
  }
  if (!d.probe_problem.empty()) probe["problem"] = d.probe_problem;
  return {
      {"traceEvents", events},
      {"displayTimeUnit", "ms"},
      {"weir_profile",
       {{"program", d.program},
        {"calls", d.call_seconds.size()},
        {"call_ms", call_ms},
        {"median_call_ms", median_of(d.call_seconds) * 1e3},
        {"probe", probe},
        {"timers_omitted", d.timers_omitted},
        {"load_warning", d.load_warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.load_warning)},
        {"clock", {{"name", d.clock}, {"ticks_per_second", d.clock_ticks_per_second}}},
        {"elements", elements},
        {"symbols", d.symbols},
        {"sdfg", d.sdfg_json.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(d.sdfg_json)}}}};
}

std::string table_name(const ProfiledElement& e, const ProfileData& d) {
  if (e.path.empty()) return e.info.label;
  for (const auto& o : d.elements)
    if (&o != &e && o.info.kind == e.info.kind && o.info.label == e.info.label && summarize(o, d).calls > 0)
      return e.path;
  return e.info.label;
}

void print_profile_table(const ProfileData& d, std::ostream& out) {
  std::vector<std::pair<const ProfiledElement*, ElementSummary>> rows;
  for (const auto& e : d.elements)
    if (ElementSummary s = summarize(e, d); s.calls > 0) rows.emplace_back(&e, s);  // elements that ran
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.median_s > b.second.median_s; });
  if (rows.size() > 10) rows.resize(10);
  // A path (table_name) is cut from the left: its end tells the copies apart.
  constexpr std::size_t kMaxName = 60;
  std::vector<std::string> names;
  std::size_t width = 4;
  for (const auto& r : rows) {
    std::string name = table_name(*r.first, d);
    if (name.size() > kMaxName) name = "..." + name.substr(name.size() - (kMaxName - 3));
    width = std::max(width, name.size());
    names.push_back(std::move(name));
  }
  auto cell = [](const std::optional<double>& v, double scale, const char* format) {
    if (!v) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, format, *v * scale);
    return std::string(buf);
  };
  char line[256];
  std::snprintf(line, sizeof line, "%-*s  %-11s  %5s  %11s  %6s  %8s  %7s  %8s\n", static_cast<int>(width),
                "name", "kind", "calls", "median ms", "share", "GB/s", "% probe", "GFLOP/s");
  out << line;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& [e, s] = rows[k];
    const std::string& name = names[k];
    // "*": timed per thread inside a map (the busiest thread's time; see the note below).
    const std::string kind = e->info.kind + (e->map_level >= 2 ? "*" : "");
    std::snprintf(line, sizeof line, "%-*s  %-11s  %5lld  %11.4f  %5.1f%%  %8s  %7s  %8s\n",
                  static_cast<int>(width), name.c_str(), kind.c_str(), s.calls, s.median_s * 1e3,
                  s.share * 100, cell(s.gbps, 1, "%.2f").c_str(), cell(s.probe_share, 100, "%.0f%%").c_str(),
                  gflops_cell(*e, s).c_str());
    out << line;
  }
  // Timers inside map scopes (ADR 0048, "one clock read per chunk"): a map, library node or
  // nested SDFG call that is the whole body of the map around it is timed once per thread around
  // those loops, any other element around each of its executions.
  long long nested = 0;
  for (const auto& e : d.elements)
    if (e.map_level >= 2) nested += summarize(e, d).executions_per_call;
  if (nested > 0)
    out << "note: a kind marked * is timed per thread inside a map: the busiest thread's time, without "
           "its map's waits for the other threads, so its share and % probe can exceed its map's "
           "(most under load)\n";
  if (d.timers_omitted > 0)
    out << "note: " << d.timers_omitted
        << " elements inside maps were not timed (copies, states of SDFGs called per point, anything below "
           "a map's whole body: their timers run per point and slowed a scan 3.5x); --profile-depth 0 "
           "times every level, --profile-depth N down to level N\n";
  if (!d.load_warning.empty()) out << "warning: " << d.load_warning << "\n";
  if (nested > 0)
    out << "note: elements inside maps were timed (" << nested
        << " executions per call): once per thread where one is the whole body of the map around it, "
           "else two clock reads per execution, which adds to the call's time (measured in "
           "docs/adr/0048-profiling.md); --profile-depth 1 times the elements outside maps only\n";
}

}  // namespace weir::cli
