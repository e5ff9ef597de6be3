// `weir tune`'s search loop (tune_search.h).
#include "tune_search.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "openmp_threads.h"
#include "tune_confirm.h"
#include "tune_measure.h"
#include "tune_winners.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/script.h"

namespace weir::cli {

using namespace weir::runtime;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string ms(double s) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << s * 1e3 << " ms";
  return os.str();
}

// Wall seconds of the confirmation (2 x rounds paired rounds, each a timed call of both programs
// after an untimed one of the same program), with a margin for the restores between calls and
// for writing the files.
double confirm_seconds(int rounds, double best_call_s, double baseline_call_s) {
  return 1.25 * 2.0 * rounds * kCallsPerTimedCall * (best_call_s + baseline_call_s) + 0.05;
}

// Interleaved calls per candidate: about a quarter of a second of the baseline's calls, 3 to 9
// (odd, so the median is one call).
int rounds_for(double call_s) {
  int r = call_s > 0 ? static_cast<int>(0.25 / call_s) : 9;
  r = std::clamp(r, 3, 9);
  return r % 2 ? r : r - 1;
}

using Choices = std::vector<std::pair<std::string, std::string>>;

// Choices whose candidate alone compiled to the baseline's program (the same fingerprint and
// threads: scan blocking in a program without scans, fusion in one of a single map), and the
// choice sets already evaluated. A combination is evaluated without its inert choices: its
// label then names only choices that change something here, and one that is left with a set
// already evaluated is a duplicate without compiling anything. Inertness comes from
// fingerprints, not timings, so the same seed still visits the same candidates.
struct Inert {
  std::set<std::pair<std::string, std::string>> choices;
  std::map<std::set<std::pair<std::string, std::string>>, std::size_t> evaluated;

  // `c` without its inert choices; `dropped` says which were left out.
  TuneCandidate reduce(const TuneCandidate& c, std::string& dropped) const {
    if (c.choices.size() < 2) return c;
    Choices kept;
    for (const auto& ch : c.choices)
      if (choices.count(ch))
        dropped += (dropped.empty() ? "" : " ") + ch.first + "=" + ch.second;
      else
        kept.push_back(ch);
    if (dropped.empty()) return c;
    TuneCandidate r = tune_candidate(kept);
    r.phase = c.phase;
    return r;
  }
};

// Whether applying a script failed because one of its steps matched nowhere (ScriptError's
// "step N (T): applies nowhere (see ...)", transforms/src/script.cpp).
bool applies_nowhere(const std::exception& e) {
  return dynamic_cast<const transforms::ScriptError*>(&e) &&
         std::string(e.what()).find("applies nowhere") != std::string::npos;
}

// The generated candidates (non-empty choices) whose script applies nowhere on `untuned`,
// removed from `candidates` into `pruned`: applying a script costs milliseconds, compiling a
// candidate a second; the seed's order of the others is kept. Other failures stay in the list,
// to be reported as failed where the search reaches them.
void prune(const SDFG& untuned, std::vector<TuneCandidate>& candidates, std::vector<PrunedCandidate>& pruned);

// The index of the first candidate after the singles (the first with two or more choices), or
// the list's end: where the winners of the singles are combined.
std::size_t after_singles(const std::vector<TuneCandidate>& candidates) {
  std::size_t i = 1;
  while (i < candidates.size() && candidates[i].choices.size() < 2) ++i;
  return i;
}

// The singles measured at least kMinGain faster than the baseline, combined (tune_winners.h) and
// inserted at `at`; a later candidate with the same choices is moved up rather than tried twice,
// and combinations that apply nowhere are pruned as the generated ones were. Returns the line
// the search prints.
std::string insert_winners(const SDFG& untuned, const std::vector<CandidateResult>& results,
                           std::vector<TuneCandidate>& candidates, std::size_t at,
                           std::vector<PrunedCandidate>& pruned) {
  std::vector<SingleWin> wins;
  for (const auto& r : results)
    if (r.status == "measured" && r.candidate.choices.size() == 1 && r.speedup >= kMinGain)
      wins.push_back({r.candidate.choices.front(), r.speedup});
  std::vector<TuneCandidate> combined = winner_combinations(wins);
  prune(untuned, combined, pruned);
  if (combined.empty()) return "";
  insert_before(candidates, at, combined);
  std::ostringstream line;
  line << "combining the singles that measured " << std::fixed << std::setprecision(2) << kMinGain
       << "x or more alone (";
  for (std::size_t k = 0; k < wins.size(); ++k)
    line << (k ? ", " : "") << wins[k].choice.first << "=" << wins[k].choice.second << " " << wins[k].speedup
         << "x";
  line << "): " << combined.size() << " candidate" << (combined.size() == 1 ? "" : "s") << " next";
  return line.str();
}

}  // namespace

