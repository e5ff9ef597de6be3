// The dataflow of a state as a C++ function: nodes in topological order per scope, maps as loop
// nests (`#pragma omp parallel for collapse(n)` for parallel schedules). Tasklets: tasklet_*.cpp.
#include <algorithm>
#include <utility>

#include "copy_gen.h"
#include "library_gen.h"
#include "state_codegen.h"
#include "stream_gen.h"
#include "weir/sdfg/state_uses.h"
#include "weir/sdfg/text.h"
#include "weir/sdfg/view_binding.h"

namespace weir::codegen::detail {

namespace {
/// Nested SDFG states up to this many lines of C++ are inlined into their caller.
constexpr std::size_t kInlinedStateLines = 400;

/// A transient that is no view: the SDFG's own allocation, which no parameter and no other
/// container of the function points into (a nested SDFG's row buffer, say).
bool owns_memory(const DataDescriptor& d) { return d.transient && !d.is_view(); }

}  // namespace

std::string generate_state(SdfgGen& sg, const SDFGState& st, const std::string& fn) {
  FactRecorder facts;  // of the state's function
  StateGen g(sg, st);
  // Parameters from the state's read/write sets (an over-approximation: `(void)` marks each as
  // possibly unused, so that the function compiles warning-free whichever the body reads).
  StateUses uses = state_uses(sg.sdfg, st);
  std::vector<std::string> params, args;
  // In name order (as body_data's), looked up from the state's uses: linear in the state's size.
  std::set<std::string> used_names = uses.containers;
  used_names.insert(uses.names.begin(), uses.names.end());
  for (const auto& name : used_names) {
    auto bound = sg.body_data.find(name);
    if (bound == sg.body_data.end()) continue;
    const Binding& b = bound->second;
    std::string t = cpp_type(*b.desc);
    if (b.scalar)
      params.push_back((b.read_only ? "const " : "") + t + "& " + b.cpp);
    else
      params.push_back(t + "* " +
                       (sg.top_level || b.unaliased || owns_memory(*b.desc) ? "__restrict__ " : "") + b.cpp);
    args.push_back(b.cpp);
  }
  // Dynamic map range inputs are declared in the map's scope (SDFG::free_symbols may list them).
  std::set<std::string> dynamic_inputs;
  for (const Node* n : st.nodes())
    if (auto* e = n->as<MapEntry>())
      for (const auto& [c, t] : e->in_connectors)
        if (c.rfind("IN_", 0) != 0) dynamic_inputs.insert(c);
  for (const auto& [s, t] : sg.symbols) {
    std::string c = cpp_ident(s);
    if (!uses.names.count(s) || sg.body_data.count(s) || dynamic_inputs.count(s)) continue;
    params.push_back("const " + std::string(cpp_name(t)) + " " + c);
    args.push_back(c);
  }
  g.function = fn;
  g.params = params;
  g.args = args;
  Writer body;
  try {
    g.emit_state_body(body);
  } catch (const GenFailure& e) {
    throw CodegenError(sg.ref(&st), e.what());
  } catch (const PythonTranslationError& e) {
    throw CodegenError(sg.ref(&st), e.what());
  } catch (const sym::SymbolicError& e) {
    throw CodegenError(sg.ref(&st), e.what());
  }
  Writer f;
  if (sg.prog.opts.emit_comments) {
    std::string path = st.path();
    f.line("// state '" + st.label + "'" + (path.empty() || path == st.label ? "" : " (" + path + ")") +
           (sg.top_level ? "" : " of nested SDFG '" + sg.sdfg.name + "'"));
  }
  // A state of a nested SDFG called in a kernel is device code.
  const bool device = sg.device_code();
  const std::string declaration = "void " + fn + "(" + join(params, ", ") + ")";
  // A nested SDFG's small state is inlined where it is called (once, in its control flow): a
  // state in a loop (deriche's recurrence over j) is then the loop's body, its one-element
  // transients registers, instead of a call per iteration that spills them.
  const bool inlined = !sg.top_level && !device && body.line_count() <= kInlinedStateLines;
  f.open(sg.prog.target.function_specifiers(device, inlined) + declaration + " {");
  if (!args.empty()) {
    std::string unused;
    for (const auto& a : args) unused += (unused.empty() ? "(void)" : ", (void)") + a;
    f.line(unused + ";");
  }
  f.append(body);
  // A host state may end by waiting for the device (CUDA: its kernels and copies, ADR 0020).
  if (!device)
    if (std::string end = sg.prog.target.state_end(sg.sdfg, st, uses); !end.empty()) f.line(end);
  f.close();
  f.blank();
  CodeFacts state_facts = facts.finish();
  if (state_facts.atomics) note_atomics();  // the caller's facts: it calls this function
  sg.prog.functions.append(f, device ? std::string() : declaration, std::move(state_facts));
  // Transients sized by control-flow symbols get their size for this state first.
  std::string resize;
  for (const auto& name : sg.resized_homes)
    if (uses.containers.count(name) || uses.names.count(name))
      resize += cpp_ident(name) + " = " + cpp_ident(name) + "__buf.keep(" +
                sg.alloc_size(sg.sdfg.arrays.at(name)) + ", \"" + c_escape(name) + "\"); ";
  return resize + fn + "(" + join(args, ", ") + ");";
}

StateGen::StateGen(SdfgGen& g, const SDFGState& s) : sg(g), st(s), opts(g.prog.opts) {
  std::vector<NodeId> order;
  try {
    scopes_ = st.scope_tree();
    order = st.topological_order();
  } catch (const IRError& e) {
    throw CodegenError(sg.ref(&st), e.what());
  }
  for (NodeId n : order) {
    const Node& node = st.node(n);
    if (auto* a = node.as<AccessNode>(); a && a->setzero) zeroed_.insert(a->data);
    if (node.kind() == NodeKind::MapExit) continue;
    children_[scopes_.parent[n]].push_back(n);
  }
  // The transients this state declares, per scope (not every home of the SDFG: linear generation).
  if (auto in_state = sg.state_homes.find(&st); in_state != sg.state_homes.end())
    for (const auto& name : in_state->second) {
      const TransientHome& h = sg.homes.at(name);
      if (h.kind == HomeKind::State && !h.hoisted)
        transients_by_scope_[kNoNode].push_back(name);
      else if (h.kind == HomeKind::Scope)
        transients_by_scope_[h.scope].push_back(name);
    }
}

const Binding* Bindings::find(const std::string& data) const {
  auto it = by_data_.find(data);
  return it == by_data_.end() ? nullptr : &it->second;
}

void Bindings::set(const std::string& data, Binding b) {
  if (marks_ > 0) {
    const Binding* before = find(data);
    undo_.emplace_back(data, before ? std::optional<Binding>(*before) : std::nullopt);
  }
  put(data, std::move(b));
}

void Bindings::put(const std::string& data, std::optional<Binding> b) {
  auto it = by_data_.find(data);
  if (it != by_data_.end()) {
    auto c = cpp_names_.find(it->second.cpp);
    if (--c->second == 0) cpp_names_.erase(c);
    if (!b) {
      by_data_.erase(it);
      return;
    }
    it->second = std::move(*b);
  } else {
    if (!b) return;
    it = by_data_.emplace(data, std::move(*b)).first;
  }
  ++cpp_names_[it->second.cpp];
}

std::size_t Bindings::mark() {
  ++marks_;
  return undo_.size();
}

void Bindings::rollback(std::size_t mark) {
  while (undo_.size() > mark) {
    auto [data, before] = std::move(undo_.back());
    undo_.pop_back();
    put(data, std::move(before));
  }
  --marks_;
}

const Binding* StateGen::binding(const std::string& data) const {
  if (const Binding* b = bindings_.find(data)) return b;
  auto b = sg.body_data.find(data);
  return b == sg.body_data.end() ? nullptr : &b->second;
}

void StateGen::emit_state_body(Writer& w) {
  // Body-level arrays that this state's access nodes ask to be zeroed.
  for (const auto& name : zeroed_) {
    auto h = sg.homes.find(name);
    if (h == sg.homes.end()) continue;
    bool body_level =
        h->second.kind == HomeKind::Program || (h->second.kind == HomeKind::State && h->second.hoisted);
    if (!body_level) continue;
    const DataDescriptor& d = sg.sdfg.arrays.at(name);
    w.line(sg.prog.target.zero(d, cpp_ident(name), sg.alloc_size(d), name, device_code()));
  }
  emit_scope(kNoNode, w);
}

std::vector<NodeId> scope_nodes(const SDFGState& st, const std::map<NodeId, std::vector<NodeId>>& children,
                                NodeId entry) {
  std::vector<NodeId> out{entry}, stack{entry};
  while (!stack.empty()) {
    NodeId s = stack.back();
    stack.pop_back();
    if (auto* e = st.node(s).as<MapEntry>()) out.push_back(e->exit);
    auto it = children.find(s);
    if (it == children.end()) continue;
    for (NodeId c : it->second) {
      out.push_back(c);
      if (st.node(c).kind() == NodeKind::MapEntry) stack.push_back(c);
    }
  }
  return out;
}

std::map<std::string, ScalarType> StateGen::visible_symbols() const {
  std::map<std::string, ScalarType> out = sg.symbols;
  for (const auto& f : frames_)
    for (const auto& [s, t] : f.symbols) out[s] = t;
  return out;
}

int StateGen::parallel_frame() const {
  for (std::size_t i = frames_.size(); i-- > 0;)
    if (frames_[i].parallel) return static_cast<int>(i);
  return -1;
}

bool StateGen::in_parallel() const { return sg.in_parallel || parallel_frame() >= 0; }

bool StateGen::device_code() const { return sg.prog.target.parallel_scopes_on_device() && in_parallel(); }

ScalarType StateGen::dynamic_input(const MapEntry& e, const std::string& c, Location& loc) const {
  auto es = st.in_edges_by_connector(e.id(), c);
  if (es.size() != 1) throw CodegenError(ref(e), "dynamic map input '" + c + "' needs exactly one edge");
  loc = edge_location(st.edge(es[0]), true);
  bool ptr = false;
  ScalarType t = connector_type(e.in_connectors, c, &ptr).value_or(loc.type);
  bool integral = t != ScalarType::Float32 && t != ScalarType::Float64 && t != ScalarType::Float16 &&
                  t != ScalarType::Bool;
  return integral ? ScalarType::Int64 : t;
}

void StateGen::emit_scope(NodeId scope, Writer& w) {
  declare_transients(scope, w);
  const auto reach_tests = define_views(scope, w);
  auto it = children_.find(scope);
  if (it == children_.end()) return;
  if (reach_tests.empty() && scope == kNoNode && emit_parts(it->second, w)) return;
  // A view whose reach depends on this iteration's values: a failing one is recorded (the scope
  // may run in a parallel loop or a kernel, where it cannot throw), the iteration's body skipped,
  // and the state's caller raises it, as for a nested SDFG's arguments (emit_nested).
  std::string guard;
  for (const auto& [test, message] : reach_tests)
    guard += "if (" + test + ") weir_layout_fault(\"" + c_escape(message) + "\"); else ";
  if (!guard.empty()) {
    note_fault();
    w.open(guard + "{");
  }
  for (NodeId n : it->second) emit_node(st.node(n), w);
  if (!guard.empty()) w.close();
}

bool StateGen::emit_parts(const std::vector<NodeId>& nodes, Writer& w) {
  // Host code of the top level only: a nested SDFG's state returns from its function on a
  // fault, which a part could not do for it; a target that compiles one unit (CUDA) keeps them.
  if (opts.unit_bytes == 0 || !sg.prog.target.splits_units() || !sg.top_level || sg.in_parallel ||
      function.empty())
    return false;
  // Code nodes at the top level may share edge variables between them: kept together.
  for (NodeId n : nodes) {
    NodeKind k = st.node(n).kind();
    if (k != NodeKind::Access && k != NodeKind::MapEntry) return false;
  }
  const std::map<std::string, Binding> top = bindings_.all();  // before the scopes add their own
  std::vector<Writer> pieces;          // the nodes that emit code (access nodes mostly do not)
  std::vector<CodeFacts> piece_facts;  // what each piece's code needs, for the function it lands in
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  for (NodeId n : nodes) {
    Writer p;
    FactRecorder facts;
    emit_node(st.node(n), p);
    CodeFacts f = facts.finish();
    if (p.empty()) {
      note(f);
      continue;
    }
    sizes.push_back(p.str().size());
    total += sizes.back();
    pieces.push_back(std::move(p));
    piece_facts.push_back(std::move(f));
  }
  // Big states only (after auto_optimize a chain of 1,000 stencils is one state): small ones,
  // hdiff's, stay one function as before.
  const std::size_t part_bytes = std::max<std::size_t>(opts.unit_bytes / 4, 1);
  if (total <= opts.unit_bytes / 2 || pieces.size() < 2) {
    for (const auto& p : pieces) w.append(p);
    for (const auto& f : piece_facts) note(f);
    return true;
  }
  // Parameters: the state function's, and what the state declared at its top (transients, views).
  std::vector<std::string> params = this->params, args = this->args;
  for (const auto& [name, b] : top) {
    std::string t = cpp_type(*b.desc);
    params.push_back(b.scalar ? (b.read_only ? "const " : "") + t + "& " + b.cpp
                              : t + "* " + (b.desc->is_view() ? "" : "__restrict__ ") + b.cpp);
    args.push_back(b.cpp);
  }
  std::string unused;
  for (const auto& a : args) unused += (unused.empty() ? "(void)" : ", (void)") + a;
  for (std::size_t k = 0; k < pieces.size();) {
    // Consecutive top-level scopes up to about part_bytes per function.
    std::size_t end = k, bytes = 0;
    while (end < pieces.size() && (end == k || bytes + sizes[end] <= part_bytes)) bytes += sizes[end++];
    const std::string fn = sg.prog.unique_function_name(function + "_part");
    const std::string declaration = "void " + fn + "(" + join(params, ", ") + ")";
    Writer f;
    if (opts.emit_comments)
      f.line("// part of state '" + st.label + "': its top-level scopes " + std::to_string(k) + " to " +
             std::to_string(end - 1));
    f.open("static " + declaration + " {");
    if (!unused.empty()) f.line(unused + ";");
    CodeFacts facts;
    for (std::size_t q = k; q < end; ++q) {
      f.append(pieces[q]);
      facts.merge(piece_facts[q]);
    }
    f.close();
    f.blank();
    sg.prog.functions.append(f, declaration, std::move(facts));
    w.line(fn + "(" + join(args, ", ") + ");");
    note_call(fn);
    k = end;
  }
  return true;
}

void StateGen::emit_node(const Node& n, Writer& w) {
  try {
    checks_.emit_tiling_promises(n, w);
    checks_.emit_bounds_checks(n, w);
    std::optional<std::size_t> slot;
    if (n.kind() == NodeKind::MapEntry) slot = sg.prog.timer_slot(st, TimedKind::Map, n.id());
    if (n.kind() == NodeKind::Library) slot = sg.prog.timer_slot(st, TimedKind::Library, n.id());
    if (n.kind() == NodeKind::NestedSDFG) slot = sg.prog.timer_slot(st, TimedKind::NestedSDFG, n.id());
    // The only node inside a map's loops: timed by those loops, once per thread (emit_map).
    if (slot && n.id() == chunk_timed_) return emit_untimed(n, w);
    if (slot) {
      // Outside map scopes: around the whole loop nest, outside its parallel region, one thread per
      // slot. A map, library node or nested SDFG call inside a map scope: per execution, on the
      // running thread's row of slots.
      const bool inside = !frames_.empty() || in_parallel();
      if (inside && device_code())
        throw CodegenError(ref(n), "a Timer (instrument) inside a GPU kernel is not supported");
      Writer timed;
      emit_untimed(n, timed);
      return emit_timed(*slot, timed, w, inside);
    }
    emit_untimed(n, w);
  } catch (const GenFailure& e) {
    throw CodegenError(ref(n), e.what());
  } catch (const PythonTranslationError& e) {
    throw CodegenError(ref(n), e.what());
  } catch (const sym::SymbolicError& e) {
    throw CodegenError(ref(n), e.what());
  }
}

void StateGen::emit_untimed(const Node& n, Writer& w) {
  switch (n.kind()) {
    case NodeKind::Access: return CopyGen(*this).emit_access(static_cast<const AccessNode&>(n), w);
    case NodeKind::Tasklet: return emit_tasklet(static_cast<const Tasklet&>(n), w);
    case NodeKind::MapEntry:
      return StreamGen(*this).emit_map_choosing_stores(static_cast<const MapEntry&>(n), w);
    case NodeKind::MapExit: return;
    case NodeKind::NestedSDFG: return emit_nested(static_cast<const NestedSDFGNode&>(n), w);
    case NodeKind::Library: return LibraryGen(*this).emit(static_cast<const LibraryNode&>(n), w);
  }
}

// --- transients and views ------------------------------------------------------------------

void StateGen::declare_transients(NodeId scope, Writer& w) {
  auto here = transients_by_scope_.find(scope);
  if (here == transients_by_scope_.end()) return;
  for (const auto& name : here->second) {
    const DataDescriptor& d = sg.sdfg.arrays.at(name);
    std::string n = cpp_ident(name), t = cpp_type(d);
    bool zero = zeroed_.count(name) > 0;
    if (sg.kernel_private(d) && !device_code()) continue;  // declared in each kernel (cuda_kernels.cpp)
    // Memory the target owns (CUDA's device memory in host code): its buffer, a pointer binding.
    const std::string count = sym_cpp(d.is_scalar() ? sym::Expr(1) : d.total_size);
    if (sg.prog.target.declare_device_buffer(w, d, n, count, name, device_code())) {
      if (zero) w.line(sg.prog.target.zero(d, n, count, name, device_code()));
      bindings_.set(name, Binding{n, &d, false, static_cast<int>(frames_.size())});
      continue;
    }
    if (d.is_scalar()) {
      w.line(t + " " + n + "{};");
    } else {
      sym::Expr size = d.total_size;
      if (size.is_integer() && size.value() <= 0) {
        size = 1;
        for (const auto& s : d.shape) size *= s;
      }
      auto k = size.as_integer();
      if (k && *k > 0 &&
          *k * static_cast<long long>(size_of(d.dtype.base)) <=
              static_cast<long long>(opts.max_stack_bytes)) {
        w.line(t + " " + n + "[" + std::to_string(*k) + "]" + (zero ? "{};" : ";"));
      } else {
        // On the CPU small sizes stay on the stack (weir_local_buffer): a state in a loop body
        // would otherwise allocate per iteration.
        w.line(std::string(sg.prog.target.scope_buffer_class()) + "<" + t + "> " + n + "__buf(" +
               sym_cpp(size) + ", \"" + c_escape(name) + "\");");
        w.line(t + "* __restrict__ " + n + " = " + n + "__buf.ptr;");
        if (zero) w.line("std::memset(" + n + ", 0, sizeof(" + t + ") * (" + sym_cpp(size) + "));");
      }
    }
    bindings_.set(name, Binding{n, &d, d.is_scalar(), static_cast<int>(frames_.size())});
  }
}

std::vector<std::pair<std::string, std::string>> StateGen::define_views(NodeId scope, Writer& w) {
  std::vector<std::pair<std::string, std::string>> reach_tests;
  auto it = children_.find(scope);
  if (it == children_.end()) return reach_tests;
  std::vector<const AccessNode*> views;
  for (NodeId id : it->second) {
    auto* a = st.node(id).as<AccessNode>();
    if (!a) continue;
    auto d = sg.sdfg.arrays.find(a->data);
    if (d != sg.sdfg.arrays.end() && d->second.is_view()) views.push_back(a);
  }
  std::map<std::string, std::string> defined;  // view -> definition
  std::vector<bool> done(views.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t i = 0; i < views.size(); ++i) {
      if (done[i]) continue;
      const AccessNode& v = *views[i];
      const DataflowEdge* e = weir::view_edge(st, v);
      if (!e)
        throw CodegenError(ref(v),
                           "cannot tell which container view '" + v.data + "' views (no 'views' edge)");
      std::string viewed;
      Subset sub;
      if (e->memlet.data != v.data) {
        viewed = e->memlet.data;
        sub = e->memlet.subset;
      } else {
        NodeId other = e->dst == v.id() ? e->src : e->dst;
        auto* oa = st.node(other).as<AccessNode>();
        if (!oa)
          throw CodegenError(ref(v), "view '" + v.data + "' is defined through a scope node; not supported");
        viewed = oa->data;
        const DataDescriptor& od = sg.sdfg.arrays.at(viewed);
        if (e->memlet.other_subset) {
          sub = *e->memlet.other_subset;
        } else {
          std::vector<Range> zeros;
          for (std::size_t k = 0; k < od.shape.size(); ++k) zeros.push_back(Range::index(0));
          sub = Subset(zeros);
        }
      }
      if (!binding(viewed)) continue;  // a view of a view defined later in this loop
      if (auto vb = view_binding(sg.sdfg, st, v); vb && vb->viewed != v.data) {
        std::optional<LayoutCondition> reach;
        try {
          reach = reach_condition(v.data, sg.sdfg.arrays.at(v.data), vb->viewed,
                                  sg.sdfg.arrays.at(vb->viewed), vb->subset, "view '" + v.data + "'");
        } catch (const sym::SymbolicError& ex) {
          throw CodegenError(ref(v), "view '" + v.data + "': its reach overflows 64-bit element indices (" +
                                         std::string(ex.what()) + ")");
        }
        require_reach(reach, ref(v));
        // Undecidable on this scope's values (those on the call's or the control flow's symbols
        // are checked earlier: SdfgGen::emit_layout_checks).
        if (reach && !holds(*reach).has_value() && sg.reach_check_point(*reach) == SdfgGen::CheckPoint::Use)
          reach_tests.emplace_back(scope_reach_test(*reach, visible_symbols(), ref(v)),
                                   reach->message + " (false for the values of this iteration)");
      }
      view_edges_.insert(e->id);
      Location loc;
      try {
        loc = location(viewed, sub);
      } catch (const GenFailure& ex) {
        throw CodegenError(ref(v), ex.what());
      }
      std::string def = loc.pointer();
      done[i] = progress = true;
      auto [pos, fresh] = defined.emplace(v.data, def);
      if (!fresh) {
        if (pos->second != def)
          throw CodegenError(ref(v), "view '" + v.data + "' views two different places in one scope");
        continue;
      }
      const DataDescriptor& vd = sg.sdfg.arrays.at(v.data);
      std::string n = cpp_ident(v.data);
      if (opts.emit_comments) w.line("// view " + v.data + " = " + memlet_text(viewed, sub));
      w.line(cpp_type(vd) + "* " + n + " = " + def + ";");
      Binding vb{n, &vd, false, static_cast<int>(frames_.size())};
      vb.viewed = viewed;
      vb.view_subset = sub;
      bindings_.set(v.data, vb);
    }
  }
  for (std::size_t i = 0; i < views.size(); ++i)
    if (!done[i])
      throw CodegenError(ref(*views[i]), "cannot define view '" + views[i]->data +
                                             "': its viewed container is not available");
  if (!reach_tests.empty() && scope == kNoNode)
    throw CodegenError(ref(*views.front()),
                       reach_tests.front().second + ": weir cannot check it where the state starts");
  return reach_tests;
}

}  // namespace weir::codegen::detail
