// ScanColumnBlocking: map (.., j) { nested SDFG { level loops } } -> map (.., j step B) { nested
// SDFG { level loops { map q < B (SIMD) { tasklets } } } } (ADR 0044).
#include "weir/transforms/scan_column_blocking.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "dataflow_util.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/transforms/cpu_schedules.h"

namespace weir::transforms {

ScanColumnBlocking::ScanColumnBlocking()
    : PatternTransformation(
          "ScanColumnBlocking",
          "Run blocks of B columns per point of a map over columns around a nested SDFG "
          "of level loops: the block's columns innermost in every level (a SIMD map), "
          "carries as arrays of B",
          {
              {"block_size", 0LL,
               "columns per block (B); 0: the largest of 64, 32, 16, 8 whose lines per level fit in l1_bytes",
               0},
              {"l1_bytes", 32768LL,
               "the L1 data cache B = 0 sizes blocks for, in bytes (default: 32 KiB, the smallest L1d of "
               "current x86 server cores, so that the optimized SDFG does not depend on the machine that "
               "optimizes)",
               1024},
          }) {}

std::vector<std::vector<std::uint32_t>> ScanColumnBlocking::expand(const MatchContext&,
                                                                   std::uint32_t anchor) const {
  return {{anchor}};
}

namespace {

constexpr const char* kWidth = "__colblock_n";  // the block's width, a symbol of the nested SDFG
constexpr const char* kLane = "__colblock_q";   // the column in the block, the inner map's parameter

/// Where the blocked dimension goes: per connector of the nested SDFG, the dimension of the
/// outer memlet indexed by the blocked parameter and the position of the new inner dimension.
struct Plan {
  MapEntry* entry = nullptr;
  std::size_t param = 0;  // index of the blocked parameter (the map's last)
  std::map<std::string, std::pair<std::size_t, std::size_t>> dims;  // connector -> (outer dim, inner pos)
  /// Connectors read as they are by every column of a block (a scalar, a field not indexed by
  /// the blocked parameter): their memlets and descriptors stay (a broadcast).
  std::set<std::string> shared;
  /// Transient scalars that only carry values between tasklets of a state (every access node of
  /// theirs is between tasklets): they stay scalars, one per column of the block's SIMD loop.
  std::set<std::string> local;
  /// Passed containers whose descriptor keeps the blocked dimension (DaCe's `imgIn[__i0, 0:H]`
  /// into an inner `imgIn` of W x H, indexed `imgIn[0, j]`): the lane is added to that index.
  std::set<std::string> full;
  /// Symbols of the nested SDFG mapped from the blocked parameter itself (DaCe maps every symbol
  /// of the caller, the map's parameters among them): the column, read by memlets of containers
  /// passed whole (vadv's `wcon[__i0 + 1, __i1, k]`); the lane is added to them there.
  std::set<std::string> column;
};

bool names(const CodeBlock& c, const std::string& name) { return code_names(c).data().count(name) != 0; }

/// Where the column symbols decide the nested SDFG's control flow (a loop's bounds, a branch):
/// the columns of a block would walk different levels.
std::string column_in_control_flow(const ControlFlowRegion& r, const std::set<std::string>& column) {
  for (const std::string& k : column) {
    for (const ControlFlowBlock* b : r.blocks())
      if (const auto* loop = b->as<LoopRegion>()) {
        for (const CodeBlock* c : {&loop->init_statement, &loop->loop_condition, &loop->update_statement})
          if (names(*c, k))
            return "loop '" + loop->label + "' of the nested SDFG reads the column symbol '" + k + "'";
        if (auto w = column_in_control_flow(*loop, column); !w.empty()) return w;
      }
    for (const ControlFlowEdge* e : r.edges()) {
      bool uses = names(e->data.condition, k);
      for (const auto& [name, v] : e->data.assignments) uses = uses || names(v, k);
      if (uses) return "an edge of '" + r.label + "' reads the column symbol '" + k + "'";
    }
  }
  return {};
}

/// Whether every dimension of `subset` that uses a symbol of `column` is `k + c` at both ends.
bool column_offsets(const Subset& subset, const std::set<std::string>& column) {
  for (const Range& r : subset.ranges())
    for (const std::string& k : column) {
      if (r.step.free_symbols().count(k)) return false;
      for (const sym::Expr* x : {&r.start, &r.end})
        if (x->free_symbols().count(k) && (*x - sym::Expr::symbol(k)).free_symbols().count(k)) return false;
    }
  return true;
}

bool uses_any(const Subset& subset, const std::set<std::string>& names) {
  for (const auto& s : subset.free_symbols())
    if (names.count(s)) return true;
  return false;
}

/// The uses of the column symbols and of the containers that keep the blocked dimension inside
/// the nested SDFG: only as the column's index into a container read whole, only one element of
/// the blocked dimension per memlet.
std::string check_column_uses(const SDFG& inner, const Plan& plan) {
  if (auto w = column_in_control_flow(inner, plan.column); !w.empty()) return w;
  for (const SDFGState* st : inner.all_states()) {
    for (const Node* n : st->nodes())
      if (const auto* t = n->as<Tasklet>())
        for (const std::string& k : plan.column)
          if (names(t->code, k))
            return "tasklet '" + t->label + "' of the nested SDFG reads the column symbol '" + k +
                   "' as a value";
    for (const DataflowEdge* e : st->edges()) {
      const Memlet& m = e->memlet;
      if (m.is_empty()) continue;
      const std::string a =
          "'" + m.data + "[" + m.subset.str() + "]' in state '" + st->label + "' of the nested SDFG";
      if (uses_any(m.subset, plan.column)) {
        if (!plan.shared.count(m.data))
          return a + " indexes a container passed per column by the column symbol";
        if (st->node(e->dst).kind() == NodeKind::Access) return a + " writes through the column symbol";
        if (!column_offsets(m.subset, plan.column)) return a + " is not the column symbol plus a constant";
      }
      if (plan.full.count(m.data)) {
        const std::size_t d = plan.dims.at(m.data).first;
        if (d >= m.subset.dims() || !(m.subset[d].start == m.subset[d].end))
          return a + " reads more than one element of the blocked dimension";
      }
    }
  }
  for (const auto& [name, d] : inner.arrays)
    for (const auto& x : d.shape)
      for (const std::string& k : plan.column)
        if (x.free_symbols().count(k))
          return "container '" + name + "' of the nested SDFG is sized by the column symbol";
  return {};
}

/// Whether `e` reads a container of `sdfg` (control flow that would differ per column).
bool reads_data(const CodeBlock& c, const SDFG& sdfg) {
  for (const std::string& w : code_names(c).data())
    if (sdfg.arrays.count(w)) return true;
  return false;
}

std::string check_control_flow(const ControlFlowRegion& r, const SDFG& sdfg) {
  for (const ControlFlowBlock* b : r.blocks()) {
    if (b->as<SDFGState>()) continue;
    const auto* loop = b->as<LoopRegion>();
    if (!loop)
      return "block '" + b->label + "' of the nested SDFG is a " + std::string(to_string(b->kind())) +
             " (only states and loops are blocked)";
    for (const CodeBlock* c : {&loop->init_statement, &loop->loop_condition, &loop->update_statement})
      if (reads_data(*c, sdfg)) return "loop '" + loop->label + "' reads a container in its control flow";
    if (auto w = check_control_flow(*loop, sdfg); !w.empty()) return w;
  }
  for (const ControlFlowEdge* e : r.edges()) {
    if (reads_data(e->data.condition, sdfg)) return "an edge of '" + r.label + "' reads a container";
    for (const auto& [k, v] : e->data.assignments)
      if (reads_data(v, sdfg)) return "an edge of '" + r.label + "' reads a container";
  }
  return {};
}

/// Whether access node `n` carries a value between tasklets of its state: written and read
/// there, by tasklets alone.
bool between_tasklets(const SDFGState& st, NodeId n) {
  if (st.in_edges(n).empty() || st.out_edges(n).empty()) return false;
  for (EdgeId e : st.in_edges(n))
    if (st.node(st.edge(e).src).kind() != NodeKind::Tasklet) return false;
  for (EdgeId e : st.out_edges(n))
    if (st.node(st.edge(e).dst).kind() != NodeKind::Tasklet) return false;
  return true;
}

/// Whether `n` may stay in the block's SIMD loop although written and read in its state: between
/// tasklets only, and a transient of the nested SDFG (an intermediate of a level's expression,
/// deriche's `b1 * y1[i - 1]`) or a container passed per column (vadv's `ccol[k]` written and read
/// back in one level): each column of the block writes and reads its own element.
bool stays_in_block(const SDFGState& st, NodeId n, const SDFG& inner,
                    const std::set<std::string>& per_column) {
  const std::string& data = st.node(n).as<AccessNode>()->data;
  return between_tasklets(st, n) && (inner.data(data).transient || per_column.count(data));
}

std::string check_state(const SDFGState& st, const SDFG& inner, const std::set<std::string>& per_column) {
  std::string at = "state '" + st.label + "' of the nested SDFG";
  for (const Node* n : st.nodes()) {
    if (n->kind() != NodeKind::Access && n->kind() != NodeKind::Tasklet)
      return at + " holds '" + n->label + "', a " + std::string(to_string(n->kind())) +
             " (only access nodes and tasklets are blocked)";
    if (n->kind() == NodeKind::Access && !st.in_edges(n->id()).empty() && !st.out_edges(n->id()).empty() &&
        !stays_in_block(st, n->id(), inner, per_column))
      return at + ": access node '" + n->label +
             "' is both written and read in the state (other than between tasklets, a transient or passed "
             "per "
             "column)";
  }
  for (const DataflowEdge* e : st.edges()) {
    const Node& s = st.node(e->src);
    const Node& d = st.node(e->dst);
    if (s.kind() == NodeKind::Access && d.kind() == NodeKind::Access)
      return at + " copies '" + s.label + "' to '" + d.label + "'";
    if (s.kind() == NodeKind::Tasklet && d.kind() == NodeKind::Tasklet && !e->memlet.is_empty())
      return at + ": tasklets '" + s.label + "' and '" + d.label + "' are linked by a memlet";
    if (!e->memlet.wcr.empty())
      return at + ": memlet of '" + e->memlet.data + "' has a write-conflict resolution";
    if (e->memlet.other_subset) return at + ": memlet of '" + e->memlet.data + "' has an other_subset";
  }
  return {};
}

std::optional<Plan> make_plan(const MatchContext& ctx, const NestedSDFGNode& ns, std::string& why) {
  const SDFGState& st = *ctx.state;
  ScopeTree tree = st.scope_tree();
  NodeId parent = tree.parent[ns.id()];
  const MapEntry* entry = parent == kNoNode ? nullptr : st.node(parent).as<MapEntry>();
  if (!entry) return why = "nested SDFG '" + ns.label + "' is not directly inside a map", std::nullopt;
  for (const Node* n : st.nodes())
    if (n != &ns && n->id() != entry->exit && tree.parent[n->id()] == parent)
      return why = "map '" + entry->map->label + "' holds more than the nested SDFG ('" + n->label + "')",
             std::nullopt;
  const MapInfo& m = *entry->map;
  if (auto dyn = detail::dynamic_inputs(*entry); !dyn.empty())
    return why = "map '" + m.label + "' has dynamic range inputs (" + dyn + ")", std::nullopt;
  if (m.params.empty() || m.range.dims() != m.params.size())
    return why = "map '" + m.label + "' has no parameters or a different number of ranges", std::nullopt;
  if (m.schedule != ScheduleType::Default && m.schedule != ScheduleType::CPU_Multicore &&
      m.schedule != ScheduleType::Sequential)
    return why = "map '" + m.label + "' has schedule " + std::string(to_string(m.schedule)), std::nullopt;
  Plan plan;
  plan.entry = const_cast<MapEntry*>(entry);
  plan.param = m.params.size() - 1;
  const std::string& p = m.params[plan.param];
  if (!(m.range[plan.param].step == sym::Expr(1)))
    return why = "parameter '" + p + "' of map '" + m.label + "' has a non-unit step", std::nullopt;
  const SDFG& inner = *ns.sdfg;
  for (const auto& [k, v] : ns.symbol_mapping) {
    if (!v.free_symbols().count(p)) continue;
    if (!(v == sym::Expr::symbol(p)))
      return why = "symbol '" + k + "' of the nested SDFG is mapped from '" + v.str() +
                   "', an expression of parameter '" + p + "' (only the parameter itself is the column)",
             std::nullopt;
    plan.column.insert(k);
  }
  if (inner.symbols.count(kWidth) || inner.symbols.count(kLane) || inner.arrays.count(kWidth) ||
      inner.arrays.count(kLane))
    return why = "the nested SDFG already has a symbol or container named " + std::string(kWidth) + " or " +
                 kLane,
           std::nullopt;
  std::set<std::string> params(m.params.begin(), m.params.end());
  auto edge_check = [&](const DataflowEdge& e, const std::string& conn, bool write) -> std::string {
    const Memlet& mm = e.memlet;
    if (mm.is_empty()) return {};
    std::string a = "'" + mm.data + "[" + mm.subset.str() + "]'";
    if (!mm.wcr.empty() || mm.other_subset) return a + " has a write-conflict resolution or an other_subset";
    if (!inner.arrays.count(conn)) return "connector '" + conn + "' names no container of the nested SDFG";
    const DataDescriptor& d = inner.data(conn);
    if (d.is_view() || d.transient)
      return "container '" + conn + "' of the nested SDFG is a view or transient";
    if (ctx.sdfg.data(mm.data).is_view()) return "container '" + mm.data + "' is a view";
    std::optional<std::size_t> dim;
    std::size_t kept = 0, pos = 0;
    for (std::size_t i = 0; i < mm.subset.dims(); ++i) {
      const Range& r = mm.subset[i];
      bool is_p = r == Range::index(sym::Expr::symbol(p));
      if (is_p) {
        if (dim) return a + " uses parameter '" + p + "' in two dimensions";
        dim = i;
        pos = kept;
        continue;
      }
      bool index_of_param = false;
      for (const auto& q : params)
        if (r == Range::index(sym::Expr::symbol(q))) index_of_param = true;
      for (const sym::Expr* x : {&r.start, &r.end, &r.step})
        if (x->free_symbols().count(p)) return a + " uses parameter '" + p + "' off the map point";
      if (!index_of_param) ++kept;
    }
    if (!dim) {
      // The same element(s) for every column: read as they are inside the block; a write by
      // every column of one element would race (and its last value depend on the order).
      if (write) return a + " is written by every column (not indexed by parameter '" + p + "')";
      plan.shared.insert(conn);
      return {};
    }
    if (plan.shared.count(conn)) return "connector '" + conn + "' is passed both shared and per column";
    // The inner container keeps every dimension of the memlet (DaCe's unsqueezed form): the
    // column is its index in the blocked dimension, relative to the memlet's start.
    const bool full = !d.is_scalar() && d.shape.size() == mm.subset.dims() && kept != d.shape.size();
    if (full) {
      const DataDescriptor& od = ctx.sdfg.data(mm.data);
      if (d.strides.size() != d.shape.size() || od.strides.size() != d.shape.size() ||
          !(d.strides[*dim] == od.strides[*dim]) ||
          (!d.offset.empty() && !(d.offset.at(*dim) == sym::Expr(0))))
        return "container '" + conn +
               "' of the nested SDFG keeps the blocked dimension at another stride than '" + mm.data +
               "', or with an offset";
      pos = *dim;
      plan.full.insert(conn);
    } else if (d.is_scalar() ? kept != 0 : kept != d.shape.size()) {
      return a + " does not match the dimensions of '" + conn + "' in the nested SDFG";
    }
    if (write && plan.shared.count(conn))
      return "connector '" + conn + "' is passed both shared and per column";
    auto [it, fresh] = plan.dims.emplace(conn, std::make_pair(*dim, pos));
    if (!fresh && it->second != std::make_pair(*dim, pos))
      return "connector '" + conn + "' is passed in and out at different dimensions";
    return {};
  };
  for (EdgeId id : st.in_edges(ns.id()))
    if (why = edge_check(st.edge(id), st.edge(id).dst_conn, false); !why.empty()) return std::nullopt;
  for (EdgeId id : st.out_edges(ns.id()))
    if (why = edge_check(st.edge(id), st.edge(id).src_conn, true); !why.empty()) return std::nullopt;
  for (const auto& [name, d] : inner.arrays) {
    if (d.is_view()) return why = "container '" + name + "' of the nested SDFG is a view", std::nullopt;
    if (!d.transient && !plan.dims.count(name) && !plan.shared.count(name))
      return why = "container '" + name + "' of the nested SDFG is not passed at the map point", std::nullopt;
  }
  if (why = check_control_flow(inner, inner); !why.empty()) return std::nullopt;
  if (why = check_column_uses(inner, plan); !why.empty()) return std::nullopt;
  std::set<std::string> per_column;
  for (const auto& [conn, d] : plan.dims) per_column.insert(conn);
  for (const SDFGState* s : inner.all_states())
    if (why = check_state(*s, inner, per_column); !why.empty()) return std::nullopt;
  if (!inner.free_symbols().empty())
    for (const auto& s : inner.free_symbols())
      if (!ns.symbol_mapping.count(s))
        return why = "symbol '" + s + "' of the nested SDFG is not mapped", std::nullopt;
  return plan;
}

/// `m` with the lane dimension: at `pos` for a passed container, last for a transient array,
/// the only one for a transient scalar. `lane` indexes it.
Memlet with_lane(Memlet m, const SDFG& inner, const Plan& plan, const Range& lane,
                 const std::map<std::string, bool>& was_scalar) {
  if (m.is_empty()) return m;
  std::vector<Range> rs = m.subset.ranges();
  if (plan.shared.count(m.data)) {
    // The column symbols in a read of a container passed whole: this lane's column (or the
    // block's columns for the lane map's outer memlet), each dimension being `k + c`.
    if (!uses_any(m.subset, plan.column)) return m;
    for (Range& r : rs)
      for (const std::string& k : plan.column) {
        const sym::Expr ks = sym::Expr::symbol(k);
        r = Range(r.start.subs({{k, ks + lane.start}}), r.end.subs({{k, ks + lane.end}}), r.step, r.tile);
      }
  } else if (plan.full.count(m.data)) {
    const std::size_t d = plan.dims.at(m.data).first;
    rs[d] = Range(rs[d].start + lane.start, rs[d].end + lane.end, rs[d].step, rs[d].tile);
  } else if (auto it = plan.dims.find(m.data); it != plan.dims.end()) {
    if (was_scalar.at(m.data)) rs.clear();
    rs.insert(rs.begin() + static_cast<std::ptrdiff_t>(std::min(it->second.second, rs.size())), lane);
  } else if (was_scalar.at(m.data)) {
    rs = {lane};
  } else {
    rs.push_back(lane);
  }
  (void)inner;
  m.subset = Subset(rs, m.subset.written_as_indices());
  m.volume = m.dynamic ? m.volume : m.subset.num_elements();
  return m;
}

void block_state(SDFGState& st, const SDFG& inner, const Plan& plan,
                 const std::map<std::string, bool>& was_scalar) {
  std::vector<NodeId> tasklets;
  for (const Node* n : st.nodes())
    if (n->kind() == NodeKind::Tasklet) tasklets.push_back(n->id());
  if (tasklets.empty()) return;
  sym::Expr n = sym::Expr::symbol(kWidth);
  sym::Expr q = sym::Expr::symbol(kLane);
  Range all(sym::Expr(0), n - sym::Expr(1));
  MapEntry& me = st.add_map("colblock_" + st.label, {kLane}, Subset({all}), ScheduleType::Sequential);
  me.map->extra.set(kVectorizeAttribute, "true");
  struct Hop {
    NodeId src;
    std::string sc;
    NodeId dst;
    std::string dc;
    Memlet m;
    bool in;
  };
  std::vector<Hop> hops;
  std::vector<EdgeId> drop;
  for (const DataflowEdge* e : st.edges()) {
    bool from_access = st.node(e->src).kind() == NodeKind::Access;
    bool to_access = st.node(e->dst).kind() == NodeKind::Access;
    if (!from_access && !to_access) continue;
    // A transient between tasklets moves into the map with them: its column's element.
    if (between_tasklets(st, from_access ? e->src : e->dst)) {
      if (!plan.local.count(e->memlet.data))
        st.edge(e->id).memlet = with_lane(e->memlet, inner, plan, Range::index(q), was_scalar);
      continue;
    }
    hops.push_back({e->src, e->src_conn, e->dst, e->dst_conn, e->memlet, from_access});
    drop.push_back(e->id);
  }
  for (EdgeId id : drop) st.remove_edge(id);
  for (const Hop& h : hops) {
    Memlet lane = with_lane(h.m, inner, plan, Range::index(q), was_scalar);
    Memlet whole = with_lane(h.m, inner, plan, all, was_scalar);
    if (h.in) {
      auto ids = st.add_memlet_path({h.src, me.id(), h.dst}, lane, h.sc, h.dc);
      st.edge(ids.front()).memlet = whole;
    } else {
      auto ids = st.add_memlet_path({h.src, me.exit, h.dst}, lane, h.sc, h.dc);
      st.edge(ids.back()).memlet = whole;
    }
  }
  for (NodeId t : tasklets) {
    if (st.in_edges(t).empty()) st.add_edge(me.id(), {}, t, {}, Memlet{});
    if (st.out_edges(t).empty()) st.add_edge(t, {}, me.exit, {}, Memlet{});
  }
  // Access nodes left without edges (a read through the map only) stay connected through it.
  if (st.out_edges(me.id()).empty()) st.add_edge(me.id(), {}, tasklets.front(), {}, Memlet{});
}

/// B when the option is 0 (docs/adr/0044, session 37): each level of a block touches, per
/// container passed with the blocked dimension, one cache line per column where that dimension
/// is not the contiguous one (a column's line then holds its next levels: K contiguous, as
/// every field-view program's fields), or B / 8 lines where it is; a transient or carry of the
/// nested SDFG gains a contiguous last dimension of B (B / 8 lines). The largest of 64, 32, 16
/// and 8 whose lines fit in `l1_bytes`: more columns per level overlap more dependent
/// divisions until the block's lines no longer stay in L1 (vertical_solver at 256 x 256 x 80 on
/// a 48 KiB L1d: B = 8 13.2 ms, 32 8.9, 64 7.5, 128 10.1).
long long block_for_l1(const MatchContext& ctx, const NestedSDFGNode& ns, const Plan& plan,
                       long long l1_bytes) {
  const SDFGState& st = *ctx.state;
  std::map<std::string, std::string> outer;  // connector -> the caller's container
  for (EdgeId id : st.in_edges(ns.id())) outer[st.edge(id).dst_conn] = st.edge(id).memlet.data;
  for (EdgeId id : st.out_edges(ns.id())) outer[st.edge(id).src_conn] = st.edge(id).memlet.data;
  double lines_per_column = 0;  // cache lines one column of the block touches per level
  for (const auto& [conn, dims] : plan.dims) {
    if (plan.shared.count(conn) || !outer.count(conn)) continue;
    const auto& strides = ctx.sdfg.data(outer.at(conn)).strides;
    const bool contiguous = dims.first < strides.size() && strides[dims.first] == sym::Expr(1);
    lines_per_column += contiguous ? 1.0 / 8 : 1.0;
  }
  for (const auto& [name, d] : ns.sdfg->arrays)
    if (d.transient && !plan.dims.count(name) && !plan.local.count(name)) lines_per_column += 1.0 / 8;
  for (long long b : {64LL, 32LL, 16LL})
    if (static_cast<double>(b) * lines_per_column * 64.0 <= static_cast<double>(l1_bytes)) return b;
  return 8;
}

}  // namespace

MatchResult ScanColumnBlocking::can_apply(const MatchContext& ctx,
                                          const std::vector<std::uint32_t>& sub) const {
  const NestedSDFGNode& ns = pattern(ctx, sub).get<0>();
  long long b = options().get_int("block_size");
  if (b == 1) return refuse("block size 1: nothing to block (0 chooses it from the L1 data cache)");
  if (!ns.sdfg) return refuse("nested SDFG '" + ns.label + "' has no body");
  std::string why;
  if (!make_plan(ctx, ns, why)) return refuse(why);
  return MatchResult::success();
}

void ScanColumnBlocking::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  NestedSDFGNode& ns = pattern(ctx, sub).get<0>();
  std::string why;
  Plan plan = *make_plan(ctx, ns, why);
  const long long b = options().get_int("block_size") != 0
                          ? options().get_int("block_size")
                          : block_for_l1(ctx, ns, plan, options().get_int("l1_bytes"));
  MapInfo& m = *plan.entry->map;
  const std::string p = m.params[plan.param];
  Range& r = m.range.ranges()[plan.param];
  const sym::Expr end = r.end;
  const sym::Expr ps = sym::Expr::symbol(p);
  r = Range(r.start, r.end, sym::Expr(b), r.tile);

