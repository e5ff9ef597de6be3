// HaloExchangeOverlap: split a halo exchange into start and wait and its consumer map into the
// interior (computed while the messages are in flight) and boundary strips (after the wait).
#include "weir/transforms/halo_exchange_overlap.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "dataflow_util.h"
#include "map_propagation.h"
#include "scope_copy.h"
#include "weir/sdfg/state.h"

namespace weir::transforms {

namespace {

constexpr const char* kHaloExchange = "HaloExchange";

std::string q(const std::string& s) { return "'" + s + "'"; }

// "[1, 2]" -> {1, 2}; nullopt for anything else.
std::optional<std::vector<std::int64_t>> int_list(const LibraryNode& n, const std::string& key) {
  const std::string* text = n.extra.find(key);
  if (!text) return std::nullopt;
  std::string s = *text;
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  std::vector<std::int64_t> v;
  std::size_t k = 1;
  while (k + 1 < s.size()) {
    std::size_t end = s.find(',', k);
    if (end == std::string::npos) end = s.size() - 1;
    const std::string item = s.substr(k, end - k);
    if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    v.push_back(std::stoll(item));
    k = end + 1;
  }
  return v;
}

// One HaloExchange node of the exchange state: the array it fills and its attributes.
struct Exchange {
  const LibraryNode* node = nullptr;
  std::string array;
  std::vector<std::int64_t> axes, frame_lo, frame_hi;
};

MatchResult exchanges_of(const SDFGState& x, std::vector<Exchange>& out) {
  for (Node* n : x.nodes()) {
    if (n->as<AccessNode>()) continue;
    const auto* lib = n->as<LibraryNode>();
    if (!lib || lib->class_name() != kHaloExchange)
      return refuse("state " + q(x.label) + " holds " + q(n->label) +
                    ", not only HaloExchange nodes and their access nodes");
    if (lib->extra.find("phase"))
      return refuse("HaloExchange " + q(lib->label) + " is split already (it has a phase)");
    Exchange e;
    e.node = lib;
    for (EdgeId id : x.in_edges(lib->id()))
      if (x.edge(id).dst_conn == "_in") e.array = x.edge(id).memlet.data;
    auto axes = int_list(*lib, "axes"), flo = int_list(*lib, "frame_lo"), fhi = int_list(*lib, "frame_hi");
    if (e.array.empty() || !axes || !flo || !fhi || flo->size() != axes->size() ||
        fhi->size() != axes->size())
      return refuse("HaloExchange " + q(lib->label) +
                    " lacks an array on '_in' or integer lists 'axes', 'frame_lo', 'frame_hi' of one length");
    e.axes = *axes;
    e.frame_lo = *flo;
    e.frame_hi = *fhi;
    out.push_back(std::move(e));
  }
  if (out.empty()) return refuse("state " + q(x.label) + " holds no HaloExchange node");
  return MatchResult::success();
}

// The consumer's map nest: the top-level map and the maps directly nested in it (one map per
// level), flattened: dimension k of the nest is dimension `at[k].second` of level `at[k].first`.
struct Nest {
  std::vector<const MapEntry*> levels;
  std::vector<std::pair<std::size_t, std::size_t>> at;
  std::vector<std::string> params;
  const Range& range(std::size_t k) const { return levels[at[k].first]->map->range[at[k].second]; }
};

// The one top-level map of the consumer state, between access nodes; other top-level nodes
// (a tasklet setting a scalar argument) must feed the map only, and stay in the interior state.
MatchResult consumer_map(const SDFGState& c, Nest& nest, std::vector<NodeId>& before) {
  const ScopeTree tree = c.scope_tree();
  const MapEntry* map = nullptr;
  int maps = 0;
  for (NodeId n : tree.children(kNoNode)) {
    const Node& node = c.node(n);
    if (const auto* me = node.as<MapEntry>()) {
      map = me;
      ++maps;
    } else if (!node.as<AccessNode>() && !node.as<MapExit>()) {
      before.push_back(n);
    }
  }
  if (maps != 1)
    return refuse("state " + q(c.label) + " has " + std::to_string(maps) +
                  " top-level maps (the split needs one)");
  for (NodeId n : before)
    for (EdgeId e : c.in_edges(n)) {
      const Node& src = c.node(c.edge(e).src);
      if (!src.as<AccessNode>() || !c.in_edges(src.id()).empty())
        return refuse("state " + q(c.label) + " holds " + q(c.node(n).label) +
                      " outside the map, not fed by source access nodes only");
    }
  for (const DataflowEdge* e : c.edges())
    if (c.node(e->src).as<AccessNode>() && c.node(e->dst).as<AccessNode>())
      return refuse("state " + q(c.label) + " copies " + q(e->memlet.data) + " outside the map");
  std::set<std::string> outer_params;
  for (const MapEntry* me = map; me;) {
    for (std::size_t d = 0; d < me->map->params.size(); ++d) {
      const Range& r = me->map->range[d];
      if (r.step != sym::Expr(1) || r.tile != sym::Expr(1))
        return refuse("map " + q(me->map->label) + " has a step or tile other than 1");
      nest.at.emplace_back(nest.levels.size(), d);
      nest.params.push_back(me->map->params[d]);
    }
    nest.levels.push_back(me);
    for (const auto& prm : me->map->params) outer_params.insert(prm);
    std::string why;
    const NodeId inner = detail::directly_nested_map(c, *me, why);
    me = inner == kNoNode ? nullptr : c.node(inner).as<MapEntry>();
    if (me)
      for (const auto& r : me->map->range.ranges())
        for (const sym::Expr* e : {&r.start, &r.end})
          for (const auto& sname : e->free_symbols())
            if (outer_params.count(sname))
              return refuse("the range of map " + q(me->map->label) + " depends on parameter " + q(sname));
  }
  return MatchResult::success();
}

// Offsets [lo, hi] (inclusive) at which the innermost map of the nest reads `array` along `axis`
// relative to nest dimension `dim` (found here: the one parameter the index names).
MatchResult read_offsets(const SDFGState& c, const Nest& nest, const std::string& array, std::size_t axis,
                         std::size_t& dim, std::int64_t& lo, std::int64_t& hi) {
  const MapEntry& me = *nest.levels.back();
  const auto& params = nest.params;
  bool any = false;
  for (EdgeId id : c.out_edges(me.id())) {
    const Memlet& m = c.edge(id).memlet;
    if (m.data != array) continue;
    if (axis >= m.subset.dims()) return refuse(q(array) + " is read with fewer dimensions than its axes");
    const Range& r = m.subset[axis];
    std::optional<std::size_t> found;
    for (std::size_t d = 0; d < params.size(); ++d)
      if (r.start.free_symbols().count(params[d])) {
        if (found)
          return refuse(q(array) + " is indexed along axis " + std::to_string(axis) + " by two parameters");
        found = d;
      }
    const sym::Expr p = found ? sym::Expr::symbol(params[*found]) : sym::Expr(0);
    auto a = (r.start - p).as_integer(), b = (r.end - p).as_integer();
    if (!found || !a || !b)
      return refuse(q(array) + " is read along axis " + std::to_string(axis) + " at " + r.start.str() + ".." +
                    r.end.str() + ", not at one map parameter plus a constant");
    if (any && *found != dim)
      return refuse(q(array) + " is indexed along axis " + std::to_string(axis) + " by two parameters");
    lo = any ? std::min<std::int64_t>(lo, *a) : *a;
    hi = any ? std::max<std::int64_t>(hi, *b) : *b;
    dim = *found;
    any = true;
  }
  if (!any) return refuse("map " + q(me.map->label) + " reads " + q(array) + " through no edge");
  return MatchResult::success();
}

struct Found {
  std::vector<Exchange> exchanges;
  Nest nest;
  std::vector<NodeId> before;  // top-level nodes feeding the map (kept in the interior state)
  OverlapSplit split;
};

MatchResult analyse(const SDFG& sdfg, const SDFGState& x, const SDFGState& c, Found& f) {
  if (auto r = exchanges_of(x, f.exchanges); !r) return r;
  if (auto r = consumer_map(c, f.nest, f.before); !r) return r;
  const MapEntry& me = *f.nest.levels.front();
  std::set<std::string> reads, writes, exchanged;
  for (EdgeId id : c.in_edges(me.id())) reads.insert(c.edge(id).memlet.data);
  for (EdgeId id : c.out_edges(me.exit)) writes.insert(c.edge(id).memlet.data);
  for (const Exchange& e : f.exchanges) exchanged.insert(e.array);
  for (const auto& w : writes)
    if (reads.count(w)) return refuse("map " + q(me.map->label) + " reads and writes " + q(w));
  for (NodeId n : f.before) {
    for (EdgeId id : c.in_edges(n))
      if (exchanged.count(c.edge(id).memlet.data) || writes.count(c.edge(id).memlet.data))
        return refuse(q(c.node(n).label) + " outside the map reads " + q(c.edge(id).memlet.data));
    for (EdgeId id : c.out_edges(n))
      if (exchanged.count(c.edge(id).memlet.data) || writes.count(c.edge(id).memlet.data))
        return refuse(q(c.node(n).label) + " outside the map writes " + q(c.edge(id).memlet.data));
  }
  // Per nest dimension: the interior's bounds before clamping (largest lower, smallest upper).
  std::map<std::size_t, std::pair<std::vector<sym::Expr>, std::vector<sym::Expr>>> bounds;
  for (const Exchange& e : f.exchanges) {
    if (writes.count(e.array))
      return refuse("map " + q(me.map->label) + " writes the exchanged array " + q(e.array));
    if (!reads.count(e.array)) continue;
    const DataDescriptor& desc = sdfg.data(e.array);
    for (std::size_t k = 0; k < e.axes.size(); ++k) {
      const auto axis = static_cast<std::size_t>(e.axes[k]);
      if (axis >= desc.shape.size())
        return refuse("HaloExchange " + q(e.node->label) + " names axis " + std::to_string(axis) + " of " +
                      q(e.array) + ", which has " + std::to_string(desc.shape.size()));
      std::size_t dim = 0;
      std::int64_t lo = 0, hi = 0;
      if (auto r = read_offsets(c, f.nest, e.array, axis, dim, lo, hi); !r) return r;
      // Reads of point p stay in the part [frame_lo, size - frame_hi) when
      // frame_lo <= p + lo and p + hi <= size - frame_hi - 1.
      auto& [los, his] = bounds[dim];
      los.push_back(sym::Expr(e.frame_lo[k] - lo));
      his.push_back(desc.shape[axis] - sym::Expr(e.frame_hi[k] + 1 + hi));
    }
  }
  if (bounds.empty()) return refuse("map " + q(me.map->label) + " reads none of the exchanged arrays");
  for (auto& [dim, b] : bounds) {
    const Range& r = f.nest.range(dim);
    // Clamped so that an empty interior leaves lo = end + 1 and hi = lo - 1 inside the range.
    sym::Expr lo = sym::Expr::min(sym::Expr::max(r.start, sym::Expr::max(b.first)), r.end + 1);
    sym::Expr hi = sym::Expr::max(sym::Expr::min(r.end, sym::Expr::min(b.second)), lo - 1);
    f.split.dims.push_back(dim);
    f.split.lo.push_back(lo);
    f.split.hi.push_back(hi);
  }
  return MatchResult::success();
}

// Renames the containers of `rename` in every access node and memlet of `st`.
void rename_in_state(SDFGState& st, const std::map<std::string, std::string>& rename) {
  if (rename.empty()) return;
  for (Node* n : st.nodes())
    if (auto* an = n->as<AccessNode>())
      if (auto r = rename.find(an->data); r != rename.end()) an->data = an->label = r->second;
  for (const DataflowEdge* e : st.edges())
    if (auto r = rename.find(e->memlet.data); r != rename.end()) st.edge(e->id).memlet.data = r->second;
}

// The next free `overlap` number in the whole SDFG.
long long next_overlap_number(const SDFG& root) {
  long long next = 0;
  for (ControlFlowRegion* r : cfg_list(root))
    for (ControlFlowBlock* b : r->blocks())
      if (auto* st = b->as<SDFGState>())
        for (Node* n : st->nodes())
          if (auto* lib = n->as<LibraryNode>(); lib && lib->class_name() == kHaloExchange)
            if (const std::string* v = lib->extra.find("overlap");
                v && !v->empty() && v->size() < 18 && v->find_first_not_of("0123456789") == std::string::npos)
              next = std::max(next, std::stoll(*v) + 1);
  return next;
}

// Sets the ranges of a nest's maps in `st` (`levels`: their entries there) from one range per
// nest dimension, and propagates the memlets from the innermost map out.
void set_ranges(SDFGState& st, const Nest& nest, const std::vector<MapEntry*>& levels,
                const std::vector<Range>& ranges, const std::string& suffix) {
  for (std::size_t k = 0; k < ranges.size(); ++k)
    levels[nest.at[k].first]->map->range.ranges()[nest.at[k].second] = ranges[k];
  for (std::size_t l = levels.size(); l-- > 0;) {
    MapEntry& m = *levels[l];
    m.map->label = nest.levels[l]->map->label + suffix;
    m.label = m.map->label;
    st.node(m.exit).label = m.map->label;
    detail::propagate_map(st, m);
  }
}

std::vector<Range> nest_ranges(const Nest& nest) {
  std::vector<Range> r;
  for (std::size_t k = 0; k < nest.at.size(); ++k) r.push_back(nest.range(k));
  return r;
}

// The boundary strips of the nest in `st` (its maps have the ids of `nest`'s): strip 2t (below)
// and 2t+1 (above) of split dimension t, earlier split dimensions restricted to the interior.
void make_strips(SDFG& sdfg, SDFGState& st, const Nest& nest, const OverlapSplit& s,
                 const std::set<std::string>& locals) {
  const std::vector<Range> full = nest_ranges(nest);
  const NodeId outer = nest.levels.front()->id();
  std::vector<std::vector<MapEntry*>> strips(1);
  for (const MapEntry* me : nest.levels) strips[0].push_back(st.node(me->id()).as<MapEntry>());
  for (std::size_t k = 1; k < 2 * s.dims.size(); ++k) {
    std::vector<NodeId> scope = detail::scope_body(st, st.scope_tree(), outer);
    scope.push_back(outer);
    scope.push_back(st.node(outer).as<MapEntry>()->exit);
    auto id = detail::copy_scope(st, scope, detail::copy_transients(sdfg, locals, "_b" + std::to_string(k)));
    strips.emplace_back();
    for (const MapEntry* me : nest.levels) strips.back().push_back(st.node(id.at(me->id())).as<MapEntry>());
  }
  for (std::size_t k = 0; k < strips.size(); ++k) {
    const std::size_t t = k / 2;
    std::vector<Range> r = full;
    for (std::size_t u = 0; u < t; ++u) r[s.dims[u]] = Range(s.lo[u], s.hi[u]);
    const Range& d = full[s.dims[t]];
    r[s.dims[t]] = k % 2 == 0 ? Range(d.start, s.lo[t] - 1) : Range(s.hi[t] + 1, d.end);
    set_ranges(st, nest, strips[k], r, "_boundary" + std::to_string(k));
  }
}

}  // namespace

MatchResult overlap_split(const SDFG& sdfg, const SDFGState& exchange, const SDFGState& consumer,
                          OverlapSplit& out) {
  Found f;
  MatchResult r = analyse(sdfg, exchange, consumer, f);
  if (r) out = f.split;
  return r;
}

HaloExchangeOverlap::HaloExchangeOverlap()
    : PatternTransformation("HaloExchangeOverlap",
                            "Split a HaloExchange into start and wait and its consumer map into an interior "
                            "computed while the messages fly and boundary strips after the wait") {}

std::vector<std::vector<std::uint32_t>> HaloExchangeOverlap::expand(const MatchContext& ctx,
                                                                    std::uint32_t anchor) const {
  const auto* st = ctx.region.block(anchor).as<SDFGState>();
  if (!st) return {};
  bool has_exchange = false;
  for (Node* n : st->nodes())
    if (auto* lib = n->as<LibraryNode>(); lib && lib->class_name() == kHaloExchange) has_exchange = true;
  if (!has_exchange) return {};
  auto outs = ctx.region.out_edges(anchor);
  if (outs.size() != 1 || !ctx.region.block(outs.front()->dst).as<SDFGState>()) return {{anchor}};
  return {{anchor, outs.front()->dst}};
}

MatchResult HaloExchangeOverlap::can_apply(const MatchContext& ctx,
                                           const std::vector<std::uint32_t>& sub) const {
  const ControlFlowRegion& r = ctx.region;
  const SDFGState& x = pattern(ctx, sub).get<0>();
  auto outs = r.out_edges(sub[0]);
  if (outs.size() == 1 && sub.size() == 1) {
    const ControlFlowBlock& next = r.block(outs.front()->dst);
    return refuse("the successor of " + q(x.label) + ", " + q(next.label) + ", is a " +
                  std::string(to_string(next.kind())) + ", not a state");
  }
  if (outs.size() != 1 || sub.size() != 2 || outs.front()->dst != sub[1])
    return refuse("state " + q(x.label) + " has " + std::to_string(outs.size()) +
                  " out-edges (the consumer must be its one successor)");
  const auto* c = r.block(sub[1]).as<SDFGState>();
  if (!c) return refuse("the successor of " + q(x.label) + " is not a state");
  if (sub[0] == sub[1]) return refuse("state " + q(x.label) + " loops to itself");
  if (r.in_edges(sub[1]).size() != 1)
    return refuse("state " + q(c->label) + " has " + std::to_string(r.in_edges(sub[1]).size()) + " in-edges");
  const InterstateEdge& e = outs.front()->data;
  if (!e.is_unconditional() || !e.assignments.empty())
    return refuse("the edge from " + q(x.label) + " to " + q(c->label) + " has a condition or assignments");
  if (r.explicit_start() == sub[1]) return refuse("state " + q(c->label) + " is the region's start block");
  Found f;
  return analyse(ctx.sdfg, x, *c, f);
}

void HaloExchangeOverlap::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  ControlFlowRegion& r = ctx.region;
  SDFGState& x = *r.block(sub[0]).as<SDFGState>();
  SDFGState& c = *r.block(sub[1]).as<SDFGState>();
  Found f;
  if (auto m = analyse(ctx.sdfg, x, c, f); !m) throw TransformError(m.reason());
  const NodeId outer = f.nest.levels.front()->id();
  std::vector<NodeId> body = detail::scope_body(c, c.scope_tree(), outer);
  body.push_back(outer);
  body.push_back(f.nest.levels.front()->exit);
  const std::set<std::string> locals = detail::transients_local_to(ctx.sdfg, ctx.cache, c, body);

