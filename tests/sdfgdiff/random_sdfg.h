// Random small valid SDFGs for the SDFG-level differential tests. A batch is one SDFG holding
// several independent parts (disjoint containers prefixed `g<k>_`, sequential states), so that
// one compilation checks many; part k of batch `seed` is generated from (seed, k) alone, so a
// batch restricted to one part reproduces it exactly (shrinking).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::test::sdfgdiff {

/// The kinds of part the generator draws from.
enum class PartKind {
  SelfCopy,    // p -> p with subset/other_subset, is_data_src true/false/unset, overlaps, reversed ranges
  PairCopy,    // a -> b (-> c) between different ranks and shapes, other_subset, reversed ranges, wcr
  ViewCopy,    // copies into and out of views (rows, columns, blocks), maps reading views
  MapTasklet,  // 1-3 D maps with tasklets reading at offsets
  FanOut,      // a producer map writing a transient read by 2-3 consumer maps
  Reduction,   // map with a wcr (sum/min/max) output into a 1-element or per-row array
  Nested,      // nested SDFGs with symbol mappings: two states with an interstate assignment, or one state
               // writing Y, reading back the Y it wrote, or copying X straight into Y (optionally in a map)
  Loop,        // interstate loops with assignments and conditions, loop regions, branches
};
const char* to_string(PartKind k);
constexpr int kNumPartKinds = 8;

/// Which constructs a run may generate (everything by default).
struct GenOptions {
  std::vector<PartKind> kinds;  // empty: all kinds
  /// View-copy parts may copy a view of an array back into the same array, shifted (aliasing
  /// the cpu backend does not see through yet: tests/sdfgdiff/test_regressions.cpp).
  bool view_into_own_array = true;
};

struct Batch {
  std::unique_ptr<SDFG> sdfg;
  std::map<std::string, long long> symbols;  // values of the free symbols (N, M)
  std::vector<std::string> parts;            // one line per part: "g<k>: <kind>"
};

/// The batch `seed` restricted to the parts `which` (indices into 0..count-1).
Batch make_batch(unsigned seed, int count, const std::vector<int>& which, const GenOptions& opts = {});
/// All `count` parts of batch `seed`.
Batch make_batch(unsigned seed, int count, const GenOptions& opts = {});

/// The part (index) a container name belongs to, or -1.
int part_of(const std::string& container);

}  // namespace weir::test::sdfgdiff
