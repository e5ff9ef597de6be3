// Fusion by recomputation through neighbour reads in tasklet code (docs/adr/0052, "2026-12-06,
// later"): a consumer that reads a producer's transient as `__all_T[idx, __K]` inside its code
// gets the producer's statements inlined at each such read. Private to the transforms layer;
// used by the CodeReadFusion transformation and the greedy fusion pass.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms::detail {

/// How the producer map A (exit `exit_a`, one tasklet writing transient T[params] over the whole
/// of T) is inlined into the one tasklet of map B that reads T through a dynamic connector in its
/// code; filled by analyze_code_read.
struct CodeReadPlan {
  NodeId entry_a = kNoNode, exit_a = kNoNode, t_node = kNoNode, entry_b = kNoNode;
  NodeId tasklet_a = kNoNode, tasklet_b = kNoNode;
  std::string t_data;
  /// T has access nodes in other states whose values never reach a read of this state's write:
  /// T's descriptor stays.
  bool t_elsewhere = false;
  std::size_t points = 0;   ///< subscripts of T in B's code (one copy of A each)
  std::size_t reads_a = 0;  ///< element reads of one copy of A
  /// A's tasklet connector -> B's new tasklet connector reading the same container whole.
  std::map<std::string, std::string> conn_of;
  /// A's tasklet connector -> the dynamic memlet of B's new connector (from X's first element).
  std::map<std::string, Memlet> region_of;
  std::string new_code;  ///< B's tasklet code after the rewrite
  /// Dimensions of T in which no single-element input of A is read at A's parameter: there the
  /// consumer must index T by one of its parameters, whose range (param_dims) the fused map
  /// checks against T's extent (a CheckedAccess record) before it runs.
  std::vector<std::size_t> unchecked_dims;
  std::vector<std::pair<std::size_t, Range>> param_dims;
};

/// Cost rule: recompute only when points * reads_a <= max_reads (0: no limit).
struct CodeReadLimits {
  long long max_reads = 16;
};

/// Checks the fusion of A into B by recomputation at B's code-level reads of T and, when it is
/// legal and cheap enough, writes the rewritten code into `plan`. `use`: the SDFG's container
/// uses; `state_writes`: written_access_nodes(st).
MatchResult analyze_code_read(const SDFG& sdfg, const SDFGState& st, NodeId exit_a, NodeId t_node,
                              NodeId entry_b, const std::map<std::string, DataUse>& use,
                              const std::map<std::string, int>& state_writes, const CodeReadLimits& limits,
                              CodeReadPlan& plan);

/// Applies a plan analyze_code_read accepted: B's tasklet gets the new code and whole-array
/// connectors for A's inputs, B keeps the bounds checks of what goes (CheckedAccess), and A, T's
/// node here (and T, unless t_elsewhere) disappear.
void apply_code_read(SDFG& sdfg, SDFGState& st, const CodeReadPlan& plan);

}  // namespace weir::transforms::detail
