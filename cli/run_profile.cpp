// `weir run --profile` (see the header).
#include "run_profile.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <thread>

#include "tune_load.h"
#include "weir/sdfg/cfg_list.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/output_file.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/instrument_timers.h"
#include "weir/transforms/library_expansion.h"
#include "weir/transforms/static_costs.h"

namespace weir::cli {

namespace {

/// Elements of the probe's arrays: 3 x 128 MiB, far beyond any last-level cache.
constexpr std::int64_t kProbeElements = std::int64_t{1} << 24;
/// Rounds of the probe (each on new arrays) and timed triads per round (their median).
constexpr int kProbeRounds = 5;
constexpr int kProbeRepeats = 5;

/// Each round's triad bandwidth from the probe library `lib` (GB/s), or none with `problem`
/// saying why.
std::vector<double> measure_probe(const std::filesystem::path& lib, std::string& problem) {
  if (lib.empty()) {
    problem = "not measured (no probe library)";
    return {};
  }
  void* h = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    problem = "cannot load the bandwidth probe " + lib.string() + ": " + (e ? e : "dlopen failed");
    return {};
  }
  using RoundsFn = int (*)(std::int64_t, int, int, double*);
  auto rounds = reinterpret_cast<RoundsFn>(::dlsym(h, "weir_stream_triad_rounds"));
  std::vector<double> gbps(kProbeRounds, 0.0);
  const int done = rounds ? rounds(kProbeElements, kProbeRepeats, kProbeRounds, gbps.data()) : -1;
  // Not unloaded: its OpenMP threads may outlive the call.
  gbps.resize(static_cast<std::size_t>(std::max(done, 0)));
  if (!gbps.empty() && *std::min_element(gbps.begin(), gbps.end()) > 0) return gbps;
  problem = rounds ? "the bandwidth probe could not allocate its arrays" : lib.string() + " has no probe";
  return {};
}

/// DaCe's sdfg_id of each SDFG: its position among the SDFGs of cfg_list(root).
std::map<const SDFG*, long> sdfg_ids(const SDFG& root) {
  std::map<const SDFG*, long> ids;
  for (ControlFlowRegion* r : cfg_list(root))
    if (auto* s = r->as<SDFG>()) ids.emplace(s, static_cast<long>(ids.size()));
  return ids;
}

/// Map entries around node `n` of `st` (0 at the top level) and around the nested SDFG nodes
/// that `st`'s SDFG is in.
int maps_around(const SDFGState& st, NodeId n) {
  const ScopeTree scopes = st.scope_tree();
  int d = 0;
  for (NodeId p = scopes.parent[n]; p != kNoNode; p = scopes.parent[p])
    if (st.node(p).kind() == NodeKind::MapEntry) ++d;
  const SDFG* s = st.sdfg();
  if (s && s->parent_node() && s->parent_state())
    d += maps_around(*s->parent_state(), s->parent_node()->id());
  return d;
}

/// A timed element's nesting level (ProfiledElement::map_level): a map's 1 + the maps around it;
/// another element's the same inside a map scope, 0 outside any (not reported).
int map_level(const TimedElement& t) {
  int around = 0;
  if (t.kind == TimedKind::State) {
    const SDFG* s = t.state->sdfg();
    if (s && s->parent_node() && s->parent_state())
      around = maps_around(*s->parent_state(), s->parent_node()->id());
  } else {
    around = maps_around(*t.state, t.kind == TimedKind::Copy ? t.state->edge(t.edge).src : t.node);
  }
  return t.kind == TimedKind::Map || around > 0 ? 1 + around : 0;
}

}  // namespace

std::filesystem::path probe_next_to_binary() {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return {};
  exe[n] = '\0';
  return std::filesystem::path(exe).parent_path().parent_path() / "lib" / "libweir_stream_probe.so";
}

std::string profile_headline(const ProfileData& data) {
  const std::size_t calls = data.call_seconds.size();
  std::string line =
      "profile (" + std::to_string(calls) + " call" + (calls == 1 ? "" : "s") + "; bandwidth probe: ";
  if (data.probe_gbps && !data.probe_rounds_gbps.empty()) {
    const ProbeStats p = probe_stats(data);
    char gbps[160];
    std::snprintf(gbps, sizeof gbps, "triad %.1f GB/s, the best of %zu rounds (min %.1f, median %.1f)",
                  *data.probe_gbps, data.probe_rounds_gbps.size(), p.min, p.median);
    line += gbps;
    if (p.unstable) line += "; unstable: the rounds differ by more than 1.5x";
  } else
    line += data.probe_problem;
  if (data.clock == "tsc") {
    char clock[120];
    std::snprintf(clock, sizeof clock, "; timers: TSC at %.3f GHz, calibrated against steady_clock",
                  data.clock_ticks_per_second / 1e9);
    line += clock;
  } else
    line += "; timers: steady_clock";
  return line + "):";
}

