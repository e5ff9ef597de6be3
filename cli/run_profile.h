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

/// A copy of `sdfg` on which the instrument-timers pass ran (the caller's SDFG is not changed),
/// with its options `depth` (0: maps at every nesting level; 1: top-level maps only; ...) and
/// `bounded` (only elements timed a bounded number of times per call; `omitted`, when given, gets
/// how many elements the unbounded pass would have timed besides). The
/// copy is `sdfg` read back from its JSON, so its block and node ids are their positions, the ids
/// the report's SDFG (written as JSON) has. Library nodes the compile expands (library-expansion:
/// a reduction's Reduce node, ...) are expanded in the copy, after the pass (a timed node's
/// nested SDFG call stays timed), and read back once more: the copy is the SDFG compiled.
std::shared_ptr<const SDFG> with_timers(const SDFG& sdfg, long long depth = 0, bool bounded = false,
                                        std::size_t* omitted = nullptr);

/// The bandwidth probe weir uses: ../lib/libweir_stream_probe.so from the folder of the running
/// binary (/proc/self/exe); "" when that cannot be read.
std::filesystem::path probe_next_to_binary();

/// The line above the table: "profile (N calls; bandwidth probe: triad X GB/s):".
std::string profile_headline(const ProfileData& data);

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
  /// The report's data after the calls so far: the static costs evaluated with `symbols`, and
  /// the bandwidth probe measured with the library `probe` (the shared library
  /// libweir_stream_probe.so; "" or a missing file: no probe, the data says why). The
  /// heading line finish() prints before the table is headline(data()).
  const ProfileData& complete(const std::map<std::string, std::int64_t>& symbols,
                              const std::filesystem::path& probe);
  /// Records that `n` elements were left untimed by the default bound (with_timers' `omitted`):
  /// the table's note and the report say so.
  void set_omitted(std::size_t n) { data_.timers_omitted = static_cast<long long>(n); }
  /// The calls recorded so far.
  std::size_t calls() const { return data_.call_seconds.size(); }

 private:
  runtime::ProgramProfile timers_;
  std::shared_ptr<const SDFG> sdfg_;
  ProfileData data_;
};

}  // namespace weir::cli
