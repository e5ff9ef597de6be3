#include "tune_bench.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "measure.h"
#include "tune_timing.h"
#include "weir/runtime/loader.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/script.h"
#include "weir_steps.h"

namespace weir::bench {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using runtime::Arguments;

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string last_lines(const std::string& text, std::size_t n) {
  std::size_t pos = text.size();
  while (pos > 0 && text[pos - 1] == '\n') --pos;
  for (std::size_t i = 0; i < n && pos != std::string::npos && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

/// The program `weir tune` starts from: a field-view program as lowered, or the SDFG file.
std::unique_ptr<SDFG> untuned_sdfg(const std::string& source) {
  if (auto at = source.rfind("::"); at != std::string::npos) {
    FieldViewModule m = load_field_view(source.substr(0, at));
    return lower(m, source.substr(at + 2));
  }
  return load_sdfg(source);
}

std::string number_text(const runtime::Number& n) {
  if (const auto* i = std::get_if<std::int64_t>(&n)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&n)) return *b ? "true" : "false";
  std::ostringstream os;
  os << std::setprecision(17) << std::get<double>(n);
  return os.str();
}

/// Writes the arrays of `a` that `sig` names to DIR/NAME.npy; returns `--set NAME=VALUE` for
/// its scalars and symbols: `weir tune` then runs on the bench's own inputs.
std::string write_inputs(const Arguments& a, const runtime::Signature& sig, const fs::path& dir) {
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(dir)) fs::remove(e.path());
  std::string sets;
  for (const auto& [name, field] : a.arrays)
    if (sig.find(name)) runtime::write_npy(dir / (name + ".npy"), field);
  for (const auto& [name, value] : a.values)
    if (sig.find(name)) sets += " --set " + shell_quote(name + "=" + number_text(value));
  return sets;
}

/// A program of the section: compiled, checked against the hand-written kernel, with the OpenMP
/// threads its calls run on.
struct Timed {
  std::shared_ptr<runtime::Program> program;
  runtime::CompiledProgram* compiled = nullptr;
  int threads = 0;
  double error = -1;
  std::vector<double> times;

  Arguments make_args(const Layout& l) const {
    Arguments a = l.make();
    for (const auto& name : l.optional)
      if (!compiled->signature().find(name)) {
        a.arrays.erase(name);
        a.values.erase(name);
      }
    return a;
  }
  void prepare(std::shared_ptr<SDFG> sdfg, const std::string& origin, const Layout& l) {
    program = compile_cpu(std::move(sdfg), origin);
    compiled = dynamic_cast<runtime::CompiledProgram*>(program.get());
    if (!compiled) throw std::runtime_error(origin + ": not a compiled program");
    Arguments got = make_args(l);
    omp_set_num_threads(threads);
    program->run(got);
    Arguments ref = l.make();
    l.reference(ref);
    error = max_rel_error(got, ref, l.outputs);
    if (!(error <= kOutputTolerance))
      throw std::runtime_error(origin + ": outputs differ from the hand-written kernel's by " +
                               std::to_string(error) + " (relative to the largest value)");
  }
};

/// The arrays of `args` that either program writes: what `weir tune` restores before each call.
std::vector<std::string> written_arrays(const Timed& a, const Timed& b, const Arguments& args) {
  std::vector<std::string> names;
  for (const Timed* t : {&a, &b})
    for (const auto& p : t->compiled->signature().params)
      if (p.kind == runtime::Parameter::Kind::Array && p.written && args.arrays.count(p.name) &&
          std::find(names.begin(), names.end(), p.name) == names.end())
        names.push_back(p.name);
  return names;
}

json stats_json(const std::vector<double>& times) {
  const Stats s = stats_of(times);
  return {{"times_s", times}, {"median_s", s.median}, {"min_s", s.min}, {"max_s", s.max}, {"n", s.n}};
}

/// Every online CPU for the processes this thread starts while it lives, the thread's own mask
/// restored after. weir-bench's OpenMP runtime binds its initial thread to one core
/// (OMP_PROC_BIND=close, OMP_PLACES=cores) and a child inherits the calling thread's mask: `weir
/// tune` ran all its threads on that one core (its baseline at 2 threads took 5.3 ms where the
/// kernel table's took 3.4, and `threads=1` candidates looked as fast as the baseline).
class AllCpusForChildren {
 public:
  AllCpusForChildren() {
    saved_ok_ = ::sched_getaffinity(0, sizeof saved_, &saved_) == 0;
    cpu_set_t all;
    CPU_ZERO(&all);
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < n && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &all);
    if (saved_ok_) ::sched_setaffinity(0, sizeof all, &all);
  }
  ~AllCpusForChildren() {
    if (saved_ok_) ::sched_setaffinity(0, sizeof saved_, &saved_);
  }
  AllCpusForChildren(const AllCpusForChildren&) = delete;
  AllCpusForChildren& operator=(const AllCpusForChildren&) = delete;

