// Scale of big SDFGs (issue 17): N chained stencils as ONE SDFG, each stencil in its own state,
// and the time of every stage weir runs on it: build, validate, JSON save and load, the simplify
// passes one by one, simplify, symbol propagation, auto_optimize for the CPU, C++ generation and,
// with --compile, the C++ compiler (into an empty program cache).
//
// Stencil k (state s<k>) reads T<k> at (i, j, l), (i + 1, j, l) and (i, j + 1, l) and writes
// T<k+1> over a domain one point smaller in I and J than the previous one, so the chain is
// well defined without halos. T0 is the input, T<N> and every 10th T outputs; the others are
// transients (state fusion merges the states, redundant-array removal and map fusion work on
// what is left).
//
// Usage: weir_bench_scale [--n 250,1000,10000] [--compile] [--check] [--json FILE]
//                         [--unit-bytes B] [--jobs J]
//        weir_bench_scale --source FILE.py::PROGRAM [--repeats R]
//   --source  source to loaded program for one field-view program (load, type-check, lower,
//             auto_optimize, generate C++, compile into an empty cache, dlopen), R times:
//             each stage's median wall and CPU time (the compiler's included)
//   --check   compile and run at I = J = 6, K = 3 and compare every output with the same chain
//             computed here by plain loops (exit 1 on a difference above 1e-12)
//   --unit-bytes  CodegenOptions::unit_bytes: generated functions per translation unit (0: one
//             unit); --jobs: compiler processes at once (default: the number of cores)
#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include <ctime>
#include <vector>

#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/simplify.h"

using namespace weir;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// CPU time of this process (all threads) and of its finished children (the compiler): on a loaded shared
/// machine the stages' wall times stretch with the load, their CPU times much less (the single-threaded
/// stages' CPU time is what an idle machine takes).
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  rusage c{};
  getrusage(RUSAGE_CHILDREN, &c);
  auto tv = [](const timeval& v) {
    return static_cast<double>(v.tv_sec) + 1e-6 * static_cast<double>(v.tv_usec);
  };
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec) + tv(c.ru_utime) +
         tv(c.ru_stime);
}

bool is_output(int k, int n) { return k == n || (k > 0 && k % 10 == 0); }

/// The coefficient of stencil k (distinct per stencil, so no two tasklets are the same code).
double coefficient(int k) { return 0.01 * (k % 7 + 1); }

std::unique_ptr<SDFG> chained_stencils(int n) {
  auto sdfg = std::make_unique<SDFG>("chain" + std::to_string(n));
  for (const char* s : {"I", "J", "K"}) sdfg->add_symbol(s);
  const std::string grow = std::to_string(n);
  std::vector<sym::Expr> shape = {sym::Expr::parse("I + " + grow), sym::Expr::parse("J + " + grow),
                                  sym::Expr::parse("K")};
  for (int k = 0; k <= n; ++k)
    sdfg->add_array("T" + std::to_string(k), ScalarType::Float64, shape, !(k == 0 || is_output(k, n)));
  BlockId prev = kNoBlock;
  for (int k = 0; k < n; ++k) {
    SDFGState& st = sdfg->add_state("s" + std::to_string(k), k == 0);
    if (prev != kNoBlock) sdfg->add_edge(prev, st.id());
    prev = st.id();
    const std::string in = "T" + std::to_string(k), out = "T" + std::to_string(k + 1);
    const std::string r = std::to_string(n - k - 1);  // the domain: [0, I + r) x [0, J + r) x [0, K)
    Subset range = Subset::parse("0:I+" + r + ", 0:J+" + r + ", 0:K");
    auto& m = st.add_map(out, {"i", "j", "l"}, range);
    std::ostringstream code;
    code << "y = a + " << coefficient(k) << " * (b + c - 2.0 * a)";
    auto& t = st.add_tasklet(out, {code.str(), Language::Python}, {"a", "b", "c"}, {"y"});
    NodeId src = st.add_access(in).id(), dst = st.add_access(out).id();
    Memlet whole = Memlet::simple(
        in, Subset::parse("0:I+" + std::to_string(n - k) + ", 0:J+" + std::to_string(n - k) + ", 0:K"));
    const char* at[] = {"i, j, l", "i + 1, j, l", "i, j + 1, l"};
    const char* conn[] = {"a", "b", "c"};
    for (int p = 0; p < 3; ++p) {
      auto e =
          st.add_memlet_path({src, m.id(), t.id()}, Memlet::simple(in, Subset::parse(at[p])), "", conn[p]);
      st.edge(e[0]).memlet = whole;
    }
    auto eo =
        st.add_memlet_path({t.id(), m.exit, dst}, Memlet::simple(out, Subset::parse("i, j, l")), "y", "");
    st.edge(eo[1]).memlet = Memlet::simple(out, range);
  }
  return sdfg;
}

