// RedundantArrayRemoval: A -> B copy of all of a transient A used nowhere else, onto all of B or
// onto a part of B of A's shape: A's writers write B directly.
#include "weir/transforms/redundant_array_removal.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

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

// Whether the writers of `node` (an access node) may read `data` while they write: an access
// node of `data` upstream of `node` in `st`, reached without passing a top-level access node
// of another container. Such a node (not a view) is complete before its readers start, and so
// are the reads of `data` upstream of it (jacobi_1d's `A[1:-1] = f(B)` after `B[1:-1] = g(A)`,
// both in one state: A's reads end before B is complete).
bool read_upstream(const SDFG& sdfg, const SDFGState& st, const ScopeTree& tree, NodeId node,
                   const std::string& data) {
  std::vector<NodeId> todo{node};
  std::set<NodeId> seen{node};
  while (!todo.empty()) {
    NodeId n = todo.back();
    todo.pop_back();
    for (EdgeId e : st.in_edges(n)) {
      NodeId s = st.edge(e).src;
      if (!seen.insert(s).second) continue;
      const auto* a = st.node(s).as<AccessNode>();
      if (a && a->data == data) return true;
      const bool view = a && sdfg.has_data(a->data) && sdfg.data(a->data).is_view();
      if (a && !view && tree.parent[s] == tree.parent[node]) continue;
      todo.push_back(s);
    }
  }
  return false;
}

constexpr std::size_t kUnpaired = static_cast<std::size_t>(-1);

/// For each dimension of the part of B a copy writes, the dimension of A it holds, or kUnpaired
/// for a dimension of one index that A does not have (a row of B holding all of a 1-D A:
/// correlation's `corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]`). The same dimension
/// count pairs them in order; with more, B's dimensions of one index (start = end) are the
/// unpaired ones, and the rest must number A's. Nullopt where that does not hold.
std::optional<std::vector<std::size_t>> paired_dims(const Subset& part, std::size_t a_dims) {
  std::vector<std::size_t> out(part.dims(), kUnpaired);
  if (part.dims() == a_dims) {
    for (std::size_t d = 0; d < a_dims; ++d) out[d] = d;
    return out;
  }
  if (part.dims() < a_dims) return std::nullopt;
  std::size_t next = 0;
  for (std::size_t d = 0; d < part.dims(); ++d) {
    if (part[d].start == part[d].end) continue;
    if (next == a_dims) return std::nullopt;
    out[d] = next++;
  }
  if (next != a_dims) return std::nullopt;
  return out;
}

/// Why the part `part` of B cannot hold all of A (A's shape, dimension by dimension, with step
/// 1); nullopt when it can.
std::optional<std::string> part_mismatch(const Subset& part, const DataDescriptor& da, const std::string& b) {
  auto paired = paired_dims(part, da.shape.size());
  if (!paired)
    return "the copy writes [" + part.str() + "] of '" + b + "', " + std::to_string(part.dims()) +
           " dimension(s) where the transient has " + std::to_string(da.shape.size());
  for (std::size_t d = 0; d < part.dims(); ++d) {
    const Range& r = part[d];
    if (!(r.step == sym::Expr(1) && r.tile == sym::Expr(1)))
      return "the copy writes [" + part.str() + "] of '" + b + "' with a step";
    if ((*paired)[d] == kUnpaired) continue;
    const sym::Expr excess = (r.end - r.start + 1) - da.shape[(*paired)[d]];
    if (!(excess.is_integer() && excess.value() == 0))
      return "the copy writes [" + part.str() + "] of '" + b + "', whose size in dimension " +
             std::to_string(d) + " is not the transient's (" + da.shape[(*paired)[d]].str() + ")";
  }
  return std::nullopt;
}

/// The start of the part of `b` that the copy from `a` writes, per dimension (zeros when
/// it writes all of it).
std::vector<sym::Expr> part_start(const Memlet& copy, const std::string& a, const std::string& b) {
  CopySubsets ends = copy_subsets(copy, a, b);
  const Subset& sb = ends.dst ? *ends.dst : *ends.src;
  std::vector<sym::Expr> start;
  for (const Range& r : sb.ranges()) start.push_back(r.start);
  return start;
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
  // All of A onto all of B, or onto a part of B of A's shape (jacobi_1d's `B[1:-1] = ...`):
  // A's writers then write that part, their indices moved by its start.
  if (!detail::covers_all(*sb, db.shape)) {
    if (auto why = part_mismatch(*sb, da, b->data)) return refuse(*why);
    for (EdgeId in : st.in_edges(a->id())) {
      if (st.node(st.edge(in).src).as<AccessNode>())
        return refuse("'" + a->data + "' is written by a copy, and the copy into '" + b->data +
                      "' writes only [" + sb->str() + "] of it");
      for (EdgeId p : detail::memlet_tree(st, in))
        if (const Memlet& m = st.edge(p).memlet; !m.is_empty() && (m.data != a->data || m.other_subset))
          return refuse("a memlet writing '" + a->data + "' names " +
                        (m.data != a->data ? "'" + m.data + "'" : "a second subset") +
                        ", and the copy into '" + b->data + "' writes only [" + sb->str() + "] of it");
    }
  } else if (da.shape != db.shape) {
    return refuse("'" + a->data + "' and '" + b->data + "' have different shapes");
  }
  // Writing B where A was written is wrong while B is still read upstream of those writes (a
  // read would see new values), except through one direct copy B -> A: it becomes a self-copy,
  // which reads all its source before writing.
  const auto& ins = st.in_edges(a->id());
  const auto* from = ins.size() == 1 ? st.node(st.edge(ins.front()).src).as<AccessNode>() : nullptr;
  if (!(from && from->data == b->data) &&
      read_upstream(ctx.sdfg, st, ctx.cache.scope_tree(st), a->id(), b->data))
    return refuse("'" + b->data + "' is read by the writers of '" + a->data + "'");
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
  // Where A's indices land in B: 0 for a copy onto all of B (B's own indices), else the start
  // of the part written (can_apply saw that A's writers name A alone, one subset each).
  const std::vector<sym::Expr> start = part_start(st.edge(st.out_edges(na).front()).memlet, a, b);
  const bool moved =
      std::any_of(start.begin(), start.end(), [](const sym::Expr& e) { return e != sym::Expr(0); });
  // B's dimensions of the part against A's (can_apply paired them; equal counts: in order).
  std::vector<std::size_t> pairs(start.size());
  {
    CopySubsets ends = copy_subsets(st.edge(st.out_edges(na).front()).memlet, a, b);
    const Subset& sb = ends.dst ? *ends.dst : *ends.src;
    if (auto p = paired_dims(sb, ctx.sdfg.data(a).shape.size())) pairs = *p;
  }
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
      if (m.data != a) continue;
      m.data = b;
      if (pairs.size() != m.subset.dims()) {
        // A row (or plane) of B: A's indices in the paired dimensions, the part's index in the others.
        std::vector<Range> r;
        for (std::size_t d = 0; d < pairs.size(); ++d)
          if (pairs[d] == kUnpaired) {
            r.push_back(Range::index(start[d]));
          } else {
            const Range& x = m.subset[pairs[d]];
            r.emplace_back(x.start + start[d], x.end + start[d], x.step, x.tile);
          }
        m.subset = Subset(r);
      } else if (moved) {
        m.subset = m.subset.offset_by(start, false);
      }
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
