// The tuned script and the search's log (tune_files.h).
#include "tune_files.h"

#include <iomanip>
#include <sstream>

#include "tune_measure.h"

namespace weir::cli {
namespace {

std::string fixed(double x, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << x;
  return os.str();
}

unsigned threads_of(const TuneOutcome& o, const TuneCandidate& c) {
  return c.threads ? c.threads : o.default_threads;
}

// The speed-up the files report for the best: the confirming series when there is one.
double reported_speedup(const TuneOutcome& o) {
  if (o.best == 0) return 1.0;
  return o.confirmed_speedup > 0 ? o.confirmed_speedup : o.results[o.best].speedup;
}

}  // namespace

std::string extent_text(const TuneOutcome& o) {
  std::string s =
      "evaluated " +
      (o.cut_short.empty() ? "all " + std::to_string(o.total)
                           : std::to_string(o.results.size()) + " of " + std::to_string(o.total)) +
      " candidates in " + fixed(o.elapsed_s, 1) + " s";
  if (!o.pruned.empty())
    s += " (" + std::to_string(o.pruned.size()) + " more pruned before compiling: a step applies nowhere)";
  if (o.cut_short == "the budget")
    s +=
        "; the budget cut the search short, so a rerun (faster with the compile cache) may evaluate more and "
        "pick another";
  else if (!o.cut_short.empty())
    s += "; stopped by " + o.cut_short;
  return s;
}

nlohmann::ordered_json tuned_script(const TuneOutcome& o, const TuneContext& ctx) {
  const CandidateResult& best = o.results[o.best];
  const CandidateResult& base = o.results.front();
  const double speedup = reported_speedup(o);
  const bool confirmed = o.best && o.confirmed_speedup > 0;
  const double best_s = o.best ? median(confirmed ? o.confirm_seconds : best.seconds) : median(base.seconds);
  const double base_s =
      o.best ? median(confirmed ? o.confirm_baseline_seconds : best.baseline_seconds) : median(base.seconds);
  std::string sizes;
  for (const auto& [k, v] : ctx.sizes) sizes += (sizes.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  std::string comment = "weir tune: " + fixed(speedup, 2) + "x the speed of --auto cpu (" +
                        fixed(best_s * 1e3, 3) + " ms vs " + fixed(base_s * 1e3, 3) +
                        " ms per call, medians of interleaved calls" + (confirmed ? ", timed again" : "") +
                        ", " + std::to_string(threads_of(o, best.candidate)) + " threads) for " +
                        ctx.program + (sizes.empty() ? "" : " at " + sizes) + "; candidate " +
                        std::to_string(o.best) + " (" + best.candidate.label + "); " + extent_text(o) +
                        " (seed " + std::to_string(ctx.seed) + ", budget " + fixed(ctx.budget_s, 0) + " s)";
  if (!o.kept_baseline_because.empty()) comment += "; " + o.kept_baseline_because;
  if (!ctx.load_warning.empty()) comment += "; " + ctx.load_warning;
  nlohmann::ordered_json choices = nlohmann::ordered_json::object();
  for (const auto& [k, v] : best.candidate.choices) choices[k] = v;
  nlohmann::ordered_json header = {
      {"comment", comment},
      {"program", ctx.program},
      {"speedup_over_auto_cpu", std::stod(fixed(speedup, 3))},
      {"ms_per_call", std::stod(fixed(best_s * 1e3, 4))},
      {"auto_cpu_ms_per_call", std::stod(fixed(base_s * 1e3, 4))},
      {"threads", threads_of(o, best.candidate)},
      {"choices", choices},
      {"candidate", o.best},
      {"evaluated", o.results.size()},
      {"candidates", o.total},
      {"cut_short",
       o.cut_short.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.cut_short)},
      {"seed", ctx.seed},
      {"budget_s", ctx.budget_s},
      {"sizes", ctx.sizes},
      {"load_average", ctx.load},
      {"load_warning",
       ctx.load_warning.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(ctx.load_warning)},
      {"reproduce", ctx.reproduce},
  };
  nlohmann::ordered_json script;
  script["weir_tune"] = header;
  script["steps"] = best.candidate.steps;
  return script;
}

nlohmann::ordered_json tune_log(const TuneOutcome& o, const TuneContext& ctx) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < o.results.size(); ++i) {
    const CandidateResult& r = o.results[i];
    nlohmann::ordered_json choices = nlohmann::ordered_json::object();
    for (const auto& [k, v] : r.candidate.choices) choices[k] = v;
    nlohmann::ordered_json e = {
        {"index", i},
        {"label", r.candidate.label},
        {"phase", r.candidate.phase},
        {"choices", choices},
        {"threads", threads_of(o, r.candidate)},
        {"status", r.status},
        {"why", r.why.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.why)},
        {"speedup", r.seconds.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.speedup)},
        {"median_ms", r.seconds.empty() ? nlohmann::ordered_json(nullptr)
                                        : nlohmann::ordered_json(median(r.seconds) * 1e3)},
        {"baseline_median_ms", r.baseline_seconds.empty()
                                   ? nlohmann::ordered_json(nullptr)
                                   : nlohmann::ordered_json(median(r.baseline_seconds) * 1e3)},
        {"seconds", r.seconds},
        {"baseline_seconds", r.baseline_seconds},
        {"cost_s", r.cost_s},
        {"started_s", r.started_s},
        {"cache_hit", r.cache_hit},
        {"fingerprint", r.fingerprint},
        {"script", nlohmann::ordered_json{{"steps", r.candidate.steps}}}};
    list.push_back(e);
  }
  nlohmann::ordered_json pruned = nlohmann::ordered_json::array();
  for (const auto& p : o.pruned) pruned.push_back({{"label", p.candidate.label}, {"why", p.why}});
  return {
      {"program", ctx.program},
      {"script", ctx.script},
      {"seed", ctx.seed},
      {"budget_s", ctx.budget_s},
      {"elapsed_s", o.elapsed_s},
      {"reference_s", o.reference_s},
      {"confirm_estimate_s", o.confirm_estimate_s},
      {"budget_stop_s",
       o.budget_stop_s > 0 ? nlohmann::ordered_json(o.budget_stop_s) : nlohmann::ordered_json(nullptr)},
      {"candidates", o.total},
      {"evaluated", o.results.size()},
      {"pruned", pruned},
      {"prune_s", o.prune_s},
      {"cut_short",
       o.cut_short.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.cut_short)},
      {"extent", extent_text(o)},
      {"rounds", o.rounds},
      {"default_threads", o.default_threads},
      {"best", o.best},
      {"speedup_over_auto_cpu", reported_speedup(o)},
      {"calls_per_timed_call", kCallsPerTimedCall},
      {"confirm_rounds", o.confirm_rounds},
      {"confirmed_speedup", o.confirmed_speedup > 0 ? nlohmann::ordered_json(o.confirmed_speedup)
                                                    : nlohmann::ordered_json(nullptr)},
      {"confirm_wins", o.confirm_rounds > 0 ? nlohmann::ordered_json(o.confirm_wins) : nullptr},
      {"confirm_wins_needed", o.confirm_rounds > 0 ? nlohmann::ordered_json(o.confirm_wins_needed) : nullptr},
      {"confirm_baseline_drift",
       o.confirm_baseline_drift > 0 ? nlohmann::ordered_json(o.confirm_baseline_drift) : nullptr},
      {"quietest_baseline_ms",
       o.quietest_baseline_s > 0 ? nlohmann::ordered_json(o.quietest_baseline_s * 1e3) : nullptr},
      {"confirm_seconds", o.confirm_seconds},
      {"confirm_baseline_seconds", o.confirm_baseline_seconds},
      {"kept_baseline_because", o.kept_baseline_because.empty()
                                    ? nlohmann::ordered_json(nullptr)
                                    : nlohmann::ordered_json(o.kept_baseline_because)},
      {"sizes", ctx.sizes},
      {"load_average", ctx.load},
      {"load_average_before", ctx.load_before},
      {"baseline_spread", ctx.baseline_spread},
      {"baseline_spread_pooled", ctx.baseline_spread_pooled},
      {"load_warning",
       ctx.load_warning.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(ctx.load_warning)},
      {"results", list}};
}

}  // namespace weir::cli
