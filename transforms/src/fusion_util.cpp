// Map fusion helpers: connector moving, flat scope bodies, and the core of vertical fusion by
// recomputation (analyze_otf / apply_otf) and of horizontal fusion, shared by the pattern
// transformations and the greedy fusion pass.
#include "fusion_util.h"

#include <algorithm>
#include <deque>

#include "dataflow_util.h"
#include "state_local_transient.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/field_dims.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms::detail {

using sym::Expr;

std::string free_suffix(const Node& n, const std::string& x) {
  auto used = [&](const std::string& s) {
    return n.in_connectors.count("IN_" + s) || n.out_connectors.count("OUT_" + s);
  };
  if (!used(x)) return x;
  for (int k = 0;; ++k)
    if (!used(x + "_" + std::to_string(k))) return x + "_" + std::to_string(k);
}

void move_scope_edges(SDFGState& st, Node& from, Node& to, NodeId skip_src) {
  std::map<std::string, std::string> suffix;  // from's suffix -> to's
  for (const auto& [c, t] : from.in_connectors)
    if (c.rfind("IN_", 0) == 0) {
      std::string s = free_suffix(to, c.substr(3));
      suffix[c.substr(3)] = s;
      to.in_connectors["IN_" + s] = t;
      auto ot = from.out_connectors.find("OUT_" + c.substr(3));
      to.out_connectors["OUT_" + s] = ot != from.out_connectors.end() ? ot->second : std::nullopt;
    }
  auto conn = [&](const std::string& c, const char* prefix, std::size_t len) {
    if (c.rfind(prefix, 0) != 0) return c;
    auto it = suffix.find(c.substr(len));
    return it == suffix.end() ? c : std::string(prefix) + it->second;
  };
  for (EdgeId e : std::vector<EdgeId>(st.in_edges(from.id()))) {
    DataflowEdge d = st.edge(e);
    st.remove_edge(e);
    if (d.src == skip_src) continue;
    st.add_edge(d.src, d.src_conn, to.id(), conn(d.dst_conn, "IN_", 3), d.memlet);
  }
  for (EdgeId e : std::vector<EdgeId>(st.out_edges(from.id()))) {
    DataflowEdge d = st.edge(e);
    st.remove_edge(e);
    st.add_edge(to.id(), conn(d.src_conn, "OUT_", 4), d.dst, d.dst_conn, d.memlet);
  }
}

std::string fresh_data_name(const SDFG& sdfg, const std::string& base, std::size_t& counter) {
  for (;;) {
    std::string n = base + "_" + std::to_string(counter++);
    if (!sdfg.has_data(n) && !sdfg.symbols.count(n)) return n;
  }
}

bool flat_scope_body(const SDFGState& st, NodeId entry, NodeId exit, std::vector<NodeId>& body,
                     std::string& why) {
  std::set<NodeId> seen{entry, exit};
  std::deque<NodeId> work{entry, exit};
  while (!work.empty()) {
    NodeId n = work.front();
    work.pop_front();
    auto visit = [&](NodeId m) {
      if (!seen.insert(m).second) return true;
      const Node& node = st.node(m);
      if (!node.as<Tasklet>() && !node.as<AccessNode>()) {
        why = "node " + std::to_string(m) + " (" + std::string(to_string(node.kind())) + " '" + node.label +
              "')";
        return false;
      }
      body.push_back(m);
      work.push_back(m);
      return true;
    };
    if (n != exit)
      for (EdgeId e : st.out_edges(n))
        if (!visit(st.edge(e).dst)) return false;
    if (n != entry)
      for (EdgeId e : st.in_edges(n))
        if (!visit(st.edge(e).src)) return false;
  }
  std::sort(body.begin(), body.end());
  return true;
}

namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

/// `e` is `p + c` with p one of `params` and c free of them: returns p (empty otherwise).
std::string param_plus_constant(const Expr& e, const std::vector<std::string>& params, Expr& c) {
  auto fs = e.free_symbols();
  std::string found;
  for (const auto& p : params)
    if (fs.count(p)) {
      if (!found.empty()) return {};
      found = p;
    }
  if (found.empty()) return {};
  c = e - Expr::symbol(found);
  for (const auto& p : params)
    if (c.free_symbols().count(p)) return {};
  return found;
}

/// Bounds of `e` over the ranges of `map` (each parameter in [start, end], step > 0), for an
/// index `p + c` or one free of the parameters; nullopt otherwise.
std::optional<std::pair<Expr, Expr>> bounds_over(const Expr& e, const MapInfo& map) {
  Expr c;
  std::string p = param_plus_constant(e, map.params, c);
  if (p.empty()) {
    for (const auto& q2 : map.params)
      if (e.free_symbols().count(q2)) return std::nullopt;
    return std::make_pair(e, e);
  }
  std::size_t d =
      static_cast<std::size_t>(std::find(map.params.begin(), map.params.end(), p) - map.params.begin());
  const Range& r = map.range[d];
  auto sign = r.step.sign_if_symbols_nonnegative();
  if (!sign || *sign <= 0) return std::nullopt;
  return std::make_pair(r.start + c, r.end + c);
}

bool provably_le(const Expr& a, const Expr& b) {
  auto s = (b - a).sign_if_symbols_nonnegative();
  return s && *s >= 0;
}

