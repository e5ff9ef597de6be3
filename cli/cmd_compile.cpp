// `weir compile TARGET...`: compile programs into the program cache, several at once (one
// compiler process per program, at most as many as hardware threads). A target is an SDFG file,
// a field-view FILE.py::NAME, or a field-view FILE.py (every @program in it). A failure in one
// program is reported and does not stop the others.
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "backend_choice.h"
#include "commands.h"
#include "targets.h"
#include "weir/codegen/source_locations.h"
#include "weir/frontend/definition_lookup.h"
#include "weir/frontend/module_loader.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/output_file.h"

namespace weir::cli {

namespace {

bool is_field_view(const std::string& target) {
  std::string file = target.substr(0, target.rfind("::"));
  return file.size() > 3 && file.compare(file.size() - 3, 3, ".py") == 0;
}

/// The programs of the targets: SDFG files and FILE.py::NAME as given, FILE.py expanded to
/// FILE.py::P for every @program P of the file (in source order). Throws FrontendError when a
/// .py file does not load.
std::vector<std::string> expand_targets(const std::vector<std::string>& targets,
                                        const std::vector<std::string>& includes) {
  std::vector<std::string> out;
  for (const std::string& t : targets) {
    if (!is_field_view(t) || t.find("::") != std::string::npos) {
      out.push_back(t);
      continue;
    }
    frontend::ModuleLoader loader(frontend::LoaderOptions{includes, true});
    const frontend::LoadedModule& m = loader.load_file(t);
    std::size_t before = out.size();
    for (const auto& d : m.definitions)
      if (d->kind == frontend::DefinitionKind::Program && d->module == &m) out.push_back(t + "::" + d->name);
    if (out.size() == before) throw weir::Error(t + ": no @program to compile (name one as FILE.py::NAME)");
  }
  return out;
}

// Copies the generated source of `a`, its source locations written out, to DIR/NAME`extension` (NAME: the
// definition's name, or the SDFG file's stem; `.cu` for the gpu backend's CUDA), replacing the file
// atomically.
std::filesystem::path emit_source(const runtime::CompilationArtifact& a, const std::string& target,
                                  const std::string& dir, const std::string& extension) {
  namespace fs = std::filesystem;
  if (a.source.empty() || !fs::exists(a.source))
    throw weir::Error(target + ": the backend keeps no generated source to write (--emit-cpp)");
  auto sep = target.rfind("::");
  std::string name = sep == std::string::npos ? fs::path(target).stem().string() : target.substr(sep + 2);
  fs::create_directories(dir);
  fs::path out = fs::path(dir) / (name + extension);
  std::ifstream in(a.source, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw weir::Error(target + ": cannot read the generated source " + a.source.string());
  // For reading: the locations the program's messages name, not their tokens (ADR 0061).
  write_file_atomically(out, codegen::expand_locations(text.str(), a.locations));
  return out;
}

}  // namespace

Action add_compile_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compile", "Compile programs (SDFG files, FILE.py::NAME, FILE.py) into the program cache, in parallel");
  struct Opts {
    std::vector<std::string> files, includes;
    std::string backend = "cpu", emit_cpp, gpu_arch;
    unsigned jobs = 0;
    bool trust_code = false, exact_math = false, verbose = false, no_bounds_checks = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("programs", o->files,
                  "SDFG files (.sdfg/.sdfgz), FILE.py::NAME (a @program, @field_operator or orchestration "
                  "function of the file), or FILE.py (all its @programs)")
      ->required();
  cmd->add_option("-I,--include", o->includes,
                  "Directory searched for modules a .py program imports (repeatable; "
                  "WEIR_PATH is searched too)");
  cmd->add_option("--backend", o->backend,
                  "A compiled backend: cpu (default) or gpu (CUDA, compiled by nvcc; programs not "
                  "placed on the GPU yet get gpu-transform with host arguments)");
  cmd->add_option("--gpu-arch", o->gpu_arch, kGpuArchHelp);
  cmd->add_flag("--exact-math", o->exact_math, kExactMathHelp);
  cmd->add_option("-j,--jobs", o->jobs, "Compiler processes at once (default: hardware threads)");
  cmd->add_flag("--trust-code", o->trust_code, kTrustCodeHelp);
  cmd->add_flag("--no-bounds-checks", o->no_bounds_checks, kNoBoundsChecksHelp);
  cmd->add_flag("--verbose", o->verbose, kVerboseHelp);
  cmd->add_option(
      "--emit-cpp", o->emit_cpp,
      "DIR: also write the generated C++ of each program to DIR/NAME.cpp (the CUDA source to NAME.cu "
      "with --backend gpu), for reading (its comments name the SDFG state, node and memlet of each "
      "part)");
  return [o]() {
    std::unique_ptr<runtime::Backend> backend;
    try {
      backend = choose_backend(o->backend, o->gpu_arch, o->exact_math);
    } catch (const UsageError& e) {
      std::cerr << "weir: error: " << e.what() << "\n";
      return kExitUsage;
    }
    if (!dynamic_cast<const runtime::CompiledBackend*>(backend.get()))
      throw UsageError("weir compile: backend '" + o->backend +
                       "' interprets programs and compiles nothing; use a compiled backend (--backend cpu)");
    std::vector<std::string> targets;
    try {
      targets = expand_targets(o->files, o->includes);
    } catch (const std::exception& e) {
      return print_error(e.what(), kExitInvalidInput);
    }
    std::size_t n = targets.size();
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    unsigned workers = static_cast<unsigned>(std::min<std::size_t>(n, o->jobs ? o->jobs : hw));
    std::atomic<std::size_t> next{0}, done{0}, failed{0}, misnamed{0};
    std::mutex out_mu;
    auto worker = [&] {
      for (std::size_t i; (i = next++) < n;) {
        const std::string& f = targets[i];
        auto t0 = std::chrono::steady_clock::now();
        std::string line, notes;  // notes: --verbose, on stderr
        try {
          runtime::CompilationArtifact a;
          if (is_field_view(f)) {
            std::size_t sep = f.rfind("::");
            auto program = runtime::load_field_view_program(f.substr(0, sep), f.substr(sep + 2), o->includes);
            program.options.bounds_checks = !o->no_bounds_checks;
            a = runtime::compile(*backend, program);
          } else {
            std::vector<std::string> loaded;
            runtime::CompilableProgram p = runtime::load_program_source(f, loaded);
            p.options.trust_code = o->trust_code;
            p.options.bounds_checks = !o->no_bounds_checks;
            if (o->verbose)
              for (const auto& note : loaded) notes += "weir: " + f + ": " + note + "\n";
            a = runtime::compile(*backend, p);
          }
          if (o->verbose)
            for (const auto& note : a.notes) notes += "weir: " + f + ": " + note + "\n";
          double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          char secs[32];
          std::snprintf(secs, sizeof secs, "%.2f s", s);
          line = "ok " + f + " (" + (a.cache_hit ? "cached" : "compiled") + ", " + secs + ") -> " +
                 a.library.string();
          // A corrupt entry that was rebuilt is said to be one.
          if (!a.cache_problem.empty())
            notes += "weir: warning: program cache: " + a.cache_problem + "; compiled it again\n";
          if (!o->emit_cpp.empty()) {
            bool cuda = o->backend == "gpu";
            line += std::string("\n  ") + (cuda ? "CUDA: " : "C++: ") +
                    emit_source(a, f, o->emit_cpp, cuda ? ".cu" : ".cpp").string();
          }
        } catch (const std::exception& e) {
          ++failed;
          if (dynamic_cast<const weir::UnknownNameError*>(&e)) ++misnamed;
          line = "FAILED " + f + "\n  " + for_command(e.what(), "compile");
        }
        std::lock_guard<std::mutex> lock(out_mu);
        std::cerr << notes;
        std::cout << "[" << ++done << "/" << n << "] " << line << std::endl;
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < workers; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    if (failed) {
      std::cout << failed << " of " << n << " program" << (n == 1 ? "" : "s") << " failed\n";
      // A misspelt NAME is a command-line mistake, as in every command.
      return misnamed ? kExitUsage : kExitInvalidInput;
    }
    return kExitOk;
  };
}

}  // namespace weir::cli
