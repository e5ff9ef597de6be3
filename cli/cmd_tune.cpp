// `weir tune FILE [--budget 60s] [--seed N] [--set SYM=VAL ...] [-o SCRIPT] [--log LOG.json]`:
// search transformation choices around auto-optimize-cpu by compiling and timing candidates
// on the real sizes with random inputs, each checked against the untuned program's outputs, and
// write the best as a replayable script with its measured speed-up, and a log of every
// candidate (docs/adr/0056-weir-tune.md).
#include <CLI/CLI.hpp>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "backend_choice.h"
#include "commands.h"
#include "overwrite_guard.h"
#include "run_argument_options.h"
#include "run_arguments.h"
#include "run_inputs.h"
#include "run_sizes.h"
#include "run_target.h"
#include "targets.h"
#include "tune_files.h"
#include "tune_load.h"
#include "tune_search.h"
#include "tune_space.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/output_file.h"
#include "weir/transforms/script.h"
#include "write_sdfg.h"

namespace weir::cli {
namespace {

using runtime::is_field_view_reference;

// "60s", "2m", "1.5m", "90" (seconds), "1h" -> seconds; throws UsageError naming --budget.
double parse_budget(const std::string& text) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  double scale = unit.empty() || unit == "s"    ? 1
                 : unit == "m" || unit == "min" ? 60
                 : unit == "h"                  ? 3600
                                                : -1;
  if (!used || scale < 0 || !std::isfinite(value) || value <= 0)
    throw UsageError("--budget " + text + ": expected a positive duration such as 60s, 5m or 90 (seconds)");
  return value * scale;
}

std::string read_text(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw weir::Error("cannot read " + what + " '" + path + "'");
  protect_input_file(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// "hdiff_program" of examples/cartesian/hdiff.py::hdiff_program, "hdiff" of dir/hdiff.sdfg.
std::string program_stem(const std::string& program) {
  if (auto at = program.rfind("::"); at != std::string::npos) return program.substr(at + 2);
  return std::filesystem::path(program).stem().string();
}

std::string quoted(const std::string& s) {
  return s.find_first_of(" '\"$\\") == std::string::npos ? s : "'" + s + "'";
}

// The baseline program's calls in the search, one list per interleaved series: its own, one per
// measured candidate, the confirmation's (the same program on the same inputs).
std::vector<std::vector<double>> baseline_series(const TuneOutcome& o) {
  std::vector<std::vector<double>> v;
  for (const auto& r : o.results) {
    if (r.status == "baseline" || r.status == "measured") v.push_back(r.baseline_seconds);
  }
  if (!o.confirm_baseline_seconds.empty()) v.push_back(o.confirm_baseline_seconds);
  return v;
}

struct TuneOptions {
  std::string program, budget = "60s", script, log, sdfg_out, backend = "cpu";
  std::uint64_t seed = 0;
  std::size_t max_candidates = 0;
  bool trust_code = false;
  std::vector<std::string> candidates;
  RunOptions arguments;  // -I, --in, --in-dir, --set, --set-json (add_argument_options)
};

int tune_command(const TuneOptions& t) {
  TuneSettings settings;                        // the budget counts from here
  const LoadReading load_before = read_load();  // before lowering: an injected reading is checked first
  settings.budget_s = parse_budget(t.budget);
  settings.max_candidates = t.max_candidates;
  if (t.backend != "cpu")
    throw UsageError("--backend " + t.backend +
                     ": weir tune times programs compiled for the CPU (cpu) only so far");
  if (!is_field_view_reference(t.program) && t.program.find(".py") != std::string::npos)
    require_definition_reference("tune", t.program);
  const std::string script = t.script.empty() ? program_stem(t.program) + ".tuned.json" : t.script;
  std::string log_file = t.log;
  if (log_file.empty()) {
    std::filesystem::path p(script);
    log_file = (p.parent_path() / (p.stem().string() + ".log.json")).string();
  }
  std::vector<std::filesystem::path> inputs{std::filesystem::path(
      is_field_view_reference(t.program) ? t.program.substr(0, t.program.rfind("::")) : t.program)};
  for (const auto& c : t.candidates) inputs.emplace_back(c);
  refuse_overwriting_input("-o " + script, script, inputs);
  refuse_overwriting_input("--log " + log_file, log_file, inputs);
  if (!t.sdfg_out.empty()) refuse_overwriting_input("--sdfg " + t.sdfg_out, t.sdfg_out, inputs);
  if (std::filesystem::absolute(script).lexically_normal() ==
      std::filesystem::absolute(log_file).lexically_normal())
    throw UsageError("-o " + script + " and --log " + log_file + " name the same file; give two files");
  // Scripts given with --candidate: read and checked before anything is compiled.
  std::vector<TuneCandidate> user;
  for (const auto& file : t.candidates) {
    const std::string text = read_text(file, "candidate script");
    (void)transforms::parse_script(text, file);  // located errors now, not after minutes of search
    nlohmann::json j = nlohmann::json::parse(text);
    TuneCandidate c;
    c.label = file;
    c.phase = "user";
    c.steps = j.is_object() ? j["steps"] : j;
    if (j.is_object() && j.contains("weir_tune") && j["weir_tune"].contains("threads") &&
        j["weir_tune"]["threads"].is_number_unsigned())
      c.threads = j["weir_tune"]["threads"].get<unsigned>();
    user.push_back(std::move(c));
  }

  RunOptions ro = t.arguments;
  ro.program = t.program;
  ro.backend = "cpu";
  ro.random_inputs = true;
  ro.seed = t.seed;
  ro.trust_code = t.trust_code;
  ro.lowered_only = true;
  std::unique_ptr<runtime::Backend> backend = choose_backend("cpu", "", false);
  RunTarget target = load_target(ro, *backend);
  GivenArguments given =
      gather_arguments(ro, target.sig, backend->allocator(),
                       target.field_view_sig.params.empty() ? nullptr : &target.field_view_sig);
  CompletedArguments completed = complete_arguments(ro, target, *backend, given);
  runtime::Arguments& args = given.args;
  std::vector<std::string> written;
  for (const auto& p : target.sig.params)
    if (p.kind == runtime::Parameter::Kind::Array && p.written && args.arrays.count(p.name))
      written.push_back(p.name);

  std::vector<TuneCandidate> candidates = tune_candidates(t.seed, std::thread::hardware_concurrency());
  candidates.insert(candidates.begin() + 1, user.begin(), user.end());
  std::cout << "tuning '" << target.sig.program_name << "' (" << t.program << ") for " << settings.budget_s
            << " s: " << candidates.size() << " candidates in an order set by seed " << t.seed << "\n";
  if (!completed.made.empty()) {
    std::cout << "random inputs (seed " << t.seed << "):";
    for (const auto& n : completed.made) std::cout << " " << n << " " << args.arrays.at(n).describe() << ";";
    std::cout << "\n";
  }
  TuneContext ctx;
  ctx.program = t.program;
  ctx.script = script;
  ctx.seed = t.seed;
  ctx.budget_s = settings.budget_s;
  std::map<std::string, std::int64_t> symbols;
  runtime::with_int32_tables(target.connectivities, target.sig, args,
                             [&] { symbols = runtime::bind_arguments(target.sig, args).symbols(); });
  for (const auto& [name, value] : symbols) {  // __u_I_size -> I
    const std::string dim = size_dimension(name);
    ctx.sizes.emplace(dim.empty() ? name : dim, value);
  }

  TuneOutcome outcome = tune_search(target.sdfg, *backend, args, written, candidates, settings, std::cout);
  const LoadReading load_after = read_load();
  ctx.load = load_after.text;
  ctx.load_before = load_before.text;
  const std::vector<std::vector<double>> series = baseline_series(outcome);
  ctx.baseline_spread = within_series_spread(series);
  std::vector<double> pooled;
  for (const auto& s : series) pooled.insert(pooled.end(), s.begin(), s.end());
  ctx.baseline_spread_pooled = relative_spread(pooled);
  // The larger reading: a search of a minute moves the 1-minute average only part of the way.
  ctx.load_warning = load_warning(load_before.one_minute > load_after.one_minute ? load_before : load_after,
                                  std::thread::hardware_concurrency(), series);
  const std::string stem = program_stem(t.program);
  const std::string tuned_sdfg = t.sdfg_out.empty() ? stem + ".tuned.sdfg" : t.sdfg_out;
  if (is_field_view_reference(t.program)) {
    ctx.reproduce = {
        "weir sdfg " + quoted(t.program) + " -o " + stem + ".sdfg",
        "weir optimize " + stem + ".sdfg --script " + quoted(script) + " -o " + quoted(tuned_sdfg)};
  } else {
    ctx.reproduce = {"weir optimize " + quoted(t.program) + " --script " + quoted(script) + " -o " +
                     quoted(tuned_sdfg)};
  }
  const unsigned threads = outcome.results[outcome.best].candidate.threads;
  if (threads)
    ctx.reproduce.push_back("weir run " + quoted(tuned_sdfg) + " --threads " + std::to_string(threads) +
                            " ...");

  // Everything is computed before the first file is written; each is written atomically.
  const std::string script_text = tuned_script(outcome, ctx).dump(2) + "\n";
  const std::string log_text = tune_log(outcome, ctx).dump(2) + "\n";
  std::shared_ptr<SDFG> tuned;
  if (!t.sdfg_out.empty())
    tuned = apply_candidate(*target.sdfg.sdfg, outcome.results[outcome.best].candidate);
  write_file_atomically(script, script_text);
  write_file_atomically(log_file, log_text);
  if (tuned) write_sdfg(*tuned, t.sdfg_out);

  const CandidateResult& best = outcome.results[outcome.best];
  if (!ctx.load_warning.empty()) std::cout << ctx.load_warning << "\n";
  if (!outcome.kept_baseline_because.empty()) std::cout << outcome.kept_baseline_because << "\n";
  if (outcome.best == 0) {
    std::cout << "best: auto-optimize-cpu itself"
              << (outcome.kept_baseline_because.empty() ? " (no candidate was at least 3% faster)" : "")
              << "\n";
  } else {
    std::cout << "best: candidate " << outcome.best << " (" << best.candidate.label << "): " << std::fixed
              << std::setprecision(2) << best.speedup << "x the speed of --auto cpu";
    if (outcome.confirmed_speedup > 0)
      std::cout << ", " << outcome.confirmed_speedup << "x when timed again (at least "
                << std::setprecision(0) << (kMinGain - 1) * 100 << "% faster in " << outcome.confirm_wins
                << " of " << outcome.confirm_rounds << " paired rounds, " << outcome.confirm_wins_needed
                << " needed)";
    std::cout << "\n";
  }
  std::cout << extent_text(outcome) << "\n";
  std::cout << "wrote " << script << " (the best as a script; replay: " << ctx.reproduce[0]
            << (ctx.reproduce.size() > 1 ? "; " + ctx.reproduce[1] : "") << ") and " << log_file
            << " (every candidate)";
  if (tuned)
    std::cout << " and " << t.sdfg_out << " (the tuned SDFG with its history: weir view " << t.sdfg_out
              << ")";
  std::cout << "\n";
  return kExitOk;
}

}  // namespace

Action add_tune_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("tune",
                                 "Search transformation choices around --auto cpu by compiling and timing "
                                 "candidates; write the best as a "
                                 "script");
  auto o = std::make_shared<TuneOptions>();
  cmd->add_option("program", o->program,
                  kDefinitionReferenceHelp + std::string(", or an SDFG file (FILE.sdfg, FILE.sdfgz)"))
      ->required();
  cmd->add_option("--budget", o->budget,
                  "DURATION: wall-clock time of the whole command, compiling and the confirmation of the "
                  "best included (60s, 5m, 90; default 60s)");
  cmd->add_option(
      "--seed", o->seed,
      "Seed of the candidates' order and of the random inputs (default 0): the same seed and budget "
      "visit the same candidates in the same order");
  add_argument_options(*cmd, o->arguments);
  cmd->add_option("-o,--output", o->script,
                  "FILE.json: the best candidate's script (default NAME.tuned.json)");
  cmd->add_option("--log", o->log,
                  "FILE.json: every candidate with its script, times and status (default "
                  "SCRIPT's name with .log.json)");
  cmd->add_option(
      "--sdfg", o->sdfg_out,
      "FILE.sdfg: also write the tuned SDFG with its transformation history (weir view shows it)");
  cmd->add_option("--backend", o->backend, "NAME: the backend to tune for: cpu (the only one so far)");
  cmd->add_option(
      "--max-candidates", o->max_candidates,
      "N: evaluate at most N candidates, the baseline included (0: as many as the budget allows)");
  cmd->add_option("--candidate", o->candidates,
                  "FILE.json: a script of your own to evaluate right after the baseline (repeatable)");
  cmd->add_flag("--trust-code", o->trust_code, kTrustCodeHelp);
  return [o]() { return tune_command(*o); };
}

}  // namespace weir::cli
