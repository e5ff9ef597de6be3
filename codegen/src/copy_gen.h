// Copies of a state's dataflow (copy_codegen.cpp): what an access node copies to the access nodes
// after it, and a scope's copies between an outer container and a local one. Made per access
// node by StateGen::emit_untimed.
#pragma once

#include <string>

#include "state_codegen.h"

namespace weir::codegen::detail {

/// The copy family of a state's code generation: reads the StateGen it works for (its bindings
/// and frames), writes the copies.
class CopyGen {
 public:
  explicit CopyGen(StateGen& g);

  /// An access-node copy (also scope entry -> access node, access node -> scope exit).
  void emit_access(const AccessNode& n, Writer& w);

 private:
  /// The copy of edge `e` from container `src` to `dst`: the target's own copy where its emitter
  /// takes it, else element loops (with write-conflict resolution) or one memcpy.
  void emit_copy(const DataflowEdge& e, const std::string& src, const std::string& dst, Writer& w);
  /// emit_copy inside its timer when the edge's `instrument` is Timer (timers.cpp).
  void emit_copy_timed(const DataflowEdge& e, const std::string& src, const std::string& dst, Writer& w);

  StateGen& g_;
  SdfgGen& sg;
  const SDFGState& st;
};

}  // namespace weir::codegen::detail
