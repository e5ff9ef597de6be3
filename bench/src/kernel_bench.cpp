#include "kernel_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "../hand/hand_kernels.h"
#include "../hand/stream_probe.h"
#include "measure.h"
#include "probe_size.h"
#include "timing_flags.h"
#include "weir/runtime/loader.h"
#include "weir_steps.h"

namespace weir::bench {

namespace {

using nlohmann::json;
using runtime::Arguments;

constexpr double kTolerance = kOutputTolerance;

std::string first_lines(const std::string& text, int n = 3) {
  std::size_t pos = 0;
  for (int i = 0; i < n && pos != std::string::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  std::string s = pos == std::string::npos ? text : text.substr(0, pos);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

using hand::StreamProbe;

json stats_json(const std::vector<double>& times) {
  Stats s = stats_of(times);
  return {{"times_s", times}, {"median_s", s.median}, {"min_s", s.min}, {"max_s", s.max}, {"n", s.n}};
}

/// The probe's copy and triad timings as JSON: per kind the times, their statistics, the bytes
/// and the GB/s of the median; "gbs" the better of the two, "elements" per array.
json probe_json(const StreamProbe& probe, const std::vector<double>& c, const std::vector<double>& t) {
  json j = {{"copy", stats_json(c)}, {"triad", stats_json(t)}};
  j["copy"]["bytes"] = probe.copy_bytes();
  j["triad"]["bytes"] = probe.triad_bytes();
  j["copy"]["gbs"] = probe.copy_bytes() / stats_of(c).median / 1e9;
  j["triad"]["gbs"] = probe.triad_bytes() / stats_of(t).median / 1e9;
  j["gbs"] = std::max(j["copy"]["gbs"].get<double>(), j["triad"]["gbs"].get<double>());
  j["elements"] = probe.n();
  return j;
}

/// A variant being benchmarked.
struct Running {
  const Variant* v = nullptr;
  const Layout* layout = nullptr;
  std::string status = "ok", reason;
  double prepare_s = 0;
  double error = -1;
  std::shared_ptr<runtime::Program> program;
  runtime::CompiledProgram* compiled = nullptr;
  std::unique_ptr<Arguments> args;
  runtime::BoundArguments bound;
  std::vector<double> times;

  bool runnable() const { return status == "ok" || status == "mismatch"; }
  void fail(const std::string& why) {
    status = "failed";
    reason = why;
    args.reset();
  }
  /// Fresh inputs with the optional arguments this program does not take removed.
  Arguments make_args() const {
    Arguments a = layout->make();
    if (compiled)
      for (const auto& name : layout->optional)
        if (!compiled->signature().find(name)) {
          a.arrays.erase(name);
          a.values.erase(name);
        }
    return a;
  }
  void call_on(Arguments& a) {
    if (program)
      program->run(a);
    else
      v->hand(a);
  }
  double timed_call() {
    double t = now_seconds();
    if (compiled)
      compiled->run_bound(bound);
    else
      v->hand(*args);
    return now_seconds() - t;
  }
};

void prepare(Running& r) {
  const Variant& v = *r.v;
  if (!v.skip.empty()) {
    r.status = "skipped";
    r.reason = v.skip;
    return;
  }
  if (!v.make_sdfg) return;
  double t0 = now_seconds();
  std::shared_ptr<SDFG> sdfg;
  try {
    sdfg = v.make_sdfg();
  } catch (const std::exception& e) {
    r.status = is_not_supported_yet(e) ? "skipped" : "failed";
    r.reason = e.what();
    return;
  }
  try {
    r.program = compile_cpu(sdfg, v.detail, !v.plain_stores, !v.no_prefetch, !v.compiler_lanes);
    r.compiled = dynamic_cast<runtime::CompiledProgram*>(r.program.get());
  } catch (const std::exception& e) {
    r.fail(e.what());
    return;
  }
  r.prepare_s = now_seconds() - t0;
}

void verify(Running& r) {
  try {
    Arguments got = r.make_args();
    r.call_on(got);
    Arguments ref = r.layout->make();
    r.layout->reference(ref);
    r.error = max_rel_error(got, ref, r.layout->outputs);
    if (!(r.error <= kTolerance)) {
      r.status = "mismatch";
      r.reason = "outputs differ from the hand-written kernel's by " + std::to_string(r.error) +
                 " (relative to the largest value)";
    }
    r.args = std::make_unique<Arguments>(r.make_args());
    if (r.compiled) r.bound = runtime::bind_arguments(r.compiled->signature(), *r.args);
  } catch (const std::exception& e) {
    r.fail(e.what());
  }
}

/// One row of the table; a row whose timing is not a result (`flag`, timing_flags.h) prints n/a
/// for its probe share and ratio, and the flag on the next line.
void print_row(const char* kernel, const std::string& variant, const std::string& status, const Stats& s,
               double gbs, double frac, double ratio, double err, const std::string& flag) {
  if (s.n == 0) {
    std::printf("  %-16s %-28s %-8s\n", kernel, variant.c_str(), status.c_str());
    return;
  }
  char errs[32] = "-";
  if (err >= 0) std::snprintf(errs, sizeof errs, "%.1e", err);
  if (!flag.empty()) {
    std::printf("  %-16s %-28s %-8s %9.3f %9.3f %9.3f %7.2f %7s %7s  %s\n      timing: %s\n", kernel,
                variant.c_str(), status.c_str(), s.median * 1e3, s.min * 1e3, s.max * 1e3, gbs, "n/a", "n/a",
                errs, flag.c_str());
    return;
  }
  std::printf("  %-16s %-28s %-8s %9.3f %9.3f %9.3f %7.2f %6.0f%% %7.2f  %s\n", kernel, variant.c_str(),
              status.c_str(), s.median * 1e3, s.min * 1e3, s.max * 1e3, gbs, frac * 100, ratio, errs);
}

}  // namespace

json run_kernel_benchmarks(const Sizes& sizes, const Paths& paths, const std::vector<std::string>& only,
                           bool& failed, std::vector<std::string>& not_met) {
  std::vector<KernelCase> cases;
  for (auto* make : {cartesian_cases, corpus_cases, unstructured_cases})
    for (KernelCase& kc : make(sizes, paths))
      if (only.empty() || std::find(only.begin(), only.end(), kc.name) != only.end())
        cases.push_back(std::move(kc));

  // The machine's reference: the probe on its own first (after warm-up), over arrays sized by
  // STREAM's rule (or the preset's fixed size), freed before the kernels run.
  const ProbeSize sizing = sizes.stream_n > 0 ? fixed_probe_size(sizes.stream_n) : machine_probe_size();
  json result;
  {
    StreamProbe probe(sizing.elements);
    std::vector<double> copy_t, triad_t;
    for (int i = 0; i < sizes.warmup; ++i) probe.copy(), probe.triad();
    for (int i = 0; i < std::max(sizes.repeats, 5); ++i)
      copy_t.push_back(probe.copy()), triad_t.push_back(probe.triad());
    result["probe"] = probe_json(probe, copy_t, triad_t);
  }
  result["probe"]["sizing"] = {{"cache_bytes", sizing.cache_bytes},
                               {"memory_available_bytes", sizing.memory_available_bytes},
                               {"capped", sizing.capped},
                               {"rule", sizing.rule}};
  const double alone_probe_gbs = result["probe"]["gbs"].get<double>();
  // Rows faster than this cannot be timed call by call (timing_flags.h).
  const double resolution_s = timer_resolution_s();
  result["timer_resolution_s"] = resolution_s;
  std::printf("bandwidth probe (%lld doubles per array; %s): copy %.2f GB/s, triad %.2f GB/s (medians)\n",
              static_cast<long long>(sizing.elements), sizing.rule.c_str(),
              result["probe"]["copy"]["gbs"].get<double>(), result["probe"]["triad"]["gbs"].get<double>());
  std::printf(
      "each kernel's %% probe: against a probe in its own rounds whose triad moves its minimum bytes\n");
  std::printf("\n  %-16s %-28s %-8s %9s %9s %9s %7s %7s %7s  %s\n", "kernel", "variant", "status",
              "median ms", "min ms", "max ms", "GB/s", "probe", "x hand", "max rel err");

  json kernels = json::array();
  for (const KernelCase& kc : cases) {
    std::vector<Running> rs(kc.variants.size());
    for (std::size_t i = 0; i < rs.size(); ++i) {
      rs[i].v = &kc.variants[i];
      rs[i].layout = &kc.layouts.at(kc.variants[i].layout);
      prepare(rs[i]);
      if (rs[i].runnable()) verify(rs[i]);
    }
    // Warm-up, then interleaved rounds: every variant once, then the probe, per round. Each
    // round starts at the next variant: a call pays for writing back the lines the call before
    // it left dirty in the cache (the probe's written array, a kernel's outputs stored without
    // streaming), which made the variant after the probe up to 15% slower in every round
    // (nabla: the same program as `weir` and `weir(no prefetch)`, 6.1 and 5.3 ms, docs/adr/0041).
    // The kernel's probe: three arrays whose triad moves the kernel's minimum bytes, so that both
    // meet the same cache levels in the same rounds; warmed up with the variants (a probe first
    // run in the timed rounds read 30-45% slow there, ADR 0041 session 36).
    StreamProbe probe(footprint_probe_elements(kc.min_bytes));
    std::vector<double> kcopy, ktriad;
    for (int w = 0; w < sizes.warmup; ++w) {
      for (Running& r : rs)
        if (r.runnable()) r.timed_call();
      probe.copy(), probe.triad();
    }
    for (int rep = 0; rep < sizes.repeats; ++rep) {
      for (std::size_t j = 0; j < rs.size(); ++j)
        if (Running& r = rs[(j + static_cast<std::size_t>(rep)) % rs.size()]; r.runnable()) {
          try {
            r.times.push_back(r.timed_call());
          } catch (const std::exception& e) {
            r.fail(e.what());
          }
        }
      kcopy.push_back(probe.copy());
      ktriad.push_back(probe.triad());
    }
    json kp = probe_json(probe, kcopy, ktriad);
    kp["footprint_bytes"] = probe.triad_bytes();
    const double probe_gbs = kp["gbs"].get<double>();
    const std::string rounds_flag = rounds_timing_flag(probe_gbs, alone_probe_gbs);
    if (!rounds_flag.empty()) kp["timing_flag"] = rounds_flag;
    double hand_median = 0;
    for (const Running& r : rs)
      if (r.v->name == "hand" && !r.times.empty()) hand_median = stats_of(r.times).median;
    std::string hand_flag;
    json variants = json::array();
    for (Running& r : rs) {
      Stats s = stats_of(r.times);
      json vj = {{"name", r.v->name},  {"detail", r.v->detail}, {"layout", r.v->layout},
                 {"status", r.status}, {"reason", r.reason},    {"prepare_s", r.prepare_s}};
      if (r.error >= 0) vj["max_rel_error"] = r.error;
      double gbs = 0, frac = 0, ratio = 0;
      std::string flag;
      if (s.n) {
        vj.update(stats_json(r.times));
        gbs = kc.min_bytes / s.median / 1e9;
        frac = gbs / probe_gbs;
        vj["gbs"] = gbs;
        vj["fraction_of_probe"] = frac;
        if (hand_median > 0) vj["ratio_to_hand"] = ratio = s.median / hand_median;
        flag = rounds_flag.empty() ? variant_timing_flag(s.median, frac, resolution_s) : rounds_flag;
        if (!flag.empty()) vj["timing_flag"] = flag;
        if (r.v->name == "hand") hand_flag = flag;
      }
      if (r.status == "failed" || r.status == "mismatch") failed = true;
      // Paths in messages relative to the repository root, as the table names files.
      for (std::size_t at; (at = r.reason.find(paths.root + "/")) != std::string::npos;)
        r.reason.erase(at, paths.root.size() + 1);
      vj["reason"] = r.reason;
      print_row(kc.name.c_str(), r.v->name, r.status, s, gbs, frac, ratio, r.error, flag);
      if (!r.runnable() || r.status == "mismatch") std::printf("      %s\n", first_lines(r.reason).c_str());
      variants.push_back(std::move(vj));
    }
    // The reference of the rows above: the probe of these rounds (its better median, GB/s) and the
    // time the kernel's minimum bytes take at that speed (ms), where a row at 100% would be.
    std::printf("  %-16s %-28s %-8s %9.3f %9s %9s %7.2f %7s\n", kc.name.c_str(), "probe(footprint)",
                kp.contains("timing_flag") ? "flagged" : "ref",
                probe_gbs > 0 ? kc.min_bytes / probe_gbs / 1e6 : 0.0, "", "", probe_gbs, "100%");
    json kj = {{"name", kc.name},           {"description", kc.description},   {"size", kc.size},
               {"min_bytes", kc.min_bytes}, {"memory_bound", kc.memory_bound}, {"probe", kp},
               {"variants", variants}};
    // A kernel more than kMaxRatioToHand behind its hand-written version is a regression,
    // said loudly in the table (and in the exit code at full size, bench/README.md).
    for (const char* primary : {"weir", "weir-opt(dace-simplified)"}) {
      auto v =
          std::find_if(variants.begin(), variants.end(), [&](const json& x) { return x["name"] == primary; });
      if (v == variants.end()) continue;
      if (v->contains("ratio_to_hand")) {
        const double ratio = (*v)["ratio_to_hand"].get<double>();
        // Never "met" (nor "NOT MET") on timings that are not results.
        const std::string why =
            target_not_judged(rounds_flag, primary, v->value("timing_flag", std::string()), hand_flag);
        if (!why.empty()) {
          kj["target"] = {{"variant", primary},
                          {"max_ratio_to_hand", kMaxRatioToHand},
                          {"met", nullptr},
                          {"not_judged", why}};
          std::printf("  %-16s %-28s %-8s %s\n", kc.name.c_str(), "target", "n/a",
                      ("not judged: " + why).c_str());
          break;
        }
        const bool met = ratio <= kMaxRatioToHand;
        kj["target"] = {{"variant", primary},
                        {"max_ratio_to_hand", kMaxRatioToHand},
                        {"ratio_to_hand", ratio},
                        {"met", met}};
        std::printf("  %-16s %-28s %-8s %s %.2fx the hand-written kernel (at most %.1fx)\n", kc.name.c_str(),
                    "target", met ? "met" : "NOT MET", primary, ratio, kMaxRatioToHand);
        char text[64];
        std::snprintf(text, sizeof text, " %.2fx hand", ratio);
        if (!met) not_met.push_back(kc.name + ": " + primary + text);
      }
      break;
    }
    kernels.push_back(std::move(kj));
    std::fflush(stdout);
  }
  result["kernels"] = kernels;
  return result;
}

}  // namespace weir::bench
