// LoopMapInterchange: a run of map states and loops -> map { nested SDFG { the run } }.
#include "weir/transforms/loop_map_interchange.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "fusion_util.h"
#include "nest_util.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/dependence.h"
#include "weir/sdfg/state_uses.h"

namespace weir::transforms {

LoopMapInterchange::LoopMapInterchange() = default;

std::string LoopMapInterchange::description() const {
  return "Move the map over the other dimensions out of a run of states and loops (a scan's levels) "
         "whose accesses are all at the map point: map { nested SDFG { sequential loop } }; or, where "
         "that run has no loop, the parameters all its maps share (a time loop over cells, each map "
         "keeping its levels)";
}

namespace {

/// The map all states of a run share, and where each container's map dimensions are.
struct RunInfo {
  bool has_map = false;
  std::vector<std::string> params;
  Subset range;
  std::map<std::string, std::vector<std::size_t>> pos;  // data -> data dim of params[k]
  /// Read-only data some access reads off the map point (a stencil input): passed whole.
  /// data -> the first such access, for the refusal if the run also writes it.
  std::map<std::string, std::string> shared;
  std::set<std::string> read, written;
  bool has_loop = false;
  std::set<std::string>
      loop_vars;  // of the run's loops: the map cannot move out of them if its range uses one
  /// Transient scalars whose access nodes sit inside the maps (what fusion leaves between two
  /// tasklets of one point): each point's own, they move into the nested SDFG unchanged.
  std::set<std::string> inner;
  /// A run of columns over some of the maps' parameters (ADR 0052, session 28): `params` are
  /// the parameters every map of the run has over the same range; each map keeps its other
  /// parameters (a map over the levels inside the column). Branches whose conditions read only
  /// symbols and symbol assignments on the run's edges are allowed.
  bool extended = false;
  /// Symbols assigned on interstate edges of the run (extended runs only).
  std::set<std::string> assigned;
  /// Extended runs: transient scalars that a tasklet outside the maps computes from scalars
  /// (a call's scalar argument, `dt` cast to float64): each column computes its own.
  std::set<std::string> column_scalars;
  /// The top-level tasklets writing them.
  std::set<const Node*> scalar_tasklets;
  /// Extended runs: some map keeps a parameter of its own (a loop inside the column).
  bool keeps_params = false;
};

std::string where(const ControlFlowBlock& b) { return "block '" + b.label + "'"; }

/// The data dim of each map parameter in an access, or kAbsent where the access does not use
/// that parameter (read-only data shared by the columns, e.g. a K-only coefficient).
constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

/// Where the map parameters index an access (one data dim per parameter, kAbsent where it is
/// not used), or why the access is not at the map point.
std::string point_dims(const Memlet& m, const RunInfo& info, std::vector<std::size_t>& pos, bool write) {
  std::set<std::string> ps(info.params.begin(), info.params.end()), used = m.subset.free_symbols();
  std::string a = "'" + m.data + "[" + m.subset.str() + "]'";
  for (const std::string& p : info.params) {
    std::size_t found = kAbsent;
    for (std::size_t i = 0; i < m.subset.dims(); ++i)
      if (m.subset[i] == Range::index(sym::Expr::symbol(p))) {
        if (found != kAbsent) return a + " uses parameter '" + p + "' in two dimensions";
        found = i;
      }
    if (found == kAbsent && used.count(p)) return a + " is not at the map point in parameter '" + p + "'";
    if (found == kAbsent && write)
      return a + " is written by every point of the map (no dimension of parameter '" + p + "')";
    pos.push_back(found);
  }
  for (std::size_t i = 0; i < m.subset.dims(); ++i) {
    if (std::find(pos.begin(), pos.end(), i) != pos.end()) continue;
    const Range& r = m.subset[i];
    for (const sym::Expr* e : {&r.start, &r.end, &r.step})
      for (const auto& s : e->free_symbols())
        if (ps.count(s)) return a + " uses parameter '" + s + "' in dimension " + std::to_string(i);
  }
  return {};
}

/// Checks one memlet inside the map: records the data dims of the parameters, or marks read-only
/// data read off the map point as shared. Writes must be at the map point.
std::string check_memlet(const Memlet& m, bool write, RunInfo& info, const std::string& at) {
  if (m.is_empty()) return {};
  if (info.inner.count(m.data))
    return at + ": '" + m.data + "' is accessed both inside a map's point and across its points";
  if (!m.wcr.empty()) return at + ": memlet of '" + m.data + "' has a write-conflict resolution";
  if (m.other_subset) return at + ": memlet of '" + m.data + "' has an other_subset";
  std::vector<std::size_t> pos;
  std::string off = point_dims(m, info, pos, write);
  if (!off.empty() && write) return at + ": " + off;
  if (write && info.shared.count(m.data))
    return info.shared.at(m.data) + " (it reads other columns), and " + at + " writes '" + m.data + "'";
  if (!write && info.shared.count(m.data)) return {};
  auto it = info.pos.find(m.data);
  if (off.empty() && it != info.pos.end() && it->second != pos)
    off = "'" + m.data + "' is accessed at the map point in different dimensions (or not at all)";
  bool partial = std::find(pos.begin(), pos.end(), kAbsent) != pos.end();
  if (off.empty() && partial && info.written.count(m.data))
    off = "'" + m.data + "' is shared by the map's points and written in the run";
  if (!off.empty()) {
    if (write || info.written.count(m.data)) return at + ": " + off + " (it reads or writes other columns)";
    info.shared.emplace(m.data, at + ": " + off);  // read-only: the columns share all of it
    return {};
  }
  if (write && it != info.pos.end() &&
      std::find(it->second.begin(), it->second.end(), kAbsent) != it->second.end())
    return at + ": '" + m.data + "' is shared by the map's points and written in the run";
  info.pos.emplace(m.data, pos);
  return {};
}

/// Whether access node `a` (inside a map) is of a transient of one element, not a view: a value
/// of one point of the map.
bool point_local(const SDFGState& st, const AccessNode& a) {
  const SDFG* sdfg = st.sdfg();
  if (!sdfg || !sdfg->arrays.count(a.data)) return false;
  const DataDescriptor& d = sdfg->data(a.data);
  if (!d.transient || d.is_view()) return false;
  return std::all_of(d.shape.begin(), d.shape.end(),
                     [](const sym::Expr& x) { return x.is_integer() && x.value() == 1; });
}

/// Whether `d` is a descriptor of one element (a scalar or an array of shape 1, ...).
bool one_element(const DataDescriptor& d) {
  return std::all_of(d.shape.begin(), d.shape.end(),
                     [](const sym::Expr& x) { return x.is_integer() && x.value() == 1; });
}

/// Extended runs: a tasklet outside the maps may compute transient scalars from scalars; they
/// become the column's own (recorded in `info`). Why not, or "".
std::string scalar_tasklet(const SDFGState& st, const Node& t, RunInfo& info) {
  const SDFG* sdfg = st.sdfg();
  if (!sdfg) return "tasklet '" + t.label + "' outside the maps";
  for (EdgeId id : st.in_edges(t.id())) {
    const DataflowEdge& e = st.edge(id);
    const auto* a = st.node(e.src).as<AccessNode>();
    if (!e.memlet.is_empty() && (!a || !sdfg->arrays.count(a->data) || !one_element(sdfg->data(a->data))))
      return "tasklet '" + t.label + "' outside the maps reads more than scalars";
  }
  for (EdgeId id : st.out_edges(t.id())) {
    const DataflowEdge& e = st.edge(id);
    const auto* a = st.node(e.dst).as<AccessNode>();
    if (!a || !point_local(st, *a))
      return "tasklet '" + t.label + "' outside the maps writes more than transient scalars";
    if (info.pos.count(a->data) || info.shared.count(a->data) || info.inner.count(a->data))
      return "'" + a->data + "' is written outside the maps and accessed at their points";
    info.column_scalars.insert(a->data);
  }
  info.scalar_tasklets.insert(&t);
  return {};
}

/// Whether `n` computes at a map point: a tasklet or a nested SDFG.
bool computes(const Node& n) { return n.kind() == NodeKind::Tasklet || n.kind() == NodeKind::NestedSDFG; }

std::string check_state(const SDFGState& st, RunInfo& info) {
  if (st.num_nodes() == 0) return {};
  std::string at = "state '" + st.label + "'";
  ScopeTree tree = st.scope_tree();
  // Several maps over the run's range (what a statement per term left: deriche's levels, vadv's)
  // each go around their own part of the column: every access being at the map point, a
  // column's part of the second map reads only what its part of the first wrote.
  std::vector<const MapEntry*> entries;
  for (const Node* n : st.nodes()) {
    NodeId parent = tree.parent[n->id()];
    if (parent == kNoNode) {
      if (const auto* e = n->as<MapEntry>()) {
        entries.push_back(e);
      } else if (info.extended && n->kind() == NodeKind::Tasklet) {
        if (auto w = scalar_tasklet(st, *n, info); !w.empty()) return at + ": " + w;
      } else if (n->kind() != NodeKind::MapExit && n->kind() != NodeKind::Access) {
        return at + " has a " + std::string(to_string(n->kind())) + " outside its map";
      }
    } else if (const auto* a = n->as<AccessNode>(); a && point_local(st, *a)) {
      if (info.pos.count(a->data) || info.shared.count(a->data))
        return at + ": '" + a->data + "' is accessed both inside a map's point and across its points";
      info.inner.insert(a->data);
    } else if (n->kind() != NodeKind::Tasklet && n->kind() != NodeKind::NestedSDFG &&
               n->kind() != NodeKind::MapExit) {
      return at + ": only tasklets, nested SDFGs and transient scalars may sit inside the map, not '" +
             n->label + "'";
    }
  }
  for (const Node* n : st.nodes())
    if (const auto* a = n->as<AccessNode>();
        a && tree.parent[n->id()] == kNoNode && info.inner.count(a->data))
      return at + ": '" + a->data + "' is accessed both inside a map's point and across its points";
  if (entries.empty()) return at + " has no map";
  for (const MapEntry* entry : entries) {
    for (EdgeId id : st.in_edges(entry->id()))
      if (st.edge(id).dst_conn.rfind("IN_", 0) != 0)
        return at + ": map '" + entry->map->label + "' has a dynamic range input ('" + st.edge(id).dst_conn +
               "')";
    const MapInfo& m = *entry->map;
    // A Sequential map was made so on purpose (ScanColumnBlocking's block of columns inside
    // each level): moving it out of the loops would undo that, and gains no parallelism.
    if (m.schedule == ScheduleType::Sequential) return at + ": map '" + m.label + "' is Sequential";
    if (info.extended) {
      info.keeps_params = info.keeps_params || m.params.size() > info.params.size();
      for (std::size_t k = 0; k < info.params.size(); ++k) {
        auto p = std::find(m.params.begin(), m.params.end(), info.params[k]);
        if (p == m.params.end() ||
            !(m.range[static_cast<std::size_t>(p - m.params.begin())] == info.range[k]))
          return at + ": map '" + m.label + "' has no parameter '" + info.params[k] +
                 "' over the run's range";
      }
    } else if (!info.has_map) {
      info.has_map = true;
      info.params = m.params;
      info.range = m.range;
    } else if (info.params != m.params || !(info.range == m.range)) {
      return at + ": map '" + m.label + "' differs from the run's map (parameters or ranges)";
    }
  }
  for (const DataflowEdge* e : st.edges()) {
    const Node& s = st.node(e->src);
    const Node& d = st.node(e->dst);
    if (!e->memlet.is_empty() && info.inner.count(e->memlet.data)) continue;           // inside one point
    if (!e->memlet.is_empty() && info.column_scalars.count(e->memlet.data)) continue;  // the column's
    if (info.scalar_tasklets.count(&d)) {
      if (auto r = check_memlet(e->memlet, false, info, at); !r.empty()) return r;
      if (!e->memlet.is_empty()) info.read.insert(e->memlet.data);
      continue;
    }
    if (s.kind() == NodeKind::Access && d.kind() != NodeKind::MapEntry)
      return at + ": access node '" + s.label + "' is connected to '" + d.label + "' outside the map";
    if (d.kind() == NodeKind::Access && s.kind() != NodeKind::MapExit)
      return at + ": access node '" + d.label + "' is connected to '" + s.label + "' outside the map";
    if (computes(s) || computes(d)) {
      // A nested SDFG (mandelbrot1's `Z[I] = Z[I] ** 2 + C[I]` per point) binds its connectors
      // at the memlet's start, with its own strides: one element each, which stays one element
      // when the map's dimensions are dropped.
      if ((s.kind() == NodeKind::NestedSDFG || d.kind() == NodeKind::NestedSDFG) && !e->memlet.is_empty() &&
          !e->memlet.subset.is_single_element())
        return at + ": nested SDFG '" + (s.kind() == NodeKind::NestedSDFG ? s.label : d.label) +
               "' accesses '" + e->memlet.data + "[" + e->memlet.subset.str() +
               "]', more than one element per point";
      if (auto r = check_memlet(e->memlet, computes(s), info, at); !r.empty()) return r;
      if (!e->memlet.is_empty()) (computes(d) ? info.read : info.written).insert(e->memlet.data);
    }
  }
  return {};
}

std::string check_block(const ControlFlowBlock& b, RunInfo& info);

/// The blocks and edges of a loop body or (extended runs) a branch body or plain region.
std::string check_region(const ControlFlowRegion& reg, const ControlFlowBlock& b, RunInfo& info) {
  for (const ControlFlowBlock* c : reg.blocks())
    if (auto r = check_block(*c, info); !r.empty()) return r;
  for (const ControlFlowEdge* e : reg.edges()) {
    if (e->data.is_unconditional() && e->data.assignments.empty()) continue;
    if (!info.extended) return where(b) + " has a conditional edge or assignments inside";
    for (const auto& [target, value] : e->data.assignments) info.assigned.insert(target);
  }
  return {};
}

std::string check_block(const ControlFlowBlock& b, RunInfo& info) {
  if (const auto* st = b.as<SDFGState>()) return check_state(*st, info);
  if (const auto* loop = b.as<LoopRegion>()) {
    info.has_loop = true;
    if (!loop->loop_variable.empty()) info.loop_vars.insert(loop->loop_variable);
    return check_region(*loop, b, info);
  }
  if (info.extended && b.kind() == BlockKind::Region)
    return check_region(*b.as<ControlFlowRegion>(), b, info);
  if (const auto* cond = info.extended ? b.as<ConditionalBlock>() : nullptr) {
    for (const auto& br : cond->branches())
      if (auto r = check_region(*br.body, b, info); !r.empty()) return r;
    return {};
  }
  return where(b) + " is a " + std::string(to_string(b.kind())) +
         " (only states and loops are moved; branches and plain regions in a run of columns)";
}

/// Every state of a run's block: itself, or the states of its region or branches.
std::vector<SDFGState*> states_of(ControlFlowBlock& b) {
  if (auto* st = b.as<SDFGState>()) return {st};
  if (auto* reg = b.as<ControlFlowRegion>()) return reg->all_states();
  std::vector<SDFGState*> out;
  if (auto* cond = b.as<ConditionalBlock>())
    for (auto& br : cond->branches()) {
      auto s = br.body->all_states();
      out.insert(out.end(), s.begin(), s.end());
    }
  return out;
}
std::vector<const SDFGState*> states_of(const ControlFlowBlock& b) {
  auto s = states_of(const_cast<ControlFlowBlock&>(b));
  return {s.begin(), s.end()};
}

/// The block that follows `b` in a chain (one unconditional edge without assignments to a
/// block with one in-edge), or kNoBlock.
BlockId chain_next(const ControlFlowRegion& r, BlockId b, bool assignments = false) {
  auto outs = r.out_edges(b);
  if (outs.size() != 1 || !outs[0]->data.is_unconditional() ||
      (!assignments && !outs[0]->data.assignments.empty()))
    return kNoBlock;
  if (r.in_edges(outs[0]->dst).size() != 1) return kNoBlock;
  return outs[0]->dst;
}

BlockId chain_prev(const ControlFlowRegion& r, BlockId b, bool assignments = false) {
  auto ins = r.in_edges(b);
  if (ins.size() != 1 || chain_next(r, ins[0]->src, assignments) != b) return kNoBlock;
  return ins[0]->src;
}

/// Extended runs: the parameters every map of the blocks has over one range, in the order of
/// the first map's (false when there are none).
bool common_params(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub, RunInfo& info) {
  bool first = true;
  for (std::uint32_t id : sub)
    for (const SDFGState* st : states_of(static_cast<const ControlFlowBlock&>(r.block(id))))
      for (const Node* n : st->nodes()) {
        const auto* e = n->as<MapEntry>();
        if (!e) continue;
        const MapInfo& m = *e->map;
        if (first) {
          info.params = m.params;
          info.range = m.range;
          first = false;
          continue;
        }
        std::vector<std::string> ps;
        std::vector<Range> rs;
        for (std::size_t k = 0; k < info.params.size(); ++k) {
          auto p = std::find(m.params.begin(), m.params.end(), info.params[k]);
          if (p != m.params.end() &&
              m.range[static_cast<std::size_t>(p - m.params.begin())] == info.range[k]) {
            ps.push_back(info.params[k]);
            rs.push_back(info.range[k]);
          }
        }
        info.params = ps;
        info.range = Subset(rs);
      }
  info.has_map = !first && !info.params.empty();
  return info.has_map;
}

/// The first container an assignment on a chain edge of the run reads, or "".
std::string data_on_chain_edges(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub,
                                const SDFG& sdfg) {
  for (std::size_t i = 0; i + 1 < sub.size(); ++i)
    for (const ControlFlowEdge* e : r.out_edges(sub[i]))
      for (const auto& [target, value] : e->data.assignments)
        for (const std::string& w : code_names(value).data())
          if (sdfg.arrays.count(w)) return w;
  return {};
}

/// Why `sub` is not a chain of its region's blocks, or "".
std::string chain_why(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub, bool extended) {
  for (std::uint32_t id : sub)
    if (!r.has_block(id)) return "block " + std::to_string(id) + " is not in region '" + r.label + "'";
  for (std::size_t i = 0; i + 1 < sub.size(); ++i)
    if (chain_next(r, sub[i], extended) != sub[i + 1])
      return where(r.block(sub[i])) + " is not followed unconditionally" +
             std::string(extended ? "" : " (without assignments)") + " by " + where(r.block(sub[i + 1]));
  return {};
}

/// The run `sub` (a chain): columns over every parameter of its one map, or (`extended`) over
/// the parameters all its maps share. `why` says what refuses it.
RunInfo run_info(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub, bool extended,
                 std::string& why) {
  RunInfo info;
  info.extended = extended;
  if (why = chain_why(r, sub, extended); !why.empty()) return info;
  if (extended && !common_params(r, sub, info)) {
    why = "its maps share no parameter over one range";
    return info;
  }
  for (std::size_t i = 0; i < sub.size(); ++i) {
    if (why = check_block(r.block(sub[i]), info); !why.empty()) return info;
    if (i + 1 < sub.size())
      for (const ControlFlowEdge* e : r.out_edges(sub[i]))
        for (const auto& [target, value] : e->data.assignments) info.assigned.insert(target);
  }
  if (const SDFG* sdfg = r.sdfg(); extended && sdfg)
    if (auto w = data_on_chain_edges(r, sub, *sdfg); !w.empty())
      why = "an assignment between the run's blocks reads container '" + w + "'";
  return info;
}

bool forms_run(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub, bool extended) {
  std::string why;
  run_info(r, sub, extended, why);
  return why.empty();
}

/// Whether the block before `b` forms a run on its own and with `b` (then `b` starts none; an
/// extended run starts at a block with a map).
bool continues_run(const ControlFlowRegion& r, std::uint32_t b, bool extended) {
  BlockId p = chain_prev(r, b, extended);
  return p != kNoBlock && forms_run(r, {static_cast<std::uint32_t>(p)}, extended) &&
         forms_run(r, {static_cast<std::uint32_t>(p), b}, extended);
}

/// The run as columns over its one map's parameters, else over those its maps share; `why`
/// says why neither holds.
RunInfo run_for(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub, std::string& why) {
  RunInfo info = run_info(r, sub, false, why);
  if (why.empty()) return info;
  std::string ext;
  RunInfo e = run_info(r, sub, true, ext);
  if (!ext.empty()) {
    if (ext != why) why += " (as columns over the parameters all its maps share: " + ext + ")";
    return info;
  }
  why.clear();
  return e;
}

std::vector<sym::Expr> drop(const std::vector<sym::Expr>& v, const std::vector<std::size_t>& pos) {
  // (kAbsent never equals a dimension index, so absent parameters drop nothing)
  std::vector<sym::Expr> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (std::find(pos.begin(), pos.end(), i) == pos.end()) out.push_back(v[i]);
  return out;
}

Memlet drop_memlet(const Memlet& m, const RunInfo& info) {
  if (m.is_empty() || !info.pos.count(m.data)) return m;
  const auto& pos = info.pos.at(m.data);
  std::vector<Range> rs;
  for (std::size_t i = 0; i < m.subset.dims(); ++i)
    if (std::find(pos.begin(), pos.end(), i) == pos.end()) rs.push_back(m.subset[i]);
  if (rs.empty()) rs.push_back(Range::index(sym::Expr(0)));
  Memlet out = m;
  out.subset = Subset(rs, m.subset.written_as_indices());
  return out;
}

/// Removes map `en` .. `ex` of a run state: access nodes connect to the tasklets directly.
void strip_map(SDFGState& st, NodeId en, NodeId ex, const RunInfo& info) {
  struct NewEdge {
    NodeId src;
    std::string sc;
    NodeId dst;
    std::string dc;
    Memlet m;
  };
  std::vector<NewEdge> add;
  for (EdgeId id : st.out_edges(en)) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty()) continue;
    std::string conn = e.src_conn.size() > 4 ? "IN_" + e.src_conn.substr(4) : "";
    for (EdgeId in : st.in_edges_by_connector(en, conn))
      add.push_back({st.edge(in).src, st.edge(in).src_conn, e.dst, e.dst_conn, drop_memlet(e.memlet, info)});
  }
  for (EdgeId id : st.in_edges(ex)) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty()) continue;
    std::string conn = e.dst_conn.size() > 3 ? "OUT_" + e.dst_conn.substr(3) : "";
    for (EdgeId out : st.out_edges_by_connector(ex, conn))
      add.push_back(
          {e.src, e.src_conn, st.edge(out).dst, st.edge(out).dst_conn, drop_memlet(e.memlet, info)});
  }
  st.remove_node(en);
  st.remove_node(ex);
  for (auto& a : add) st.add_edge(a.src, a.sc, a.dst, a.dc, std::move(a.m));
}

