// Small parallel maps run sequentially: an OpenMP fork/join costs microseconds, more than a
// cheap loop of a few thousand iterations (jacobi_1d's 398-point steps ran 2x slower than
// NumPy's). A map whose size is not known is emitted twice, `if (points >= kMinParallelIterations)`
// the parallel loop, else the same loops without OpenMP: an `if(...)` clause on the pragma would
// still enter the OpenMP runtime (a team of one thread, microseconds per map: jacobi_1d's steps
// ran 25x slower than plain loops with it). Only maps whose body is flat (tasklets and copies,
// no inner scope, nested SDFG or library node) get it, since a few iterations of a big body
// still pay off. The count is of all the map's points (a 2-D map parallel over its rows only
// does the work of all its points in the region). Maps nested in the body (cpu-schedules splits
// the innermost dimension of a parallel map into a sequential inner map) count with their
// points, as long as their sizes do not depend on the enclosing parameters and their own
// bodies are flat in the same sense: before, a split 2-D map of 80 x 80 points paid a
// fork/join per call where the same map unsplit ran sequentially. A nested SDFG counts as flat
// when its work per call is bounded: no loop, no cycle of states, no map or library node, only
// tasklets, copies and such nested SDFGs (the masked update NumPy's `Z[inside] = Z[inside]**2 + C`
// becomes in DaCe's mandelbrot1: 60 steps of 15,625 points each paid a fork/join and ran 3.8x
// slower than NumPy). Points are a guess at work: a min-reduction point costs a quarter of a
// nanosecond, a nested SDFG with loops (or maps over data-dependent ranges) or a library node an
// unknown amount. So every such choice is made at run time (emit_measured_choice; CPU code): the
// first call runs on one thread below 32768 points of a flat body, else (and always where the
// work of a point is unknown: DaCe's maps are all parallel, and one thread first cost deriche's
// column recurrences 2x) in parallel, and each branch measures its
// time per point (omp_get_wtime; a branch's first run is a warm-up, not kept); the other branch
// is tried where that costs little, then the faster per point runs, and every 64th choice the
// other one again, so a time measured once under load or a cold cache does not decide for good
// (weir_run_sequentially in the prelude). spmv's rows after
// LoopToMap (1,024 nested SDFGs of ~4 nonzeros, ~30 us on one thread) paid a 30-40 us fork/join;
// azimint_hist's four min/max reductions over 40,000 points (~10 us each) paid one each.
// Which of these a map gets (one thread, many, measured) is decided by weir/sdfg/thread_choice.h,
// recorded on the map by cpu-schedules (ADR 0034); this file emits it.
#include <stdexcept>
#include <string>

#include "parallel_map_gen.h"
#include "state_codegen.h"
#include "weir/sdfg/thread_choice.h"

namespace weir::codegen::detail {

namespace {

/// Flat maps below this many points run on one thread without measuring: even at 5 ns a point
/// they take less than a passive fork/join.
constexpr long long kAlwaysSequential = 4096;

}  // namespace

ThreadsVerdict ParallelMapGen::threads_verdict(const MapEntry& e) const {
  // What cpu-schedules recorded; a map it did not schedule gets the same analysis here.
  try {
    if (auto recorded = recorded_threads(*e.map)) return *recorded;
  } catch (const std::invalid_argument& ex) {
    throw CodegenError(g_.ref(e), std::string("map attribute ") + ex.what());
  }
  return choose_threads(g_.st, g_.scopes_, e);
}

void ParallelMapGen::emit_measured_choice(BlockStatics& statics, const sym::Expr& points, bool flat,
                                          const std::function<void(Writer&)>& parallel,
                                          const std::function<void(Writer&)>& sequential, Writer& w,
                                          const std::string& parallel_anyway) {
  // The seconds per point of the map's last runs, per map (a block-scope static) and shared by
  // the threads that call the program; each branch measures itself (omp_get_wtime, ~20 ns).
  // A flat body of fewer than kAlwaysSequential points runs on one thread unmeasured: two clock
  // reads per run were 40% of jacobi_1d's 400-point steps.
  w.open("{");
  w.line(statics.declare("static", "weir_map_times", "weir_times"));
  w.line("const double weir_points = static_cast<double>(" + sym_cpp(points) + ");");
  std::string tiny = flat ? "weir_points < " + std::to_string(kAlwaysSequential) + ".0" : "false";
  w.line("const bool weir_tiny = " + tiny + ";");
  w.line("const double weir_t0 = weir_tiny ? 0.0 : omp_get_wtime();");
  // Work per point unknown (a body with loops or library nodes): the first runs are parallel.
  std::string one_thread =
      std::string("weir_run_sequentially(weir_times, weir_points") + (flat ? "" : ", true") + ")";
  if (!parallel_anyway.empty()) one_thread = "(" + one_thread + " && !" + parallel_anyway + ")";
  w.open("if (weir_tiny || " + one_thread + ") {");
  sequential(w);
  w.line(
      "if (!weir_tiny) weir_map_ran(weir_times.sequential, weir_times.sequential_runs, (omp_get_wtime() - "
      "weir_t0) / weir_points);");
  w.dedent();
  w.line("} else {");
  w.indent();
  parallel(w);
  w.line(
      "weir_map_ran(weir_times.parallel, weir_times.parallel_runs, (omp_get_wtime() - weir_t0) / "
      "weir_points);");
  w.close();
  w.close();
}

}  // namespace weir::codegen::detail