  // Outer memlets: the block of columns j : Min(j + B - 1, end).
  Range block(ps, sym::Expr::min(end, ps + sym::Expr(b - 1)));
  auto widen = [&](DataflowEdge& e, const std::string& conn) {
    if (e.memlet.is_empty() || plan.shared.count(conn)) return;
    std::vector<Range> rs = e.memlet.subset.ranges();
    rs[plan.dims.at(conn).first] = block;
    e.memlet.subset = Subset(rs, e.memlet.subset.written_as_indices());
    if (!e.memlet.dynamic) e.memlet.volume = e.memlet.subset.num_elements();
  };
  SDFG& inner = *ns.sdfg;
  std::map<std::string, bool> was_scalar;
  for (const auto& [name, d] : inner.arrays) was_scalar[name] = d.is_scalar();
  for (EdgeId id : st.in_edges(ns.id())) widen(st.edge(id), st.edge(id).dst_conn);
  for (EdgeId id : st.out_edges(ns.id())) widen(st.edge(id), st.edge(id).src_conn);

  // Descriptors: passed containers gain the block dimension (the outer stride of j's dimension),
  // transients a last dimension of B.
  sym::Expr n = sym::Expr::symbol(kWidth);
  for (const auto& [name, d] : inner.arrays)
    if (d.transient && d.is_scalar()) plan.local.insert(name);
  for (const SDFGState* s : inner.all_states())
    for (const Node* n : s->nodes())
      if (const auto* a = n->as<AccessNode>(); a && !between_tasklets(*s, a->id())) plan.local.erase(a->data);
  for (auto& [name, d] : inner.arrays) {
    if (plan.shared.count(name) || plan.local.count(name))
      continue;  // as it is: every column's, or the lane's own
    if (auto it = plan.dims.find(name); it != plan.dims.end()) {
      std::string outer;
      for (EdgeId id : st.in_edges(ns.id()))
        if (st.edge(id).dst_conn == name) outer = st.edge(id).memlet.data;
      for (EdgeId id : st.out_edges(ns.id()))
        if (st.edge(id).src_conn == name) outer = st.edge(id).memlet.data;
      sym::Expr stride = ctx.sdfg.data(outer).strides.at(it->second.first);
      DataDescriptor nd = d;
      if (plan.full.count(name)) {
        // The blocked dimension holds the block's columns: a descriptor of the caller's whole
        // extent there (DaCe's: the caller's shape and strides) stays as it is, a narrower one
        // (one column) gets the block's width.
        if (!(nd.shape[it->second.first] == ctx.sdfg.data(outer).shape.at(it->second.first)))
          nd.shape[it->second.first] = n;
      } else if (d.is_scalar()) {
        nd = DataDescriptor::make_array(d.dtype.base, {n}, false);
        nd.strides = {stride};
        nd.storage = d.storage;
      } else {
        auto at = static_cast<std::ptrdiff_t>(it->second.second);
        nd.shape.insert(nd.shape.begin() + at, n);
        nd.strides.insert(nd.strides.begin() + at, stride);
        if (!nd.offset.empty()) nd.offset.insert(nd.offset.begin() + at, sym::Expr(0));
      }
      nd.total_size = sym::Expr(1);
      for (std::size_t i = 0; i < nd.shape.size(); ++i)
        nd.total_size = nd.total_size + (nd.shape[i] - sym::Expr(1)) * nd.strides[i];
      d = nd;
    } else if (d.is_scalar()) {
      DataDescriptor nd = DataDescriptor::make_array(d.dtype.base, {sym::Expr(b)}, true);
      nd.storage = StorageType::Register;
      d = nd;
    } else {
      DataDescriptor nd = DataDescriptor::make_array(d.dtype.base, d.shape, true);
      nd.shape.push_back(sym::Expr(b));
      nd.strides = DataDescriptor::row_major_strides(nd.shape);
      nd.total_size = sym::Expr(1);
      for (const auto& s : nd.shape) nd.total_size = nd.total_size * s;
      nd.storage = d.storage;
      nd.lifetime = d.lifetime;
      if (!d.offset.empty()) {
        nd.offset = d.offset;
        nd.offset.push_back(sym::Expr(0));
      }
      d = nd;
    }
  }
  for (SDFGState* s : inner.all_states()) block_state(*s, inner, plan, was_scalar);
  // The lane is the inner maps' parameter, not a declared symbol: DaCe counts a declared symbol
  // no control flow defines as free, one the symbol mapping would have to give.
  inner.symbols[kWidth] = DataType::scalar(ScalarType::Int64);
  ns.symbol_mapping[kWidth] = sym::Expr::min(sym::Expr(b), end - ps + sym::Expr(1));
  ctx.sdfg.relink_nested();
}

}  // namespace weir::transforms
