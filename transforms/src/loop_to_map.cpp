// LoopToMap: turn a for loop without loop-carried dependences into a map over a nested SDFG.
#include "weir/transforms/loop_to_map.h"

#include <algorithm>

#include "control_flow_mentions.h"
#include "nest_util.h"
#include "weir/sdfg/dace_symbols.h"
#include "weir/sdfg/dependence.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

using detail::ForLoop;
using detail::parse_loop;

LoopToMap::LoopToMap()
    : PatternTransformation(
          "LoopToMap",
          "Turn a for loop whose iterations are independent into a map over a nested SDFG of its body") {}

std::vector<std::vector<std::uint32_t>> LoopToMap::expand(const MatchContext& ctx,
                                                          std::uint32_t anchor) const {
  if (!ctx.region.block(anchor).as<LoopRegion>()) return {};
  return {{anchor}};
}

namespace {

bool has_control_transfer(const ControlFlowRegion& r) {
  for (const ControlFlowBlock* b : r.blocks()) {
    if (b->kind() == BlockKind::Break || b->kind() == BlockKind::Continue || b->kind() == BlockKind::Return)
      return true;
    if (const auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches())
        if (br.body && has_control_transfer(*br.body)) return true;
    } else if (const auto* sub = b->as<ControlFlowRegion>(); sub && !sub->as<LoopRegion>()) {
      if (has_control_transfer(*sub)) return true;
    } else if (const auto* loop = b->as<LoopRegion>()) {
      // break/continue of an inner loop stay inside it; a return would not
      for (const ControlFlowBlock* ib : loop->blocks())
        if (ib->kind() == BlockKind::Return) return true;
    }
  }
  return false;
}

/// Symbols the SDFG reads outside block `skip` of `region` (free symbols of a copy without it;
/// its interstate edges stay), not counting the descriptors of `moved`: the containers the
/// transformation moves into the loop's nested SDFG.
std::set<std::string> symbols_used_outside(const SDFG& sdfg, const ControlFlowRegion& region, BlockId skip,
                                           const std::set<std::string>& moved) {
  auto copy = sdfg.clone_sdfg();
  for (const auto& d : moved) copy->arrays.erase(d);
  auto regions = cfg_list(sdfg), copies = cfg_list(*copy);  // same pre-order in a copy
  for (std::size_t k = 0; k < regions.size() && k < copies.size(); ++k)
    if (regions[k] == &region) {
      // An empty state in its place keeps the loop's edges (and what they read).
      auto& hole = copies[k]->add_state(copies[k]->block(skip).label + "_hole");
      detail::replace_block(*copies[k], skip, hole.id());
      return copy->free_symbols();
    }
  return {};
}

/// Whether one-element container `data`, which the control flow reads, is read by it only inside
/// loop `L`'s body and after the body's start state wrote it: DaCe's `start = A_row[i]` before
/// the edge `__sym_start = start` (spmv). Every pass through the body begins at that state, so
/// each iteration's control flow reads the value the same iteration wrote.
bool control_flow_reads_private(const SDFG& sdfg, const LoopRegion& L, const std::string& data) {
  const DataDescriptor& d = sdfg.data(data);
  if (d.is_view() || !std::all_of(d.shape.begin(), d.shape.end(),
                                  [](const sym::Expr& x) { return x.is_integer() && x.value() == 1; }))
    return false;
  if (L.start_block() == kNoBlock) return false;
  const auto* first = L.block(L.start_block()).as<SDFGState>();
  if (!first) return false;
  bool written = false;
  for (const Node* n : first->nodes())
    if (const auto* a = n->as<AccessNode>(); a && a->data == data)
      for (EdgeId e : first->in_edges(a->id())) written = written || !first->edge(e).memlet.is_empty();
  if (!written) return false;
  auto inside = control_flow_mentions(L), all = control_flow_mentions(sdfg);
  return inside[data] == all[data];
}

/// Whether `data` is a transient only the loop body uses, written before read in every state:
/// each iteration gets its own copy. The control flow may read it where
/// control_flow_reads_private holds.
bool privatizable(const SDFG& sdfg, const std::map<std::string, DataUse>& use, const std::string& data,
                  const detail::DataAccesses& acc, const LoopRegion& L) {
  auto u = use.find(data);
  return sdfg.data(data).transient && acc.written_before_read && u != use.end() &&
         u->second.access_nodes == acc.access_nodes && !u->second.by_name_elsewhere &&
         (!u->second.in_control_flow || control_flow_reads_private(sdfg, L, data));
}

std::vector<SDFGState*> states_of(const ControlFlowRegion& r) { return r.all_states(); }

