// LoopMapInterchange: a run of map states and loops -> map { nested SDFG { the run } }.
#include "weir/transforms/loop_map_interchange.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "nest_util.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/dependence.h"

namespace weir::transforms {

LoopMapInterchange::LoopMapInterchange() = default;

std::string LoopMapInterchange::description() const {
  return "Move the map over the other dimensions out of a run of states and loops (a scan's levels) "
         "whose accesses are all at the map point: map { nested SDFG { sequential loop } }";
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
    if (!info.has_map) {
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
    if (!e->memlet.is_empty() && info.inner.count(e->memlet.data)) continue;  // inside one point
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

std::string check_block(const ControlFlowBlock& b, RunInfo& info) {
  if (const auto* st = b.as<SDFGState>()) return check_state(*st, info);
  if (const auto* loop = b.as<LoopRegion>()) {
    info.has_loop = true;
    if (!loop->loop_variable.empty()) info.loop_vars.insert(loop->loop_variable);
    for (const ControlFlowBlock* c : loop->blocks())
      if (auto r = check_block(*c, info); !r.empty()) return r;
    for (const ControlFlowEdge* e : loop->edges())
      if (!e->data.is_unconditional() || !e->data.assignments.empty())
        return where(b) + " has a conditional edge or assignments inside";
    return {};
  }
  return where(b) + " is a " + std::string(to_string(b.kind())) + " (only states and loops are moved)";
}

/// The block that follows `b` in a chain (one unconditional edge without assignments to a
/// block with one in-edge), or kNoBlock.
BlockId chain_next(const ControlFlowRegion& r, BlockId b) {
  auto outs = r.out_edges(b);
  if (outs.size() != 1 || !outs[0]->data.is_unconditional() || !outs[0]->data.assignments.empty())
    return kNoBlock;
  if (r.in_edges(outs[0]->dst).size() != 1) return kNoBlock;
  return outs[0]->dst;
}

BlockId chain_prev(const ControlFlowRegion& r, BlockId b) {
  auto ins = r.in_edges(b);
  if (ins.size() != 1 || chain_next(r, ins[0]->src) != b) return kNoBlock;
  return ins[0]->src;
}

/// Whether `b` joins a run with map `info` (checked on a copy).
bool joins(const ControlFlowBlock& b, const RunInfo& info) {
  RunInfo probe = info;
  return check_block(b, probe).empty();
}

RunInfo run_info(const ControlFlowRegion& r, const std::vector<std::uint32_t>& sub, std::string& why) {
  RunInfo info;
  for (std::uint32_t id : sub)
    if (why = check_block(r.block(id), info); !why.empty()) return info;
  return info;
}

std::vector<sym::Expr> drop(const std::vector<sym::Expr>& v, const std::vector<std::size_t>& pos) {
  // (kAbsent never equals a dimension index, so absent parameters drop nothing)
  std::vector<sym::Expr> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (std::find(pos.begin(), pos.end(), i) == pos.end()) out.push_back(v[i]);
  return out;
}

Memlet drop_memlet(const Memlet& m, const RunInfo& info) {
  if (m.is_empty()) return m;
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

/// Removes the maps of a run state (all at its top level: check_state refuses nested ones).
void strip_maps(SDFGState& st, const RunInfo& info) {
  std::vector<std::pair<NodeId, NodeId>> maps;
  for (const Node* n : st.nodes())
    if (const auto* e = n->as<MapEntry>()) maps.emplace_back(e->id(), e->exit);
  for (auto [en, ex] : maps) strip_map(st, en, ex, info);
}

void strip_block(ControlFlowBlock& b, const RunInfo& info) {
  if (auto* st = b.as<SDFGState>()) return strip_maps(*st, info);
  for (SDFGState* st : b.as<ControlFlowRegion>()->all_states()) strip_maps(*st, info);
}

/// The containers that the control flow of `b` (loop statements, edges inside) reads.
std::set<std::string> data_in_control_flow(const ControlFlowBlock& b, const SDFG& sdfg) {
  std::set<std::string> out;
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
      const bool one = std::all_of(d.shape.begin(), d.shape.end(),
                                   [](const sym::Expr& x) { return x.is_integer() && x.value() == 1; });
      if (!one || d.is_view() || info.written.count(w)) return w;
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
    for (const SDFGState* st : b.as<ControlFlowRegion>()->all_states())
      for (const DataflowEdge* e : st->edges())
        if (e->memlet.data == name) return false;
  }
  return false;
}

}  // namespace

std::vector<std::vector<std::uint32_t>> LoopMapInterchange::expand(const MatchContext& ctx,
                                                                   std::uint32_t anchor) const {
  const ControlFlowRegion& r = ctx.region;
  RunInfo info;
  if (!check_block(r.block(anchor), info).empty()) return {{anchor}};
  // Only the start of a maximal run is a candidate.
  if (BlockId p = chain_prev(r, anchor); p != kNoBlock && joins(r.block(p), info)) return {{anchor}};
  std::vector<std::uint32_t> run{anchor};
  for (BlockId n = chain_next(r, anchor); n != kNoBlock && joins(r.block(n), info); n = chain_next(r, n)) {
    check_block(r.block(n), info);
    run.push_back(n);
  }
  return {run};
}

MatchResult LoopMapInterchange::can_apply(const MatchContext& ctx,
                                          const std::vector<std::uint32_t>& sub) const {
  const ControlFlowRegion& r = ctx.region;
  for (std::uint32_t id : sub)
    if (!r.has_block(id))
      return refuse("block " + std::to_string(id) + " is not in region '" + r.label + "'");
  for (std::size_t i = 0; i + 1 < sub.size(); ++i)
    if (chain_next(r, sub[i]) != sub[i + 1])
      return refuse(where(r.block(sub[i])) + " is not followed unconditionally by " +
                    where(r.block(sub[i + 1])));
  std::string why;
  RunInfo info = run_info(r, sub, why);
  if (!why.empty()) return refuse(why);
  if (BlockId p = chain_prev(r, sub[0]); p != kNoBlock && joins(r.block(p), info))
    return refuse(where(r.block(sub[0])) + " continues the run of " + where(r.block(p)));
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
  if (!info.inner.empty()) {
    std::set<const SDFGState*> in_run;
    for (std::uint32_t id : sub) {
      const ControlFlowBlock& b = r.block(id);
      if (const auto* st = b.as<SDFGState>())
        in_run.insert(st);
      else
        for (const SDFGState* st : b.as<ControlFlowRegion>()->all_states()) in_run.insert(st);
    }
    for (const SDFGState* st : ctx.sdfg.all_states())
      if (!in_run.count(st))
        for (const Node* n : st->nodes())
          if (const auto* a = n->as<AccessNode>(); a && info.inner.count(a->data))
            return refuse("transient '" + a->data + "' of a map's point is also used in state '" + st->label +
                          "' outside the run");
  }
  for (const auto& [name, at] : info.shared)
    if (ctx.sdfg.data(name).is_view()) return refuse("container '" + name + "' is a view");
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
      for (SDFGState* st : b.as<ControlFlowRegion>()->all_states()) states.push_back(st);
  }
  for (SDFGState* st : states) {
    std::vector<VarBounds> vars;
    bool known = true;
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

}  // namespace

void LoopMapInterchange::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFG& sdfg = ctx.sdfg;
  ControlFlowRegion& r = ctx.region;
  std::string why;
  RunInfo info = run_info(r, sub, why);
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
      states = b.as<ControlFlowRegion>()->all_states();
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

  // Move the run into the nested SDFG, without its maps.
  std::vector<const ControlFlowEdge*> ins = r.in_edges(sub.front()), outs = r.out_edges(sub.back());
  std::vector<std::pair<BlockId, InterstateEdge>> in_data, out_data;
  for (const auto* e : ins) in_data.emplace_back(e->src, e->data);
  for (const auto* e : outs) out_data.emplace_back(e->dst, e->data);
  bool was_start = r.start_block() == sub.front();
  BlockId prev = kNoBlock;
  for (std::size_t i = 0; i < sub.size(); ++i) {
    strip_block(r.block(sub[i]), info);
    auto b = r.take_block(sub[i]);
    ControlFlowBlock& nb = inner->add_block(std::move(b), i == 0);
    if (prev != kNoBlock) inner->add_edge(prev, nb.id());
    prev = nb.id();
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
    auto h = hull.find(name);
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
  for (const auto& name : locals) sdfg.remove_data(name);
  sdfg.relink_nested();
}

}  // namespace weir::transforms