 private:
  cpu_set_t saved_{};
  bool saved_ok_ = false;
};

/// Runs `weir tune` on `source` in `dir` and returns the text of the script it wrote; throws with
/// the end of its output when it fails.
std::string run_weir_tune(const TuneBenchSettings& st, const std::string& source, const fs::path& dir,
                          const std::string& sets, double& seconds) {
  const fs::path script = dir / "tuned.json", out = dir / "tune.txt";
  fs::remove(script);
  std::ostringstream cmd;
  cmd << shell_quote(st.weir) << " tune " << shell_quote(source) << " --in-dir "
      << shell_quote((dir / "in").string()) << sets << " --seed " << st.seed << " --budget " << std::fixed
      << std::setprecision(0) << st.budget_s << "s";
  if (st.max_candidates) cmd << " --max-candidates " << st.max_candidates;
  cmd << " -o " << shell_quote(script.string()) << " --log " << shell_quote((dir / "tuned.log.json").string())
      << " > " << shell_quote(out.string()) << " 2>&1";
  const double t0 = now_seconds();
  int rc = 0;
  {
    const AllCpusForChildren all_cpus;
    rc = std::system(cmd.str().c_str());
  }
  seconds = now_seconds() - t0;
  if (rc != 0 || !fs::exists(script))
    throw std::runtime_error("weir tune failed (exit status " + std::to_string(rc) +
                             "): " + last_lines(read_file(out), 3));
  return read_file(script);
}

/// "tiling=8,32,16 threads=1" in the order `weir tune` wrote the choices (its labels' order).
std::string choices_label(const std::string& script_text) {
  const auto choices = nlohmann::ordered_json::parse(script_text).at("weir_tune").at("choices");
  std::string s;
  for (const auto& [k, v] : choices.items()) s += (s.empty() ? "" : " ") + k + "=" + v.get<std::string>();
  return s.empty() ? "auto-optimize-cpu" : s;
}