/// Whether B's reads of T in dimension `dim`, A's parameter values [read.first, read.second]
/// (T's index minus `offset`), lie where A writes T (A's range `written`, unit steps). Each end
/// is proven by the symbols, or by the premise that the read is inside T (0 <= index < extent)
/// where A writes T up to that end of T: a read outside T is refused at run time by the check
/// of B's read, which apply_otf keeps on the fused map (CheckedAccess). That premise carries a
/// consumer over its output's size symbols (`0:__vn_new_Edge_size`) into the full write of a
/// local field over the function's (`0:n_edges`).
bool reads_inside_writes(const DataDescriptor& t, std::size_t dim, const Range& written, const Expr& offset,
                         const std::pair<Expr, Expr>& read) {
  bool lo = provably_le(written.start, read.first), hi = provably_le(read.second, written.end);
  if (lo && hi) return true;
  const bool unit = written.step.is_integer() && written.step.value() == 1;
  const bool plain = dim < t.shape.size() && (dim >= t.offset.size() || t.offset[dim] == Expr(0));
  if (!unit || !plain) return false;
  lo = lo || provably_le(written.start, -offset);
  hi = hi || provably_le(t.shape[dim] - 1 - offset, written.end);
  return lo && hi;
}

/// Whether `to` is reachable from `from` following edges forward (a walk of the state).
bool reaches(const SDFGState& st, NodeId from, NodeId to) {
  std::vector<bool> seen(st.node_capacity(), false);
  std::vector<NodeId> work{from};
  seen[from] = true;
  while (!work.empty()) {
    NodeId n = work.back();
    work.pop_back();
    if (n == to) return true;
    for (EdgeId e : st.out_edges(n)) {
      NodeId m = st.edge(e).dst;
      if (!seen[m]) {
        seen[m] = true;
        work.push_back(m);
      }
    }
  }
  return false;
}

/// Tasklets of a flat body (for the size limit), or of B's body counting through nesting.
std::size_t count_tasklets(const SDFGState& st, NodeId entry, NodeId exit) {
  std::set<NodeId> seen{entry, exit};
  std::deque<NodeId> work{entry};
  std::size_t n = 0;
  while (!work.empty()) {
    NodeId x = work.front();
    work.pop_front();
    for (EdgeId e : st.out_edges(x)) {
      NodeId m = st.edge(e).dst;
      if (!seen.insert(m).second) continue;
      if (st.node(m).as<Tasklet>()) ++n;
      work.push_back(m);
    }
  }
  return n;
}

/// Why a copy of A's body inside B could read an element of `X` that another iteration of B has
/// already overwritten (empty: it cannot). Safe only when B writes X at one element per
/// iteration, a different one in every iteration, and every copy of A reads X exactly there:
/// the copy's read then comes before its own iteration's write (a data dependency) and no
/// other iteration touches that element, so it sees X as A did before B ran.
std::string in_place_conflict(const SDFGState& st, const MapInfo& a, NodeId entry_a, const MapInfo& b,
                              NodeId entry_b, const OtfPlan& plan, const std::string& X) {
  if (plan.keep) return "map '" + a.label + "' stays (" + q(plan.t_data) + " has other readers)";
  const Memlet* w = nullptr;
  for (EdgeId e : st.in_edges(st.node(entry_b).as<MapEntry>()->exit)) {
    const DataflowEdge& d = st.edge(e);
    if (d.memlet.is_empty() || d.memlet.data != X) continue;
    if (w) return "map '" + b.label + "' writes it more than once per iteration";
    if (!st.node(d.src).as<Tasklet>() || d.memlet.dynamic || !d.memlet.wcr.empty() || d.memlet.other_subset ||
        !d.memlet.subset.is_single_element())
      return "map '" + b.label +
             "' writes it through a nested scope, a copy, a dynamic, conflict-resolved or " +
             "multi-element memlet";
    w = &d.memlet;
  }
  if (!w) return "map '" + b.label + "' writes it from a nested scope";
  // Every copy of A reads X only where B writes in no iteration (deriche's y1[i, j - 2] and
  // y1[i, j]): it sees X as A did.
  bool apart = true;
  for (EdgeId e : st.out_edges(entry_a)) {
    const Memlet& m = st.edge(e).memlet;
    if (m.is_empty() || m.data != X) continue;
    for (const auto& pt : plan.points) {
      std::map<std::string, Expr> sigma;  // A's parameters at this point of T, as in apply_otf
      for (std::size_t d = 0; d < pt.first.dims(); ++d)
        sigma[plan.param_of_dim[d]] = pt.first[d].start - plan.offset_of_dim[d];
      apart = apart && never_meet(m.subset.subs(sigma), w->subset, b.params);
    }
  }
  if (apart) return {};
  std::set<std::string> used;
  for (const Range& r : w->subset.ranges()) {
    Expr c;
    std::string p = param_plus_constant(r.start, b.params, c);
    if (p.empty() || !used.insert(p).second)
      return "map '" + b.label + "' writes " + X + "[" + w->subset.str() + "]";
  }
  if (used.size() != b.params.size())
    return "map '" + b.label + "' writes " + X + "[" + w->subset.str() + "] from several iterations";
  for (EdgeId e : st.out_edges(entry_a)) {
    const Memlet& m = st.edge(e).memlet;
    if (m.is_empty() || m.data != X) continue;
    if (m.dynamic || m.other_subset || !m.subset.is_single_element() || m.subset.dims() != w->subset.dims())
      return "map '" + a.label + "' reads it through a copy, dynamic or multi-element memlet";
    for (const auto& pt : plan.points) {
      std::map<std::string, Expr> sigma;  // A's parameters at this point of T, as in apply_otf
      for (std::size_t d = 0; d < pt.first.dims(); ++d)
        sigma[plan.param_of_dim[d]] = pt.first[d].start - plan.offset_of_dim[d];
      Subset read = m.subset.subs(sigma);
      for (std::size_t d = 0; d < read.dims(); ++d)
        if (read[d].start != w->subset[d].start)
          return "its copy for " + plan.t_data + "[" + pt.first.str() + "] reads " + X + "[" + read.str() +
                 "] at another element than " + X + "[" + w->subset.str() + "]";
    }
  }
  return {};
}