std::shared_ptr<SDFG> apply_candidate(const SDFG& untuned, const TuneCandidate& candidate) {
  std::shared_ptr<SDFG> s = untuned.clone_sdfg();
  auto steps = transforms::parse_script(candidate.steps.dump(), candidate.label);
  transforms::apply_script(*s, steps, candidate.label);
  validate_or_throw(*s);
  return s;
}

namespace {

unsigned threads_of(const TuneOutcome& out, const TuneCandidate& c) {
  return c.threads ? c.threads : out.default_threads;
}

// The best timed again against the baseline in paired rounds, and judged (tune_confirm.h): 2 x
// rounds pairs, fewer (at least kMinConfirmRounds) where the budget's remainder holds fewer (a
// candidate that overran the costliest before it ate into the time kept for this, and a best not
// timed again must not be written). Kept only if enough pairs show it kMinGain faster and the
// baseline ran as fast as in its quietest series of the search; otherwise out.best becomes 0
// and kept_baseline_because says why.
void confirm_best(TuneOutcome& out, const std::shared_ptr<Program>& baseline,
                  const std::shared_ptr<Program>& best_program, Arguments& args,
                  const InputSnapshot& snapshot, const TuneSettings& settings) {
  const CandidateResult& b = out.results[out.best];
  const double per_round = confirm_seconds(1, median(b.seconds), median(b.baseline_seconds)) / 2.0;
  const double left = settings.budget_s - since(settings.start) - 0.05;
  out.confirm_rounds = 2 * out.rounds;
  if (per_round * out.confirm_rounds > left)
    out.confirm_rounds = std::max(kMinConfirmRounds, static_cast<int>(left / per_round));
  auto [b_s, c_s] = time_interleaved({baseline.get(), threads_of(out, out.results.front().candidate)},
                                     {best_program.get(), threads_of(out, b.candidate)}, args, snapshot,
                                     out.confirm_rounds, kCallsPerTimedCall > 1);
  out.confirm_baseline_seconds = b_s;
  out.confirm_seconds = c_s;
  // The baseline's quietest series: its own and those beside every measured candidate.
  double quietest = 0;
  for (const auto& r : out.results)
    if ((r.status == "baseline" || r.status == "measured") && !r.baseline_seconds.empty())
      quietest = quietest > 0 ? std::min(quietest, median(r.baseline_seconds)) : median(r.baseline_seconds);
  out.quietest_baseline_s = quietest;
  const ConfirmVerdict v = judge_confirmation(b_s, c_s, kMinGain, quietest);
  out.confirmed_speedup = v.median_ratio;
  out.confirm_wins = v.wins;
  out.confirm_wins_needed = v.needed;
  out.confirm_baseline_drift = v.baseline_drift;
  if (v.keep) return;
  std::ostringstream why;
  why << "candidate " << out.best << " (" << b.candidate.label << ", " << std::fixed << std::setprecision(2)
      << b.speedup << "x) timed again: " << v.why << "; kept auto-optimize-cpu";
  out.kept_baseline_because = why.str();
  out.best = 0;
}

void prune(const SDFG& untuned, std::vector<TuneCandidate>& candidates,
           std::vector<PrunedCandidate>& pruned) {
  std::vector<TuneCandidate> kept;
  for (auto& c : candidates) {
    if (!c.choices.empty()) {
      try {
        (void)apply_candidate(untuned, c);
      } catch (const std::exception& e) {
        if (applies_nowhere(e)) {
          pruned.push_back({std::move(c), e.what()});
          continue;
        }
      }
    }
    kept.push_back(std::move(c));
  }
  candidates = std::move(kept);
}

}  // namespace