  // Start in the exchange state, wait in a new state after the interior.
  SDFGState& w = r.add_state(x.label + "_wait");
  long long number = next_overlap_number(ctx.root);
  for (const Exchange& e : f.exchanges) {
    auto& start = *x.node(e.node->id()).as<LibraryNode>();
    start.extra.set("phase", "\"start\"");
    start.extra.set("overlap", std::to_string(number++));
    auto wait = start.clone();
    wait->extra.set("phase", "\"wait\"");
    Node& lib = w.add_node(std::move(wait));
    const Memlet all = Memlet::simple(e.array, Subset::full(ctx.sdfg.data(e.array).shape));
    w.add_edge(w.add_access(e.array).id(), "", lib.id(), "_in", all);
    w.add_edge(lib.id(), "_out", w.add_access(e.array).id(), "", all);
    // The wait reads what the start reads besides the array (the communicator on `_comm`).
    for (EdgeId id : x.in_edges(start.id()))
      if (const auto& ie = x.edge(id); ie.dst_conn != "_in" && !ie.memlet.data.empty())
        w.add_edge(w.add_access(ie.memlet.data).id(), "", lib.id(), ie.dst_conn, ie.memlet);
  }
  // The boundary: a copy of the consumer state (its own transients) without the nodes that
  // feed the map from outside (their results stay from the interior state), split into strips.
  SDFGState& bs = *r.add_block(c.clone()).as<SDFGState>();
  bs.label = c.label + "_boundary";
  for (NodeId n : f.before) bs.remove_node(n);
  for (Node* n : bs.nodes())
    if (n->as<AccessNode>() && bs.in_edges(n->id()).empty() && bs.out_edges(n->id()).empty())
      bs.remove_node(n->id());
  auto rename = detail::copy_transients(ctx.sdfg, locals, "_b0");
  rename_in_state(bs, rename);
  std::set<std::string> renamed;
  for (const auto& [from, to] : rename) renamed.insert(to);
  make_strips(ctx.sdfg, bs, f.nest, f.split, renamed);