/// Why a copy of A's body cannot run at the points of T that B reads when A's tasklets use
/// the parameters `code_params` (parameter -> a tasklet using it) in their code (empty: it can).
/// Code is not rewritten, so each copy must see every such parameter at its own value: B reads
/// T at A's own point in those dimensions (the parameter of the same name, offset included),
/// which is a pointwise fusion and recomputes nothing.
std::string code_parameter_conflict(const OtfPlan& plan,
                                    const std::map<std::string, std::string>& code_params) {
  for (const auto& [p, tasklet] : code_params)
    for (const auto& pt : plan.points)
      for (std::size_t d = 0; d < pt.first.dims(); ++d) {
        if (plan.param_of_dim[d] != p) continue;
        if (pt.first[d].start - plan.offset_of_dim[d] == Expr::symbol(p)) continue;
        return "tasklet '" + tasklet + "' uses map parameter '" + p +
               "' in its code, and the consumer reads " + plan.t_data + "[" + pt.first.str() +
               "], not at the producer's own point";
      }
  return {};
}

}  // namespace

std::string debuginfo_of(const Memlet& m, const Node& node) {
  for (const UnknownAttributes* x : {&m.extra, &node.extra})
    if (const std::string* d = x->find("debuginfo")) return *d;
  if (const auto* e = node.as<MapEntry>())
    if (const std::string* d = e->map->extra.find("debuginfo")) return *d;
  return "";
}

CheckedAccess removed_access(const SDFG& sdfg, const std::string& data, const Subset& subset, bool write,
                             const std::string& scope, const std::string& debuginfo) {
  const DataDescriptor& d = sdfg.data(data);
  bool offset = false;  // recorded only when some dimension's is not 0
  for (const Expr& o : d.offset) offset = offset || !(o == Expr(0));
  return CheckedAccess{data,  subset, d.shape,   offset ? d.offset : std::vector<Expr>{},
                       write, scope,  debuginfo, field_dims(d)};
}

std::vector<CheckedAccess> producer_accesses(const SDFG& sdfg, const SDFGState& st, NodeId entry_a_id) {
  const auto& entry_a = *st.node(entry_a_id).as<MapEntry>();
  std::vector<CheckedAccess> out;
  const std::string scope = "map '" + entry_a.map->label + "'";
  for (EdgeId e : st.in_edges(entry_a_id)) {
    const Memlet& m = st.edge(e).memlet;
    if (!m.is_empty() && !m.dynamic && sdfg.has_data(m.data))
      out.push_back(removed_access(sdfg, m.data, m.subset, false, scope, debuginfo_of(m, entry_a)));
  }
  for (EdgeId e : st.out_edges(entry_a.exit)) {
    const Memlet& m = st.edge(e).memlet;
    if (!m.is_empty() && !m.dynamic && sdfg.has_data(m.data))
      out.push_back(removed_access(sdfg, m.data, m.subset, true, scope, debuginfo_of(m, entry_a)));
  }
  for (CheckedAccess& c : checked_accesses(*entry_a.map)) out.push_back(std::move(c));
  return out;
}

std::vector<CheckedAccess> removed_accesses(const SDFG& sdfg, const SDFGState& st, const OtfPlan& plan) {
  const auto& entry_b = *st.node(plan.entry_b).as<MapEntry>();
  const MapInfo& b = *entry_b.map;
  std::vector<CheckedAccess> out;
  // B's read of T at each point, over B's range (each index a parameter plus a constant or free
  // of them: analyze_otf's bounds_over accepted it).
  for (const auto& [point, readers] : plan.points) {
    std::vector<Range> dims;
    for (const Range& r : point.ranges()) {
      Expr c;
      std::string p = param_plus_constant(r.start, b.params, c);
      if (p.empty()) {
        dims.emplace_back(r.start, r.start);
        continue;
      }
      const Range& over = b.range[static_cast<std::size_t>(std::find(b.params.begin(), b.params.end(), p) -
                                                           b.params.begin())];
      dims.emplace_back(over.start + c, over.end + c, over.step);
    }
    if (dims.size() != point.dims()) continue;
    out.push_back(removed_access(sdfg, plan.t_data, Subset(dims), false, "map '" + b.label + "'",
                                 debuginfo_of(st.edge(readers.front()).memlet, entry_b)));
  }
  if (plan.keep) return out;
  // A goes: its outer memlets (its inputs over its range, its write of T) and what earlier
  // fusions recorded on it.
  for (CheckedAccess& c : producer_accesses(sdfg, st, plan.entry_a)) out.push_back(std::move(c));
  return out;
}

bool never_meet(const Subset& x, const Subset& y, const std::vector<std::string>& params) {
  if (x.dims() != y.dims()) return false;
  auto below = [](const Expr& hi, const Expr& lo) {
    auto d = (lo - hi).as_integer();
    return d && *d > 0;
  };
  for (std::size_t d = 0; d < x.dims(); ++d) {
    const Range &r = x[d], &q = y[d];
    bool fixed = true;
    for (const Expr* e : {&r.start, &r.end, &q.start, &q.end})
      for (const auto& s : e->free_symbols())
        fixed = fixed && std::find(params.begin(), params.end(), s) == params.end();
    if (fixed && (below(r.end, q.start) || below(q.end, r.start))) return true;
  }
  return false;
}