std::shared_ptr<const SDFG> with_timers(const SDFG& sdfg, long long depth, bool bounded,
                                        std::size_t* omitted) {
  // The report names each element by its block and node ids, and carries the SDFG as JSON, which
  // numbers blocks and nodes by position: after passes that removed states or nodes (a lowered
  // scan, auto-optimize) the ids in memory have holes, and `weir view --report` found none of
  // the report's elements in the SDFG it carries. The copy is read back from its own JSON, so
  // the ids timed (and compiled) are the ids written.
  std::shared_ptr<SDFG> copy =
      sdfg_from_json_text(sdfg_to_json_text(sdfg), "the profiled SDFG '" + sdfg.name + "'");
  transforms::AnalysisCache cache;
  transforms::InstrumentTimers pass;
  pass.options().set("depth", depth);
  pass.options().set("bounded", bounded);
  const std::size_t timed = pass.run(*copy, cache);
  if (omitted) {
    // What the unbounded pass times besides (on a scratch copy): the note says how many were left out.
    *omitted = 0;
    if (bounded) {
      std::unique_ptr<SDFG> all = sdfg.clone_sdfg();
      transforms::AnalysisCache scratch;
      transforms::InstrumentTimers every;
      every.options().set("depth", depth);
      const std::size_t n = every.run(*all, scratch);
      *omitted = n > timed ? n - timed : 0;
    }
  }
  // The compile expands library nodes (a reduction's np.max, ...) into nested SDFGs, and the
  // program's timers name the expansion's ids: expanded here (and read back from JSON again), the
  // SDFG the report carries is the one compiled, and its ids are the report's.
  if (!transforms::has_expandable_library_nodes(*copy)) return copy;
  transforms::parse_pipeline("library-expansion")->run(*copy);
  return sdfg_from_json_text(sdfg_to_json_text(*copy), "the profiled SDFG '" + sdfg.name + "'");
}

RunProfiler::RunProfiler(const std::filesystem::path& library, std::shared_ptr<const SDFG> sdfg)
    : timers_(library), sdfg_(std::move(sdfg)) {
  data_.program = sdfg_->name;
  for (const auto& info : timers_.elements()) {
    ProfiledElement e;
    e.info = info;
    data_.elements.push_back(std::move(e));
  }
}

void RunProfiler::after_call(double seconds) {
  data_.call_seconds.push_back(seconds);
  const std::vector<runtime::ElementSample> samples = timers_.read();
  for (std::size_t k = 0; k < samples.size(); ++k) data_.elements[k].samples.push_back(samples[k]);
  // The clock and its rate are the report's as of the last read: asked in complete(), not after
  // every call (a JSON text parsed per call, ~1 us of a profiled call from Python; ADR 0048,
  // session 37).
}

const ProfileData& RunProfiler::complete(const std::map<std::string, std::int64_t>& symbols,
                                         const std::filesystem::path& probe) {
  const std::map<std::string, long long> values(symbols.begin(), symbols.end());
  const std::map<const SDFG*, long> ids = sdfg_ids(*sdfg_);
  // The program's list and this SDFG's: the same order (timed_elements), checked element by element
  // (a compiled SDFG that differs, e.g. by library expansion, leaves an element's costs unknown).
  for (const TimedElement& t : timed_elements(*sdfg_))
    for (ProfiledElement& e : data_.elements) {
      const long node = t.node == kNoNode ? -1 : static_cast<long>(t.node);
      const long edge = t.kind == TimedKind::Copy ? static_cast<long>(t.edge) : -1;
      if (e.info.kind != to_string(t.kind) || e.info.cfg_id != static_cast<long>(t.cfg_id) ||
          e.info.state_id != static_cast<long>(t.state_id) || e.info.node_id != node ||
          e.info.edge_id != edge)
        continue;
      e.sdfg_id = ids.count(t.sdfg) ? ids.at(t.sdfg) : 0;
      e.path = t.state ? t.state->path() : std::string();
      if (t.kind != TimedKind::State) e.path += (e.path.empty() ? "" : "/") + t.label;
      e.map_level = map_level(t);
      const transforms::StaticCost cost = transforms::static_cost(t);
      const transforms::EvaluatedCost v = transforms::evaluate_per_execution(t, cost, values);
      e.bytes = v.bytes;
      e.flops = v.flops;
      e.bytes_dynamic = cost.dynamic;
      e.flops_partial = cost.flops_partial;
    }
  data_.symbols = values;
  if (calls() > 0) {  // as after the last read (weir_profile_read calibrates it; nothing else does)
    const runtime::TimerClock clock = timers_.clock();
    data_.clock = clock.name;
    data_.clock_ticks_per_second = clock.ticks_per_second;
  }
  // weir tune's sentence (tune_load.h): a parallel map's time then includes waiting at its
  // barrier for a preempted thread, which the per-thread times inside it do not (user33's J6).
  data_.load_warning =
      load_warning(read_load(), std::thread::hardware_concurrency(), {data_.call_seconds}, "the program's",
                   "times below are unreliable, and a parallel map's time includes waiting for preempted "
                   "threads that the per-thread times inside it do not");
  data_.sdfg_json = sdfg_to_json_text(*sdfg_);
  data_.probe_elements = kProbeElements;
  data_.probe_problem.clear();
  data_.probe_repeats = kProbeRepeats;
  data_.probe_rounds_gbps = measure_probe(probe, data_.probe_problem);
  data_.probe_gbps.reset();
  if (!data_.probe_rounds_gbps.empty())
    data_.probe_gbps = *std::max_element(data_.probe_rounds_gbps.begin(), data_.probe_rounds_gbps.end());
  return data_;
}

void RunProfiler::finish(const std::map<std::string, std::int64_t>& symbols, const std::string& file,
                         std::ostream& out) {
  complete(symbols, probe_next_to_binary());
  out << profile_headline(data_) << "\n";
  print_profile_table(data_, out);
  if (file.empty()) return;
  // Atomically, and never over a file the command read (its program's source: user30's F8).
  write_file_atomically(file, profile_report_json(data_).dump(1) + "\n");
  out << "wrote the profile report to " << file << " (DaCe's instrumentation-report format)\n";
}

}  // namespace weir::cli
