// Read-after-write hazards of program calls: which values of an operator depend on a given
// set of its parameters (a forward walk of its body), and whether one of those values is read
// through a shift that moves the point.
#include "out_hazards.h"

#include <optional>
#include <set>
#include <string>

#include "weir/pycode/source.h"

namespace weir::frontend {
namespace {

struct Hazard {
  SourceLocation loc;  ///< the shifted read
};

using Names = std::set<std::string>;

bool depends(const TExpr& e, const Names& tainted) {
  if (e.kind == TExprKind::Name && tainted.count(e.name)) return true;
  for (const auto& a : e.args)
    if (a && depends(*a, tainted)) return true;
  return false;
}

std::optional<Hazard> in_def(const TypedDefinition& d, const std::vector<bool>& tainted_params, int depth);

bool moves(const ShiftStep& s) { return !(s.kind == ShiftStep::Kind::Cartesian && s.amount == 0); }

std::optional<Hazard> in_expr(const TExpr& e, const Names& tainted, int depth) {
  if (e.kind == TExprKind::Shift && !e.args.empty() && depends(*e.args[0], tainted))
    for (const ShiftStep& s : e.shifts)
      if (moves(s)) return Hazard{e.loc};
  for (const auto& a : e.args)
    if (a)
      if (auto h = in_expr(*a, tainted, depth)) return h;
  for (const ShiftStep& s : e.shifts)
    if (s.index_field)
      if (auto h = in_expr(*s.index_field, tainted, depth)) return h;
  if (e.kind == TExprKind::Call && e.callee) {
    std::vector<bool> t;
    for (const auto& a : e.args) t.push_back(a && depends(*a, tainted));
    return in_def(*e.callee, t, depth + 1);
  }
  return std::nullopt;
}

std::optional<Hazard> in_stmts(const std::vector<TStmt>& body, Names& tainted, int depth) {
  for (const TStmt& s : body) {
    if (s.value)
      if (auto h = in_expr(*s.value, tainted, depth)) return h;
    if (s.kind == TStmt::Kind::Assign) {
      bool d = s.value && depends(*s.value, tainted);
      for (const auto& t : s.targets) {
        if (d)
          tainted.insert(t);
        else
          tainted.erase(t);
      }
    } else if (s.kind == TStmt::Kind::If) {
      // Either branch may run: a name tainted in one stays tainted after the `if`.
      Names a = tainted, b = tainted;
      if (auto h = in_stmts(s.body, a, depth)) return h;
      if (auto h = in_stmts(s.orelse, b, depth)) return h;
      tainted.insert(a.begin(), a.end());
      tainted.insert(b.begin(), b.end());
    }
  }
  return std::nullopt;
}

std::optional<Hazard> in_def(const TypedDefinition& d, const std::vector<bool>& tainted_params, int depth) {
  if (depth > 64) return std::nullopt;  // operators do not recurse; a bound all the same
  // A scan operator's arguments skip its first parameter, the carry.
  std::size_t first = d.kind == DefinitionKind::ScanOperator ? 1 : 0;
  Names tainted;
  for (std::size_t i = 0; i < tainted_params.size() && i + first < d.params.size(); ++i)
    if (tainted_params[i]) tainted.insert(d.params[i + first].name);
  if (tainted.empty()) return std::nullopt;
  return in_stmts(d.body, tainted, depth);
}

}  // namespace

void check_out_hazards(const ProgramCall& call) {
  if (!call.callee) return;
  for (const auto& out : call.outs) {
    std::vector<bool> t;
    bool any = false;
    for (const auto& a : call.args) {
      bool same = a && a->kind == TExprKind::Name && a->name == out.name;
      t.push_back(same);
      any = any || same;
    }
    if (!any) continue;
    if (auto h = in_def(*call.callee, t, 0))
      throw FrontendError(call.loc, "'" + call.callee->name + "' reads '" + out.name +
                                        "' at another point (" + h->loc.str() +
                                        ") and writes it (out=" + out.name +
                                        "): the result would depend on the order in which points are "
                                        "computed; write into another field");
  }
}

}  // namespace weir::frontend