std::map<std::string, int> written_access_nodes(const SDFGState& st) {
  std::map<std::string, int> out;
  for (const Node* n : st.nodes())
    if (const auto* an = n->as<AccessNode>(); an && !st.in_edges(an->id()).empty()) ++out[an->data];
  return out;
}

std::vector<std::vector<std::uint32_t>> producer_consumer_triples(const SDFGState& st, std::uint32_t anchor) {
  std::vector<std::vector<std::uint32_t>> out;
  for (EdgeId e : st.out_edges(anchor)) {
    NodeId t = st.edge(e).dst;
    if (!st.node(t).as<AccessNode>()) continue;
    std::set<NodeId> seen;
    for (EdgeId o : st.out_edges(t)) {
      NodeId b = st.edge(o).dst;
      if (st.node(b).as<MapEntry>() && seen.insert(b).second) out.push_back({anchor, t, b});
    }
  }
  if (out.empty()) out.push_back({anchor});
  return out;
}

std::string input_written_meanwhile(const SDFGState& st, NodeId entry_a, NodeId entry_b,
                                    const std::map<std::string, int>& state_writes) {
  const MapInfo& a = *st.node(entry_a).as<MapEntry>()->map;
  const auto& eb = *st.node(entry_b).as<MapEntry>();
  for (EdgeId e : st.in_edges(entry_a)) {
    const DataflowEdge& d = st.edge(e);
    if (d.memlet.is_empty()) continue;
    // Nothing else in this state writes the input (its access node is the only written one,
    // or none is).
    auto w = state_writes.find(d.memlet.data);
    int others = (w == state_writes.end() ? 0 : w->second) - (st.in_edges(d.src).empty() ? 0 : 1);
    if (others <= 0) continue;
    // Other writes of the container in this state must wait for B (B's exit reaches each of
    // their writers), or B would read what they write. A walk of the state: only for such
    // containers (a time loop's ping-pong arrays).
    for (const AccessNode* an : st.access_nodes(d.memlet.data)) {
      if (an->id() == d.src) continue;
      // Written before A's input is (fdtd_2d's ey[0, :] before ey[1:, :] -= ...): done before A and B.
      if (reaches(st, an->id(), d.src)) continue;
      for (EdgeId we : st.in_edges(an->id()))
        if (!reaches(st, eb.exit, st.edge(we).src))
          return q(d.memlet.data) + ", which map '" + a.label +
                 "' reads, is also written in the state where map '" + eb.map->label +
                 "' may not have read it yet";
    }
  }
  return {};
}

