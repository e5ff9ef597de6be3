#include "domain_split.h"

#include <algorithm>

namespace weir::frontend::lowering {

namespace {

/// Whether `a >= b` for every value of the symbols (sizes >= 0; a user's symbols unknown).
bool provably_at_least(const sym::Expr& a, const sym::Expr& b) {
  sym::Expr d = a - b;
  for (const std::string& s : d.free_symbols())
    if (s.rfind("__", 0) != 0) return false;
  return d.nonnegative_if_symbols_nonnegative();
}

bool provably_greater(const sym::Expr& a, const sym::Expr& b) {
  return provably_at_least(a, b + sym::Expr(1));
}

/// The arguments of a Min (kind `k`) or the expression itself.
std::vector<sym::Expr> operands(const sym::Expr& e, sym::Kind k) {
  if (e.kind() == k) return e.args();
  return {e};
}

/// min(a, b), dropping an argument provably not smaller than another.
sym::Expr smaller(const sym::Expr& a, const sym::Expr& b) {
  if (provably_at_least(a, b)) return b;
  if (provably_at_least(b, a)) return a;
  return sym::Expr::min(a, b);
}

sym::Expr larger(const sym::Expr& a, const sym::Expr& b) {
  if (provably_at_least(a, b)) return a;
  if (provably_at_least(b, a)) return b;
  return sym::Expr::max(a, b);
}

}  // namespace

bool provably_empty(const Range& r) {
  for (const sym::Expr& s : operands(r.start, sym::Kind::Max))
    for (const sym::Expr& e : operands(r.end, sym::Kind::Min))
      if (provably_greater(s, e)) return true;
  return false;
}

std::vector<DomainRegion> split_domain(const std::vector<std::string>& params,
                                       const std::vector<Range>& ranges, const std::vector<DomainCut>& cuts,
                                       std::size_t max_regions) {
  std::vector<DomainRegion> regions{{ranges, {}}};
  for (const DomainCut& cut : cuts) {
    const std::string key = cut.key();
    if (regions.empty()) return {};                  // an empty box: nothing to split
    if (regions.front().below.count(key)) continue;  // the same cut twice
    auto pos = std::find(params.begin(), params.end(), cut.param);
    if (pos == params.end()) return {};
    const std::size_t j = static_cast<std::size_t>(pos - params.begin());
    std::vector<DomainRegion> next;
    for (const DomainRegion& r : regions) {
      const Range& x = r.ranges[j];
      // [start, bound - 1] lies below the cut, [bound, end] above it.
      DomainRegion lo = r, hi = r;
      lo.ranges[j] = Range(x.start, smaller(x.end, cut.bound - sym::Expr(1)));
      hi.ranges[j] = Range(larger(x.start, cut.bound), x.end);
      lo.below[key] = true;
      hi.below[key] = false;
      if (!provably_empty(lo.ranges[j])) next.push_back(std::move(lo));
      if (!provably_empty(hi.ranges[j])) next.push_back(std::move(hi));
    }
    if (next.size() > max_regions) return {};
    regions = std::move(next);
  }
  return regions;
}

}  // namespace weir::frontend::lowering
