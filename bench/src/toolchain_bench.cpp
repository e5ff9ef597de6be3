#include "toolchain_bench.h"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "measure.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/pycode/parser.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/loader.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir_steps.h"

namespace weir::bench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Times `fn` `n` times; returns the stage's JSON (stats) and prints a line.
json time_stage(const std::string& what, const std::string& stage, int n, const std::function<void()>& fn) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    double t0 = now_seconds();
    fn();
    t.push_back(now_seconds() - t0);
  }
  Stats s = stats_of(t);
  std::printf("  %-52s %-14s %10.3f %10.3f %10.3f\n", what.c_str(), stage.c_str(), s.median * 1e3,
              s.min * 1e3, s.max * 1e3);
  return {{"median_s", s.median}, {"min_s", s.min}, {"max_s", s.max}, {"n", s.n}, {"status", "ok"}};
}

std::string g_root;  // repository root, removed from paths in messages

json not_run(const std::string& what, const std::string& stage, const std::string& status, std::string why) {
  for (std::size_t at; !g_root.empty() && (at = why.find(g_root + "/")) != std::string::npos;)
    why.erase(at, g_root.size() + 1);
  std::printf("  %-52s %-14s %s: %s\n", what.c_str(), stage.c_str(), status.c_str(),
              why.substr(0, why.find('\n')).c_str());
  return {{"status", status}, {"reason", why}};
}

/// Small arguments for a first call of any program: every free symbol 8, arrays of the shape
/// that gives (float arrays in [0.5, 1.5), integer arrays 0, a valid neighbour index),
/// scalars 1.
runtime::Arguments small_arguments(const runtime::Signature& sig) {
  std::map<std::string, long long> symbols;
  for (const auto& p : sig.params)
    for (const auto& e : p.shape)
      for (const auto& s : e.free_symbols()) symbols[s] = 8;
  for (const auto& p : sig.params)
    if (p.kind == runtime::Parameter::Kind::Symbol) symbols[p.name] = 8;
  runtime::Arguments a;
  for (const auto& p : sig.params) {
    if (p.kind == runtime::Parameter::Kind::Symbol) {
      a.values[p.name] = std::int64_t(8);
    } else if (p.kind == runtime::Parameter::Kind::Scalar) {
      if (p.dtype == ScalarType::Float64 || p.dtype == ScalarType::Float32)
        a.values[p.name] = 1.0;
      else
        a.values[p.name] = std::int64_t(1);
    } else {
      std::vector<std::int64_t> shape;
      for (const auto& e : p.shape) shape.push_back(e.evaluate(symbols));
      if (p.dtype == ScalarType::Float64)
        a.arrays.emplace(p.name, random_field(shape, 7, 0.5, 1.5));
      else
        a.arrays.emplace(p.name, runtime::Allocator::cpu().allocate(p.dtype, shape));
    }
  }
  return a;
}

struct Example {
  std::string rel;  // relative to the root
  std::vector<std::string> search_path;
};

std::vector<Example> examples(const Paths& p) {
  std::vector<Example> out;
  for (const char* dir : {"examples/cartesian", "examples/unstructured"}) {
    std::vector<std::string> files;
    if (fs::is_directory(p.root + "/" + dir))
      for (const auto& e : fs::directory_iterator(p.root + "/" + dir))
        if (e.path().extension() == ".py")
          files.push_back(std::string(dir) + "/" + e.path().filename().string());
    std::sort(files.begin(), files.end());
    for (auto& f : files) out.push_back({f, {}});
  }
  if (fs::exists(p.root + "/examples/multimodule/mymodel/program.py"))
    out.push_back({"examples/multimodule/mymodel/program.py", {p.root + "/examples/multimodule"}});
  return out;
}

