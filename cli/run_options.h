// The options of `weir run` (cmd_run.cpp parses them; the run_*.cpp steps read them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weir::cli {

/// `weir run`'s command line as parsed by CLI11 (see add_run_command for each option's meaning).
struct RunOptions {
  std::string program;
  bool exact_math = false;        // --exact-math (cpu backend)
  std::string backend, gpu_arch;  // backend "": embedded for FILE.py::NAME, cpu for SDFG files
  std::vector<std::string> ins, sets, set_jsons, includes, in_dirs;
  std::string out_dir, domain, save_inputs;
  bool random_inputs = false, progress = false;
  bool trust_code = false;
  bool no_bounds_checks = false;  // --no-bounds-checks: unsafe, generated code without checks
  bool verbose = false;           // --verbose: what loading changed in an SDFG file, on stderr
  std::uint64_t seed = 0;
  int repeat = 1;
  bool profile = false;         // --profile [FILE]: timers, the table of the slowest elements
  std::string profile_file;     // its FILE: the report (DaCe's instrumentation-report JSON)
  int profile_depth = 0;        // --profile-depth N: maps timed down to nesting level N (0: all)
  bool profile_bounded = true;  // no --profile-depth: only elements timed a bounded number of times
  unsigned threads = 0;
  bool lowered_only = false;
  std::vector<std::string> decompose;  // --decompose I,J: run on every MPI rank (cli/run_distributed.h)
  std::string decomposed_sdfg;  // --decomposed-sdfg FILE: rank 0 writes the SDFG with its halo exchanges
  bool overlap = false;         // --overlap: with --decompose, interior computed while halos are in flight
  std::string parts_dir;        // --parts DIR: run on a mesh partition under mpirun (cli/run_parts.h)
  std::string process_grid;  // --process-grid 2x2: ranks per decomposed dimension  // weir tune: a field-view
                             // program's SDFG as lowered, not auto-optimized
};

}  // namespace weir::cli