/// The section's entry for one kernel: `weir tune`, then both programs in interleaved rounds.
json tune_kernel(const KernelCase& kc, const Variant& v, const Sizes& sizes, const TuneBenchSettings& st,
                 const std::string& root) {
  std::string shown = v.tune_source;
  if (shown.rfind(root + "/", 0) == 0) shown.erase(0, root.size() + 1);
  json kj = {{"name", kc.name}, {"size", kc.size}, {"source", shown}, {"baseline", v.name}};
  const Layout& layout = kc.layouts.at(v.layout);
  const int default_threads = omp_get_max_threads();
  Timed base, tuned;
  base.threads = tuned.threads = default_threads;
  try {
    base.prepare(v.make_sdfg(), v.detail, layout);
  } catch (const std::exception& e) {
    kj["status"] = is_not_supported_yet(e) ? "skipped" : "failed";
    kj["reason"] = e.what();
    return kj;
  }
  const fs::path dir = fs::path(st.work_dir) / kc.name;
  try {
    const std::string sets = write_inputs(base.make_args(layout), base.compiled->signature(), dir / "in");
    double tune_s = 0;
    const std::string text = run_weir_tune(st, v.tune_source, dir, sets, tune_s);
    const json script = json::parse(text);
    const json& h = script.at("weir_tune");
    if (h.contains("threads") && h["threads"].get<int>() > 0) tuned.threads = h["threads"].get<int>();
    kj["tune"] = {{"wall_s", tune_s},
                  {"choices", choices_label(text)},
                  {"threads", tuned.threads},
                  {"speedup", h.at("speedup_over_auto_cpu")},
                  {"evaluated", h.at("evaluated")},
                  {"candidates", h.at("candidates")},
                  {"cut_short", h.at("cut_short")},
                  // Why `weir tune` called its own ratios unreliable (a loaded machine), or null.
                  {"load_warning", h.value("load_warning", json(nullptr))},
                  {"steps", script.at("steps")},
                  {"script", (dir / "tuned.json").string()}};
    std::shared_ptr<SDFG> sdfg = untuned_sdfg(v.tune_source);
    transforms::apply_script(*sdfg, transforms::parse_script(text, (dir / "tuned.json").string()), "tuned");
    tuned.prepare(sdfg, "weir tune's script for " + kc.name, layout);
  } catch (const std::exception& e) {
    kj["status"] = "failed";
    kj["reason"] = e.what();
    omp_set_num_threads(default_threads);
    return kj;
  }
  // Interleaved rounds, --auto cpu then the tuned program, as `weir tune` times them: one set of
  // arguments, the arrays they write restored before every call, each timed call after an
  // untimed one of the same program (tune_timing.h).
  try {
    Arguments shared = base.make_args(layout);
    runtime::BoundArguments base_bound = runtime::bind_arguments(base.compiled->signature(), shared);
    runtime::BoundArguments tuned_bound = runtime::bind_arguments(tuned.compiled->signature(), shared);
    std::tie(base.times, tuned.times) = time_like_weir_tune(
        {[&] { base.compiled->run_bound(base_bound); }, base.threads},
        {[&] { tuned.compiled->run_bound(tuned_bound); }, tuned.threads}, shared,
        written_arrays(base, tuned, shared), sizes.warmup, 2 * std::max(sizes.repeats, 5), true);
  } catch (const std::exception& e) {
    kj["status"] = "failed";
    kj["reason"] = std::string("timing: ") + e.what();
    omp_set_num_threads(default_threads);
    return kj;
  }
  omp_set_num_threads(default_threads);
  kj["status"] = "ok";
  kj["auto_cpu"] = stats_json(base.times);
  kj["auto_cpu"]["threads"] = base.threads;
  kj["auto_cpu"]["max_rel_error"] = base.error;
  kj["tuned"] = stats_json(tuned.times);
  kj["tuned"]["threads"] = tuned.threads;
  kj["tuned"]["max_rel_error"] = tuned.error;
  // When `weir tune` kept --auto cpu (its script is that pipeline, at the same threads), both
  // sides run the same generated program: its speed-up is 1 by construction, and the measured
  // ratio shows the run's noise floor instead.
  const double measured = stats_of(base.times).median / stats_of(tuned.times).median;
  const bool same = kj["tune"]["steps"] == json::parse(R"([{"pass": "auto-optimize-cpu"}])") &&
                    tuned.threads == base.threads;
  kj["measured_speedup"] = measured;
  kj["same_program"] = same;
  kj["speedup"] = same ? 1.0 : measured;
  return kj;
}

}  // namespace

TuneBenchSettings tune_bench_settings(const Sizes& sizes, const std::string& weir,
                                      const std::string& work_dir) {
  TuneBenchSettings st;
  st.weir = weir;
  st.work_dir = work_dir;
  if (sizes.preset == "tiny") {
    // CI: the whole path (inputs, weir tune, the script replayed, both checked and timed) with
    // the baseline and one candidate; the speed-ups mean nothing at this size.
    st.budget_s = 60;
    st.max_candidates = 2;
  }
  return st;
}

