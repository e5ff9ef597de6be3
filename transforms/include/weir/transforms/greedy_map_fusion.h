// The greedy map fusion pass of auto_optimize: vertical fusion by recomputation (OTFMapFusion's
// rewrite, which also covers point-wise producer-consumer fusion) consumer first, then
// horizontal fusion of sibling maps, driven by local worklists so that its cost grows with the
// graph, not with the graph times the number of fusions.
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "greedy-map-fusion". Per state of the SDFG and of every SDFG nested in it (deepest first):
///  1. Consumers in reverse topological order: each top-level map B absorbs, by recomputation,
///     every top-level producer map whose transient output only B reads, until none is left
///     (a producer OTFMapFusion refuses because B reads its output in tasklet code, at
///     neighbours, is inlined there by CodeReadFusion's rewrite within option `max_code_reads`)
///     (consumer first, so that the points a producer is needed at are known when it is copied
///     and equal points share one copy).
///  2. Transients read by several top-level maps are recomputed in each of them when every
///     reader accepts (then the producer and the transient disappear); step 1 runs again.
///  3. With option `horizontal`, top-level maps over equal ranges that read a common access
///     node and do not depend on each other are fused.
///  4. A top-level producer map whose transient output only one top-level consumer reads (no
///     other access node of it in the SDFG), at the points it writes in the same iteration, and
///     that recomputation left (the consumer reads the transient into a nested SDFG), is fused
///     into the consumer by MapFusion: one map, the intermediate a scalar of it. npbench's
///     mandelbrot1: one parallel map per time step, not two. Applications go through
///     apply_transactional, which keeps the analyses current.
/// Options `max_points` and `max_tasklets` bound recomputation (see OTFMapFusion). Returns the
/// number of fusions. Cost: one topological sort per state plus work local to each fusion
/// (horizontal candidates add a walk of the state each; step 4 screens candidates by their
/// memlets and walks the state only for those that pass, and once per application).
class GreedyMapFusion final : public Pass {
 public:
  GreedyMapFusion();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