struct Stages {
  nlohmann::json j = nlohmann::json::object();
  std::vector<std::string> order;
  void record(const std::string& name, double wall, double cpu) {
    j[name] = {{"wall_s", wall}, {"cpu_s", cpu}};
    order.push_back(name);
    std::printf("  %-34s %10.3f s wall %10.3f s cpu\n", name.c_str(), wall, cpu);
    std::fflush(stdout);
  }
  template <class F>
  auto time(const std::string& name, F&& f) {
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      record(name, seconds_since(t0), cpu_seconds() - c0);
    } else {
      auto r = f();
      record(name, seconds_since(t0), cpu_seconds() - c0);
      return r;
    }
  }
};

void require_valid(const SDFG& s, const std::string& after) {
  auto problems = validate(s);
  if (!problems.empty())
    throw std::runtime_error("invalid SDFG after " + after + ": " + problems.front().str());
}

std::filesystem::path fresh_cache(const std::string& tag) {
  auto d =
      std::filesystem::temp_directory_path() / ("weir-bench-scale-" + std::to_string(::getpid()) + "-" + tag);
  std::filesystem::remove_all(d);
  return d;
}

/// Code generation and compilation settings of a run (--unit-bytes, --jobs).
struct Build {
  codegen::CodegenOptions options;
  unsigned jobs = 0;
};

nlohmann::json bench_one(int n, bool compile, const Build& build) {
  std::printf("N = %d chained stencils, one state each\n", n);
  Stages st;
  auto sdfg = st.time("build", [&] { return chained_stencils(n); });
  st.time("validate", [&] { require_valid(*sdfg, "build"); });
  std::string text = st.time("save JSON", [&] { return sdfg_to_json_text(*sdfg); });
  st.time("load JSON", [&] { return sdfg_from_json_text(text, "chain.sdfg"); });
  st.time("clone", [&] { return sdfg->clone_sdfg(); });
  // Each pass alone on a fresh copy of the unsimplified chain.
  for (const char* p : {"dead-state-elimination", "state-fusion", "dead-dataflow-elimination",
                        "redundant-array-removal", "trivial-map-elimination", "symbol-propagation"}) {
    auto copy = sdfg->clone_sdfg();
    auto pass = transforms::make_pass(p);
    if (!pass) throw std::runtime_error(std::string("no pass '") + p + "'");
    transforms::AnalysisCache cache;
    st.time(std::string("pass ") + p, [&] { pass->run(*copy, cache); });
    require_valid(*copy, p);
  }
  auto simplified = sdfg->clone_sdfg();
  st.time("simplify", [&] { transforms::simplify(*simplified); });
  require_valid(*simplified, "simplify");
  st.j["states after simplify"] = simplified->all_states().size();
  auto optimized = sdfg->clone_sdfg();
  st.time("auto_optimize cpu", [&] { transforms::auto_optimize(*optimized, DeviceType::CPU); });
  {
    // The same pipeline pass by pass (one round, as auto_optimize runs it), to name the slow one.
    auto staged = sdfg->clone_sdfg();
    auto pipe = transforms::make_auto_optimize_pipeline(DeviceType::CPU);
    transforms::AnalysisCache cache;
    int k = 0;
    for (auto& p : pipe->passes())
      st.time("  auto_optimize " + std::to_string(k++) + " " + p->name(), [&] { p->run(*staged, cache); });
  }
  st.time("validate optimized", [&] { require_valid(*optimized, "auto_optimize"); });
  auto code = st.time("generate C++", [&] { return codegen::generate_cpu(*optimized, build.options); });
  st.j["cpp bytes"] = code.source.size();
  st.j["translation units"] = std::max<std::size_t>(1, code.units.size());
  std::printf("  %zu bytes of C++ in %zu translation unit(s)\n", code.source.size(),
              std::max<std::size_t>(1, code.units.size()));
  {
    // Generation alone on the unsimplified chain: one function per state (N functions).
    auto plain =
        st.time("generate C++ unoptimized", [&] { return codegen::generate_cpu(*sdfg, build.options); });
    st.j["unoptimized cpp bytes"] = plain.source.size();
  }
  if (compile) {
    runtime::CompiledBackendConfig cfg;
    cfg.cache_dir = fresh_cache(std::to_string(n));
    cfg.jobs = build.jobs;
    auto backend = runtime::make_cpu_backend(cfg);
    runtime::CompilableProgram p{std::shared_ptr<const SDFG>(optimized->clone_sdfg()), build.options,
                                 "chain"};
    st.time("compile C++ (empty cache)", [&] { return runtime::prepare(*backend, p); });
    std::filesystem::remove_all(*cfg.cache_dir);
  }
  return {{"n", n}, {"stages_s", st.j}, {"order", st.order}};
}