json run_tune_benchmarks(const Sizes& sizes, const Paths& paths, const std::vector<std::string>& only,
                         const TuneBenchSettings& st, bool& failed) {
  std::vector<KernelCase> cases;
  for (auto* make : {cartesian_cases, corpus_cases, unstructured_cases})
    for (KernelCase& kc : make(sizes, paths))
      if (only.empty() || std::find(only.begin(), only.end(), kc.name) != only.end())
        cases.push_back(std::move(kc));
  json settings = {{"budget_s", st.budget_s}, {"seed", st.seed}, {"threads", omp_get_max_threads()}};
  if (st.max_candidates) settings["max_candidates"] = st.max_candidates;
  std::printf(
      "\nweir tune (budget %.0f s per kernel%s, seed %llu) against --auto cpu, interleaved:\n", st.budget_s,
      st.max_candidates ? (", at most " + std::to_string(st.max_candidates) + " candidates").c_str() : "",
      static_cast<unsigned long long>(st.seed));
  std::printf("  %-16s %-8s %10s %10s %8s %8s  %s\n", "kernel", "status", "auto ms", "tuned ms", "speedup",
              "tune's", "choices (threads)");
  json kernels = json::array();
  if (!fs::exists(st.weir)) {
    std::printf("  not run: no weir executable at %s (build the target weir)\n", st.weir.c_str());
    return {{"settings", settings}, {"kernels", kernels}, {"not_run", "no weir executable at " + st.weir}};
  }
  for (const KernelCase& kc : cases) {
    // weir's variant from a field-view program, else weir's pipeline on DaCe's simplified SDFG.
    const Variant* v = nullptr;
    for (const char* name : {"weir", "weir-opt(dace-simplified)"})
      for (const Variant& x : kc.variants)
        if (!v && x.name == name && !x.tune_source.empty() && x.skip.empty()) v = &x;
    if (!v) continue;
    json kj = tune_kernel(kc, *v, sizes, st, paths.root);
    if (kj["status"] == "failed") failed = true;
    if (kj["status"] == "ok")
      std::printf("  %-16s %-8s %10.3f %10.3f %7.2fx %7.2fx  %s (%d)%s\n", kc.name.c_str(), "ok",
                  kj["auto_cpu"]["median_s"].get<double>() * 1e3, kj["tuned"]["median_s"].get<double>() * 1e3,
                  kj["measured_speedup"].get<double>(), kj["tune"]["speedup"].get<double>(),
                  kj["tune"]["choices"].get<std::string>().c_str(), kj["tune"]["threads"].get<int>(),
                  kj["same_program"].get<bool>() ? ": the same program, speed-up 1 by construction" : "");
    else
      std::printf("  %-16s %-8s %s\n", kc.name.c_str(), kj["status"].get<std::string>().c_str(),
                  last_lines(kj["reason"].get<std::string>(), 2).c_str());
    if (kj["status"] == "ok" && kj["tune"]["load_warning"].is_string())
      std::printf("  %-16s weir tune: %s\n", "", kj["tune"]["load_warning"].get<std::string>().c_str());
    std::fflush(stdout);
    kernels.push_back(std::move(kj));
  }
  json targets = tune_targets(kernels);
  if (sizes.preset == "tiny")  // call overhead dominates there, and the search is cut to one candidate
    for (json& t : targets) {
      t["met"] = nullptr;
      t["measured"] = t["measured"].get<std::string>() + " (tiny size: not evaluated)";
    }
  for (const json& t : targets)
    std::printf("  target: %s: %s (%s)\n", t["target"].get<std::string>().c_str(),
                t["met"].is_null() ? "not measured" : (t["met"].get<bool>() ? "met" : "NOT MET"),
                t["measured"].get<std::string>().c_str());
  return {{"settings", settings}, {"kernels", kernels}, {"targets", targets}};
}

}  // namespace weir::bench
