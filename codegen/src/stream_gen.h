// What a sequential innermost map does about memory traffic around its loops (made where asked
// by StateGen::emit_map and the tasklets' write-backs, docs/adr/0041): streaming stores of the
// rows it writes once (streaming_stores.cpp) and the prefetch of the rows the next iterations
// of its enclosing map gather (gather_prefetch.cpp), and of the blocks a nested SDFG call in a map
// reads next (block_prefetch.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "state_codegen.h"
#include "streaming_stores.h"

namespace weir::codegen::detail {

/// The memory-traffic part of a sequential innermost map's code: reads the StateGen it works for
/// (its frames, options and the plan of the map being emitted, StateGen::stream_) and names its
/// variables with StateGen::fresh.
class StreamGen {
 public:
  explicit StreamGen(StateGen& g) : g_(g) {}

  // --- streaming stores (streaming_stores.cpp) ---------------------------------------------
  /// What sequential innermost map `e` (its scope `nodes`; one that hoists) may stream: no rows
  /// for another target, in a nested SDFG its caller calls in parallel, without an enclosing map
  /// in this function, in MapVectorization's lane and remainder maps, inside a map that records
  /// "streaming stores off" (Frame::streaming_off), or where no output is a row written once
  /// (streamable_rows).
  StreamPlan plan_streaming(const MapEntry& e, const std::vector<NodeId>& nodes);
  /// The element of the row's target (its buffer where the row streams, else the output row)
  /// that tasklet `t`'s write-back to `loc` goes to while StateGen::stream_ is set (and the row
  /// is then used), or "" for a plain write-back.
  std::string streamed_element(const Tasklet& t, const Location& loc);
  /// Map `m`'s one loop, with each used row of `plan` tested at run time (weir_stream_wanted,
  /// after the call's store kind): in the copy of plain stores (`weir_stores_streamed` false, a
  /// constant in each copy), `nest` emits the loop over all of `m` writing each row straight to
  /// its output; in the streamed copy, in blocks of weir_stream_block points, the
  /// rows declared as buffers, each written through a pointer chosen per row (the buffer where
  /// the row streams, else the output), `nest` emits the loop over one block (a copy of `m` over
  /// the block), and each row's block is stored with weir_stream_store after it (nothing to copy
  /// where the loop wrote the output).
  void emit_streamed_nest(const StreamPlan& plan, const MapInfo& m,
                          const std::function<void(const MapInfo&, Writer&)>& nest, Writer& w);
  /// Map `e` (StateGen::emit_map) into `w`; where it ends with weir_stream_fence() (the maps
  /// inside it streamed rows: StateGen::stream_fences_), inside a block that chooses the store
  /// kind of this call from the map's measured times (weir_stream_choose: `weir_stores_streamed`,
  /// which the rows' run-time tests read) and records the call's time per point for that kind
  /// (weir_stream_ran). The map's code is emitted twice there, under `if (weir_stores_streamed)`
  /// and its `else`: in the second copy the compiler knows the constant false and drops the
  /// streamed path, so plain stores run the code that has no streaming at all (one copy with a
  /// run-time test cost laplacian 3%; docs/adr/0041, "session 35").
  void emit_map_choosing_stores(const MapEntry& e, Writer& w);
  /// The run-time choice of one thread or many for parallel map `e` (ParallelMapGen::
  /// emit_measured_choice between `parallel` and `sequential`, as `threads` recorded). Where the
  /// map fences streamed rows (`fence`), the store kind is chosen inside the parallel branch
  /// (emit_store_choice) and the one-thread branch stores plainly (its code for the constant
  /// false: store_kind_copy); StateGen::stores_chosen_ records the map.
  void emit_thread_choice(const MapEntry& e, const ThreadsVerdict& threads, bool fence,
                          const std::function<void(Writer&)>& parallel,
                          const std::function<void(Writer&)>& sequential, Writer& w);
  /// The block of fence map `e` that chooses the call's store kind around two copies of `loops`
  /// (`constexpr bool weir_stores_streamed` true, false), the statics of `declared` found in
  /// `loops` declared once before them (BlockStatics::share). Where every streamed row's sizes
  /// are known before the map's loops (StateGen::stream_gates_), a call in which none can stream
  /// (weir_stream_may) runs the plain copy without choosing or timing. emit_map_choosing_stores
  /// wraps a whole map in it; StateGen::emit_map the parallel branch of a measured thread choice,
  /// whose one-thread branch then stores plainly (docs/adr/0041, "session 38").
  void emit_store_choice(const MapEntry& e, const std::vector<BlockStatics::Declared>& declared,
                         Writer& loops, Writer& w);

  // --- prefetch of gathered rows (gather_prefetch.cpp) -------------------------------------
  /// Before the loops of map `e` whose hoisting `plan` recorded gathered rows: the invariant
  /// part evaluated for the iteration weir_prefetch_distance ahead of the enclosing map (its
  /// index checks replaced by clamping, nothing recorded) and the prefetch of its rows. Nothing
  /// without an enclosing one-dimensional map of step 1 in this function, for another target,
  /// or hoisted code of a shape it does not know.
  void emit_gather_prefetch(const MapEntry& e, const StateGen::HoistPlan& plan, Writer& w);
  /// Before the call of nested SDFG `n` (with a loop) in a map: a prefetch of the argument
  /// blocks the map's next iteration (its last parameter plus its step) passes, where each spans
  /// at most twice its elements and all at most 64 KiB together, tested at run time
  /// (block_prefetch.cpp; CodegenOptions::gather_prefetch; docs/adr/0041).
  void emit_block_prefetch(const NestedSDFGNode& n, Writer& w);

 private:
  /// Records for the fence of `plan` whether `row` (over range `r` of its map, `whole`: the C++
  /// test that it is its whole last dimension) can stream in a call, as a test of sizes known
  /// before the fence map's loops, or "true" where they depend on them (StateGen::stream_gates_).
  void note_gate(const StreamPlan& plan, const StreamedRow& row, const Range& r, const std::string& whole);

  StateGen& g_;
};

}  // namespace weir::codegen::detail