/// Compiles and runs the optimized chain at a small size and compares every output with plain
/// loops; returns the largest difference.
double check(int n, const Build& build) {
  const std::int64_t I = 6, J = 6, K = 3, X = I + n, Y = J + n;
  auto sdfg = chained_stencils(n);
  transforms::auto_optimize(*sdfg, DeviceType::CPU);
  require_valid(*sdfg, "auto_optimize");
  runtime::CompiledBackendConfig cfg;
  if (const char* c = std::getenv("WEIR_CACHE_DIR"); c && *c) cfg.cache_dir = c;
  cfg.jobs = build.jobs;
  auto backend = runtime::make_cpu_backend(cfg);
  std::printf("check N = %d: %zu translation unit(s)\n", n,
              std::max<std::size_t>(1, codegen::generate_cpu(*sdfg, build.options).units.size()));
  auto prog =
      runtime::prepare(*backend, {std::shared_ptr<const SDFG>(std::move(sdfg)), build.options, "chain"});
  runtime::Arguments args;
  args.values = {{"I", I}, {"J", J}, {"K", K}};
  std::vector<std::vector<double>> ref(n + 1, std::vector<double>(X * Y * K, 0.0));
  for (std::int64_t q = 0; q < X * Y * K; ++q) ref[0][q] = std::sin(0.37 * static_cast<double>(q));
  for (int k = 0; k <= n; ++k)
    if (k == 0 || is_output(k, n)) {
      auto f = runtime::Allocator::cpu().allocate(ScalarType::Float64, {X, Y, K});
      auto* p = static_cast<double*>(f.data());
      for (std::int64_t q = 0; q < X * Y * K; ++q) p[q] = k == 0 ? ref[0][q] : -1.0;
      args.arrays.emplace("T" + std::to_string(k), std::move(f));
    }
  prog->run(args);
  double worst = 0;
  for (int k = 0; k < n; ++k) {
    const std::int64_t r = n - k - 1;
    auto at = [&](std::int64_t i, std::int64_t j, std::int64_t l) { return (i * Y + j) * K + l; };
    for (std::int64_t i = 0; i < I + r; ++i)
      for (std::int64_t j = 0; j < J + r; ++j)
        for (std::int64_t l = 0; l < K; ++l) {
          const auto& a = ref[k];
          double c = a[at(i, j, l)];
          ref[k + 1][at(i, j, l)] = c + coefficient(k) * (a[at(i + 1, j, l)] + a[at(i, j + 1, l)] - 2.0 * c);
        }
    if (!is_output(k + 1, n)) continue;
    const auto* p = static_cast<const double*>(args.arrays.at("T" + std::to_string(k + 1)).data());
    for (std::int64_t i = 0; i < I + r; ++i)
      for (std::int64_t j = 0; j < J + r; ++j)
        for (std::int64_t l = 0; l < K; ++l)
          worst = std::max(worst, std::abs(p[at(i, j, l)] - ref[k + 1][at(i, j, l)]));
  }
  return worst;
}

/// The machine and its load (the shared machine's timings depend on it), for bench/report.py.
nlohmann::json machine() {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = -1;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::gmtime(&now));
  runtime::CompiledBackendConfig cfg;
  std::string flags;
  for (const auto& f : cfg.compiler_settings().all_flags()) flags += (flags.empty() ? "" : " ") + f;
  return {{"date", date},
          {"online_cpus", sysconf(_SC_NPROCESSORS_ONLN)},
          {"load_average", {load[0], load[1], load[2]}},
          {"compiler", cfg.compiler},
          {"flags", flags}};
}