/// Extended runs: map `en` keeps the parameters the run does not take out; every memlet of its
/// scope (the edges at its entry and exit included) loses the dimensions of those taken out.
void narrow_map(SDFGState& st, MapEntry& en, const RunInfo& info) {
  MapInfo& m = *en.map;
  std::vector<std::string> ps;
  std::vector<Range> rs;
  for (std::size_t k = 0; k < m.params.size(); ++k)
    if (std::find(info.params.begin(), info.params.end(), m.params[k]) == info.params.end()) {
      ps.push_back(m.params[k]);
      rs.push_back(m.range[k]);
    }
  m.params = ps;
  m.range = Subset(rs);
  ScopeTree tree = st.scope_tree();
  std::set<NodeId> scope{en.id(), en.exit};
  for (const Node* n : st.nodes())
    if (tree.parent[n->id()] == en.id()) scope.insert(n->id());
  for (const DataflowEdge* e : st.edges()) {
    if (!scope.count(e->src) && !scope.count(e->dst)) continue;
    const Memlet& old = e->memlet;
    if (old.is_empty() || !info.pos.count(old.data)) continue;
    Memlet m2 = drop_memlet(old, info);
    if (!m2.dynamic) m2.volume = m2.subset.num_elements();
    st.edge(e->id).memlet = std::move(m2);
  }
}

