// Transactions: announced changes, analyses kept current, rollback (see the header).
#include "weir/transforms/transaction.h"

#include <set>

#include "snapshot.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms {

namespace {
thread_local Transaction* innermost = nullptr;

/// Whether a block is a state without nested SDFGs: changing it cannot change the cfg list or
/// any analysis keyed by another region or SDFG.
bool plain_state(const ControlFlowBlock& b, AnalysisCache& cache) {
  const auto* st = b.as<SDFGState>();
  return st && cache.nodes_of_kind(*st, NodeKind::NestedSDFG).empty();
}
}  // namespace

Transaction* Transaction::current() { return innermost; }

Transaction::Transaction(SDFG& root, AnalysisCache& cache) : root_(root), cache_(cache), outer_(innermost) {
  innermost = this;
}

Transaction::Transaction(SDFG& root, AnalysisCache& cache, Footprint footprint)
    : root_(root), cache_(cache), outer_(innermost), footprint_(std::move(footprint)) {
  innermost = this;
  // An application inside a pass: the pass's rollback copy comes first.
  if (outer_) outer_->snapshot_root();
  snapshot_ = std::make_unique<detail::Snapshot>(footprint_->sdfg, footprint_->region, footprint_->blocks,
                                                 footprint_->data);
  // Plain states (the common case) are updated one by one at commit; anything else (regions,
  // nested SDFGs, all containers) drops the whole cache.
  local_ = !snapshot_->all_data();
  for (BlockId b : snapshot_->blocks()) {
    const ControlFlowBlock& blk = footprint_->region.block(b);
    if (!plain_state(blk, cache_)) local_ = false;
    if (const auto* st = blk.as<SDFGState>()) before_.push_back(st);
  }
  cache_.count_snapshot(snapshot_->size());
}

Transaction::~Transaction() {
  if (!done_) {
    if (snapshot_) snapshot_->restore();
    cache_.invalidate_all();
  }
  innermost = outer_;
}

void Transaction::snapshot_root() {
  Transaction* t = this;
  while (t->outer_) t = t->outer_;
  // A standalone application restores its own footprint; a pass copies the SDFG once.
  if (t->footprint_ || t->snapshot_) return;
  std::vector<BlockId> all;
  for (ControlFlowBlock* b : t->root_.blocks()) all.push_back(b->id());
  t->snapshot_ = std::make_unique<detail::Snapshot>(t->root_, t->root_, all, std::nullopt);
}

void Transaction::begin_change(SDFGState* st) {
  snapshot_root();
  plain_ = st && cache_.nodes_of_kind(*st, NodeKind::NestedSDFG).empty();
}

void Transaction::end_change(SDFGState* st, const std::vector<std::string>& containers) {
  if (st && plain_ && st->sdfg())
    cache_.invalidate_states(*st->sdfg(), {st}, {st}, containers);
  else
    cache_.invalidate_all();
}

void Transaction::commit() {
  if (footprint_) commit_footprint();
  done_ = true;
}

void Transaction::commit_footprint() {
  ControlFlowRegion& region = footprint_->region;
  if (!local_) {
    cache_.invalidate_all();
    return;
  }
  std::vector<const SDFGState*> after;
  for (BlockId b : snapshot_->blocks())
    if (region.has_block(b)) after.push_back(region.block(b).as<SDFGState>());
  for (std::size_t b = snapshot_->block_capacity(); b < region.block_capacity(); ++b) {
    if (!region.has_block(static_cast<BlockId>(b))) continue;
    const ControlFlowBlock& blk = region.block(static_cast<BlockId>(b));
    if (!blk.as<SDFGState>()) {
      cache_.invalidate_all();
      return;
    }
    after.push_back(blk.as<SDFGState>());
  }
  cache_.invalidate_states(footprint_->sdfg, before_, after, *footprint_->data);
  if (footprint_->control_flow) {
    // Interstate edges around the footprint may have changed: their names and reachability.
    std::vector<const InterstateEdge*> removed, added;
    for (const auto& [id, e] : snapshot_->edges()) removed.push_back(&e.data);
    std::set<EdgeId> seen;
    for (const SDFGState* st : after)
      for (EdgeId e : region.incident_edges(st->id()))
        if (seen.insert(e).second) added.push_back(&region.edge(e).data);
    cache_.update_control_flow(footprint_->sdfg, region, removed, added);
  }
}

}  // namespace weir::transforms
