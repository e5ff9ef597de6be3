// The write-after-read rule of state fusion (StateFusion, the state-fusion pass): when the
// fused state still orders a second state's writes after the first state's reads.
#pragma once

#include <string>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

/// Whether fusing `first` and `second` (second's nodes of a container `first` writes through one
/// top-level node and `second` only reads merge into that node) orders every write of `d` in
/// `second` after every read of `d` in `first` (write after read, jacobi_1d's `A[1:-1] = g(B)`
/// after `B[1:-1] = f(A)`): each node writing `d` in `second` has upstream a node that merges
/// into such a node of `first`, and every reader of `d` in `first` (through views of it too) is
/// upstream of that node. The merged node completes after those reads, and the write runs
/// after it.
bool writes_follow_reads(const SDFG& sdfg, const SDFGState& first, const SDFGState& second,
                         const std::string& d);

}  // namespace weir::transforms::detail