/// Removes the maps of a run state (all at its top level: check_state refuses nested ones), or
/// in an extended run narrows those with parameters of their own.
void strip_maps(SDFGState& st, const RunInfo& info) {
  std::vector<std::pair<NodeId, NodeId>> maps;
  for (Node* n : st.nodes())
    if (auto* e = n->as<MapEntry>()) {
      if (e->map->params.size() > info.params.size())
        narrow_map(st, *e, info);
      else
        maps.emplace_back(e->id(), e->exit);
    }
  for (auto [en, ex] : maps) strip_map(st, en, ex, info);
}

void strip_block(ControlFlowBlock& b, const RunInfo& info) {
  if (auto* st = b.as<SDFGState>()) return strip_maps(*st, info);
  for (SDFGState* st : states_of(b)) strip_maps(*st, info);
}

/// The containers that the control flow of `b` (loop statements, conditions, edges inside)
/// reads.
std::set<std::string> data_in_control_flow(const ControlFlowBlock& b, const SDFG& sdfg) {
  std::set<std::string> out;
  if (const auto* cond = b.as<ConditionalBlock>()) {
    for (const auto& br : cond->branches()) {
      if (br.condition)
        for (const std::string& w : code_names(*br.condition).data())
          if (sdfg.arrays.count(w)) out.insert(w);
      out.merge(data_in_control_flow(*br.body, sdfg));
    }
    return out;
  }
  const auto* reg = b.as<ControlFlowRegion>();
  if (!reg) return out;
  std::set<std::string> names;
  if (const auto* l = b.as<LoopRegion>())
    for (const CodeBlock* c : {&l->init_statement, &l->loop_condition, &l->update_statement})
      names.merge(code_names(*c).data());
  for (const ControlFlowEdge* e : reg->edges()) {
    names.merge(code_names(e->data.condition).data());
    for (const auto& [k, v] : e->data.assignments) names.merge(code_names(v).data());
  }
  for (const std::string& w : names)
    if (sdfg.arrays.count(w)) out.insert(w);
  for (const ControlFlowBlock* c : reg->blocks()) out.merge(data_in_control_flow(*c, sdfg));
  return out;
}

