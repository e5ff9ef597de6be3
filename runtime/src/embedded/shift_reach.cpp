// How far the shifts of a field operator (and its callees) can read from a point.
#include "internal.h"

#include <cstdlib>
#include <functional>
#include <map>

namespace weir::runtime::embedded {

namespace {

std::int64_t reach(const TExpr& e, std::map<const TypedDefinition*, std::int64_t>& memo);

std::int64_t reach_def(const TypedDefinition& d, std::map<const TypedDefinition*, std::int64_t>& memo) {
  auto it = memo.find(&d);
  if (it != memo.end()) return it->second;
  memo[&d] = 0;  // recursion is rejected by the type checker; this only guards
  std::int64_t r = 0;
  std::function<void(const std::vector<TStmt>&)> stmts = [&](const std::vector<TStmt>& body) {
    for (const TStmt& s : body) {
      if (s.value) r += reach(*s.value, memo);
      stmts(s.body);
      stmts(s.orelse);
    }
  };
  stmts(d.body);
  for (const auto& c : d.calls) r += reach_def(*c.callee, memo);
  memo[&d] = r;
  return r;
}

std::int64_t reach(const TExpr& e, std::map<const TypedDefinition*, std::int64_t>& memo) {
  std::int64_t r = 0;
  for (const auto& a : e.args) r += reach(*a, memo);
  for (const ShiftStep& s : e.shifts) {
    if (s.kind == ShiftStep::Kind::Cartesian) r += std::abs(s.amount);
    if (s.index_field) r += reach(*s.index_field, memo);
  }
  if (e.callee) r += reach_def(*e.callee, memo);
  return r;
}

}  // namespace

std::int64_t shift_reach(const TypedDefinition& def) {
  std::map<const TypedDefinition*, std::int64_t> memo;
  return reach_def(def, memo);
}

}  // namespace weir::runtime::embedded
