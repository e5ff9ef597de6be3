#include "weir/frontend/indexed_fields.h"

#include <set>

namespace weir::frontend {

namespace {

// What the walk found: per table the parameters indexed, and the tables that index something else.
struct Found {
  std::map<std::string, std::set<std::string>> params;
  std::set<std::string> other;

  void add(const std::string& table, const std::vector<std::string>& fields) {
    if (fields.empty()) other.insert(table);
    for (const std::string& f : fields) params[table].insert(f);
  }
};

// The names of the definition walked whose values lie over the program's parameters: to those
// parameters (a local `t = a * b` over both: its domain is theirs intersected, so the smallest
// extent of the two bounds it); empty when not known (a literal argument, a call's result).
using Binding = std::map<std::string, std::vector<std::string>>;

void walk(const TypedDefinition& d, const Binding& bind, Found& out);

// The parameters whose domains `e`'s domain is the intersection of; empty when not known.
std::vector<std::string> bound(const TExpr& e, const Binding& bind) {
  if (e.kind == TExprKind::Name) {
    auto it = bind.find(e.name);
    return it == bind.end() ? std::vector<std::string>{} : it->second;
  }
  if (e.kind != TExprKind::Unary && e.kind != TExprKind::Binary) return {};
  std::vector<std::string> all;
  for (const auto& a : e.args) {
    if (a->kind == TExprKind::Literal || (a->kind == TExprKind::Name && !a->type.is_field())) continue;
    std::vector<std::string> f = bound(*a, bind);
    if (f.empty()) return {};
    all.insert(all.end(), f.begin(), f.end());
  }
  return all;
}

// The callee's parameters bound to a call's arguments (in parameter order; a scan operator's
// carry, its first parameter, is no argument).
Binding callee_binding(const TypedDefinition& callee, const std::vector<TExprPtr>& args,
                       const Binding& bind) {
  Binding inner;
  const std::size_t first = callee.kind == DefinitionKind::ScanOperator ? 1 : 0;
  for (std::size_t i = 0; i + first < callee.params.size() && i < args.size(); ++i)
    inner[callee.params[i + first].name] = args[i] ? bound(*args[i], bind) : std::vector<std::string>{};
  return inner;
}

void walk(const TExpr& e, const Binding& bind, Found& out) {
  for (const auto& a : e.args) walk(*a, bind, out);
  // The field a neighbour step indexes: the shifted expression for the first one (Cartesian
  // steps before it keep its extent), the previous neighbour step's result after that.
  std::vector<std::string> indexed =
      e.kind == TExprKind::Shift && !e.args.empty() ? bound(*e.args[0], bind) : std::vector<std::string>{};
  for (const ShiftStep& s : e.shifts) {
    if (s.index_field) walk(*s.index_field, bind, out);
    if (s.kind != ShiftStep::Kind::Neighbor && s.kind != ShiftStep::Kind::AllNeighbors) continue;
    out.add(s.offset.name, indexed);
    indexed.clear();
  }
  if (e.kind == TExprKind::Call && e.callee) walk(*e.callee, callee_binding(*e.callee, e.args, bind), out);
}

void walk(const std::vector<TStmt>& body, Binding& bind, Found& out) {
  for (const TStmt& s : body) {
    if (s.value) walk(*s.value, bind, out);
    // An assigned name is a local from here on: over what its value is over (`t = a * b`),
    // unknown for a tuple target or a value of another form.
    const std::vector<std::string> value =
        s.kind == TStmt::Kind::Assign && s.value && s.targets.size() == 1 && !s.tuple_target
            ? bound(*s.value, bind)
            : std::vector<std::string>{};
    for (const std::string& t : s.targets) bind[t] = value;
    Binding then = bind, orelse = bind;
    walk(s.body, then, out);
    walk(s.orelse, orelse, out);
    // After an if, a name bound differently in the branches is not known.
    for (auto& [name, fields] : bind) {
      auto a = then.find(name), b = orelse.find(name);
      if (a == then.end() || b == orelse.end() || a->second != fields || b->second != fields) fields.clear();
    }
    for (const auto& [name, fields] : then)
      if (!bind.count(name)) bind[name] = {};
    for (const auto& [name, fields] : orelse)
      if (!bind.count(name)) bind[name] = {};
  }
}

void walk(const TypedDefinition& d, const Binding& bind, Found& out) {
  Binding b = bind;
  walk(d.body, b, out);
  if (d.init) walk(*d.init, b, out);
  for (const auto& c : d.calls)
    if (c.callee) walk(*c.callee, callee_binding(*c.callee, c.args, b), out);
}

}  // namespace

std::map<std::string, std::optional<std::vector<std::string>>> indexed_fields(const TypedDefinition& def) {
  Binding own;
  for (const auto& p : def.params) own[p.name] = {p.name};
  Found found;
  walk(def, own, found);
  std::map<std::string, std::optional<std::vector<std::string>>> out;
  for (const std::string& t : found.other) out[t] = std::nullopt;
  for (const auto& [t, params] : found.params)
    if (!found.other.count(t)) out[t] = std::vector<std::string>(params.begin(), params.end());
  return out;
}

}  // namespace weir::frontend
