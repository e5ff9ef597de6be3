// A lazily computed cache of the analyses transformations and passes
// ask for (sdfglib's analysis manager): per-state scope trees and node-kind indices, per-SDFG
// access sets, per-region reachability, and the cfg list of the root SDFG.
//
// Entries are keyed by object address. Only a Transaction (transaction.h) invalidates them: every
// change to an SDFG goes through one, which forgets or updates what the change touched (the
// state for dataflow rewrites, the region for control-flow ones, the containing SDFG's access
// sets in both cases) right after it.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

/// How the states of one SDFG (nested SDFGs excluded) use a container.
struct DataUse {
  int access_nodes = 0;  ///< access nodes of the container, over all states
  int read_nodes = 0;    ///< of those, nodes with out-edges (the container is read there)
  int write_nodes = 0;   ///< of those, nodes with in-edges (written there)
  /// Named in an interstate edge, loop or conditional (conservatively: any identifier token).
  bool in_control_flow = false;
  /// Named as a symbol in a nested SDFG's symbol mapping or read by a tasklet by name.
  bool by_name_elsewhere = false;
};

class AnalysisCache {
 public:
  AnalysisCache();
  ~AnalysisCache();
  AnalysisCache(const AnalysisCache&) = delete;
  AnalysisCache& operator=(const AnalysisCache&) = delete;

  /// The state's scope tree (SDFGState::scope_tree), computed on first use.
  const ScopeTree& scope_tree(const SDFGState& st);
  /// Live node ids of `kind` in the state, in id order.
  const std::vector<NodeId>& nodes_of_kind(const SDFGState& st, NodeKind kind);
  /// Container name -> use in the SDFG's own states (not nested SDFGs).
  const std::map<std::string, DataUse>& data_use(const SDFG& sdfg);
  /// Blocks of `r` reachable from its start block, ignoring edges whose condition is the
  /// constant False.
  const std::set<BlockId>& reachable_blocks(const ControlFlowRegion& r);
  /// cfg_list(root), computed on first use.
  const std::vector<ControlFlowRegion*>& cfg_list(const SDFG& root);

  /// The region's start block (ControlFlowRegion::start_block), cached with its reachability.
  BlockId start_block(const ControlFlowRegion& r);

  /// Operation counters for complexity tests: elements (nodes, edges, containers) copied by
  /// transaction snapshots, and candidates checked by pass drivers, since construction.
  void count_snapshot(std::size_t elements) { snapshot_elements_ += elements; }
  void count_candidates(std::size_t n) { candidates_checked_ += n; }
  std::size_t snapshot_elements() const { return snapshot_elements_; }
  std::size_t candidates_checked() const { return candidates_checked_; }

  /// How many analyses were computed so far (for tests of laziness/invalidation).
  std::size_t computations() const { return computations_; }

 private:
  // Invalidation is the Transaction's alone (transaction.h): whoever changes the graph says so
  // through it, and it keeps these analyses current.
  friend class Transaction;
  /// Forgets everything.
  void invalidate_all();

  /// After a rewrite of plain states (no nested SDFGs) of `sdfg`: forgets the analyses of the
  /// states in `before` (changed or removed; only their addresses are used, they may be gone)
  /// and accounts for `after` (the live states now in their place) in the container use, which
  /// is updated in place rather than recomputed; `containers` names the containers that may
  /// have been added or removed. Costs the size of those states, not of the SDFG.
  void invalidate_states(const SDFG& sdfg, const std::vector<const SDFGState*>& before,
                         const std::vector<const SDFGState*>& after,
                         const std::vector<std::string>& containers);
  /// After interstate edges of `r` (in `sdfg`) were removed/added: forgets the region's
  /// reachability and start block and updates the control-flow names of the container use.
  void update_control_flow(const SDFG& sdfg, const ControlFlowRegion& r,
                           const std::vector<const InterstateEdge*>& removed,
                           const std::vector<const InterstateEdge*>& added);
  struct StateInfo;
  struct Contribution;
  struct UseInfo;
  std::unordered_map<const SDFGState*, std::unique_ptr<StateInfo>> states_;
  std::unordered_map<const SDFG*, std::unique_ptr<UseInfo>> data_use_;
  std::unordered_map<const SDFGState*, std::unique_ptr<Contribution>> contrib_;
  std::unordered_map<const ControlFlowRegion*, std::set<BlockId>> reachable_;
  std::unordered_map<const ControlFlowRegion*, BlockId> start_;
  std::size_t snapshot_elements_ = 0, candidates_checked_ = 0;
  void add_contribution(UseInfo& u, const SDFGState& st, int sign);
  std::unordered_map<const SDFG*, std::vector<ControlFlowRegion*>> cfg_lists_;
  std::size_t computations_ = 0;
  StateInfo& info(const SDFGState& st);
};

/// True if the Python `condition` is the constant False ("False", "0", "1 == 2"), read on its tree.
bool is_constant_false(const CodeBlock& condition);

}  // namespace weir::transforms