/// Containers of one element, not views, that the run's control flow reads and no state of it
/// writes (mandelbrot1's `for k in range(maxiter)`): the same value for every column, passed
/// to the nested SDFG whole. The first other container read there, or "".
std::string per_column_control(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub,
                               const SDFG& sdfg, const RunInfo& info, std::set<std::string>& same) {
  for (std::uint32_t id : sub)
    for (const std::string& w : data_in_control_flow(r.block(id), sdfg)) {
      const DataDescriptor& d = sdfg.data(w);
      if (!one_element(d) || d.is_view() || info.written.count(w) || info.column_scalars.count(w)) return w;
      same.insert(w);
    }
  return {};
}

/// Whether the run can execute more than once: its region is (inside) a loop, or the run lies
/// on a cycle of its region.
bool repeated(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub) {
  for (const ControlFlowBlock* b = &r; b && b->kind() != BlockKind::SDFG; b = b->parent_block())
    if (b->kind() == BlockKind::Loop) return true;
  std::set<BlockId> seen;
  std::vector<BlockId> todo{sub.back()};
  while (!todo.empty()) {
    BlockId b = todo.back();
    todo.pop_back();
    for (const ControlFlowEdge* e : r.out_edges(b)) {
      if (e->dst == sub.front()) return true;
      if (seen.insert(e->dst).second) todo.push_back(e->dst);
    }
  }
  return false;
}

