// How the `weir tune` section times `--auto cpu` against the tuned program: the protocol of
// `weir tune` itself (cli/tune_measure.cpp), so that the section's speed-up and tune's own one
// measure the same thing (docs/adr/0056-weir-tune.md, 2026-12-06, session 28).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "weir/runtime/arguments.h"

namespace weir::bench {

/// One side of the comparison: a call of a program on the shared arguments (the program was
/// bound to them once), and its OpenMP threads.
struct TimedCall {
  std::function<void()> call;
  int threads = 0;
};

/// Times `a` and `b` alternately on one set of arguments `args`, as `weir tune` times a
/// candidate against its baseline: the arrays named in `written` (those the programs write) are
/// restored from a copy taken here before every call, outside the timed region, so every call
/// starts from the same inputs in the same cache state, whichever program ran before. `warmup`
/// untimed rounds, then `rounds` timed ones (a, then b); returns each call's seconds, a's then
/// b's. Both programs must have been bound to `args` itself, not to a copy: programs timed on
/// arrays of their own, without restoring, measured other cache states (jacobi_2d: 0.70x in
/// weir-bench for a script `weir tune` measured at 1.13x). With `warm` (as `weir tune` times
/// since session 35), every timed call follows an untimed call of the same program from the
/// restored inputs: a timed call finds the caches as its own program leaves them, not as the
/// other program did.
std::pair<std::vector<double>, std::vector<double>> time_like_weir_tune(
    const TimedCall& a, const TimedCall& b, runtime::Arguments& args, const std::vector<std::string>& written,
    int warmup, int rounds, bool warm = false);

}  // namespace weir::bench