TuneOutcome tune_search(const CompilableProgram& untuned, const Backend& backend, Arguments& args,
                        const std::vector<std::string>& written,
                        const std::vector<TuneCandidate>& all_candidates, const TuneSettings& settings,
                        std::ostream& log) {
  TuneOutcome out;
  std::vector<TuneCandidate> candidates = all_candidates;
  {
    const auto t_prune = std::chrono::steady_clock::now();
    prune(*untuned.sdfg, candidates, out.pruned);
    out.prune_s = since(t_prune);
  }
  out.total = candidates.size();
  const InputSnapshot snapshot(args, written);
  // The untuned program's outputs: what every candidate must compute.
  const auto t_reference = std::chrono::steady_clock::now();
  std::shared_ptr<Program> reference = prepare(backend, untuned);
  // A candidate compiles a program of about the untuned one's size: what that compile took is
  // the first estimate of a candidate's cost (nabla's untuned program took 14.8 s at load 16,
  // the baseline 2.0 s from the cache, then a tiled candidate 12.5 s: 4.4 s past the budget).
  const double reference_s = since(t_reference);
  out.reference_s = reference_s;
  out.default_threads = static_cast<unsigned>(set_openmp_threads(0));
  snapshot.restore(args);
  reference->run(args);
  Arguments expected;
  for (const auto& n : written)
    if (args.arrays.count(n)) expected.arrays.emplace(n, args.arrays.at(n).clone());
  log << "untuned program compiled and run (" << std::fixed << std::setprecision(1) << since(settings.start)
      << " s of the budget)\n";
  if (!out.pruned.empty()) {
    log << "pruned " << out.pruned.size() << " of " << all_candidates.size()
        << " candidates before compiling (a step of theirs applies nowhere here, " << std::setprecision(2)
        << out.prune_s << " s):";
    std::map<std::string, std::size_t> by_step;  // "step 15 (MapVectorization)" -> count
    for (const auto& p : out.pruned) {
      const std::string& w = p.why;
      const auto colon = w.find("): applies nowhere");
      const auto open = colon == std::string::npos ? std::string::npos : w.rfind("step ", colon);
      ++by_step[open == std::string::npos ? w : w.substr(open, colon + 1 - open)];
    }
    for (const auto& [step, n] : by_step) log << " " << n << " at " << step << ";";
    log << "\n";
  }

  std::shared_ptr<Program> baseline, best_program;
  std::set<std::string> seen;      // fingerprint and threads of every program timed
  double costliest = reference_s;  // the largest cost of a compile so far, for the budget's estimate
  double confirm_est = 0;          // the confirmation's estimated wall time (from the baseline's calls)
  Inert inert;
  // Where the singles end: their winners are combined there, before the drawn combinations.
  const std::size_t winners_at = after_singles(candidates);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i == winners_at && i > 1) {
      if (std::string line = insert_winners(*untuned.sdfg, out.results, candidates, i, out.pruned);
          !line.empty())
        log << line << "\n";
      out.total = candidates.size();
    }
    std::string dropped;
    const TuneCandidate c = inert.reduce(candidates[i], dropped);
    if (settings.max_candidates && i >= settings.max_candidates) {
      out.cut_short = "--max-candidates " + std::to_string(settings.max_candidates);
      break;
    }
    // Another candidate only if one as costly as the costliest so far, and the confirmation of
    // the best after it, still end within the budget (the wall time of the whole command).
    const double now_s = since(settings.start);
    if (i > 0 && now_s + costliest + confirm_est > settings.budget_s) {
      out.cut_short = "the budget";
      out.budget_stop_s = now_s;
      break;
    }
    const auto t0 = std::chrono::steady_clock::now();
    CandidateResult r;
    r.candidate = c;
    r.started_s = now_s;
    const unsigned threads = c.threads ? c.threads : out.default_threads;
    std::shared_ptr<Program> program;
    const std::set<std::pair<std::string, std::string>> choice_set(c.choices.begin(), c.choices.end());
    const auto earlier = dropped.empty() ? inert.evaluated.end() : inert.evaluated.find(choice_set);
    if (!dropped.empty()) r.why = "left out, as they change nothing here: " + dropped;
    try {
      if (earlier != inert.evaluated.end()) {
        r.status = "duplicate";
        r.why = "the same choices as candidate " + std::to_string(earlier->second) + " once " + dropped +
                " (which change nothing here) are left out";
      } else {
        CompilableProgram p;
        p.sdfg = apply_candidate(*untuned.sdfg, c);
        p.options = untuned.options;
        p.origin = untuned.origin;
        CompilationArtifact a = compile(backend, p);
        r.fingerprint = a.fingerprint;
        r.cache_hit = a.cache_hit;
        if (!seen.insert(a.fingerprint + "/" + std::to_string(threads)).second) {
          for (std::size_t k = 0; k < out.results.size(); ++k)
            if (out.results[k].fingerprint == a.fingerprint && !out.results[k].seconds.empty() &&
                (out.results[k].candidate.threads ? out.results[k].candidate.threads : out.default_threads) ==
                    threads)
              r.why = "the same program and threads as candidate " + std::to_string(k);
          r.status = "duplicate";
        } else {
          program = prepare(backend, p);
          snapshot.restore(args);
          set_openmp_threads(threads);
          const auto t_call = std::chrono::steady_clock::now();
          program->run(args);
          const double first_call = since(t_call);
          if (std::string why = compare_outputs(expected, args, written); !why.empty()) {
            r.status = "rejected";
            r.why = "outputs differ from the untuned program's: " + why;
          } else if (i == 0) {
            r.status = "baseline";
            out.rounds = rounds_for(first_call);
            baseline = program;
            auto [a_s, b_s] = time_interleaved({program.get(), threads}, {program.get(), threads}, args,
                                               snapshot, (out.rounds + 1) / 2);
            r.seconds = a_s;
            r.seconds.insert(r.seconds.end(), b_s.begin(), b_s.end());
            r.baseline_seconds = r.seconds;
            r.speedup = 1;
          } else {
            r.status = "measured";
            const unsigned base_threads = out.results.front().candidate.threads
                                              ? out.results.front().candidate.threads
                                              : out.default_threads;
            auto [b_s, c_s] = time_interleaved({baseline.get(), base_threads}, {program.get(), threads}, args,
                                               snapshot, out.rounds, kCallsPerTimedCall > 1);
            r.baseline_seconds = b_s;
            r.seconds = c_s;
            r.speedup = median(b_s) / median(c_s);
          }
        }
      }
    } catch (const std::exception& e) {
      r.status = "failed";
      r.why = e.what();
    }
    r.cost_s = since(t0);
    costliest = std::max(costliest, r.cost_s);
    if (r.status == "baseline")
      out.confirm_estimate_s = confirm_est =
          confirm_seconds(out.rounds, median(r.seconds), median(r.seconds));
    if (i == 0 && r.status != "baseline")
      throw weir::Error("the baseline, auto-optimize-cpu, " +
                        std::string(r.status == "rejected" ? "is rejected: " : "failed: ") + r.why);
    log << "[#" << i << " of " << candidates.size() << ", " << std::fixed << std::setprecision(1)
        << since(settings.start) << " s] " << c.label << ": ";
    if (r.status == "baseline")
      log << ms(median(r.seconds)) << " per call (" << out.rounds << " calls interleaved per candidate)\n";
    else if (r.status == "measured")
      log << std::setprecision(2) << r.speedup << "x (" << ms(median(r.seconds)) << " vs "
          << ms(median(r.baseline_seconds)) << ")\n";
    else
      log << r.status << ": " << r.why.substr(0, 300) << (r.why.size() > 300 ? "..." : "") << "\n";
    log.flush();  // one line per candidate as it ends, also into a pipe
    if (i == 0 || !c.choices.empty()) inert.evaluated.emplace(choice_set, i);
    if (c.choices.size() == 1 && r.status == "duplicate" &&
        r.fingerprint == out.results.front().fingerprint &&
        threads == (out.results.front().candidate.threads ? out.results.front().candidate.threads
                                                          : out.default_threads))
      inert.choices.insert(c.choices.front());
    out.results.push_back(std::move(r));
    if (out.results.back().status == "measured" &&
        out.results.back().speedup > std::max(kMinGain, out.results[out.best].speedup)) {
      out.best = out.results.size() - 1;
      best_program = program;
    }
  }
  // The best timed again, always: a winner picked from noisy ratios looks better than it is
  // (the search kept time for this).
  if (out.best) confirm_best(out, baseline, best_program, args, snapshot, settings);
  out.elapsed_s = since(settings.start);
  return out;
}

}  // namespace weir::cli