/// Whether the first access of `name` in the run is a write by a state of the run itself (not
/// inside a loop), so no value from an earlier execution of the run is read.
bool written_first(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub,
                   const std::string& name) {
  for (std::uint32_t id : sub) {
    const ControlFlowBlock& b = r.block(id);
    if (const auto* st = b.as<SDFGState>()) {
      bool read = false, write = false;
      for (const DataflowEdge* e : st->edges())
        if (e->memlet.data == name) {
          if (computes(st->node(e->dst))) read = true;
          if (computes(st->node(e->src))) write = true;
        }
      if (read) return false;
      if (write) return true;
      continue;
    }
    for (const SDFGState* st : states_of(b))
      for (const DataflowEdge* e : st->edges())
        if (e->memlet.data == name) return false;
  }
  return false;
}

/// The maximal run starting at `anchor` (empty when `anchor` cannot start one: it is no run
/// itself, or the block before it continues into it).
std::vector<std::uint32_t> grow_run(const ControlFlowRegion& r, std::uint32_t anchor, bool extended) {
  if (!forms_run(r, {anchor}, extended)) return {};
  if (continues_run(r, anchor, extended)) return {};
  std::vector<std::uint32_t> run{anchor};
  for (BlockId n = chain_next(r, anchor, extended); n != kNoBlock; n = chain_next(r, n, extended)) {
    run.push_back(n);
    if (!forms_run(r, run, extended)) {
      run.pop_back();
      break;
    }
  }
  return run;
}

bool run_has_loop(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub) {
  return std::any_of(sub.begin(), sub.end(),
                     [&](std::uint32_t id) { return r.block(id).kind() == BlockKind::Loop; });
}

/// Names (a superset of the symbols) that `b` reads, without the blocks in `skip` and the edges
/// between two of them.
void names_read(const SDFG& sdfg, const ControlFlowBlock& b, const std::set<const ControlFlowBlock*>& skip,
                std::set<std::string>& out) {
  if (skip.count(&b)) return;
  if (const auto* st = b.as<SDFGState>()) {
    out.merge(state_uses(sdfg, *st).names);
    return;
  }
  if (const auto* cond = b.as<ConditionalBlock>()) {
    for (const auto& br : cond->branches()) {
      if (br.condition) out.merge(code_names(*br.condition).reads);
      names_read(sdfg, *br.body, skip, out);
    }
    return;
  }
  const auto* reg = b.as<ControlFlowRegion>();
  if (!reg) return;
  if (const auto* l = b.as<LoopRegion>())
    for (const CodeBlock* c : {&l->init_statement, &l->loop_condition, &l->update_statement})
      out.merge(code_names(*c).reads);
  for (const ControlFlowEdge* e : reg->edges()) {
    if (skip.count(&reg->block(e->src)) && skip.count(&reg->block(e->dst))) continue;
    out.merge(code_names(e->data.condition).reads);
    for (const auto& [target, value] : e->data.assignments) out.merge(code_names(value).reads);
  }
  for (const ControlFlowBlock* c : reg->blocks()) names_read(sdfg, *c, skip, out);
}

/// Symbols assigned in an extended run whose value from before the run it may read: no
/// assignment on the run's edges precedes the first block reading them (a loop that runs no
/// time leaves the value from before). The nested SDFG starts by taking them from outside.
std::vector<std::string> entry_symbols(const SDFG& sdfg, const ControlFlowRegion& r,
                                       const std::vector<std::uint32_t>& sub, const RunInfo& info) {
  std::vector<std::string> out;
  for (const std::string& s : info.assigned) {
    for (std::size_t i = 0; i < sub.size(); ++i) {
      std::set<std::string> names;
      names_read(sdfg, r.block(sub[i]), {}, names);
      if (names.count(s)) {
        out.push_back(s);
        break;
      }
      bool set_here = false;
      if (i + 1 < sub.size())
        for (const ControlFlowEdge* e : r.out_edges(sub[i]))
          for (const auto& [target, value] : e->data.assignments) set_here = set_here || target == s;
      if (set_here) break;
    }
  }
  return out;
}

/// What refuses an extended run beyond its blocks: a map range using a symbol the run assigns,
/// a symbol the run assigns read after it (the nested SDFG keeps its own), a parameter that
/// indexes the contiguous dimension of a container with more (its columns would be strided).
std::string extended_why(const SDFG& sdfg, const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub,
                         const RunInfo& info) {
  // A run of single points (every map taken out whole) is a scan's form; a time loop of
  // pointwise maps would trade its vectorized inner loops for scalar columns.
  if (!info.keeps_params) return "no map keeps a parameter of its own (the columns would be single points)";
  for (const auto& s : info.range.free_symbols())
    if (info.assigned.count(s)) return "the map's range uses symbol '" + s + "', which the run assigns";
  for (const auto& [name, pos] : info.pos) {
    const DataDescriptor& d = sdfg.data(name);
    for (std::size_t k = 0; k < pos.size(); ++k) {
      if (pos[k] == kAbsent || pos[k] >= d.strides.size()) continue;
      const sym::Expr& stride = d.strides[pos[k]];
      if (!stride.is_integer() || stride.value() != 1) continue;
      for (std::size_t j = 0; j < d.shape.size(); ++j)
        if (std::find(pos.begin(), pos.end(), j) == pos.end() &&
            !(d.shape[j].is_integer() && d.shape[j].value() == 1))
          return "parameter '" + info.params[k] + "' indexes the contiguous dimension of '" + name +
                 "' (its columns would be strided)";
    }
  }
  if (info.assigned.empty()) return {};
  std::set<const ControlFlowBlock*> skip;
  for (std::uint32_t id : sub) skip.insert(&r.block(id));
  std::set<std::string> names;
  names_read(sdfg, sdfg, skip, names);
  for (const auto& s : info.assigned)
    if (names.count(s)) return "symbol '" + s + "' is assigned in the run and read outside it";
  return {};
}

}  // namespace

