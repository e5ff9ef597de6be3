// `weir run PROGRAM`: run a field-view program (FILE.py::PROGRAM; embedded or compiled) or an
// SDFG file (compiled) on a backend with arguments from .npy files and --set values; print a
// summary of the outputs and write them as .npy files.
#include <CLI/CLI.hpp>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "backend_choice.h"
#include "commands.h"
#include "gpu_on_host.h"
#include "openmp_threads.h"
#include "option_values.h"
#include "overwrite_guard.h"
#include "progress.h"
#include "run_argument_options.h"
#include "run_arguments.h"
#include "run_distributed.h"
#include "run_domain.h"
#include "run_inputs.h"
#include "run_outputs.h"
#include "run_parts.h"
#include "run_profile.h"
#include "run_shapes.h"
#include "run_sizes.h"
#include "run_target.h"
#include "targets.h"
#include "weir/runtime/call_domain_check.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/cuda_device.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/sdfg.h"

namespace weir::cli {
namespace {

using namespace weir::runtime;

std::string seconds(double s) {
  std::ostringstream os;
  if (s < 1e-3)
    os << std::fixed << std::setprecision(1) << s * 1e6 << " us";
  else if (s < 1)
    os << std::fixed << std::setprecision(3) << s * 1e3 << " ms";
  else
    os << std::fixed << std::setprecision(2) << s << " s";
  return os.str();
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "running on 2 OpenMP threads (--threads 2)": how many threads the maps of a compiled program
// run on, and what decided it.
std::string threads_line(int threads, unsigned asked) {
  std::string why = asked                            ? "--threads " + std::to_string(asked)
                    : std::getenv("OMP_NUM_THREADS") ? std::string("OMP_NUM_THREADS")
                                                     : "one per hardware thread; --threads N sets it";
  return "running on " + std::to_string(threads) + " OpenMP thread" + (threads == 1 ? "" : "s") + " (" + why +
         ")";
}

// `message` with the canonical path of `program`'s .py file replaced by the path as typed:
// compiled programs name their source by its canonical path (so that the program cache has one
// entry however the path is spelt), messages name it as the user wrote it.
std::string as_typed(std::string message, const std::string& program) {
  if (!is_field_view_reference(program)) return message;
  const std::string file = program.substr(0, program.rfind("::"));
  std::error_code ec;
  const std::string canonical =
      std::filesystem::weakly_canonical(std::filesystem::absolute(file, ec), ec).string();
  if (ec || canonical.empty() || canonical == file) return message;
  for (auto at = message.find(canonical); at != std::string::npos;
       at = message.find(canonical, at + file.size()))
    message.replace(at, canonical.size(), file);
  return message;
}

// "out_x float64 (48, 4), out_y float64 (48, 4)".
std::string listed(const std::vector<std::string>& names, const Arguments& args) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n + " " + args.arrays.at(n).describe();
  return s;
}

int run_command(const RunOptions& given_options) {
  // Without --backend: field-view programs are interpreted, SDFG files (which only compiled
  // backends run) are compiled for the CPU.
  RunOptions o = given_options;
  if (o.backend.empty()) o.backend = is_field_view_reference(o.program) ? "embedded" : "cpu";
  std::unique_ptr<Backend> backend = choose_backend(o.backend, o.gpu_arch, o.exact_math);
  // Running needs a device before anything is compiled for it.
  if (o.backend == "gpu") require_cuda_device();
  if (!o.out_dir.empty()) check_output_dir(o.out_dir);
  if (!o.save_inputs.empty()) {
    if (!o.random_inputs)
      throw UsageError("--save-inputs " + o.save_inputs +
                       " saves the inputs --random-inputs makes: give --random-inputs too");
    check_output_dir(o.save_inputs);
  }
  RunTarget target = load_target(o, *backend);
  const Signature& sig = target.sig;
  std::size_t timers_omitted = 0;
  if (o.profile) {
    // Timers are compiled in (docs/adr/0048-profiling.md): the embedded backend has none to read.
    if (target.field_view || !target.sdfg.sdfg)
      throw UsageError("--profile times compiled code: run '" + o.program + "' with --backend cpu");
    if (o.backend == "gpu")
      throw UsageError(
          "--profile times CPU code only so far (CUDA events are not implemented): use --backend cpu");
    target.sdfg.sdfg = with_timers(*target.sdfg.sdfg, o.profile_depth, o.profile_bounded, &timers_omitted);
  }
  if (!o.domain.empty()) refuse_domain(o.domain, target);

  // Arguments: --in-dir, then --in (which wins), --set-json, then --set (which wins).
  GivenArguments given = gather_arguments(
      o, sig, backend->allocator(), target.field_view_sig.params.empty() ? nullptr : &target.field_view_sig);
  Arguments& args = given.args;
  // An --out that would replace an input is a mistake in the command line: refused before compiling.
  if (!o.out_dir.empty()) {
    std::vector<std::string> written;
    for (const auto& p : sig.params)
      if (p.kind == Parameter::Kind::Array && p.written) written.push_back(p.name);
    refuse_outputs_over_inputs(o.out_dir, written, given.input_files);
  }
  // Nor may the profile report replace an input, the program's own file (it was read) or any
  // Python source (`--profile=advect.py` replaced the program with JSON).
  if (!o.profile_file.empty()) {
    refuse_python_source_output("--profile=" + o.profile_file, o.profile_file, "profile report");
    refuse_unwritable_output("--profile=" + o.profile_file, o.profile_file);  // before compiling
    std::vector<std::filesystem::path> read = given.input_files;
    read.emplace_back(o.program.substr(0, o.program.rfind("::")));
    refuse_overwriting_input("--profile=" + o.profile_file, o.profile_file, read);
  }
  auto [made, allocated] = complete_arguments(o, target, *backend, given);

  std::string origin = target.field_view ? target.field_view->origin : target.sdfg.origin;
  std::cout << "program '" << sig.program_name << "' (" << origin << ") on backend '" << backend->name()
            << "'\n";
  if (!target.field_view && target.sdfg.sdfg)
    if (std::string note = gpu_on_host_note(*target.sdfg.sdfg); !note.empty()) std::cout << note << "\n";
  if (!made.empty()) {
    std::cout << "random inputs (seed " << o.seed << "): " << listed(made, args) << "\n";
    if (!o.save_inputs.empty()) {
      std::vector<std::pair<std::string, const Field*>> files;
      for (const auto& n : made) files.emplace_back(n, &args.arrays.at(n));
      write_outputs(o.save_inputs, files, given.input_files, "--save-inputs");
      std::cout << "saved " << made.size() << " random input" << (made.size() == 1 ? "" : "s") << " to "
                << o.save_inputs << " (NAME.npy each)\n";
    }
  }
  if (!allocated.empty()) std::cout << "outputs allocated as zeros: " << listed(allocated, args) << "\n";
  if (o.threads) ::setenv("OMP_NUM_THREADS", std::to_string(o.threads).c_str(), 1);  // before OpenMP starts
  bool progress = progress_wanted(o.progress);
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<Program> runnable;
  std::filesystem::path library;  // the compiled program's
  if (target.field_view) {
    runnable = prepare(*backend, *target.field_view);
    std::cout << "interpreted by the embedded backend (nothing to compile)\n";
  } else {
    // What a compiled backend made of a field-view program (an SDFG file runs as it is), once.
    if (is_field_view_reference(o.program))
      std::cout << "lowered to an SDFG and optimized by auto-optimize-"
                << (o.backend == "gpu" ? "gpu" : "cpu")
                << " ('weir sdfg' and 'weir optimize' write and tune it yourself)\n";
    CompilationArtifact a;
    {
      Progress p("compiling '" + sig.program_name + "' (C++/OpenMP)", progress);
      a = compile(*backend, target.sdfg);
    }
    double compile_s = since(t0);
    // From the cache now; a cached library that fails to load is compiled again (`loaded` says).
    CompilationArtifact loaded;
    runnable = prepare(*backend, target.sdfg, &loaded);
    library = loaded.library;
    if (target.orchestration) runnable = with_orchestration_checks(runnable, *target.orchestration);
    if (target.program) runnable = with_call_domain_checks(runnable, *target.program);
    // A corrupt cache entry is said to be one, never "loaded from cache".
    auto warn = [](const std::string& problem) {
      std::cerr << "weir: warning: program cache: " << problem << "; compiled it again\n";
    };
    if (!a.cache_problem.empty()) warn(a.cache_problem);
    if (!loaded.cache_problem.empty() && loaded.cache_problem != a.cache_problem) warn(loaded.cache_problem);
    if (a.cache_hit && loaded.cache_hit)
      std::cout << "loaded from cache in " << seconds(since(t0)) << " (" << a.library.string() << ")\n";
    else
      std::cout << "compiled in " << seconds(a.cache_hit ? since(t0) : compile_s)
                << " (cached for the next run: " << loaded.library.string() << ")\n";
  }
  if (int threads = set_openmp_threads(o.threads); !target.field_view && threads > 0)
    std::cout << threads_line(threads, o.threads) << "\n";
  std::unique_ptr<RunProfiler> profiler;
  if (o.profile) {
    profiler = std::make_unique<RunProfiler>(library, target.sdfg.sdfg);
    profiler->set_omitted(timers_omitted);
  }

  // Every call starts from the inputs: arrays the program writes are restored before each repeat.
  std::map<std::string, Field> pristine;
  if (o.repeat > 1)
    for (const auto& p : sig.params)
      if (p.written && args.arrays.count(p.name)) pristine.emplace(p.name, args.arrays.at(p.name).clone());
  for (int i = 0; i < o.repeat; ++i) {
    if (i > 0)
      for (const auto& [name, f] : pristine) {
        Field& dst = args.arrays.at(name);
        std::memcpy(dst.data(), f.data(), f.nbytes());
      }
    auto t = std::chrono::steady_clock::now();
    try {
      Progress p("call " + std::to_string(i + 1) + (target.field_view ? " (embedded backend)" : ""),
                 progress);
      runnable->run(args);
    } catch (const weir::Error& e) {
      const std::string what = as_typed(e.what(), o.program);
      // A domain not covered: an output larger than an input along a dimension is the usual
      // cause, so name both arrays' shapes (not for an orchestration function, whose fields
      // have sizes of their own, half levels longer than full ones; its error names the field).
      std::string sizes;
      if (what.find("outside its domain") != std::string::npos ||
          what.find("does not cover the output") != std::string::npos)
        sizes = (target.orchestration ? std::string() : larger_output_note(sig, args)) +
                short_table_note(target.connectivities, sig, args);
      // A @field_operator run directly writes its result over all of `__out`, which a stencil
      // with shifted reads cannot cover: say how to give it a smaller domain (only where the
      // error says shifts are the cause).
      if (!sig.find("__out") || what.find("shifted reads") == std::string::npos)
        throw weir::Error(what + sizes);
      std::vector<std::string> dims;
      for (const auto& x : sig.find("__out")->shape) dims.push_back(size_dimension(x.str()));
      std::string slice = needed_out_slice(e.what(), dims);
      if (slice.empty()) {  // no range in the message: leave every dimension to the reader
        slice = "out[";
        for (std::size_t k = 0; k < dims.size(); ++k) slice += k ? ", :" : ":";
        slice += "]";
      }
      throw weir::Error(
          what + sizes + "\n  hint: '" + sig.program_name +
          "' is a @field_operator run directly, so its result must cover the whole output array "
          "'__out' (shaped like its inputs); to compute it on part of the domain, run a @program "
          "that calls it with a sliced out=, e.g. " +
          operator_call(target, slice));
    }
    const double call_s = since(t);
    std::cout << "call " << (i + 1) << ": " << seconds(call_s) << "\n";
    if (profiler) profiler->after_call(call_s);
  }
  if (profiler) {
    std::map<std::string, std::int64_t> symbols;
    with_int32_tables(target.connectivities, sig, args,
                      [&] { symbols = bind_arguments(sig, args).symbols(); });
    profiler->finish(symbols, o.profile_file, std::cout);
  }

  finish_outputs(sig, args, o.out_dir, given.input_files);
  return kExitOk;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "run", "Run a program (FILE.py::PROGRAM or an SDFG file) on a backend with arguments from .npy files");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("program", o->program,
                  kDefinitionReferenceHelp + std::string(", or an SDFG file (FILE.sdfg, FILE.sdfgz)"))
      ->required();
  cmd->add_option(
      "--backend", o->backend,
      "embedded (interprets field-view programs; their default), cpu (compiled C++/OpenMP; the default for "
      "SDFG files) or gpu (CUDA, compiled by nvcc: needs a CUDA device)");
  cmd->add_option("--gpu-arch", o->gpu_arch, kGpuArchHelp);
  cmd->add_flag("--exact-math", o->exact_math, kExactMathHelp);
  add_argument_options(*cmd, *o);
  cmd->add_option("--out", o->out_dir,
                  "DIR: write NAME.npy for every array the program writes (after it succeeded)");
  cmd->add_flag(
      "--random-inputs", o->random_inputs,
      "Fill array arguments not given with seeded uniform values ([0,1) floats, 0..9 integers, valid indices "
      "in "
      "connectivity tables); sizes from --set (for .py programs --set DIM=N sizes every field along DIM, "
      "--set FIELD.DIM=N one field)");
  cmd->add_option("--save-inputs", o->save_inputs,
                  "DIR: write NAME.npy for every input --random-inputs made (to check a run against NumPy "
                  "with the same inputs)");
  cmd->add_option("--seed", o->seed, "Seed of --random-inputs (default 0)");
  cmd->add_flag("--trust-code", o->trust_code, kTrustCodeHelp);
  cmd->add_flag("--no-bounds-checks", o->no_bounds_checks, kNoBoundsChecksHelp);
  cmd->add_flag("--verbose", o->verbose, kVerboseHelp);
  cmd->add_option("--repeat", o->repeat,
                  "Run N times (each from the same inputs), printing each call's wall time")
      ->check(integer_in(1, INT_MAX));
  cmd->add_option("--threads", o->threads,
                  "OpenMP threads of a compiled program (default, or 0: OMP_NUM_THREADS if set, else one per "
                  "hardware thread; `weir run` prints the count used; at most " +
                      std::to_string(kMaxOpenMPThreads) + "); the embedded backend runs on one thread")
      ->check(integer_in(0, kMaxOpenMPThreads));
  cmd->add_option("--domain", o->domain,
                  "DIM=START:STOP[,...]: runs nothing; for a @field_operator, prints the @program call that "
                  "computes it on that domain (weir runs a field operator over its whole output)");
  auto* profile = cmd->add_option(
      "--profile", o->profile_file,
      "[FILE]: time every state, map (nested ones per thread), library node and copy (compiled with timers, "
      "docs/adr/0048-profiling.md), print the 10 slowest with their GB/s, share of a bandwidth probe and "
      "GFLOP/s, and write the report to FILE (DaCe's instrumentation-report JSON, which SDFV overlays); "
      "give FILE as --profile=FILE or after the program");
  profile->expected(0, 1);
  // `--profile prog.py::p` would take the program as the report's file.
  profile->check(CLI::Validator(
      [](std::string& file) {
        const bool program = file.find("::") != std::string::npos ||
                             std::filesystem::path(file).extension() == ".sdfg" ||
                             std::filesystem::path(file).extension() == ".sdfgz";
        return program ? "'" + file +
                             "' is a program, not a report file: write --profile=FILE, or --profile after "
                             "the program"
                       : std::string();
      },
      "FILE", "report file"));
  auto* profile_depth =
      cmd->add_option("--profile-depth", o->profile_depth,
                      "N: with --profile, time elements down to nesting level N only (1: outside maps, 2: "
                      "also directly inside one map, ...; 0: every level; default: only elements timed a "
                      "bounded number of "
                      "times per call: outside maps and the whole body of a top-level map)")
          ->check(integer_in(0, INT_MAX));
  cmd->add_option(
         "--decompose", o->decompose,
         "I,J: run under mpirun with the program's domain split over the ranks along these dimensions "
         "(halos exchanged with MPI; rank 0 gathers and writes the outputs; docs/distributed.md)")
      ->delimiter(',');
  cmd->add_option(
      "--decomposed-sdfg", o->decomposed_sdfg,
      "FILE: with --decompose or --parts, rank 0 writes the SDFG it runs, with its HaloExchange (or "
      "UnstructuredHaloExchange) nodes (weir view FILE)");
  cmd->add_flag("--overlap", o->overlap,
                "With --decompose: split each halo exchange into start and wait and compute the interior of "
                "the map that reads it in between (HaloExchangeOverlap; docs/distributed.md)");
  cmd->add_option("--process-grid", o->process_grid,
                  "AxB: ranks along each --decompose dimension (default: MPI_Dims_create's balanced grid)");
  cmd->add_option(
      "--parts", o->parts_dir,
      "DIR: run an unstructured program under mpirun on the mesh partition `weir mesh --parts N` "
      "wrote (halos exchanged with MPI; rank 0 gathers and writes the outputs; docs/distributed.md)");
  cmd->add_flag(
      "--progress", o->progress,
      "Report the elapsed time of compiling and of each call on stderr also when stderr is not a terminal");
  return [o, profile, profile_depth]() {
    o->profile = profile->count() > 0;
    o->profile_bounded = profile_depth->count() == 0;
    if (profile_depth->count() > 0 && !o->profile)
      throw UsageError("--profile-depth " + std::to_string(o->profile_depth) +
                       " limits the timers of --profile: give --profile too");
    // Under mpirun, before --backend gets its default (--decompose compiles for the CPU).
    if (o->overlap && o->decompose.empty()) throw UsageError("--overlap needs --decompose");
    if (!o->decompose.empty()) return run_distributed(*o);
    if (!o->parts_dir.empty()) return run_parts(*o);
    // Without --backend: what runs the program given (the embedded backend interprets only
    // field-view programs).
    if (o->backend.empty()) o->backend = is_field_view_reference(o->program) ? "embedded" : "cpu";
    try {
      return run_command(*o);
    } catch (const UsageError& e) {
      std::cerr << "weir: error: " << e.what() << "\n";
      return kExitUsage;
    }
  };
}

}  // namespace weir::cli
