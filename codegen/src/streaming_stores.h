// Streaming stores out of a sequential innermost map (streaming_stores.cpp, docs/adr/0041,
// "streaming stores"): which outputs of its hoisted tasklet are rows written once, and how the
// map's loop then runs in blocks whose rows go to memory through buffers and non-temporal
// stores. StateGen::emit_map plans and emits them (StreamGen, stream_gen.h); the tasklet's write-backs
// (tasklet_codegen.cpp) go into the buffers.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "state_codegen.h"

namespace weir::codegen::detail {

/// An output of a tasklet of a sequential innermost map that every iteration writes once, at
/// the next element of one contiguous row (StreamPlan).
struct StreamedRow {
  NodeId tasklet = kNoNode;  ///< the tasklet that writes it
  std::string data;          ///< the container
  /// The tasklet's memlet: one element, the map's parameter (+ c) in the last dimension.
  Subset subset;
  /// The elements of the last dimension the map leaves unwritten before and after the row: 0
  /// (the whole dimension, adjacent rows); otherwise the row streams only when long
  /// (weir_stream_wanted's `whole`, tested at run time where the gaps are symbolic).
  sym::Expr head{0}, tail{0};
  std::string buffer;  ///< C++ name of the block's buffer of the row
  /// C++ name of the pointer the block's loop writes the row through: the buffer where the row
  /// streams, else the output itself.
  std::string target;
  std::string wanted;  ///< C++ name of the bool that says whether the row is streamed at run time
};

/// What a sequential innermost map streams (StreamGen::plan_streaming): set by emit_map while it
/// emits the map's body, filled by the tasklets' write-backs.
struct StreamPlan {
  std::string param;                   ///< the map's one parameter
  std::string block_start, block_end;  ///< C++ names of a block's first and last value of it
  std::vector<StreamedRow> rows;       ///< the rows that may be streamed
  std::set<std::string> used;          ///< the containers whose write-backs went into buffers
  /// The map whose loops end with weir_stream_fence() on each thread that ran them (the
  /// innermost enclosing parallel map, else the outermost enclosing map).
  NodeId fence_at = kNoNode;
  /// The row of `data` that tasklet `tasklet` writes through `subset`, or null.
  const StreamedRow* row(NodeId tasklet, const std::string& data, const Subset& subset) const;
};

/// `code` (a fence map's code, or a part of it) as the copy in which `weir_stores_streamed` is the
/// constant `streamed`: each streamed nest keeps only its blocked loop (streamed) or its plain one
/// (StreamGen::emit_streamed_nest), so the compiler reads one loop of the body per nest and copy.
Writer store_kind_copy(const Writer& code, bool streamed);

/// Whether map `m` records "streaming stores off" (kStreamingStoresAttribute,
/// weir/sdfg/streaming_choice.h: cpu-schedules' `streaming_stores=false`). Throws CodegenError at
/// `where` for a value other than "off" or "on".
bool streaming_off(const MapInfo& m, const ElementRef& where);

/// The outputs of the tasklets of one-dimensional map `e` of step 1 (its scope `nodes`:
/// StateGen::scope_nodes, in `st` of `sdfg`) that may be streamed: a memlet straight to the
/// map's exit that writes one element of a non-transient array in host memory, without
/// write-conflict resolution, at the map's parameter plus a constant in the array's last
/// dimension (unit stride) and at indices without the parameter in the others (the elements of
/// that dimension the map leaves unwritten: StreamedRow::head, tail); the only write of the
/// array in the scope, and nothing in the scope reads it. (C++ names are not filled in.)
std::vector<StreamedRow> streamable_rows(const SDFG& sdfg, const SDFGState& st, const MapEntry& e,
                                         const std::vector<NodeId>& nodes);

}  // namespace weir::codegen::detail