std::vector<std::vector<std::uint32_t>> LoopMapInterchange::expand(const MatchContext& ctx,
                                                                   std::uint32_t anchor) const {
  const ControlFlowRegion& r = ctx.region;
  // Columns over every parameter of one map first (a scan); where that run has no loop, the
  // columns over the parameters all maps share (a model's substeps over cells and levels).
  std::vector<std::uint32_t> strict = grow_run(r, anchor, false);
  if (!strict.empty() && run_has_loop(r, strict)) return {strict};
  std::vector<std::uint32_t> ext = grow_run(r, anchor, true);
  if (!ext.empty() && run_has_loop(r, ext)) return {ext};
  return {strict.empty() ? std::vector<std::uint32_t>{anchor} : strict};
}

MatchResult LoopMapInterchange::can_apply(const MatchContext& ctx,
                                          const std::vector<std::uint32_t>& sub) const {
  const ControlFlowRegion& r = ctx.region;
  std::string why;
  RunInfo info = run_for(r, sub, why);
  if (!why.empty()) return refuse(why);
  if (continues_run(r, sub[0], info.extended))
    return refuse(where(r.block(sub[0])) + " continues the run of " +
                  where(r.block(chain_prev(r, sub[0], info.extended))));
  if (!info.has_loop) return refuse("the run starting at " + where(r.block(sub[0])) + " has no loop");
  if (!info.has_map) return refuse("the run starting at " + where(r.block(sub[0])) + " has no map");
  for (const auto& s : info.range.free_symbols())
    if (info.loop_vars.count(s))
      return refuse("the map's range uses loop variable '" + s +
                    "' of the run (a tiled map inside its tile loop)");
  std::set<std::string> same;
  if (auto w = per_column_control(r, sub, ctx.sdfg, info, same); !w.empty())
    return refuse("the run's control flow reads container '" + w +
                  "' (a loop bound or condition that would differ per column: it is not one element, "
                  "or the run writes it)");
  for (const auto& [name, pos] : info.pos)
    if (ctx.sdfg.data(name).is_view()) return refuse("container '" + name + "' is a view");
  if (!info.inner.empty() || !info.column_scalars.empty()) {
    std::set<const SDFGState*> in_run;
    for (std::uint32_t id : sub) {
      const ControlFlowBlock& b = r.block(id);
      if (const auto* st = b.as<SDFGState>())
        in_run.insert(st);
      else
        for (const SDFGState* st : states_of(b)) in_run.insert(st);
    }
    for (const SDFGState* st : ctx.sdfg.all_states())
      if (!in_run.count(st))
        for (const Node* n : st->nodes())
          if (const auto* a = n->as<AccessNode>();
              a && (info.inner.count(a->data) || info.column_scalars.count(a->data)))
            return refuse("transient '" + a->data + "' of a map's point is also used in state '" + st->label +
                          "' outside the run");
  }
  for (const auto& [name, at] : info.shared)
    if (ctx.sdfg.data(name).is_view()) return refuse("container '" + name + "' is a view");
  if (info.extended)
    if (auto w = extended_why(ctx.sdfg, r, sub, info); !w.empty()) return refuse(w);
  return MatchResult::success();
}