MatchResult analyze_otf(const SDFG& sdfg, const SDFGState& st, NodeId exit_a_id, NodeId t_node,
                        NodeId entry_b_id, const std::map<std::string, DataUse>& use,
                        const std::map<std::string, int>& state_writes, const OtfLimits& limits,
                        OtfPlan& plan) {
  const auto* exit_a = st.node(exit_a_id).as<MapExit>();
  if (!exit_a) return refuse("node " + std::to_string(exit_a_id) + " is not a map exit");
  const auto* tn = st.node(t_node).as<AccessNode>();
  if (!tn) return refuse("node " + std::to_string(t_node) + " is not an access node");
  const auto* entry_b = st.node(entry_b_id).as<MapEntry>();
  if (!entry_b) return refuse("node " + std::to_string(entry_b_id) + " is not a map entry");
  const MapEntry& entry_a = st.entry_of(*exit_a);
  const MapInfo& a = *exit_a->map;
  const MapInfo& b = *entry_b->map;
  if (entry_a.id() == entry_b_id) return refuse("a map cannot be fused with itself");
  plan = OtfPlan{};
  plan.entry_a = entry_a.id();
  plan.exit_a = exit_a_id;
  plan.t_node = t_node;
  plan.entry_b = entry_b_id;
  const std::string& T = tn->data;
  plan.t_data = T;
  for (const MapEntry* me : {&entry_a, entry_b}) {
    if (auto dyn = dynamic_inputs(*me); !dyn.empty())
      return refuse("map '" + me->map->label + "' has dynamic range inputs (" + dyn + ")");
    if (me->map->params.size() != me->map->range.dims())
      return refuse("map '" + me->map->label + "' has a different number of parameters and ranges");
  }
  if (a.schedule != b.schedule && a.schedule != ScheduleType::Default && b.schedule != ScheduleType::Default)
    return refuse("maps '" + a.label + "' and '" + b.label + "' have different schedules (" +
                  std::string(to_string(a.schedule)) + " vs " + std::string(to_string(b.schedule)) + ")");

  // T: a transient written only by A, one element per iteration at p + c in every dimension.
  const DataDescriptor& desc = sdfg.data(T);
  if (!desc.transient) return refuse(q(T) + " is not transient");
  if (desc.is_view()) return refuse(q(T) + " is a view");
  if (st.out_edges(exit_a_id).size() != 1 || st.edge(st.out_edges(exit_a_id)[0]).dst != t_node)
    return refuse("map '" + a.label + "' writes more than " + q(T) +
                  "; recomputation needs a map with one output");
  if (st.in_edges(t_node).size() != 1) return refuse(q(T) + " is also written by another node");
  const DataflowEdge& out = st.edge(st.out_edges(exit_a_id)[0]);
  if (!out.memlet.wcr.empty())
    return refuse("map '" + a.label + "' writes " + q(T) + " with write-conflict resolution");
  auto writes = st.in_edges_by_connector(
      exit_a_id, "IN_" + out.src_conn.substr(std::min<std::size_t>(4, out.src_conn.size())));
  if (out.src_conn.rfind("OUT_", 0) != 0 || writes.size() != 1 || st.in_edges(exit_a_id).size() != 1)
    return refuse("map '" + a.label + "' does not write " + q(T) + " exactly once per iteration");
  plan.write = writes[0];
  const DataflowEdge& w = st.edge(plan.write);
  if (!st.node(w.src).as<Tasklet>())
    return refuse("map '" + a.label + "' writes " + q(T) + " from a node that is not a tasklet");
  if (w.memlet.data != T || w.memlet.other_subset || w.memlet.dynamic || !w.memlet.wcr.empty() ||
      !w.memlet.subset.is_single_element())
    return refuse("map '" + a.label + "' writes " + q(T) +
                  " through a copy, dynamic, conflict-resolved or multi-element memlet");
  std::set<std::string> used_params;
  for (const Range& r : w.memlet.subset.ranges()) {
    Expr c;
    std::string p = param_plus_constant(r.start, a.params, c);
    if (p.empty() || !used_params.insert(p).second)
      return refuse("map '" + a.label + "' writes " + T + "[" + w.memlet.subset.str() +
                    "], not one parameter plus a constant per dimension");
    plan.param_of_dim.push_back(p);
    plan.offset_of_dim.push_back(c);
  }
  if (used_params.size() != a.params.size())
    return refuse("map '" + a.label + "' writes " + T + "[" + w.memlet.subset.str() +
                  "] from several iterations");

  // A's body: tasklets and local scalars only; what it reads comes through A's entry.
  std::string why;
  if (!flat_scope_body(st, entry_a.id(), exit_a_id, plan.body, why))
    return refuse("map '" + a.label + "' contains " + why + "; recomputation copies flat bodies only");
  std::set<NodeId> body(plan.body.begin(), plan.body.end());
  std::set<std::string> b_params(b.params.begin(), b.params.end());
  std::set<std::string> a_reads;
  // A's parameters that its tasklets use in code (neighbour reads `__all_f[idx, __K]`), with the
  // first tasklet that does: their values cannot be substituted, so every copy must run at A's
  // own point (checked once B's points are known).
  std::map<std::string, std::string> code_params;
  for (NodeId n : plan.body) {
    const Node& node = st.node(n);
    if (const auto* t = node.as<Tasklet>()) {
      ++plan.body_tasklets;
      if (t->side_effects.value_or(false)) return refuse("tasklet '" + t->label + "' has side effects");
      for (const auto& p : a.params)
        if (code_names(t->code).data().count(p) && !code_params.count(p)) code_params.emplace(p, t->label);
    } else {
      const auto& an = *node.as<AccessNode>();
      const DataDescriptor& d = sdfg.data(an.data);
      auto u = use.find(an.data);
      if (!d.transient || !(d.total_size == Expr(1)) || d.is_view())
        return refuse("map '" + a.label + "' accesses container " + q(an.data) + " inside its scope");
      if (u != use.end() && (u->second.in_control_flow || u->second.by_name_elsewhere))
        return refuse("local " + q(an.data) + " of map '" + a.label + "' is used by name elsewhere");
      if (u != use.end()) plan.local_uses[an.data] = u->second.access_nodes;
    }
    for (EdgeId e : st.in_edges(n)) {
      const DataflowEdge& d = st.edge(e);
      if (d.src == entry_a.id()) {
        if (d.memlet.is_empty()) continue;
        if (d.src_conn.rfind("OUT_", 0) != 0)
          return refuse("map '" + a.label + "' has an input without a connector");
        auto outer = st.in_edges_by_connector(entry_a.id(), "IN_" + d.src_conn.substr(4));
        if (outer.size() != 1 || !st.node(st.edge(outer[0]).src).as<AccessNode>())
          return refuse("map '" + a.label + "' reads " + q(d.memlet.data) +
                        " from a node that is not an access node");
        a_reads.insert(d.memlet.data);
      }
      for (const auto& s : st.edge(e).memlet.subset.free_symbols())
        if (b_params.count(s) && std::find(a.params.begin(), a.params.end(), s) == a.params.end())
          return refuse("map '" + a.label + "' uses symbol '" + s + "', a parameter of map '" + b.label +
                        "'");
    }
    for (EdgeId e : st.out_edges(n))
      if (st.edge(e).dst == exit_a_id && e != plan.write)
        return refuse("map '" + a.label + "' writes more than " + q(T));
  }
  for (EdgeId e : st.in_edges(entry_a.id()))
    if (!st.edge(e).memlet.is_empty() && !st.node(st.edge(e).src).as<AccessNode>())
      return refuse("map '" + a.label + "' is fed by a node that is not an access node");

  // Inputs of A must hold the same values where B runs.
  if (auto why_not = input_written_meanwhile(st, entry_a.id(), entry_b_id, state_writes); !why_not.empty())
    return refuse(why_not);
  // B writes what A reads (an update in place, `C = A @ B + beta * C`): checked once the points
  // of T that B reads are known.
  std::set<std::string> in_place;
  for (EdgeId e : st.out_edges(entry_b->exit))
    if (a_reads.count(st.edge(e).memlet.data)) in_place.insert(st.edge(e).memlet.data);

  // B's reads of T: single elements, straight into code nodes of B's scope, inside what A writes.
  std::size_t b_edges = 0;
  for (EdgeId e : st.out_edges(t_node)) {
    const DataflowEdge& d = st.edge(e);
    if (d.dst != entry_b_id) {
      plan.keep = true;
      continue;
    }
    ++b_edges;
    if (d.memlet.is_empty() || d.dst_conn.rfind("IN_", 0) != 0)
      return refuse("map '" + b.label + "' reads " + q(T) + " without a connector");
    for (EdgeId r : st.out_edges_by_connector(entry_b_id, "OUT_" + d.dst_conn.substr(3))) {
      const DataflowEdge& rd = st.edge(r);
      const Memlet& rm = rd.memlet;
      if (!st.node(rd.dst).as<Tasklet>())
        return refuse("map '" + b.label + "' reads " + q(T) + " into " +
                      std::string(to_string(st.node(rd.dst).kind())) + " '" + st.node(rd.dst).label +
                      "', not a tasklet");
      if (rm.is_empty() || rm.data != T || rm.other_subset || rm.dynamic || !rm.subset.is_single_element() ||
          rm.subset.dims() != plan.param_of_dim.size())
        return refuse("map '" + b.label + "' reads " + q(T) +
                      " through a copy, dynamic or multi-element memlet");
      auto it = std::find_if(plan.points.begin(), plan.points.end(),
                             [&](const auto& pt) { return pt.first == rm.subset; });
      if (it == plan.points.end()) {
        for (std::size_t dd = 0; dd < rm.subset.dims(); ++dd) {
          Expr v = rm.subset[dd].start - plan.offset_of_dim[dd];
          auto bd = bounds_over(v, b);
          std::size_t ad = static_cast<std::size_t>(
              std::find(a.params.begin(), a.params.end(), plan.param_of_dim[dd]) - a.params.begin());
          if (!bd || !reads_inside_writes(sdfg.data(T), dd, a.range[ad], plan.offset_of_dim[dd], *bd))
            return refuse("cannot prove that map '" + b.label + "' reads " + T + "[" + rm.subset.str() +
                          "] only where map '" + a.label + "' writes it (dimension " + std::to_string(dd) +
                          ")");
        }
        plan.points.emplace_back(rm.subset, std::vector<EdgeId>{r});
      } else {
        it->second.push_back(r);
      }
    }
  }
  if (b_edges == 0) return refuse("map '" + b.label + "' does not read " + q(T));
  if (plan.points.empty()) return refuse("map '" + b.label + "' reads no element of " + q(T));
  if (auto why_not = code_parameter_conflict(plan, code_params); !why_not.empty()) return refuse(why_not);
  for (const std::string& X : in_place)
    if (auto why_not = in_place_conflict(st, a, entry_a.id(), b, entry_b_id, plan, X); !why_not.empty())
      return refuse("map '" + b.label + "' writes " + q(X) + ", which map '" + a.label + "' reads, and " +
                    why_not + "; recomputing inside '" + b.label + "' would read overwritten values");
  auto u = use.find(T);
  if (u != use.end() && (u->second.in_control_flow || u->second.by_name_elsewhere)) plan.keep = true;
  // T's access nodes in other states (the unrolled copies of a loop body) keep A unless no
  // state reads what another one wrote, or what A writes here is overwritten on every path
  // before any read (concat_where's second map reads the other copy's value).
  if (u != use.end() && u->second.access_nodes > 1 && !plan.keep) {
    if (state_local_transient(sdfg, T).empty() ||
        (written_whole_first(sdfg, st, *st.node(t_node).as<AccessNode>()).empty() &&
         dead_after_state(sdfg, st, T).empty()))
      plan.t_elsewhere = true;
    else
      plan.keep = true;
  }
  if (!limits.broadcast) {
    // A parameter of B that no read of T depends on: B's iterations along it all recompute the
    // same elements (correlation's column means and norms, 1-D, recomputed in every row of the
    // 2-D map after them: a sqrt and a division per element instead of per column).
    std::set<std::string> indexed;
    for (const auto& pt : plan.points) indexed.merge(pt.first.free_symbols());
    for (std::size_t d = 0; d < b.params.size() && d < b.range.dims(); ++d) {
      Expr size = b.range[d].size();
      if (indexed.count(b.params[d]) || (size.is_integer() && size.value() <= 1)) continue;
      return refuse("map '" + b.label + "' reads " + q(T) + " independently of its parameter '" +
                    b.params[d] + "': fusing would recompute every element of " + q(T) +
                    " at each of its iterations");
    }
  }
  if (limits.max_points > 0 && static_cast<long long>(plan.points.size()) > limits.max_points)
    return refuse("map '" + b.label + "' reads " + q(T) + " at " + std::to_string(plan.points.size()) +
                  " points, more than max_points=" + std::to_string(limits.max_points) + " copies of map '" +
                  a.label + "'");
  if (limits.max_tasklets > 0) {
    std::size_t total =
        count_tasklets(st, entry_b_id, entry_b->exit) + plan.body_tasklets * plan.points.size();
    if (static_cast<long long>(total) > limits.max_tasklets)
      return refuse("fusing would give map '" + b.label + "' " + std::to_string(total) +
                    " tasklets, more than max_tasklets=" + std::to_string(limits.max_tasklets));
  }
  return MatchResult::success();
}