/// The containers apply() moves into the nested SDFG (privatizable ones): a transient sized by
/// the loop variable (DaCe's `tmp` of shape `i + 1` for `C[i, :i+1]`) goes with them.
std::set<std::string> moved_containers(const SDFG& sdfg, const std::map<std::string, DataUse>& use,
                                       const LoopRegion& loop) {
  std::set<std::string> out;
  for (const auto& [data, acc] : detail::collect_accesses(states_of(loop)))
    if (sdfg.has_data(data) && privatizable(sdfg, use, data, acc, loop)) out.insert(data);
  return out;
}

/// Symbols the control flow inside `r` defines: loop variables and interstate assignments.
void defined_by_control_flow(const ControlFlowRegion& r, std::set<std::string>& out) {
  for (const ControlFlowEdge* e : r.edges())
    for (const auto& [target, value] : e->data.assignments) out.insert(target);
  for (const ControlFlowBlock* b : r.blocks()) {
    if (const auto* loop = b->as<LoopRegion>(); loop && !loop->loop_variable.empty())
      out.insert(loop->loop_variable);
    if (const auto* sub = b->as<ControlFlowRegion>()) defined_by_control_flow(*sub, out);
    if (const auto* cond = b->as<ConditionalBlock>())
      for (const auto& br : cond->branches())
        if (br.body) defined_by_control_flow(*br.body, out);
  }
}

}  // namespace

MatchResult LoopToMap::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const auto* L = &pattern(ctx, sub).get<0>();
  auto parsed = parse_loop(*L);
  if (auto* why = std::get_if<std::string>(&parsed)) return refuse(*why);
  const ForLoop& f = std::get<ForLoop>(parsed);
  if (L->num_blocks() == 0) return refuse("loop '" + L->label + "' has an empty body");
  if (L->start_block() == kNoBlock)
    return refuse("the body of loop '" + L->label + "' has no unique start block");
  if (has_control_transfer(*L)) return refuse("loop '" + L->label + "' contains break, continue or return");
  // The loop variable's value after the loop is the first value past the range; a map has none.
  // A parent LoopRegion with the same name is not a use: checked on the whole SDFG minus the loop.
  const auto& use = ctx.cache.data_use(ctx.sdfg);
  const auto moved = moved_containers(ctx.sdfg, use, *L);
  auto outside = symbols_used_outside(ctx.sdfg, ctx.region, L->id(), moved);
  if (outside.count(f.var)) {
    for (const auto& [name, desc] : ctx.sdfg.arrays)
      if (!moved.count(name) && desc.free_symbols().count(f.var))
        return refuse("loop variable " + f.var + " sizes container '" + name +
                      "', which is used outside loop '" + L->label + "' or not written before read in it");
    return refuse("loop variable " + f.var + " is used after loop '" + L->label + "'");
  }
  if (auto dyn = detail::dynamic_map_in(states_of(*L)); !dyn.empty())
    return refuse("loop '" + L->label + "' contains map '" + dyn + "' with dynamic range inputs");
  // What each iteration touches, looked for at the innermost ends (inside maps and nested SDFGs,
  // such as an inner loop made a map first): the propagated memlets at the access nodes cover
  // all of a container a nested SDFG receives whole.
  std::set<std::string> varying = detail::varying_symbols(*L);
  for (auto& [data, acc] : detail::collect_leaf_accesses(states_of(*L), varying)) {
    if (!ctx.sdfg.has_data(data)) return refuse("container '" + data + "' does not exist");
    if (privatizable(ctx.sdfg, use, data, acc, *L)) continue;
    auto u = use.find(data);
    if (u != use.end() && u->second.in_control_flow)
      return refuse("container '" + data +
                    "' is read by control flow; iterations may depend on it (it is private to an "
                    "iteration only when it is a transient of one element, not a view, that the "
                    "body's first state writes and no control flow outside the body reads)");
    for (std::size_t k = 0; k < acc.writes.size(); ++k) {
      const Memlet& w = acc.writes[k];
      for (std::size_t j = k; j < acc.writes.size(); ++j) {
        // Accumulations (wcr) into the same element are conflicts too: the nested SDFG would
        // update it non-atomically from parallel iterations.
        const Memlet& x = acc.writes[j];
        if (auto v = disjoint_across_iterations(data, f.var, w, x, true, varying); !v)
          return refuse(v.reason);
      }
      for (const Memlet& x : acc.reads)
        if (auto v = disjoint_across_iterations(data, f.var, w, x, false, varying); !v)
          return refuse(v.reason);
    }
  }
  return MatchResult::success();
}

