// Transient reuse (DaCe's TransientReuse): transient arrays whose lifetimes do not overlap
// share one allocation, lowering the memory footprint.
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "transient-reuse". Within each state of the SDFG (nested SDFGs not entered): a
/// transient array T2 is renamed to an earlier transient T1 with an identical descriptor
/// (dtype, shape, strides, offsets, total size, storage, lifetime Scope or State) when both have
/// exactly one access node in the whole SDFG and are not named in control flow or tasklet
/// code, T2's node is written in the state, and every user of T1 (its writers, and its readers
/// where they finish: a reading map at its exit) reaches every writer of T2 (a writing map at
/// its entry) through the dataflow, so T1 is dead before T2 is written. Each
/// buffer is checked against at most `max_candidates` earlier buffers (each check walks the
/// state). Returns the number of transients removed.
class TransientReuse final : public Pass {
 public:
  TransientReuse();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
