// weir-bench: kernel, toolchain and scaling benchmarks of weir (see bench/README.md).
//
//   weir-bench [all|kernels|tune|gpu|toolchain|scaling] [--size tiny|full] [--repeats N] [--warmup N]
//              [--only k1,k2] [--ns 10,100,1000] [--json FILE] [--commit SHA] [--root DIR]
//              [--tune-dir DIR]
//
// Exit code: 0 when everything ran (skipped entries included), 1 when a variant or stage
// failed or a variant's outputs disagree with the hand-written kernel's, 2 for bad usage, 3 at
// full size when a kernel of weir is more than kMaxRatioToHand (1.2x) slower than its
// hand-written version (a speed regression; the table's target rows say which).
#include <omp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_bench.h"
#include "kernel_bench.h"
#include "measure.h"
#include "scaling_bench.h"
#include "toolchain_bench.h"
#include "tune_bench.h"
#include "weir/runtime/compiler.h"
#include "weir/runtime/cpu_backend.h"
#include "weir_steps.h"

#ifndef WEIR_SOURCE_DIR
#define WEIR_SOURCE_DIR "."
#endif
#ifndef WEIR_BENCH_HAND_FLAGS
#define WEIR_BENCH_HAND_FLAGS ""
#endif

namespace fs = std::filesystem;
using nlohmann::json;
using namespace weir::bench;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

const char* proc_bind_name(omp_proc_bind_t b) {
  switch (b) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "master";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
  }
  return "?";
}

json machine_meta(const Sizes& sizes, const std::string& commit) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  auto settings = weir::runtime::CompiledBackendConfig{}.compiler_settings();
  std::string identity;
  try {
    identity = weir::runtime::compiler_identity(settings.compiler, settings.all_flags());
  } catch (const std::exception& e) {
    identity = e.what();
  }
  std::string compiler_line = identity.substr(0, identity.find('\n'));
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::string flags;
  for (const auto& f : settings.all_flags()) flags += (flags.empty() ? "" : " ") + f;
  return {{"date", utc_now()},
          {"host", host},
          {"cpu", cpu_model()},
          {"online_cpus", sysconf(_SC_NPROCESSORS_ONLN)},
          {"load_average_at_start", {load[0], load[1], load[2]}},
          {"commit", commit},
          {"size_preset", sizes.preset},
          {"repeats", sizes.repeats},
          {"warmup", sizes.warmup},
          {"OMP_NUM_THREADS", env_or("OMP_NUM_THREADS", "(unset)")},
          {"OMP_PROC_BIND", env_or("OMP_PROC_BIND", "(unset)")},
          {"OMP_PLACES", env_or("OMP_PLACES", "(unset)")},
          {"omp_max_threads", omp_get_max_threads()},
          {"omp_proc_bind", proc_bind_name(omp_get_proc_bind())},
          {"compiler", compiler_line},
          {"weir_program_flags", flags},
          {"hand_kernel_flags", WEIR_BENCH_HAND_FLAGS},
          {"optimization_pipeline", optimization_pipeline_name()}};
}