namespace {

/// A variable with the lowest and highest value it takes (a loop variable or a map parameter).
struct VarBounds {
  std::string var;
  sym::Expr lo, hi;
};

/// The lowest (`lowest`) or highest value of `e` over the variables' ranges, innermost first
/// (an inner range may use an outer variable); nullopt unless `e` is affine in each with a
/// coefficient of known sign.
std::optional<sym::Expr> extreme(sym::Expr e, const std::vector<VarBounds>& vars, bool lowest) {
  for (const VarBounds& v : vars) {
    if (!e.free_symbols().count(v.var)) continue;
    auto ab = affine_in(e, v.var);
    if (!ab) return std::nullopt;
    auto sign = ab->first.sign_if_symbols_nonnegative();
    if (!sign) return std::nullopt;
    e = e.subs({{v.var, (*sign >= 0) == lowest ? v.lo : v.hi}});
  }
  return e;
}

/// What the run accesses of each container, per dimension, over its loops and the map: the
/// [lowest, highest] index, or nullopt where it cannot be bounded (then the whole dimension).
/// The nested SDFG's outer memlets must cover every access: bounds checks and schedules trust
/// them (a scan over K = 0..nk-1 of arrays with fewer levels must fail its checks, not run).
std::map<std::string, std::vector<std::optional<std::pair<sym::Expr, sym::Expr>>>> run_hull(
    ControlFlowRegion& r, const std::vector<std::uint32_t>& sub, const RunInfo& info) {
  std::map<std::string, std::vector<std::optional<std::pair<sym::Expr, sym::Expr>>>> hull;
  std::map<std::string, std::vector<bool>> unbounded;
  std::vector<VarBounds> map_vars;
  for (std::size_t k = 0; k < info.params.size(); ++k) {
    const Range& mr = info.range[k];
    if (mr.step.is_integer() && mr.step.value() == 1) map_vars.push_back({info.params[k], mr.start, mr.end});
  }
  std::vector<SDFGState*> states;
  for (std::uint32_t id : sub) {
    ControlFlowBlock& b = r.block(id);
    if (auto* st = b.as<SDFGState>())
      states.push_back(st);
    else
      for (SDFGState* st : states_of(b)) states.push_back(st);
  }
  for (SDFGState* st : states) {
    std::vector<VarBounds> vars;
    bool known = true;
    // An extended run's maps keep parameters of their own (innermost): their ranges bound them;
    // an index still holding a variable after the substitutions is not bounded.
    std::set<std::string> variables;
    for (const Node* n : st->nodes())
      if (const auto* en = n->as<MapEntry>())
        for (std::size_t k = 0; k < en->map->params.size(); ++k) {
          variables.insert(en->map->params[k]);
          const Range& mr = en->map->range[k];
          if (std::find(info.params.begin(), info.params.end(), en->map->params[k]) == info.params.end() &&
              mr.step.is_integer() && mr.step.value() == 1)
            vars.push_back({en->map->params[k], mr.start, mr.end});
        }
    for (ControlFlowBlock* b = st->parent_block(); b && b != &r; b = b->parent_block())
      if (auto* loop = b->as<LoopRegion>()) {
        auto lb = detail::loop_variable_bounds(*loop);
        if (lb)
          vars.push_back({loop->loop_variable, lb->first, lb->second});
        else
          known = false;
      }
    vars.insert(vars.end(), map_vars.begin(), map_vars.end());
    for (const DataflowEdge* e : st->edges()) {
      const Memlet& m = e->memlet;
      if (m.is_empty() || !info.pos.count(m.data)) continue;
      auto& h = hull[m.data];
      auto& u = unbounded[m.data];
      h.resize(std::max(h.size(), m.subset.dims()));
      u.resize(h.size(), false);
      for (std::size_t i = 0; i < m.subset.dims(); ++i) {
        const Range& rr = m.subset[i];
        std::optional<sym::Expr> lo, hi;
        if (known && !m.dynamic && rr.step.is_integer() && rr.step.value() > 0) {
          lo = extreme(rr.start, vars, true);
          hi = extreme(rr.end, vars, false);
          auto free = [&](const std::optional<sym::Expr>& x) {
            if (!x) return false;
            auto fs = x->free_symbols();
            return std::any_of(fs.begin(), fs.end(), [&](const std::string& f) {
              return variables.count(f) || info.loop_vars.count(f);
            });
          };
          if (free(lo) || free(hi)) lo.reset();
        }
        if (!lo || !hi) {
          u[i] = true;
          continue;
        }
        if (!h[i])
          h[i] = std::make_pair(*lo, *hi);
        else
          h[i] = std::make_pair(sym::Expr::min(h[i]->first, *lo), sym::Expr::max(h[i]->second, *hi));
      }
    }
  }
  for (auto& [name, h] : hull)
    for (std::size_t i = 0; i < h.size(); ++i)
      if (unbounded[name][i]) h[i].reset();
  return hull;
}

/// Extended runs: the outer memlets (and records) of every map of the run, as records of the map
/// over the columns (ADR 0052, session 28). Checked before it runs, each names its own call and
/// range, as the map did before (not the columns map's hull of every call). `unrecorded` gets the
/// containers some access of which cannot be recorded there: a dynamic one, or a range that
/// uses a symbol of the run (a loop variable, an assigned symbol, a map parameter).
void column_records(const SDFG& sdfg, ControlFlowRegion& r, const std::vector<std::uint32_t>& sub,
                    const RunInfo& info, std::vector<CheckedAccess>& records,
                    std::set<std::string>& unrecorded) {
  std::set<std::string> internal(info.loop_vars.begin(), info.loop_vars.end());
  internal.insert(info.assigned.begin(), info.assigned.end());
  internal.insert(info.params.begin(), info.params.end());
  std::vector<std::pair<const SDFGState*, const MapEntry*>> maps;
  for (std::uint32_t id : sub)
    for (const SDFGState* st : states_of(static_cast<const ControlFlowBlock&>(r.block(id))))
      for (const Node* n : st->nodes())
        if (const auto* e = n->as<MapEntry>()) {
          maps.emplace_back(st, e);
          internal.insert(e->map->params.begin(), e->map->params.end());
        }
  auto uses_internal = [&](const Subset& s) {
    auto fs = s.free_symbols();
    return std::any_of(fs.begin(), fs.end(), [&](const std::string& f) { return internal.count(f) > 0; });
  };
  for (const auto& [st, e] : maps) {
    std::vector<const DataflowEdge*> outer;
    for (EdgeId id : st->in_edges(e->id())) outer.push_back(&st->edge(id));
    for (EdgeId id : st->out_edges(e->exit)) outer.push_back(&st->edge(id));
    for (const DataflowEdge* x : outer)
      if (!x->memlet.is_empty() && (x->memlet.dynamic || uses_internal(x->memlet.subset)))
        unrecorded.insert(x->memlet.data);
    for (CheckedAccess& c : detail::producer_accesses(sdfg, *st, e->id())) {
      if (uses_internal(c.subset))
        unrecorded.insert(c.data);
      else
        records.push_back(std::move(c));
    }
  }
}

}  // namespace