/// Source to loaded program for `ref`, `repeats` times into a program cache from which each run
/// evicts its program: the first run also builds the precompiled header (prelude_pch.cpp), the
/// others find it, as every program after a user's first does. The medians (and minima) per stage
/// of the runs after the first (of all with one run) as JSON, and the first run's total.
nlohmann::json source_to_program(const std::string& ref, int repeats, const Build& build) {
  std::map<std::string, std::vector<std::pair<double, double>>> times;
  std::vector<std::string> order;
  auto stage = [&](const std::string& name, auto&& f) {
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    auto r = f();
    if (!times.count(name)) order.push_back(name);
    times[name].emplace_back(seconds_since(t0), cpu_seconds() - c0);
    return r;
  };
  const auto cache = fresh_cache("source");
  for (int k = 0; k < repeats; ++k) {
    runtime::CompiledBackendConfig cfg;
    cfg.cache_dir = cache;
    cfg.jobs = build.jobs;
    auto backend = runtime::make_cpu_backend(cfg);
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    auto fv = stage("load + type-check", [&] { return runtime::load_field_view_reference(ref); });
    auto prog = stage("lower", [&] { return runtime::lower(fv); });
    auto sdfg = stage("auto_optimize", [&] {
      auto s = prog.sdfg->clone_sdfg();
      transforms::auto_optimize(*s, DeviceType::CPU);
      return std::shared_ptr<const SDFG>(std::move(s));
    });
    prog.sdfg = sdfg;
    stage("generate C++", [&] { return codegen::generate_cpu(*sdfg, prog.options).source.size(); });
    stage("compile + load", [&] { return runtime::prepare(*backend, prog); });
    if (!times.count("source to loaded program")) order.push_back("source to loaded program");
    times["source to loaded program"].emplace_back(seconds_since(t0), cpu_seconds() - c0);
    // Evict the program (its shard directories), keep the precompiled header (v1/pch).
    std::vector<std::filesystem::path> shards;
    for (const auto& e : std::filesystem::directory_iterator(cache / "v1"))
      if (e.path().filename().string().size() == 2) shards.push_back(e.path());
    for (const auto& s : shards) std::filesystem::remove_all(s);
  }
  std::filesystem::remove_all(cache);
  const auto first = times["source to loaded program"].front();
  std::printf(
      "%s, %d runs (compile + load includes generating C++ again); first run %.3f s wall %.3f s cpu "
      "(builds the precompiled header); the others:\n",
      ref.c_str(), repeats, first.first, first.second);
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& name : order) {
    auto v = times[name];
    if (v.size() > 1) v.erase(v.begin());
    std::vector<double> w, c;
    for (auto [a, b] : v) w.push_back(a), c.push_back(b);
    std::sort(w.begin(), w.end());
    std::sort(c.begin(), c.end());
    std::printf("  %-28s median %8.3f s wall %8.3f s cpu (min %.3f / %.3f)\n", name.c_str(), w[w.size() / 2],
                c[c.size() / 2], w.front(), c.front());
    stages.push_back({{"stage", name},
                      {"median_wall_s", w[w.size() / 2]},
                      {"median_cpu_s", c[c.size() / 2]},
                      {"min_wall_s", w.front()},
                      {"min_cpu_s", c.front()}});
  }
  return {{"program", ref},
          {"repeats", repeats},
          {"stages", stages},
          {"first_run", {{"wall_s", first.first}, {"cpu_s", first.second}}}};
}

std::vector<int> parse_ns(const std::string& s) {
  std::vector<int> v;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) v.push_back(std::stoi(x));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ns = {250, 1000};
  bool compile = false, run_check = false;
  std::string json_out, source;
  int repeats = 5;
  Build build;
  for (int a = 1; a < argc; ++a) {
    std::string s = argv[a];
    if (s == "--n" && a + 1 < argc)
      ns = parse_ns(argv[++a]);
    else if (s == "--compile")
      compile = true;
    else if (s == "--check")
      run_check = true;
    else if (s == "--json" && a + 1 < argc)
      json_out = argv[++a];
    else if (s == "--source" && a + 1 < argc)
      source = argv[++a];
    else if (s == "--unit-bytes" && a + 1 < argc)
      build.options.unit_bytes = static_cast<std::size_t>(std::stoull(argv[++a]));
    else if (s == "--jobs" && a + 1 < argc)
      build.jobs = static_cast<unsigned>(std::max(0, std::atoi(argv[++a])));
    else if (s == "--repeats" && a + 1 < argc)
      repeats = std::max(1, std::atoi(argv[++a]));
    else {
      std::fprintf(stderr,
                   "usage: weir_bench_scale [--n 250,1000,10000] [--compile] [--check] [--json FILE] "
                   "[--unit-bytes B] [--jobs J] | "
                   "--source FILE.py::NAME [--repeats R]\n");
      return 2;
    }
  }
  try {
    nlohmann::json doc = {{"machine_at_start", machine()}};
    auto write = [&] {
      doc["load_average_at_end"] = machine()["load_average"];
      if (!json_out.empty()) std::ofstream(json_out) << doc.dump(1) << "\n";
    };
    if (!source.empty()) {
      doc["source_to_program"] = source_to_program(source, repeats, build);
      write();
      return 0;
    }
    if (run_check) {
      int fails = 0;
      for (int n : ns) {
        double d = check(n, build);
        std::printf("check N = %d: largest difference from plain loops %g\n", n, d);
        if (!(d <= 1e-12)) ++fails;
      }
      return fails ? 1 : 0;
    }
    nlohmann::json all = nlohmann::json::array();
    for (int n : ns) all.push_back(bench_one(n, compile, build));
    doc["chains"] = all;
    doc["unit_bytes"] = build.options.unit_bytes;
    write();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weir_bench_scale: %s\n", e.what());
    return 1;
  }
  return 0;
}