void apply_otf(SDFG& sdfg, SDFGState& st, const OtfPlan& plan, std::size_t& counter) {
  auto& entry_a = *st.node(plan.entry_a).as<MapEntry>();
  auto& entry_b = *st.node(plan.entry_b).as<MapEntry>();
  const MapInfo& a = *entry_a.map;
  if (entry_b.map->schedule == ScheduleType::Default) entry_b.map->schedule = a.schedule;
  add_checked_accesses(*entry_b.map, removed_accesses(sdfg, st, plan));

  // A's inputs enter B through B's connectors: the one B already has from the same access node
  // and container, else a new one.
  std::map<std::string, std::string> conn_of;  // A's OUT_x -> B's OUT_y
  std::set<std::string> touched;               // B's IN_ connectors to re-propagate
  for (EdgeId e : st.in_edges(plan.entry_a)) {
    const DataflowEdge d = st.edge(e);
    if (d.memlet.is_empty()) {
      bool have = false;
      for (EdgeId f : st.in_edges(plan.entry_b))
        have = have || (st.edge(f).src == d.src && st.edge(f).memlet.is_empty());
      if (!have) st.add_edge(d.src, d.src_conn, plan.entry_b, "", d.memlet);
      continue;
    }
    std::string found;
    for (EdgeId f : st.in_edges(plan.entry_b)) {
      const DataflowEdge& g = st.edge(f);
      if (g.src == d.src && g.memlet.data == d.memlet.data && g.dst_conn.rfind("IN_", 0) == 0 &&
          g.src_conn == d.src_conn) {
        found = g.dst_conn.substr(3);
        break;
      }
    }
    if (found.empty()) {
      found = free_suffix(entry_b, d.dst_conn.substr(3));
      entry_b.in_connectors["IN_" + found] =
          entry_a.in_connectors.count(d.dst_conn) ? entry_a.in_connectors.at(d.dst_conn) : std::nullopt;
      entry_b.out_connectors["OUT_" + found] = std::nullopt;
      st.add_edge(d.src, d.src_conn, plan.entry_b, "IN_" + found, d.memlet);
    }
    conn_of["OUT_" + d.dst_conn.substr(3)] = "OUT_" + found;
    touched.insert("IN_" + found);
  }

  const DataflowEdge write = st.edge(plan.write);
  const DataDescriptor t_desc = sdfg.data(plan.t_data);
  for (const auto& [point, readers] : plan.points) {
    // A's parameters at this point of T.
    std::map<std::string, Expr> sigma;
    for (std::size_t d = 0; d < point.dims(); ++d)
      sigma[plan.param_of_dim[d]] = point[d].start - plan.offset_of_dim[d];
    std::map<NodeId, NodeId> copy;
    std::map<std::string, std::string> local;  // A's local scalars -> this copy's
    for (NodeId n : plan.body) {
      const Node& node = st.node(n);
      if (const auto* an = node.as<AccessNode>()) {
        auto it = local.find(an->data);
        if (it == local.end()) {
          std::string name = fresh_data_name(sdfg, an->data, counter);
          sdfg.add_data(name, sdfg.data(an->data));
          it = local.emplace(an->data, name).first;
        }
        AccessNode& c = st.add_access(it->second);
        c.setzero = an->setzero;
        copy[n] = c.id();
      } else {
        copy[n] = st.add_node(node.clone()).id();
      }
    }
    auto rewrite = [&](Memlet m) {
      if (m.is_empty()) return m;
      auto it = local.find(m.data);
      if (it != local.end()) m.data = it->second;
      substitute_memlet(m, sigma);
      return m;
    };
    for (NodeId n : plan.body)
      for (EdgeId e : st.in_edges(n)) {
        const DataflowEdge d = st.edge(e);
        if (d.src == plan.entry_a) {
          std::string c = d.memlet.is_empty() ? std::string() : conn_of.at(d.src_conn);
          st.add_edge(plan.entry_b, c, copy.at(n), d.dst_conn, rewrite(d.memlet));
        } else {
          st.add_edge(copy.at(d.src), d.src_conn, copy.at(n), d.dst_conn, rewrite(d.memlet));
        }
      }
    // T's element becomes a scalar of this copy, read by B's consumers of this point.
    std::string tl = fresh_data_name(sdfg, plan.t_data, counter);
    DataDescriptor ld = DataDescriptor::make_scalar(ScalarType::Float64, true);
    ld.dtype = t_desc.dtype;
    ld.storage = StorageType::Register;
    ld.lifetime = AllocationLifetime::Scope;
    sdfg.add_data(tl, ld);
    NodeId ln = st.add_access(tl).id();
    Memlet lm = Memlet::simple(tl, Subset::parse("0"));
    st.add_edge(copy.at(write.src), write.src_conn, ln, "", lm);
    for (EdgeId r : readers) {
      DataflowEdge rd = st.edge(r);
      st.remove_edge(r);
      st.add_edge(ln, "", rd.dst, rd.dst_conn, lm);
    }
  }

  // B no longer reads T.
  for (EdgeId e : std::vector<EdgeId>(st.out_edges(plan.t_node))) {
    DataflowEdge d = st.edge(e);
    if (d.dst != plan.entry_b) continue;
    st.remove_edge(e);
    if (d.dst_conn.rfind("IN_", 0) == 0) {
      entry_b.in_connectors.erase(d.dst_conn);
      entry_b.out_connectors.erase("OUT_" + d.dst_conn.substr(3));
    }
  }

  // Outer memlets of the connectors B gained or widened.
  for (const auto& c : touched) {
    std::vector<Memlet> inner;
    for (EdgeId e : st.out_edges_by_connector(plan.entry_b, "OUT_" + c.substr(3)))
      inner.push_back(st.edge(e).memlet);
    for (EdgeId e : st.in_edges_by_connector(plan.entry_b, c)) {
      Memlet& outer = st.edge(e).memlet;
      if (auto m = propagate_memlet(inner, *entry_b.map, sdfg.data(outer.data), outer)) outer = *m;
    }
  }

  if (plan.keep) return;
  // A, its body, T and the inputs only A read disappear. T has a single access node (else
  // keep is set); A's locals go when the body holds all their access nodes.
  std::map<std::string, int> in_body;
  for (NodeId n : plan.body)
    if (const auto* an = st.node(n).as<AccessNode>()) ++in_body[an->data];
  std::vector<NodeId> sources;
  for (EdgeId e : st.in_edges(plan.entry_a)) sources.push_back(st.edge(e).src);
  for (NodeId n : plan.body) st.remove_node(n);
  st.remove_node(plan.exit_a);
  st.remove_node(plan.entry_a);
  st.remove_node(plan.t_node);
  for (NodeId s : sources)
    if (st.has_node(s) && st.in_edges(s).empty() && st.out_edges(s).empty()) st.remove_node(s);
  if (sdfg.has_data(plan.t_data) && !plan.t_elsewhere) sdfg.remove_data(plan.t_data);
  for (const auto& [l, n] : in_body) {
    auto u = plan.local_uses.find(l);
    if (sdfg.has_data(l) && (u == plan.local_uses.end() || u->second <= n)) sdfg.remove_data(l);
  }
}

}  // namespace weir::transforms::detail

