// The state-fusion pass: StateFusion (state_fusion.h) to a fixed point, a whole chain of
// consecutive states at a time, in time linear in the chain.
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Fuses what StateFusion would fuse when applied to a fixed point in block-id order, with the
/// same rule per pair (the accumulated state against the next one) and the same result (node
/// order, merged access nodes), but the conflict check keeps per-container counts of the
/// accumulated state and every state is copied once: applying StateFusion pair by pair copies
/// and rescans the growing first state at each step, O(N^2) for a chain of N states (issue 17:
/// 60 s for 1,000 stencil states). Per region: find the maximal chains starting at each
/// state in id order, fuse each into its first state; repeated until nothing fuses. run()
/// returns the number of states fused away (what the pair-wise applications would count).
/// Registered as the pass of the StateFusion row ("state-fusion"); the transformation itself
/// stays available for matching, scripts and replay.
class StateFusionPass final : public Pass {
 public:
  StateFusionPass();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
