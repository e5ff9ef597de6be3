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

// --- copies -------------------------------------------------------------------------------

const DataflowEdge* StateGen::view_edge(const AccessNode& n) const { return weir::view_edge(st, n); }

void StateGen::emit_access(const AccessNode& n, Writer& w) {
  for (EdgeId id : st.in_edges(n.id())) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty() || view_edges_.count(id)) continue;
    if (st.node(e.src).kind() != NodeKind::MapEntry) continue;
    // Scope entry -> access node: a copy when the data changes (outer array -> local buffer).
    auto path = st.memlet_path(id);
    const auto* outer = st.node(st.edge(path.front()).src).as<AccessNode>();
    if (outer && outer->data != n.data) emit_copy(e, outer->data, n.data, w);
  }
  for (EdgeId id : st.out_edges(n.id())) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty() || view_edges_.count(id)) continue;
    const Node& dst = st.node(e.dst);
    if (auto* a = dst.as<AccessNode>()) {
      if (auto* ve = view_edge(*a); ve && ve->id == id && sg.sdfg.arrays.at(a->data).is_view()) continue;
      emit_copy_timed(e, n.data, a->data, w);
    } else if (dst.kind() == NodeKind::MapExit) {
      auto path = st.memlet_path(id);
      const auto* outer = st.node(st.edge(path.back()).dst).as<AccessNode>();
      if (outer && outer->data != n.data) emit_copy(e, n.data, outer->data, w);
    }
  }
}

void StateGen::emit_copy_timed(const DataflowEdge& e, const std::string& src, const std::string& dst,
                               Writer& w) {
  auto slot = sg.prog.timer_slot(st, TimedKind::Copy, e.id);
  if (!slot) return emit_copy(e, src, dst, w);
  if (!frames_.empty() || in_parallel())
    throw GenFailure(
        "a Timer (instrument) on a copy inside a map scope is not supported: time the map instead");
  Writer timed;
  emit_copy(e, src, dst, timed);
  emit_timed(*slot, timed, w);
}

void StateGen::emit_copy(const DataflowEdge& e, const std::string& src, const std::string& dst, Writer& w) {
  const Memlet& m = e.memlet;
  auto default_other = [&](const std::string& other, const Subset& data_side) {
    const Binding* bound = binding(other);
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
  Location S = location(src, ssub), D = location(dst, dsub);
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
  if (comments())
    w.line("// copy " + memlet_text(src, ssub) + " -> " + memlet_text(dst, dsub) +
           (m.wcr.empty() ? "" : " with " + m.wcr));
  std::string T(cpp_name(D.type));
  // A storage pair the target moves itself (CUDA host code and device memory).
  if (sg.prog.target.emit_copy(*this, S, D, sd, dd, m.wcr,
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
      std::string c = loop_var("__c", k);
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
      w.lines(wcr_update(m.wcr, target, value, D.type, needs_atomic(dst, didx)));
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
  std::string buf = loop_var("__copy", 0);
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

bool StateGen::invariant(const std::string& s) const {
  int p = parallel_frame();
  for (std::size_t k = 0; k < frames_.size(); ++k)
    for (const auto& [name, type] : frames_[k].symbols)
      if (name == s && (p < 0 || static_cast<int>(k) >= p)) return false;
  if (p >= 0) return true;  // the state's own parallel map: nothing outside its scopes changes
  if (!sg.in_parallel) return false;
  return sg.calling_invariant_symbols.count(s) > 0 &&
         std::find(sg.local_symbols.begin(), sg.local_symbols.end(), s) == sg.local_symbols.end();
}

bool StateGen::invariant(const Subset& region) const {
  for (const auto& s : region.free_symbols())
    if (!invariant(s)) return false;
  return true;
}

std::optional<std::vector<std::string>> StateGen::concurrent_params() const {
  int p = parallel_frame();
  if (p >= 0) return frames_[static_cast<std::size_t>(p)].parallel_params;
  if (sg.in_parallel && sg.calling_params_known) return sg.calling_parallel_symbols;
  return std::nullopt;
}

bool StateGen::pins_parallel_params(const std::vector<sym::Expr>& idx) const {
  auto params = concurrent_params();
  return params && disjoint_points(idx, concurrency(*params));
}

bool StateGen::pins_parallel_params(const Subset& region) const {
  auto params = concurrent_params();
  return params && disjoint_points("", region, concurrency(*params));
}

Concurrency StateGen::concurrency(const std::vector<std::string>& params) const {
  return {params, [this](const std::string& s) { return invariant(s); }};
}

bool StateGen::fixed_base(const std::string& data) const {
  const Binding* b = binding(data);
  auto params = concurrent_params();
  if (!b || !params) return false;
  if (!b->viewed.empty()) return invariant(b->view_subset) && fixed_base(b->viewed);
  if (parallel_frame() >= 0) return true;  // a container, or an allocation of its own
  return b->desc->transient || sg.fixed_base_params.count(data) > 0;
}

bool StateGen::shared_by_calls(const std::string& data) const {
  const Binding* b = binding(data);
  if (!b) return true;
  if (!b->viewed.empty()) {
    // A view of its call's own slice (pinned by the calling loop's parameters) is private;
    // otherwise it is as shared as what it views (a transient of the call, not its memory).
    if (fixed_base(b->viewed) && pins_parallel_params(b->view_subset)) return false;
    return shared_by_calls(b->viewed);
  }
  return !b->desc->transient && !sg.private_params.count(data);
}

bool StateGen::private_to_iteration(const std::string& data) const {
  const Binding* b = binding(data);
  int p = parallel_frame();
  if (p >= 0 && frames_[static_cast<std::size_t>(p)].privatized.count(data)) return true;
  if (!b || p < 0 || b->frame < p + 1) return false;
  if (b->viewed.empty()) return true;  // allocated in the parallel loop's body
  // A view defined in the body: its own slice of the viewed container per iteration.
  return (fixed_base(b->viewed) && pins_parallel_params(b->view_subset)) || private_to_iteration(b->viewed);
}

bool StateGen::needs_atomic(const std::string& data, const std::vector<sym::Expr>& idx) const {
  if (!sg.prog.target.concurrent_iterations(opts.openmp)) return false;
  if (!binding(data)) return true;
  if (parallel_frame() < 0 && !(sg.in_parallel && shared_by_calls(data))) return false;
  if (private_to_iteration(data)) return false;
  // Elements of memory whose base is the same for every iteration: disjoint when the index
  // pins the parallel parameters.
  return !(fixed_base(data) && pins_parallel_params(idx));
}

}  // namespace weir::codegen::detail
