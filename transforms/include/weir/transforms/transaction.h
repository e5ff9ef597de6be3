// The one modification contract of weir's rewrites: every change to an SDFG made by a pattern
// transformation or a whole-graph pass goes through a Transaction, which
//  * announces the change before it happens (DaCe's Pass.modifies(), per element rather than per
//    category): a state's dataflow (`modify_state`) or anything else (`modify_all`);
//  * keeps the AnalysisCache current right after each change (MLIR's RewriterBase::Listener:
//    the rewriter, not the pattern, tells the driver what changed), so no pass or transformation
//    invalidates analyses by hand;
//  * rolls back on an exception: a transformation's application restores its declared footprint
//    (docs/adr/0007), a pass run restores the whole SDFG as it was before the outermost pass
//    (docs/adr/0017).
// Pass::run opens one per pass run and hands it to Pass::run_pass; apply_transactional opens one
// per application. Transactions nest on a thread; the outermost owns the whole-SDFG snapshot.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

class AnalysisCache;

namespace detail {
class Snapshot;
}

class Transaction {
 public:
  /// What an application of a pattern transformation declares it may change (see
  /// Transformation::footprint and data_footprint): blocks of `region`, containers of `sdfg`
  /// (nullopt: any container, symbol or argument); `control_flow` for control-flow patterns,
  /// whose interstate edges around the blocks may change too.
  struct Footprint {
    SDFG& sdfg;
    ControlFlowRegion& region;
    std::vector<BlockId> blocks;
    std::optional<std::vector<std::string>> data;
    bool control_flow = false;
  };

  /// A pass run's transaction on `root`: nothing is copied until the first announced change,
  /// and then (only in the outermost transaction of the thread) the whole SDFG once.
  Transaction(SDFG& root, AnalysisCache& cache);
  /// An application's transaction: copies `footprint` now (costs the footprint, not the SDFG).
  Transaction(SDFG& root, AnalysisCache& cache, Footprint footprint);
  /// Rolls back unless commit() was called: restores what was copied, drops every analysis.
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  SDFG& root() { return root_; }
  AnalysisCache& cache() { return cache_; }

  /// Runs `change()`, which may change the dataflow of `st` (nodes, edges, memlets, node
  /// attributes) and add or remove containers of st's SDFG that st accesses (plus those named
  /// in `containers`), but no other state, block, interstate edge or symbol. Afterwards the
  /// analyses of `st` are forgotten and the container use of its SDFG is updated in place
  /// (costs the state, not the SDFG). Returns what `change` returns.
  template <class F>
  decltype(auto) modify_state(SDFGState& st, F&& change, const std::vector<std::string>& containers = {}) {
    begin_change(&st);
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      change();
      end_change(&st, containers);
    } else {
      auto result = change();
      end_change(&st, containers);
      return result;
    }
  }
  /// Runs `change()`, which may change anything in the SDFG (control flow, symbols, nested
  /// SDFGs); afterwards every analysis is forgotten. Returns what `change` returns.
  template <class F>
  decltype(auto) modify_all(F&& change) {
    begin_change(nullptr);
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      change();
      end_change(nullptr, {});
    } else {
      auto result = change();
      end_change(nullptr, {});
      return result;
    }
  }

  /// Ends the transaction successfully: an application's analyses are updated (plain states
  /// in place, anything else dropped); a pass's were updated after each change already.
  void commit();

  /// The innermost live transaction of this thread, or nullptr.
  static Transaction* current();

 private:
  SDFG& root_;
  AnalysisCache& cache_;
  Transaction* outer_;
  std::optional<Footprint> footprint_;
  std::unique_ptr<detail::Snapshot> snapshot_;  // the footprint, or the whole root (outermost pass)
  std::vector<const SDFGState*> before_;        // an application's footprint states
  bool local_ = true;                           // an application touched only plain states
  bool plain_ = true;                           // the state being changed has no nested SDFGs
  bool done_ = false;

  void begin_change(SDFGState* st);
  void end_change(SDFGState* st, const std::vector<std::string>& containers);
  /// Copies the whole root SDFG in the outermost transaction, once.
  void snapshot_root();
  void commit_footprint();
};

}  // namespace weir::transforms
