// RedundantArrayRemoval: A -> B full copy of a transient A used nowhere else: write B directly.
#include "weir/transforms/redundant_array_removal.h"

#include <set>

#include "dataflow_util.h"
#include "memlet_tree.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms {

RedundantArrayRemoval::RedundantArrayRemoval()
    : PatternTransformation(
          "RedundantArrayRemoval",
          "Remove a transient array copied entirely into another array and used nowhere else", {},
          Effects{.converges = true}) {}

std::vector<std::vector<std::uint32_t>> RedundantArrayRemoval::expand(const MatchContext& ctx,
                                                                      std::uint32_t anchor) const {
  const SDFGState& st = *ctx.state;
  std::vector<std::vector<std::uint32_t>> out;
  for (EdgeId e : st.out_edges(anchor))
    if (st.node(st.edge(e).dst).as<AccessNode>()) out.push_back({anchor, st.edge(e).dst});
  return out;
}

namespace {

// Whether an access node of `data` is upstream of `node` in `st`.
bool read_upstream(const SDFGState& st, NodeId node, const std::string& data) {
  std::vector<NodeId> todo{node};
  std::set<NodeId> seen{node};
  while (!todo.empty()) {
    NodeId n = todo.back();
    todo.pop_back();
    for (EdgeId e : st.in_edges(n)) {
      NodeId s = st.edge(e).src;
      if (!seen.insert(s).second) continue;
      if (auto* a = st.node(s).as<AccessNode>(); a && a->data == data) return true;
      todo.push_back(s);
    }
  }
  return false;
}

}  // namespace

MatchResult RedundantArrayRemoval::can_apply(const MatchContext& ctx,
                                             const std::vector<std::uint32_t>& sub) const {
  const SDFGState& st = *ctx.state;
  if (sub.size() != 2) return refuse("pattern needs two access nodes");
  const auto* a = &pattern(ctx, sub).get<0>();
  const auto* b = &pattern(ctx, sub).get<1>();
  if (a->data == b->data) return refuse("both access nodes refer to '" + a->data + "'");
  if (!ctx.sdfg.has_data(a->data) || !ctx.sdfg.has_data(b->data)) return refuse("unknown container");
  const DataDescriptor& da = ctx.sdfg.data(a->data);
  const DataDescriptor& db = ctx.sdfg.data(b->data);
  if (!da.transient) return refuse("'" + a->data + "' is not transient");
  if (da.is_view() || db.is_view()) return refuse("views are not removed");
  if (da.kind != db.kind)
    return refuse("'" + a->data + "' and '" + b->data + "' are different kinds of container");
  if (!(da.dtype == db.dtype))
    return refuse("'" + a->data + "' is " + da.dtype.str() + " but '" + b->data + "' is " + db.dtype.str());
  if (da.shape != db.shape) return refuse("'" + a->data + "' and '" + b->data + "' have different shapes");
  // A copy between host and GPU memory moves data; writing B directly would put a kernel's
  // writes in host memory (or a host tasklet's in GPU memory).
  auto on_gpu = [](const DataDescriptor& d) {
    return d.storage == StorageType::GPU_Global || d.storage == StorageType::GPU_Shared;
  };
  if (on_gpu(da) != on_gpu(db))
    return refuse("the copy moves '" + a->data + "' (" + std::string(to_string(da.storage)) +
                  ") between host and GPU memory ('" + b->data + "' is " +
                  std::string(to_string(db.storage)) + ")");
  if (st.out_edges(a->id()).size() != 1)
    return refuse("'" + a->data + "' is read " + std::to_string(st.out_edges(a->id()).size()) +
                  " times in this state");
  const DataflowEdge& e = st.edge(st.out_edges(a->id()).front());
  if (e.dst != b->id()) return refuse("'" + a->data + "' is not copied to '" + b->data + "'");
  if (e.memlet.is_empty()) return refuse("the edge carries no data");
  if (!e.memlet.wcr.empty()) return refuse("the copy has a write-conflict resolution");
  // Which subset refers to which side (DaCe's rules; without other_subset both are `subset`).
  CopySubsets ends = copy_subsets(e.memlet, a->data, b->data);
  if (!ends.src && !ends.dst) return refuse("the copy's memlet refers to '" + e.memlet.data + "'");
  const Subset* sa = ends.src ? &*ends.src : &*ends.dst;
  const Subset* sb = ends.dst ? &*ends.dst : &*ends.src;
  if (!detail::covers_all(*sa, da.shape))
    return refuse("the copy does not read all of '" + a->data + "' ([" + sa->str() + "])");
  if (!detail::covers_all(*sb, db.shape))
    return refuse("the copy does not write all of '" + b->data + "' ([" + sb->str() + "])");
  // Writing B where A was written is wrong while B is still read upstream of those writes (a
  // read would see new values), except through one direct copy B -> A: it becomes a self-copy,
  // which reads all its source before writing.
  const auto& ins = st.in_edges(a->id());
  const auto* from = ins.size() == 1 ? st.node(st.edge(ins.front()).src).as<AccessNode>() : nullptr;
  if (!(from && from->data == b->data) && read_upstream(st, a->id(), b->data))
    return refuse("'" + b->data + "' is read upstream of '" + a->data + "'");
  const auto& use = ctx.cache.data_use(ctx.sdfg);
  const DataUse& u = use.at(a->data);
  if (u.access_nodes != 1)
    return refuse("'" + a->data + "' has " + std::to_string(u.access_nodes) + " access nodes in the SDFG");
  if (u.in_control_flow || u.by_name_elsewhere)
    return refuse("'" + a->data + "' is named outside the dataflow");
  if (st.in_edges(a->id()).empty()) return refuse("'" + a->data + "' is never written");
  const ScopeTree& tree = ctx.cache.scope_tree(st);
  if (tree.parent[a->id()] != tree.parent[b->id()])
    return refuse("the two access nodes are in different scopes");
  return MatchResult::success();
}

void RedundantArrayRemoval::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  const std::string a = pattern(ctx, sub).get<0>().data;
  const std::string b = pattern(ctx, sub).get<1>().data;
  NodeId na = sub[0], nb = sub[1];
  for (EdgeId in : std::vector<EdgeId>(st.in_edges(na))) {
    // Rename along the whole memlet tree ending in A (same shape, full copy: same indices),
    // every branch of it: an exit's IN_A may collect the writes of several tasklets.
    DataflowEdge& last = st.edge(in);
    if (auto* from = st.node(last.src).as<AccessNode>(); from && !last.memlet.is_empty()) {
      // A copy into A: once A is renamed B, the memlet may name both ends (B -> A -> B gives
      // a self-copy), so it records which end its subset is on.
      last.memlet.is_data_src = data_is_source(last.memlet, from->data, a);
    }
    for (EdgeId p : detail::memlet_tree(st, in)) {
      Memlet& m = st.edge(p).memlet;
      if (m.data == a) m.data = b;
    }
    DataflowEdge d = st.edge(in);
    st.remove_edge(in);
    st.add_edge(d.src, d.src_conn, nb, d.dst_conn, d.memlet);
  }
  st.remove_node(na);
  // can_apply saw exactly one access node of `a` in the SDFG (cached use), now removed: skip
  // remove_data's O(SDFG) scan for remaining access nodes.
  ctx.sdfg.arrays.erase(a);
}

std::optional<std::vector<std::string>> RedundantArrayRemoval::data_footprint(
    const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  return std::vector<std::string>{pattern(ctx, sub).get<0>().data};
}

}  // namespace weir::transforms
