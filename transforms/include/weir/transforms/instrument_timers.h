// InstrumentTimers: asks code generation for wall-clock timers around states, maps (nested ones
// included), library nodes and copies, by setting DaCe's `instrument` attribute ("Timer"), as DaCe's
// `sdfg.instrument = dace.InstrumentationType.Timer` does per element (docs/adr/0048-profiling.md).
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "instrument-timers" (off unless run: `weir run --profile` runs it on its own copy).
/// Sets `instrument` = "Timer" (weir/sdfg/instrumented.h) on
///  * every state with nodes of the SDFG and of every SDFG nested outside any map scope (an empty
///    state generates no code to time);
///  * in those states, every map entry, library node and copy between two access nodes that is
///    not inside a map scope (its timer then encloses the whole loop nest, outside the OpenMP
///    parallel region);
///  * every map entry inside a map scope, and every map entry of an SDFG nested inside a map
///    scope (at any depth): code generation times each execution of such a map on the running
///    thread's own accumulators, merged when the timers are read (codegen/prelude/weir_profile.h).
/// Option `depth` (default 0: no limit) bounds the map nesting level timed: a top-level map is at
/// level 1, a map inside it (or inside an SDFG called inside it) at level 2, and so on.
/// Left alone: states, library nodes, nested SDFG calls and copies inside a map scope (a state of
/// an SDFG called per point included) and elements that already carry another instrumentation
/// type (a DaCe file's "GPU_Events" is kept). Returns the number of elements it set (0 on a
/// second run). Throws IRError naming the element when an `instrument` value is not a string.
class InstrumentTimers final : public Pass {
 public:
  InstrumentTimers();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
