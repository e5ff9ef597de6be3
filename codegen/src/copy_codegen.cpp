// Copies between access nodes (and between an access node and a scope entry or exit): loop nests
// or memcpy over the two ends' subsets by DaCe's rules (copy_subsets), with write-conflict
// resolution where the memlet has one; a target's own copies (CUDA's host <-> device) through
// its emitter.
#include "copy_gen.h"

#include <algorithm>
#include <functional>

#include "weir/sdfg/view_binding.h"

namespace weir::codegen::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

}  // namespace

CopyGen::CopyGen(StateGen& g) : g_(g), sg(g.sg), st(g.st) {}

void CopyGen::emit_access(const AccessNode& n, Writer& w) {
  for (EdgeId id : st.in_edges(n.id())) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty() || g_.view_edges_.count(id)) continue;
    if (st.node(e.src).kind() != NodeKind::MapEntry) continue;
    // Scope entry -> access node: a copy when the data changes (outer array -> local buffer).
    auto path = st.memlet_path(id);
    const auto* outer = st.node(st.edge(path.front()).src).as<AccessNode>();
    if (outer && outer->data != n.data) emit_copy(e, outer->data, n.data, w);
  }
  for (EdgeId id : st.out_edges(n.id())) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty() || g_.view_edges_.count(id)) continue;
    const Node& dst = st.node(e.dst);
    if (auto* a = dst.as<AccessNode>()) {
      if (auto* ve = weir::view_edge(st, *a); ve && ve->id == id && sg.sdfg.arrays.at(a->data).is_view())
        continue;
      emit_copy_timed(e, n.data, a->data, w);
    } else if (dst.kind() == NodeKind::MapExit) {
      auto path = st.memlet_path(id);
      const auto* outer = st.node(st.edge(path.back()).dst).as<AccessNode>();
      if (outer && outer->data != n.data) emit_copy(e, n.data, outer->data, w);
    }
  }
}

void CopyGen::emit_copy_timed(const DataflowEdge& e, const std::string& src, const std::string& dst,
                              Writer& w) {
  auto slot = sg.prog.timer_slot(st, TimedKind::Copy, e.id);
  if (!slot) return emit_copy(e, src, dst, w);
  // Inside a map scope: per execution, on the running thread's row of slots.
  const bool inside = !g_.frames_.empty() || g_.in_parallel();
  if (inside && g_.device_code())
    throw GenFailure("a Timer (instrument) inside a GPU kernel is not supported");
  Writer timed;
  emit_copy(e, src, dst, timed);
  emit_timed(*slot, timed, w, inside);
}