  // The interior, in place.
  std::vector<Range> in = nest_ranges(f.nest);
  for (std::size_t t = 0; t < f.split.dims.size(); ++t)
    in[f.split.dims[t]] = Range(f.split.lo[t], f.split.hi[t]);
  std::vector<MapEntry*> levels;
  for (const MapEntry* me : f.nest.levels) levels.push_back(c.node(me->id()).as<MapEntry>());
  set_ranges(c, f.nest, levels, in, "_interior");

  // Control flow: consumer -> wait -> boundary -> the consumer's old successors.
  std::vector<ControlFlowEdge> outs;
  for (const ControlFlowEdge* e : r.out_edges(c.id())) outs.push_back(*e);
  for (const ControlFlowEdge& e : outs) {
    r.remove_edge(e.id);
    r.add_edge(bs.id(), e.dst, e.data);
  }
  r.add_edge(c.id(), w.id());
  r.add_edge(w.id(), bs.id());
}

OverlapReport overlap_halo_exchanges(SDFG& sdfg) {
  OverlapReport report;
  HaloExchangeOverlap t;
  AnalysisCache cache;
  for (;;) {
    std::vector<Candidate> found = find_matches(sdfg, t, cache);
    auto ok = std::find_if(found.begin(), found.end(), [](const Candidate& c) { return c.result.ok(); });
    if (ok == found.end()) {
      const std::vector<ControlFlowRegion*> regions = cfg_list(sdfg);
      for (const Candidate& c : found) {
        const ControlFlowBlock& b = regions.at(c.match.cfg_id)->block(c.match.subgraph.at(0));
        // A start left by an earlier split is not a refusal.
        if (c.result.reason().find("is split already") == std::string::npos)
          report.refused.push_back("state " + q(b.label) + ": " + c.result.reason());
      }
      return report;
    }
    apply_transactional(sdfg, t, ok->match, cache);
    ++report.split;
  }
}

}  // namespace weir::transforms
