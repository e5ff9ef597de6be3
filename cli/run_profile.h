// `weir run --profile [FILE]` (docs/adr/0048-profiling.md): the SDFG compiled with timers (the
// instrument-timers pass), the timers read after every call, the bandwidth probe measured after
// the last, the table of the slowest elements printed and the report written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>

#include "profile_report.h"
#include "weir/runtime/program_profile.h"
#include "weir/sdfg/sdfg.h"

namespace weir::cli {

/// A copy of `sdfg` on which the instrument-timers pass ran (the caller's SDFG is not changed).
std::shared_ptr<const SDFG> with_timers(const SDFG& sdfg);

/// The timers of one profiled run.
class RunProfiler {
 public:
  /// Reads the timers of the loaded program `library`, compiled from `sdfg` (with_timers' copy,
  /// whose static costs the report gives). Throws LoadError when the library has no timers.
  RunProfiler(const std::filesystem::path& library, std::shared_ptr<const SDFG> sdfg);
  /// Records the call that just ended, `seconds` long as the caller measured it.
  void after_call(double seconds);
  /// Evaluates the static costs with the call's `symbols`, measures the bandwidth probe (the
  /// library weir_stream_probe next to the weir binary; without it the report says why), prints
  /// the table to `out` and writes the report to `file` ("" writes none). Throws weir::Error when
  /// `file` cannot be written.
  void finish(const std::map<std::string, std::int64_t>& symbols, const std::string& file, std::ostream& out);

 private:
  runtime::ProgramProfile timers_;
  std::shared_ptr<const SDFG> sdfg_;
  ProfileData data_;
};

}  // namespace weir::cli