void CopyGen::emit_copy(const DataflowEdge& e, const std::string& src, const std::string& dst, Writer& w) {
  const Memlet& m = e.memlet;
  auto default_other = [&](const std::string& other, const Subset& data_side) {
    const Binding* bound = g_.binding(other);
    if (!bound) throw GenFailure("container '" + other + "' is not available here");
    const DataDescriptor& d = *bound->desc;
    if (bound->scalar) return Subset({Range::index(0)});
    if (d.shape.size() == data_side.dims()) {
      std::vector<Range> rs;
      for (const auto& r : data_side.ranges()) rs.push_back(Range(0, r.size() - 1));
      return Subset(rs);
    }
    return Subset::full(d.shape);
  };
  // DaCe's rules (copy_subsets): `subset` indexes `data`, `is_data_src` settles self-copies.
  CopySubsets ends = copy_subsets(m, src, dst);
  if (!ends.src && !ends.dst)
    throw GenFailure("copy memlet names '" + m.data + "', neither '" + src + "' nor '" + dst + "'");
  Subset ssub = ends.src ? *ends.src : default_other(src, *ends.dst);
  Subset dsub = ends.dst ? *ends.dst : default_other(dst, ssub);
  Location S = g_.location(src, ssub), D = g_.location(dst, dsub);
  // Copy dimensions: the non-unit dimensions of each side, matched in order.
  auto dims_of = [](const Location& L) {
    std::vector<std::size_t> out;
    if (L.binding->scalar) return out;
    for (std::size_t d = 0; d < L.subset.dims(); ++d)
      if (!is_one(L.subset[d].size())) out.push_back(d);
    return out;
  };
  auto sd = dims_of(S), dd = dims_of(D);
  bool same = sd.size() == dd.size();
  for (std::size_t k = 0; same && k < sd.size(); ++k) same = ssub[sd[k]].size() == dsub[dd[k]].size();
  if (!same)
    throw GenFailure("copy " + memlet_text(src, ssub) + " -> " + memlet_text(dst, dsub) +
                     " between subsets of different shapes");
  if (g_.opts.emit_comments)
    w.line("// copy " + memlet_text(src, ssub) + " -> " + memlet_text(dst, dsub) +
           (m.wcr.empty() ? "" : " with " + m.wcr));
  std::string T(cpp_name(D.type));
  // A storage pair the target moves itself (CUDA host code and device memory).
  if (sg.prog.target.emit_copy(g_, S, D, sd, dd, m.wcr,
                               memlet_text(src, ssub) + " -> " + memlet_text(dst, dsub), w))
    return;

  // memcpy when both sides are one contiguous block.
  auto contiguous = [&](const Location& L, const std::vector<std::size_t>& dims) {
    if (L.binding->scalar) return dims.empty();
    const DataDescriptor& d = *L.binding->desc;
    for (std::size_t k = 0; k < dims.size(); ++k) {
      const Range& r = L.subset[dims[k]];
      if (!is_one(r.step)) return false;
      sym::Expr expect =
          k + 1 < dims.size() ? d.strides[dims[k + 1]] * L.subset[dims[k + 1]].size() : sym::Expr(1);
      if (d.strides[dims[k]] != expect) return false;
    }
    return true;
  };
  bool views = S.binding->desc->is_view() || D.binding->desc->is_view();
  if (!sd.empty() && m.wcr.empty() && S.type == D.type && src != dst && !views && contiguous(S, sd) &&
      contiguous(D, dd)) {
    sym::Expr total = 1;
    for (std::size_t d : sd) total *= ssub[d].size();
    w.line("std::memcpy(" + D.pointer() + ", " + S.pointer() + ", sizeof(" + T + ") * (" + sym_cpp(total) +
           "));");
    return;
  }
  // Loop nest over the copy dimensions.
  std::vector<sym::Expr> sidx = S.start(), didx = D.start();
  std::vector<std::string> counters;
  auto open_loops = [&] {
    for (std::size_t k = 0; k < sd.size(); ++k) {
      std::string c = g_.loop_var("__c", k);
      counters.push_back(c);
      sym::Expr cv = sym::Expr::symbol(c);
      w.open("for (int64_t " + c + " = 0; " + c + " < " + sym_cpp(ssub[sd[k]].size()) + "; ++" + c + ") {");
      sidx[sd[k]] = ssub[sd[k]].start + cv * ssub[sd[k]].step;
      didx[dd[k]] = dsub[dd[k]].start + cv * dsub[dd[k]].step;
    }
  };
  auto close_loops = [&] {
    for (std::size_t k = 0; k < sd.size(); ++k) w.close();
  };
  auto elem = [](const Location& L, const std::vector<sym::Expr>& idx) {
    if (L.binding->scalar) return L.binding->cpp;
    return L.binding->cpp + "[" + linear_offset(*L.binding->desc, idx) + "]";
  };
  auto store = [&](const std::string& value) {
    std::string target = elem(D, didx);
    if (m.wcr.empty())
      w.line(target + " = " + value + ";");
    else
      w.lines(g_.wcr_update(m.wcr, target, value, D.type, ConcurrentAccess(g_).needs_atomic(dst, didx)));
  };
  // Ends that may share memory: one container (p[1:4] = p[0:3]), or a view on either side
  // (V = A[0:4, 0:4]; A[1:5, 1:5] = V), whose viewed container is not followed here.
  if ((src != dst && !views) || sd.empty()) {
    open_loops();
    store(elem(S, sidx));
    close_loops();
    return;
  }
  // Such a copy may overlap itself: like NumPy (memmove), it reads its whole source before
  // writing, through a buffer in the source's dtype.
  std::string ST(cpp_name(S.type));
  sym::Expr total = 1;
  for (std::size_t d : sd) total *= ssub[d].size();
  std::string buf = g_.loop_var("__copy", 0);
  w.open("{");
  w.line("weir_buffer<" + ST + "> " + buf + "(" + sym_cpp(total) + ", \"copy of " + c_escape(src) + "\");");
  auto linear = [&] {
    std::string lin;
    for (std::size_t k = 0; k < sd.size(); ++k)
      lin = lin.empty() ? counters[k]
                        : "(" + lin + ") * (" + sym_cpp(ssub[sd[k]].size()) + ") + " + counters[k];
    return buf + ".ptr[" + lin + "]";
  };
  open_loops();
  w.line(linear() + " = " + elem(S, sidx) + ";");
  close_loops();
  counters.clear();
  open_loops();
  store(linear());
  close_loops();
  w.close();
}

}  // namespace weir::codegen::detail
