// Helpers shared by the map fusion transformations (vertical by recomputation, horizontal) and
// the greedy fusion pass; private to the transforms layer.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms::detail {

/// `IN_x`/`OUT_x` suffix not yet used on `n`, starting from `x`.
std::string free_suffix(const Node& n, const std::string& x);

/// Moves every edge of scope node `from` (a map entry or exit) onto `to`, renaming connector
/// suffixes that `to` already uses. Edges from `skip_src` into `from` are dropped (an ordering
/// edge between two maps that become one). `from` is left without edges.
void move_scope_edges(SDFGState& st, Node& from, Node& to, NodeId skip_src = kNoNode);

/// A container name not used yet: `base_<n>` with a counter kept by the caller (linear cost
/// where SDFG::unique_data_name would probe base_0, base_1, ... every time).
std::string fresh_data_name(const SDFG& sdfg, const std::string& base, std::size_t& counter);

/// Nodes strictly inside a map scope that holds no nested scope, found by walking from the
/// entry forward and from the exit backward (local: the cost is the body's size). Returns
/// false (and names the node in `why`) when the body holds a map, nested SDFG or library node.
bool flat_scope_body(const SDFGState& st, NodeId entry, NodeId exit, std::vector<NodeId>& body,
                     std::string& why);

/// How the vertical recomputing fusion of map A (exit `exit_a`, writing transient access node
/// `t_node`) into map B (entry `entry_b`) is done; filled by analyze_otf.
struct OtfPlan {
  NodeId entry_a = kNoNode, exit_a = kNoNode, t_node = kNoNode, entry_b = kNoNode;
  std::string t_data;
  bool keep = false;  ///< T has other readers: A stays, B gets its own copies
  /// T has access nodes in other states, each writing all of T before reading it
  /// (state_local_transient): A and T's node here go, T's descriptor stays.
  bool t_elsewhere = false;
  std::vector<NodeId> body;               ///< A's body (tasklets and local scalars)
  EdgeId write = 0;                       ///< the edge writing T inside A
  std::vector<std::string> param_of_dim;  ///< A's parameter indexing each dimension of T
  std::vector<sym::Expr> offset_of_dim;   ///< and the constant added to it
  /// Distinct points of T that B reads, each with the edges (B's entry -> consumer) reading it.
  std::vector<std::pair<Subset, std::vector<EdgeId>>> points;
  std::size_t body_tasklets = 0;          ///< tasklets in A's body
  std::map<std::string, int> local_uses;  ///< access nodes of A's locals in the SDFG (when known)
};

/// Limits of recomputation: at most `max_points` distinct points per fusion, and B's body may
/// grow to at most `max_tasklets` tasklets (0 = unlimited).
struct OtfLimits {
  long long max_points = 0;
  long long max_tasklets = 0;
  /// Whether B may read T independently of one of its parameters (a broadcast): every element
  /// of T is then recomputed once per iteration of that parameter, not once per point read.
  bool broadcast = true;
};

/// Container -> number of its access nodes in `st` that are written (have in-edges).
std::map<std::string, int> written_access_nodes(const SDFGState& st);

/// The candidates of a producer/consumer fusion anchored at map exit `anchor`: one
/// {anchor, access node T, map entry B} per map entry B reading an access node T that `anchor`
/// writes, or {anchor} alone when there is none (so that the refusal can name the map).
/// OTFMapFusion's and CodeReadFusion's expand.
std::vector<std::vector<std::uint32_t>> producer_consumer_triples(const SDFGState& st, std::uint32_t anchor);

/// Checks the fusion by recomputation of A into B (both already known to be at the top level
/// of `st`); `use` are the SDFG's container uses and `state_writes` written_access_nodes(st)
/// (stale counts are fine: fusion only lowers them). Cost: A's body, B's reads of T and B's
/// body when max_tasklets is set.
MatchResult analyze_otf(const SDFG& sdfg, const SDFGState& st, NodeId exit_a, NodeId t_node, NodeId entry_b,
                        const std::map<std::string, DataUse>& use,
                        const std::map<std::string, int>& state_writes, const OtfLimits& limits,
                        OtfPlan& plan);

/// The accesses that applying `plan` removes and whose bounds checks the fused map B keeps
/// (CheckedAccess, kCheckedAccessesAttribute): B's read of T at each point over B's range, and
/// unless A stays (`keep`) A's outer memlets and A's own record. apply_otf adds them to B.
std::vector<CheckedAccess> removed_accesses(const SDFG& sdfg, const SDFGState& st, const OtfPlan& plan);

/// DebugInfo JSON of a memlet, else of `node` (its own, else its map's); "" without one.
std::string debuginfo_of(const Memlet& m, const Node& node);

/// The record of an access of `data` at `subset` (its shape and offset taken now) that a fusion
/// removes, for the fused map's bounds checks.
CheckedAccess removed_access(const SDFG& sdfg, const std::string& data, const Subset& subset, bool write,
                             const std::string& scope, const std::string& debuginfo);

/// The accesses of map A (entry `entry_a`) that go when A is fused away: its outer memlets (its
/// inputs over its range, its writes) and the records earlier fusions left on it.
std::vector<CheckedAccess> producer_accesses(const SDFG& sdfg, const SDFGState& st, NodeId entry_a);

/// Why an input of map A (entry `entry_a`) may hold other values where map B (entry `entry_b`)
/// runs: another access node of the state writes it and B's exit does not reach that write
/// (empty: it cannot). `state_writes` is written_access_nodes(st).
std::string input_written_meanwhile(const SDFGState& st, NodeId entry_a, NodeId entry_b,
                                    const std::map<std::string, int>& state_writes);

/// Applies a plan analyze_otf accepted. `counter` feeds fresh_data_name. Outer memlets of B's
/// entry are recomputed for the connectors it changed (locally, not the whole state).
void apply_otf(SDFG& sdfg, SDFGState& st, const OtfPlan& plan, std::size_t& counter);

/// Checks horizontal fusion of two independent top-level maps with equal ranges (`entry_c` is
/// merged into `entry_b`); renaming of C's parameters to B's goes to `rename`. Walks the state
/// to prove neither map reaches the other.
MatchResult analyze_horizontal(const SDFGState& st, NodeId entry_b, NodeId entry_c,
                               std::map<std::string, sym::Expr>& rename);
void apply_horizontal(SDFGState& st, NodeId entry_b, NodeId entry_c,
                      const std::map<std::string, sym::Expr>& rename);

/// Whether regions `x` and `y` (in the same map parameters `params`) share no element in any two
/// iterations: some dimension whose bounds use none of the parameters has one range end below
/// the other's start by an integer constant (y1[i, j - 2] and y1[i, j - 1 : j + 1] in dimension 1).
bool never_meet(const Subset& x, const Subset& y, const std::vector<std::string>& params);

}  // namespace weir::transforms::detail
