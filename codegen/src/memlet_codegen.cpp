// Memlets: the element a memlet points at (index = sum of index * stride), copies between
// access nodes as loop nests or memcpy, and write-conflict resolution (atomic when a write may
// race with another thread of a parallel map).
#include <algorithm>
#include <functional>

#include "state_codegen.h"
#include "weir/sdfg/view_binding.h"

namespace weir::codegen::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

}  // namespace

std::string memlet_text(const std::string& data, const Subset& s) {
  std::string out = data + "[";
  for (std::size_t d = 0; d < s.dims(); ++d) out += (d ? ", " : "") + range_text(s[d]);
  return out + "]";
}

// --- locations ----------------------------------------------------------------------------

std::vector<sym::Expr> Location::start() const {
  std::vector<sym::Expr> out;
  for (const auto& r : subset.ranges()) out.push_back(r.start);
  return out;
}

bool Location::single_element() const {
  if (data.empty() || binding->scalar) return true;
  return subset.is_single_element();
}

std::string Location::element() const {
  if (data.empty()) return var;
  if (binding->scalar) return binding->cpp;
  return binding->cpp + "[" + linear_offset(*binding->desc, start()) + "]";
}

std::string Location::pointer() const {
  if (data.empty()) return "&" + var;
  if (binding->scalar) return "&" + binding->cpp;
  std::string lin = linear_offset(*binding->desc, start());
  if (lin == "0") return binding->cpp;
  return "&" + binding->cpp + "[" + lin + "]";
}

Location StateGen::location(const std::string& data, const Subset& subset) const {
  const Binding* bound = binding(data);
  if (!bound) {
    std::string why;
    auto h = sg.homes.find(data);
    if (!sg.sdfg.arrays.count(data))
      why = " (no such container)";
    else if (h != sg.homes.end() && h->second.kind == HomeKind::Scope)
      why = " (a transient local to another map scope)";
    throw GenFailure("container '" + data + "' is not available here" + why);
  }
  Location loc;
  loc.data = data;
  loc.binding = bound;
  loc.subset = subset;
  loc.type = bound->desc->dtype.base;
  if (!bound->scalar && subset.dims() != bound->desc->shape.size())
    throw GenFailure("memlet " + memlet_text(data, subset) + " has " + std::to_string(subset.dims()) +
                     " dimensions but '" + data + "' has " + std::to_string(bound->desc->shape.size()));
  for (const auto& r : subset.ranges())
    if (!is_one(r.tile))
      throw GenFailure("tiled memlet subsets are not supported: " + memlet_text(data, subset));
  return loc;
}

Location StateGen::edge_location(const DataflowEdge& e, bool incoming) const {
  const Node& other = incoming ? st.node(e.src) : st.node(e.dst);
  bool code = other.kind() == NodeKind::Tasklet || other.kind() == NodeKind::NestedSDFG ||
              other.kind() == NodeKind::Library;
  if (code) {
    // An edge between two code nodes: a local variable named after the producer's connector.
    auto it = edge_vars_.find({e.src, e.src_conn});
    if (it == edge_vars_.end())
      throw GenFailure("the value of connector '" + e.src_conn + "' of node " + std::to_string(e.src) +
                       " is used before it is computed");
    Location loc;
    loc.var = it->second.first;
    loc.type = it->second.second;
    return loc;
  }
  if (e.memlet.is_empty()) throw GenFailure("an empty memlet carries no data");
  Location loc = location(e.memlet.data, e.memlet.subset);
  loc.wcr_nonatomic = e.memlet.wcr_nonatomic;
  return loc;
}

std::string StateGen::loop_var(const std::string& base, std::size_t k) const {
  std::string v = base + std::to_string(k);
  bool taken = binding(v) != nullptr;
  for (const auto& [s, t] : visible_symbols()) taken = taken || cpp_ident(s) == v;
  return taken ? "__weir" + base.substr(1) + std::to_string(k) : v;
}

// --- write-conflict resolution ------------------------------------------------------------

std::string StateGen::wcr_update(const std::string& wcr, const std::string& target, const std::string& value,
                                 ScalarType type, bool atomic) const {
  std::string op;
  std::string stmt = translate_wcr(wcr, target, value, type, &op);
  if (!atomic) return stmt + ";";
  note_atomics();
  const CodeTarget& tgt = *opts.target;
  if (!op.empty())
    if (std::string a = tgt.atomic_update(target, op, value, type); !a.empty()) return a;
  std::string T(cpp_name(type));
  // The lambda's body itself: an operator form's statement ("__a += __b") is no expression.
  std::string f = translate_wcr_combine(wcr, "__a", "__b", type);
  return tgt.atomic_update_general(
      target, value, "[](" + T + " __a, " + T + " __b) { return static_cast<" + T + ">(" + f + "); }", type);
}

}  // namespace weir::codegen::detail
