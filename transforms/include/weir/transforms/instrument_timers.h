// InstrumentTimers: asks code generation for wall-clock timers around states, maps, library
// nodes, nested SDFG calls and copies (inside maps too), by setting DaCe's `instrument`
// attribute ("Timer"), as DaCe's `sdfg.instrument = dace.InstrumentationType.Timer` does per
// element (docs/adr/0048-profiling.md).
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
///  * inside map scopes, at any depth: every map entry, library node, nested SDFG call and copy
///    between two access nodes, and every state with nodes of an SDFG called inside a map scope
///    (and the same elements in it): code generation times them on the running thread's own
///    accumulators, merged when the timers are read (codegen/prelude/weir_profile.h), once per
///    thread where a map, library node or nested SDFG call is the whole body of the map around it.
/// Option `depth` (default 0: no limit) bounds the nesting level timed: an element outside map
/// scopes is at level 1, one inside one map (or a state of an SDFG called inside one map, or an
/// element of such a state outside its own maps) at level 2, and so on.
/// Option `bounded` (default false; `weir run --profile` without --profile-depth sets it): only
/// elements a call executes a bounded number of times: outside map scopes as above, inside them
/// only the map, library node or nested SDFG call that is the whole body of a top-level map
/// (timed once per thread); no copy inside a map and no state of an SDFG called inside one (a
/// scan's per-level states ran millions of timers per call: user33's J2).
/// Left alone: a nested SDFG call outside map scopes (its states are timed) and elements that
/// already carry another instrumentation type (a DaCe file's "GPU_Events" is kept). Returns the
/// number of elements it set (0 on a second run). Throws IRError naming the element when an
/// `instrument` value is not a string.
class InstrumentTimers final : public Pass {
 public:
  InstrumentTimers();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