json program_stages(const Paths& p, const Example& ex, const std::string& program, int repeats, bool compile,
                    const fs::path& cache_dir, bool& failed) {
  const std::string file = p.root + "/" + ex.rel;
  const std::string what = ex.rel + "::" + program;
  json st;
  FieldViewModule m = load_field_view(file, ex.search_path);
  const frontend::Definition& def = m.definition(program);
  st["type_check"] = time_stage(what, "type-check", repeats, [&] {
    frontend::TypeChecker tc;
    tc.check(def);
  });
  std::unique_ptr<SDFG> lowered;
  try {
    lowered = lower(m, program);
  } catch (const std::exception& e) {
    bool skip = is_not_supported_yet(e);
    failed |= !skip;
    st["lower"] = not_run(what, "lower", skip ? "skipped" : "failed", e.what());
    return st;
  }
  try {
    st["lower"] = time_stage(what, "lower", repeats, [&] { lower(m, program); });
    std::unique_ptr<SDFG> optimized;
    st["optimize"] = time_stage(what, "optimize", repeats, [&] {
      optimized = lowered->clone_sdfg();
      optimize(*optimized);
    });
    st["optimize"]["pipeline"] = optimization_pipeline_name();
    st["codegen"] = time_stage(what, "codegen", repeats, [&] { codegen::generate_cpu(*optimized); });
    st["source_to_cpp"] = time_stage(what, "source-to-C++", repeats, [&] {
      FieldViewModule fresh = load_field_view(file, ex.search_path);
      auto s = lower(fresh, program);
      optimize(*s);
      codegen::generate_cpu(*s);
    });
    if (!compile) return st;
    runtime::CompilableProgram cp{std::shared_ptr<const SDFG>(std::move(optimized)), {}, what};
    auto compiler =
        runtime::make_cpu_compiler(runtime::CompiledBackendConfig{}.compiler_settings(), cache_dir);
    runtime::CompilationArtifact art;
    st["compile"] = time_stage(what, "compile", 1, [&] { art = compiler(cp); });
    std::shared_ptr<runtime::CompiledProgram> prog;
    st["load_library"] = time_stage(
        what, "load library", 1, [&] { prog = runtime::load_compiled_program(art.library, art.signature); });
    runtime::Arguments args = small_arguments(prog->signature());
    st["first_call"] = time_stage(what, "first call", 1, [&] { prog->run(args); });
  } catch (const std::exception& e) {
    failed = true;
    st["error"] = not_run(what, "error", "failed", e.what());
  }
  return st;
}

}  // namespace

json run_toolchain_benchmarks(const Paths& p, int repeats, bool quick, bool& failed) {
  g_root = p.root;
  std::printf("\n  %-52s %-14s %10s %10s %10s\n", "program", "stage", "median ms", "min ms", "max ms");
  // Compiles go to a fresh cache so that the compiler really runs; removed afterwards.
  fs::path cache_dir = fs::temp_directory_path() / ("weir-bench-cache-" + std::to_string(::getpid()));
  runtime::compiler_identity("c++", runtime::CompiledBackendConfig{}.compiler_settings().all_flags());
  json programs = json::array();
  for (const Example& ex : examples(p)) {
    const std::string file = p.root + "/" + ex.rel;
    json fj = {{"file", ex.rel}};
    try {
      fj["parse"] = time_stage(ex.rel, "parse", repeats, [&] { frontend::parse_module_file(file); });
      fj["load"] = time_stage(ex.rel, "load module", repeats, [&] { load_field_view(file, ex.search_path); });
      FieldViewModule m = load_field_view(file, ex.search_path);
      for (const std::string& prog : m.programs()) {
        bool compile = !quick || ex.rel == "examples/cartesian/laplacian.py";
        json pj = {{"file", ex.rel}, {"program", prog}, {"parse", fj["parse"]}, {"load", fj["load"]}};
        pj.update(program_stages(p, ex, prog, repeats, compile, cache_dir, failed));
        programs.push_back(pj);
      }
    } catch (const std::exception& e) {
      failed = true;
      fj["error"] = not_run(ex.rel, "error", "failed", e.what());
      programs.push_back(fj);
    }
  }
  std::error_code ec;
  fs::remove_all(cache_dir, ec);

  json sdfgs = json::array();
  fs::path tmp = fs::temp_directory_path() / ("weir-bench-save-" + std::to_string(::getpid()) + ".sdfg");
  for (const char* kernel : {"hdiff", "laplace2d", "jacobi_2d"})
    for (const char* stage : {"frontend", "simplified", "auto_optimized_cpu", "auto_optimized_gpu"}) {
      std::string rel = std::string(kernel) + "/" + kernel + "." + stage + ".sdfg";
      std::string file = p.corpus + "/" + rel;
      json sj = {{"file", "corpus/dace/" + rel}};
      try {
        sj["bytes"] = fs::file_size(file);
        sj["load"] = time_stage(rel, "load JSON", repeats, [&] { load_sdfg(file); });
        auto sdfg = load_sdfg(file);
        sj["validate"] = time_stage(rel, "validate", repeats, [&] { validate(*sdfg); });
        sj["save"] = time_stage(rel, "save JSON", repeats, [&] { save_sdfg(*sdfg, tmp.string()); });
      } catch (const std::exception& e) {
        failed = true;
        sj["error"] = not_run(rel, "error", "failed", e.what());
      }
      sdfgs.push_back(sj);
    }
  fs::remove(tmp, ec);
  return {{"programs", programs}, {"sdfg_files", sdfgs}};
}

}  // namespace weir::bench