void LoopToMap::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  ControlFlowRegion& region = ctx.region;
  SDFG& sdfg = ctx.sdfg;
  auto& L = pattern(ctx, sub).get<0>();
  ForLoop f = std::get<ForLoop>(parse_loop(L));
  std::string label = detail::identifier_from(L.label);
  auto accesses = detail::collect_accesses(states_of(L));
  const auto& use = ctx.cache.data_use(sdfg);
  const auto private_data = moved_containers(sdfg, use, L);  // before the body leaves L

  // Move the body into a fresh SDFG.
  std::set<std::string> moved_definitions{f.var};
  defined_by_control_flow(L, moved_definitions);
  auto inner = std::make_unique<SDFG>(label + "_body");
  BlockId start = L.start_block();
  std::map<BlockId, BlockId> moved;
  std::vector<std::tuple<BlockId, BlockId, InterstateEdge>> edges;
  for (const ControlFlowEdge* e : L.edges()) edges.emplace_back(e->src, e->dst, e->data);
  for (ControlFlowBlock* b : L.blocks()) {
    BlockId id = b->id();
    moved[id] = inner->add_block(L.take_block(id)).id();
  }
  for (auto& [s, d, data] : edges) inner->add_edge(moved[s], moved[d], data);
  inner->set_start_block(moved[start]);

  std::vector<std::string> inputs, outputs;
  for (auto& [data, acc] : accesses) {
    DataDescriptor desc = sdfg.data(data);
    if (private_data.count(data)) {
      inner->arrays[data] = desc;
      sdfg.remove_data(data);
      continue;
    }
    inner->arrays[data] = detail::as_argument(desc);
    if (!acc.reads.empty()) inputs.push_back(data);
    if (!acc.writes.empty()) outputs.push_back(data);
  }
  for (const auto& d : detail::memlet_data(inner->all_states()))
    if (!inner->has_data(d) && sdfg.has_data(d)) inner->arrays[d] = sdfg.data(d);
  // Containers the body's interstate edges and loop headers read (`start = A_row[i]`) are
  // inputs too.
  for (const auto& d : detail::nest_data_read_by_name(sdfg, *inner))
    if (std::find(inputs.begin(), inputs.end(), d) == inputs.end()) inputs.push_back(d);
  inner->symbols[f.var] =
      sdfg.symbols.count(f.var) ? sdfg.symbols.at(f.var) : DataType::scalar(ScalarType::Int64);
  auto mapping = detail::nest_symbols(sdfg, *inner);
  mapping[f.var] = sym::Expr::symbol(f.var);

  SDFGState& st = region.add_state(detail::fresh_state_label(sdfg, label + "_map"));
  MapEntry& entry = st.add_map(label + "_map", {f.var}, Subset({Range(f.start, f.end, f.step)}));
  NodeId exit = entry.exit;
  NestedSDFGNode& ns = st.add_nested_sdfg(label + "_body", std::move(inner), inputs, outputs, mapping);
  for (const auto& d : inputs) {
    AccessNode& a = st.add_access(d);
    st.add_memlet_path({a.id(), entry.id(), ns.id()}, Memlet::simple(d, Subset::full(sdfg.data(d).shape)), "",
                       d);
  }
  for (const auto& d : outputs) {
    AccessNode& a = st.add_access(d);
    st.add_memlet_path({ns.id(), exit, a.id()}, Memlet::simple(d, Subset::full(sdfg.data(d).shape)), d, "");
  }
  if (inputs.empty()) st.add_edge(entry.id(), "", ns.id(), "", Memlet{});
  if (outputs.empty()) st.add_edge(ns.id(), "", exit, "", Memlet{});
  propagate_memlets_scope(st, entry.id());
  detail::replace_block(region, L.id(), st.id());
  sdfg.relink_nested();
  // The loop variable is now a map parameter, and what the body defines moved into the nested
  // SDFG (declared there): left declared here, DaCe would count them free symbols of this SDFG
  // (missing symbols of its nested SDFG node, arguments at the top level).
  auto dace_free = dace_free_symbols(sdfg);
  auto free = sdfg.free_symbols();
  for (const std::string& s : moved_definitions) {
    auto decl = sdfg.symbols.find(s);
    if (decl == sdfg.symbols.end()) continue;
    if (s != f.var && !ns.sdfg->symbols.count(s)) ns.sdfg->symbols.emplace(s, decl->second);
    if (dace_free.count(s) && !free.count(s)) sdfg.symbols.erase(decl);
  }
}

}  // namespace weir::transforms