namespace weir::transforms::detail {

namespace {

std::set<std::string> containers_at(const SDFGState& st, NodeId entry, NodeId exit, bool writes) {
  std::set<std::string> out;
  if (writes) {
    for (EdgeId e : st.out_edges(exit))
      if (!st.edge(e).memlet.is_empty()) out.insert(st.edge(e).memlet.data);
  } else {
    for (EdgeId e : st.in_edges(entry))
      if (!st.edge(e).memlet.is_empty()) out.insert(st.edge(e).memlet.data);
  }
  return out;
}

}  // namespace

MatchResult analyze_horizontal(const SDFGState& st, NodeId entry_b, NodeId entry_c,
                               std::map<std::string, sym::Expr>& rename) {
  const auto* b = st.node(entry_b).as<MapEntry>();
  const auto* c = st.node(entry_c).as<MapEntry>();
  if (!b || !c) return refuse("both nodes must be map entries");
  if (entry_b == entry_c) return refuse("a map cannot be fused with itself");
  const MapInfo& mb = *b->map;
  const MapInfo& mc = *c->map;
  for (const MapEntry* me : {b, c})
    if (auto dyn = dynamic_inputs(*me); !dyn.empty())
      return refuse("map '" + me->map->label + "' has dynamic range inputs (" + dyn + ")");
  if (mb.params.size() != mc.params.size() || mb.range.dims() != mc.range.dims())
    return refuse("map '" + mb.label + "' has " + std::to_string(mb.params.size()) + " dimension(s), map '" +
                  mc.label + "' has " + std::to_string(mc.params.size()));
  rename.clear();
  for (std::size_t d = 0; d < mb.params.size(); ++d)
    if (mb.params[d] != mc.params[d]) rename[mc.params[d]] = Expr::symbol(mb.params[d]);
  for (std::size_t d = 0; d < mb.params.size(); ++d) {
    Range rc = Subset({mc.range[d]}).subs(rename)[0];
    if (!(mb.range[d] == rc))
      return refuse("ranges differ in dimension " + std::to_string(d) + " (" + Subset({mb.range[d]}).str() +
                    " vs " + Subset({rc}).str() + ")");
  }
  if (mb.schedule != mc.schedule && mb.schedule != ScheduleType::Default &&
      mc.schedule != ScheduleType::Default)
    return refuse("maps '" + mb.label + "' and '" + mc.label + "' have different schedules");
  bool shared = false;
  for (EdgeId e : st.in_edges(entry_b))
    for (EdgeId f : st.in_edges(entry_c)) shared = shared || st.edge(e).src == st.edge(f).src;
  if (!shared) return refuse("maps '" + mb.label + "' and '" + mc.label + "' read no common access node");
  auto wb = containers_at(st, entry_b, b->exit, true), wc = containers_at(st, entry_c, c->exit, true);
  auto rb = containers_at(st, entry_b, b->exit, false), rc = containers_at(st, entry_c, c->exit, false);
  for (const auto& x : wc)
    if (wb.count(x) || rb.count(x))
      return refuse("map '" + mc.label + "' writes " + q(x) + ", which map '" + mb.label + "' also accesses");
  for (const auto& x : wb)
    if (rc.count(x))
      return refuse("map '" + mb.label + "' writes " + q(x) + ", which map '" + mc.label + "' reads");
  if (reaches(st, b->exit, entry_c) || reaches(st, c->exit, entry_b))
    return refuse("maps '" + mb.label + "' and '" + mc.label + "' depend on each other through the dataflow");
  std::set<std::string> targets(mb.params.begin(), mb.params.end());
  ScopeTree tree = st.scope_tree();
  for (NodeId n : scope_body(st, tree, entry_c))
    if (const auto* inner = st.node(n).as<MapEntry>())
      for (const auto& p : inner->map->params)
        if (targets.count(p) && !rename.empty())
          return refuse("map '" + mc.label + "' contains map '" + inner->map->label + "' with parameter '" +
                        p + "', which renaming would shadow");
  if (tree.parent[entry_b] != tree.parent[entry_c]) return refuse("maps are in different scopes");
  return MatchResult::success();
}

void apply_horizontal(SDFGState& st, NodeId entry_b, NodeId entry_c,
                      const std::map<std::string, sym::Expr>& rename) {
  auto& b = *st.node(entry_b).as<MapEntry>();
  auto& c = *st.node(entry_c).as<MapEntry>();
  if (!rename.empty()) substitute_in_scope(st, st.scope_tree(), entry_c, rename);
  add_checked_accesses(*b.map, checked_accesses(*c.map));  // C's record is not renamed: no parameters
  if (b.map->schedule == ScheduleType::Default) b.map->schedule = c.map->schedule;
  NodeId exit_c = c.exit;
  move_scope_edges(st, c, b);
  move_scope_edges(st, st.node(exit_c), st.node(b.exit));
  st.remove_node(entry_c);
  st.remove_node(exit_c);
}

}  // namespace weir::transforms::detail
