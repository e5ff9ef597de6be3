// Splitting a call's output domain into the regions of its concat_where conditions, as gt4py
// defines concat_where: each branch is a field on its own part of the domain only, so the
// branch not taken is neither evaluated nor read at the other points (docs/adr/0014).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "weir/sdfg/subset.h"
#include "weir/sdfg/symbolic.h"

namespace weir::frontend::lowering {

/// The half-space `param < bound` of the output domain (`param` a map parameter, `bound` an
/// expression of SDFG symbols): every domain condition on a map index is a Boolean combination
/// of such cuts (`K == 0` is `not (K < 0) and (K < 1)`).
struct DomainCut {
  std::string param;
  sym::Expr bound;
  std::string key() const { return param + " < " + bound.str(); }
};

/// One part of a split domain: its ranges (one per map parameter, inclusive ends as DaCe's
/// Range) and, for every cut, whether the part lies below it (`param < bound` holds there).
struct DomainRegion {
  std::vector<Range> ranges;
  std::map<std::string, bool> below;
};

/// Splits the box `ranges` (over `params`) along every cut, dropping parts that are provably
/// empty. Returns no regions where more than `max_regions` would remain (the caller then keeps
/// one map). The parts are disjoint and cover the box whatever the symbols' values.
std::vector<DomainRegion> split_domain(const std::vector<std::string>& params,
                                       const std::vector<Range>& ranges, const std::vector<DomainCut>& cuts,
                                       std::size_t max_regions);

/// Whether `r` (step 1) is empty for every value of the symbols: its start provably exceeds its
/// end, or one argument of a Min end / Max start. Proofs assume only the lowering's own size
/// symbols (`__...`) to be >= 0, never a user's scalar.
bool provably_empty(const Range& r);

}  // namespace weir::frontend::lowering
