// `weir compile FILE...`: compile SDFG files into the program cache, several at once (one
// compiler process per program, at most as many as hardware threads). A failure in one program
// is reported and does not stop the others.
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "commands.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/errors.h"

namespace weir::cli {

Action add_compile_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compile", "Compile SDFG files into the program cache (in parallel)");
  struct Opts {
    std::vector<std::string> files;
    std::string backend = "cpu";
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, "SDFG files (.sdfg/.sdfgz)")->required();
  cmd->add_option("--backend", o->backend, "A compiled backend (default: cpu)");
  cmd->add_option("-j,--jobs", o->jobs, "Compiler processes at once (default: hardware threads)");
  return [o]() {
    std::unique_ptr<runtime::Backend> backend;
    try {
      backend = runtime::make_backend(o->backend);
    } catch (const runtime::BackendError& e) {
      std::cerr << "weir: error: --backend: " << e.what() << "\n";
      return kExitUsage;
    }
    std::size_t n = o->files.size();
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    unsigned workers = static_cast<unsigned>(std::min<std::size_t>(n, o->jobs ? o->jobs : hw));
    std::atomic<std::size_t> next{0}, done{0}, failed{0};
    std::mutex out_mu;
    auto worker = [&] {
      for (std::size_t i; (i = next++) < n;) {
        const std::string& f = o->files[i];
        auto t0 = std::chrono::steady_clock::now();
        std::string line;
        try {
          auto program = runtime::load_program_source(f);
          auto a = runtime::compile(*backend, program);
          double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          char secs[32];
          std::snprintf(secs, sizeof secs, "%.2f s", s);
          line = "ok " + f + " (" + (a.cache_hit ? "cached" : "compiled") + ", " + secs + ") -> " + a.library.string();
        } catch (const std::exception& e) {
          ++failed;
          line = "FAILED " + f + "\n  " + e.what();
        }
        std::lock_guard<std::mutex> lock(out_mu);
        std::cout << "[" << ++done << "/" << n << "] " << line << std::endl;
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < workers; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    if (failed) {
      std::cout << failed << " of " << n << " program" << (n == 1 ? "" : "s") << " failed\n";
      return kExitInvalidInput;
    }
    return kExitOk;
  };
}

}  // namespace weir::cli