void LoopMapInterchange::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFG& sdfg = ctx.sdfg;
  ControlFlowRegion& r = ctx.region;
  std::string why;
  RunInfo info = run_for(r, sub, why);
  const std::vector<std::string> from_outside =
      info.extended ? entry_symbols(sdfg, r, sub, info) : std::vector<std::string>{};
  // Shared read-only data keeps every dimension (its memlets stay as they are); so do the
  // one-element containers the run's control flow reads, inputs of the nested SDFG.
  for (const auto& [name, at] : info.shared)
    info.pos[name] = std::vector<std::size_t>(info.params.size(), kAbsent);
  std::set<std::string> same;
  per_column_control(r, sub, sdfg, info, same);
  for (const std::string& name : same) {
    info.pos.emplace(name, std::vector<std::size_t>(info.params.size(), kAbsent));
    info.read.insert(name);
  }
  // Containers used outside the run stay outside (passed as columns).
  std::set<const SDFGState*> inside;
  // The source line of the run's first map (the call the lowering made it for): the map over the
  // columns takes it, so that its bounds checks still name the user's code.
  std::string source;
  for (std::uint32_t id : sub) {
    ControlFlowBlock& b = r.block(id);
    std::vector<SDFGState*> states;
    if (auto* st = b.as<SDFGState>())
      states.push_back(st);
    else
      states = states_of(b);
    for (SDFGState* st : states) {
      inside.insert(st);
      for (const Node* n : st->nodes())
        if (const std::string* d = n->kind() == NodeKind::MapEntry ? n->extra.find("debuginfo") : nullptr;
            d && source.empty())
          source = *d;
    }
  }
  std::set<std::string> outside;
  for (SDFGState* st : sdfg.all_states()) {
    if (inside.count(st)) continue;
    for (const Node* n : st->nodes())
      if (const auto* a = n->as<AccessNode>()) outside.insert(a->data);
  }

  const auto hull = run_hull(r, sub, info);
  std::vector<CheckedAccess> records;
  std::set<std::string> unrecorded;
  if (info.extended) column_records(sdfg, r, sub, info, records, unrecorded);
  // A container every access of which is recorded is passed over its extent: the records check
  // each call's range before the columns run.
  auto recorded = [&](const std::string& name) {
    return !unrecorded.count(name) && std::any_of(records.begin(), records.end(),
                                                  [&](const CheckedAccess& c) { return c.data == name; });
  };
  const bool again = repeated(r, sub);
  std::string label = r.block(sub[0]).label;
  auto inner = std::make_unique<SDFG>(label + "_column");
  std::vector<std::string> inputs, outputs;
  std::set<std::string> locals;
  for (const auto& [name, pos] : info.pos) {
    const DataDescriptor& d = sdfg.data(name);
    // A transient used only in the run is the column's own, unless the run repeats and may
    // read a value an earlier execution left (then it stays outside, passed as a column).
    bool local = d.transient && !outside.count(name) && (!again || written_first(r, sub, name));
    std::vector<sym::Expr> shape = drop(d.shape, pos);
    DataDescriptor nd;
    if (shape.empty()) {
      nd = DataDescriptor::make_scalar(d.dtype.base, local);
    } else if (local) {
      nd = DataDescriptor::make_array(d.dtype.base, shape, true);
    } else {
      nd = d;
      nd.shape = shape;
      nd.strides = drop(d.strides, pos);
      if (!nd.offset.empty()) nd.offset = drop(d.offset, pos);
      nd.total_size = sym::Expr(1);
      for (std::size_t i = 0; i < shape.size(); ++i)
        nd.total_size = nd.total_size + (shape[i] - sym::Expr(1)) * nd.strides[i];
      nd.transient = false;
    }
    inner->add_data(name, nd);
    if (local) {
      locals.insert(name);
      continue;
    }
    if (info.read.count(name)) inputs.push_back(name);
    if (info.written.count(name)) outputs.push_back(name);
  }

  for (const auto& name : info.inner) {
    inner->add_data(name, sdfg.data(name));
    locals.insert(name);
  }
  for (const auto& name : info.column_scalars) {
    inner->add_data(name, sdfg.data(name));
    locals.insert(name);
  }

  // Move the run into the nested SDFG, without its maps.
  std::vector<const ControlFlowEdge*> ins = r.in_edges(sub.front()), outs = r.out_edges(sub.back());
  std::vector<std::pair<BlockId, InterstateEdge>> in_data, out_data;
  for (const auto* e : ins) in_data.emplace_back(e->src, e->data);
  for (const auto* e : outs) out_data.emplace_back(e->dst, e->data);
  bool was_start = r.start_block() == sub.front();
  // The edges between the run's blocks keep their assignments (extended runs).
  std::vector<InterstateEdge> between;
  for (std::size_t i = 0; i + 1 < sub.size(); ++i) between.push_back(r.out_edges(sub[i]).front()->data);
  BlockId prev = kNoBlock, first = kNoBlock;
  for (std::size_t i = 0; i < sub.size(); ++i) {
    strip_block(r.block(sub[i]), info);
    auto b = r.take_block(sub[i]);
    ControlFlowBlock& nb = inner->add_block(std::move(b), i == 0);
    if (prev != kNoBlock) inner->add_edge(prev, nb.id(), between[i - 1]);
    if (i == 0) first = nb.id();
    prev = nb.id();
  }
  // Symbols the run assigns and may read before: each column starts from the value outside.
  std::map<std::string, std::string> outer_name;
  if (!from_outside.empty()) {
    InterstateEdge take;
    for (const std::string& s : from_outside) {
      outer_name[s] = sdfg.unique_data_name(s + "_outside");
      take.assignments.emplace_back(s, CodeBlock(outer_name[s]));
    }
    SDFGState& init = inner->add_state(label + "_symbols");
    inner->add_edge(init.id(), first, take);
    inner->set_start_block(init.id());
  }
  inner->relink_nested();

  // Symbols: the nested SDFG's free symbols map to the same names outside; loop variables
  // keep their declared types.
  std::map<std::string, sym::Expr> mapping;
  for (const auto& s : inner->free_symbols()) {
    auto it = sdfg.symbols.find(s);
    inner->symbols[s] = it != sdfg.symbols.end() ? it->second : DataType::scalar(ScalarType::Int64);
    mapping[s] = sym::Expr::symbol(s);
  }
  std::function<void(const ControlFlowRegion&)> loop_vars = [&](const ControlFlowRegion& reg) {
    for (const ControlFlowBlock* b : reg.blocks()) {
      if (const auto* l = b->as<LoopRegion>()) {
        if (auto it = sdfg.symbols.find(l->loop_variable); it != sdfg.symbols.end())
          inner->symbols[it->first] = it->second;
        loop_vars(*l);
      }
    }
  };
  loop_vars(*inner);
  for (const std::string& s : info.assigned)
    if (auto it = sdfg.symbols.find(s); it != sdfg.symbols.end()) inner->symbols[s] = it->second;
  for (const auto& [s, outside] : outer_name) {
    inner->symbols[outside] =
        inner->symbols.count(s) ? inner->symbols.at(s) : DataType::scalar(ScalarType::Int64);
    mapping[outside] = sym::Expr::symbol(s);
  }

  // The new state: map { nested SDFG }, columns in and out.
  SDFGState& st = r.add_state(label + "_columns");
  for (const auto& [src, data] : in_data) r.add_edge(src, st.id(), data);
  for (const auto& [dst, data] : out_data) r.add_edge(st.id(), dst, data);
  if (was_start) r.set_start_block(st.id());
  MapEntry& entry = st.add_map(label + "_columns_map", info.params, info.range);
  NodeId exit = entry.exit;
  NestedSDFGNode& nest = st.add_nested_sdfg(label + "_column", std::move(inner), inputs, outputs, mapping);
  auto column = [&](const std::string& name, bool whole) {
    const DataDescriptor& d = sdfg.data(name);
    const auto& pos = info.pos.at(name);
    std::vector<Range> rs;
    // Each dimension starts at 0: the nested SDFG indexes its arguments from the memlet's start
    // (a hull starting at 2, for out=o[:, :, 2:], shifted every access by 2 and wrote past the
    // array). It ends where the run's accesses end, if beyond the array, so that bounds checks
    // see a K loop that runs past the container.
    auto h = recorded(name) ? hull.end() : hull.find(name);
    for (std::size_t i = 0; i < d.shape.size(); ++i) {
      sym::Expr last = d.shape[i] - sym::Expr(1);
      if (h != hull.end() && i < h->second.size() && h->second[i])
        last = sym::Expr::max(last, h->second[i]->second);
      rs.push_back(Range(sym::Expr(0), last));
    }
    for (std::size_t k = 0; k < pos.size(); ++k)
      if (pos[k] != kAbsent)
        rs[pos[k]] = whole ? info.range[k] : Range::index(sym::Expr::symbol(info.params[k]));
    return Memlet::simple(name, Subset(rs));
  };
  for (const auto& name : inputs) {
    AccessNode& a = st.add_access(name);
    auto ids = st.add_memlet_path({a.id(), entry.id(), nest.id()}, column(name, false), {}, name);
    st.edge(ids.front()).memlet = column(name, true);
  }
  for (const auto& name : outputs) {
    AccessNode& a = st.add_access(name);
    auto ids = st.add_memlet_path({nest.id(), exit, a.id()}, column(name, false), name, {});
    st.edge(ids.back()).memlet = column(name, true);
  }
  if (inputs.empty()) st.add_edge(entry.id(), {}, nest.id(), {}, Memlet{});
  if (outputs.empty()) st.add_edge(nest.id(), {}, exit, {}, Memlet{});
  if (!source.empty())
    for (Node* n : st.nodes()) n->extra.set("debuginfo", source);
  add_checked_accesses(*entry.map, records);
  for (const auto& name : locals) sdfg.remove_data(name);
  sdfg.relink_nested();
}

}  // namespace weir::transforms