int usage(const std::string& msg) {
  std::cerr
      << "weir-bench: " << msg << "\n"
      << "usage: weir-bench [all|kernels|tune|gpu|toolchain|scaling] [--size tiny|full] [--repeats N] "
         "[--warmup N]\n"
      << "                  [--only k1,k2] [--ns 10,100,1000] [--json FILE] [--commit SHA] [--root DIR]\n"
      << "                  [--tune-dir DIR]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "scaling-child") return scaling_child(std::stoi(args[1]), args[2]);

  std::string what = "all", size = "full", json_out, commit = "unknown", root = WEIR_SOURCE_DIR, tune_dir;
  std::vector<std::string> only;
  std::vector<int> ns;
  int repeats = -1, warmup = -1;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
        return args[++i];
      };
      if (a == "all" || a == "kernels" || a == "tune" || a == "gpu" || a == "toolchain" || a == "scaling")
        what = a;
      else if (a == "--size")
        size = value();
      else if (a == "--repeats")
        repeats = std::stoi(value());
      else if (a == "--warmup")
        warmup = std::stoi(value());
      else if (a == "--only")
        only = split(value(), ',');
      else if (a == "--ns")
        for (auto& n : split(value(), ',')) ns.push_back(std::stoi(n));
      else if (a == "--json")
        json_out = value();
      else if (a == "--commit")
        commit = value();
      else if (a == "--root")
        root = value();
      else if (a == "--tune-dir")
        tune_dir = value();
      else if (a == "-h" || a == "--help")
        return usage("benchmarks of weir's generated code and toolchain"), 0;
      else
        throw std::invalid_argument("unknown argument '" + a + "'");
    }
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  if (size != "tiny" && size != "full") return usage("--size must be tiny or full");
  Sizes sizes = size == "tiny" ? Sizes::tiny() : Sizes::full();
  if (repeats > 0) sizes.repeats = repeats;
  if (warmup >= 0) sizes.warmup = warmup;
  if (ns.empty()) ns = size == "tiny" ? std::vector<int>{2, 4, 8} : std::vector<int>{10, 100, 1000};
  Paths paths{root, root + "/../shared/corpus/dace"};
  if (!fs::is_directory(root + "/examples")) return usage("no examples/ under " + root + " (use --root)");

  json out;
  out["meta"] = machine_meta(sizes, commit);
  const json& m = out["meta"];
  std::printf("weir-bench %s, size %s, %d threads (OMP_NUM_THREADS=%s, OMP_PROC_BIND=%s), pipeline %s\n",
              what.c_str(), sizes.preset.c_str(), m["omp_max_threads"].get<int>(),
              m["OMP_NUM_THREADS"].get<std::string>().c_str(), m["OMP_PROC_BIND"].get<std::string>().c_str(),
              optimization_pipeline_name().c_str());
  std::printf("%s, %s\n", m["cpu"].get<std::string>().c_str(), m["compiler"].get<std::string>().c_str());
  std::fflush(stdout);
  bool failed = false;
  std::vector<std::string> not_met;  // kernels too far behind their hand-written version
  double t0 = now_seconds();
  if (what == "all" || what == "kernels")
    out["kernel_benchmarks"] = run_kernel_benchmarks(sizes, paths, only, failed, not_met);
  // `weir tune` against --auto cpu; its files go beside the JSON (or to a temporary folder).
  if (what == "all" || what == "tune") {
    if (tune_dir.empty())
      tune_dir = json_out.empty()
                     ? (fs::temp_directory_path() / ("weir-bench-tune-" + std::to_string(getpid()))).string()
                     : (fs::absolute(json_out).parent_path() / ("tune-" + sizes.preset)).string();
    const std::string weir = (fs::read_symlink("/proc/self/exe").parent_path() / "weir").string();
    out["tune"] = run_tune_benchmarks(sizes, paths, only, tune_bench_settings(sizes, weir, tune_dir), failed);
  }
  // The GPU rows: "not run: no GPU" without a CUDA device (nothing is compiled then).
  if (what == "all" || what == "gpu") out["gpu"] = run_gpu_benchmarks(sizes, paths, only, failed);
  if (what == "all" || what == "toolchain")
    out["toolchain"] = run_toolchain_benchmarks(paths, sizes.preset == "tiny" ? 2 : 2 * sizes.repeats,
                                                sizes.preset == "tiny", failed);
  if (what == "all" || what == "scaling") {
    std::string exe = fs::read_symlink("/proc/self/exe").string();
    out["scaling"] = run_scaling_benchmarks(exe, ns, failed);
  }
  out["meta"]["total_s"] = now_seconds() - t0;
  out["meta"]["failed"] = failed;
  if (!json_out.empty()) {
    if (fs::path(json_out).has_parent_path()) fs::create_directories(fs::path(json_out).parent_path());
    std::ofstream(json_out) << out.dump(1) << "\n";
    std::printf("\nresults: %s\n", json_out.c_str());
  }
  std::printf("%s in %.1f s\n", failed ? "FAILED" : "done", now_seconds() - t0);
  if (!not_met.empty()) {
    std::fprintf(stderr,
                 "weir-bench: %zu kernel(s) more than %.1fx slower than hand-written:", not_met.size(),
                 kMaxRatioToHand);
    for (const std::string& k : not_met) std::fprintf(stderr, " %s;", k.c_str());
    // Timings at the tiny size are dominated by call overhead: there the rows only say it.
    std::fprintf(stderr, "%s\n", sizes.preset == "full" ? "" : " (tiny size: not an error)");
  }
  if (failed) return 1;
  return sizes.preset == "full" && !not_met.empty() ? 3 : 0;
}
