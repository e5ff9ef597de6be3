// The dataflow of a state as a C++ function: nodes in topological order per scope, maps as loop
// nests (`#pragma omp parallel for collapse(n)` for parallel schedules), tasklets as blocks that
// read their inputs through the memlets, run the translated code and write their outputs back.
#include <algorithm>
#include <cctype>

#include "cuda_codegen_internal.h"
#include "state_codegen.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/state_uses.h"
#include "weir/sdfg/text.h"

namespace weir::codegen::detail {

namespace {

bool is_code_node(const Node& n) {
  return n.kind() == NodeKind::Tasklet || n.kind() == NodeKind::NestedSDFG || n.kind() == NodeKind::Library;
}

std::optional<ScalarType> connector_type(const ConnectorMap& m, const std::string& c, bool* pointer) {
  auto it = m.find(c);
  if (it == m.end() || !it->second || !it->second->raw_json.empty() || it->second->base == ScalarType::Void)
    return std::nullopt;
  if (pointer) *pointer = it->second->pointer_depth > 0;
  return it->second->base;
}

}  // namespace

std::string generate_state(SdfgGen& sg, const SDFGState& st, const std::string& fn) {
  StateGen g(sg, st);
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
  // Parameters from the state's read/write sets (an over-approximation: `(void)` marks each as
  // possibly unused, so that the function compiles warning-free whichever the body reads).
  StateUses uses = state_uses(sg.sdfg, st);
  std::vector<std::string> params, args;
  for (const auto& [name, b] : sg.body_data) {
    if (!uses.containers.count(name) && !uses.names.count(name)) continue;
    std::string t = cpp_type(*b.desc);
    if (b.scalar)
      params.push_back(t + "& " + b.cpp);
    else
      params.push_back(t + "* " + (sg.top_level ? "__restrict__ " : "") + b.cpp);
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
  Writer f;
  if (sg.prog.opts.emit_comments) {
    std::string path = st.path();
    f.line("// state '" + st.label + "'" + (path.empty() || path == st.label ? "" : " (" + path + ")") +
           (sg.top_level ? "" : " of nested SDFG '" + sg.sdfg.name + "'"));
  }
  // CUDA: a state of a nested SDFG called in a kernel is device code; a host state waits for its
  // kernels and copies at its end (ADR 0020).
  bool device = sg.prog.cuda && sg.in_parallel;
  f.open(std::string(device ? "static __device__ void " : "static void ") + fn + "(" + join(params, ", ") +
         ") {");
  if (!args.empty()) {
    std::string unused;
    for (const auto& a : args) unused += (unused.empty() ? "(void)" : ", (void)") + a;
    f.line(unused + ";");
  }
  f.append(body);
  if (sg.prog.cuda && !device && uses_device(body.str()))
    f.line("weir_cuda_sync(\"state '" + c_escape(st.label) + "'\");");
  f.close();
  f.blank();
  sg.prog.functions.append(f);
  // Transients sized by control-flow symbols get their size for this state first.
  std::string resize;
  for (const auto& [name, h] : sg.homes)
    if (h.resized && (uses.containers.count(name) || uses.names.count(name)))
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
    if (node.kind() == NodeKind::MapExit) continue;
    children_[scopes_.parent[n]].push_back(n);
  }
  bindings_ = sg.body_data;
}

void StateGen::emit_state_body(Writer& w) {
  // Body-level arrays that this state's access nodes ask to be zeroed.
  std::set<std::string> zeroed;
  for (const Node* n : st.nodes())
    if (auto* a = n->as<AccessNode>(); a && a->setzero) zeroed.insert(a->data);
  for (const auto& name : zeroed) {
    auto h = sg.homes.find(name);
    if (h == sg.homes.end()) continue;
    bool body_level =
        h->second.kind == HomeKind::Program || (h->second.kind == HomeKind::State && h->second.hoisted);
    if (!body_level) continue;
    const DataDescriptor& d = sg.sdfg.arrays.at(name);
    if (sg.prog.cuda && !in_kernel() && is_device_storage(d.storage))
      w.line("weir_cuda_zero(" + cpp_ident(name) + ", sizeof(" + cpp_type(d) + ") * (" + sg.alloc_size(d) +
             "), \"" + c_escape(name) + "\");");
    else if (d.is_scalar())
      w.line(cpp_ident(name) + " = 0;");
    else
      w.line("std::memset(" + cpp_ident(name) + ", 0, sizeof(" + cpp_type(d) + ") * (" + sg.alloc_size(d) +
             "));");
  }
  emit_scope(kNoNode, w);
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

bool StateGen::in_kernel() const { return sg.prog.cuda && in_parallel(); }

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
  define_views(scope, w);
  auto it = children_.find(scope);
  if (it == children_.end()) return;
  for (NodeId n : it->second) emit_node(st.node(n), w);
}

void StateGen::emit_node(const Node& n, Writer& w) {
  try {
    emit_bounds_checks(n, w);
    switch (n.kind()) {
      case NodeKind::Access: return emit_access(static_cast<const AccessNode&>(n), w);
      case NodeKind::Tasklet: return emit_tasklet(static_cast<const Tasklet&>(n), w);
      case NodeKind::MapEntry: return emit_map(static_cast<const MapEntry&>(n), w);
      case NodeKind::MapExit: return;
      case NodeKind::NestedSDFG: return emit_nested(static_cast<const NestedSDFGNode&>(n), w);
      case NodeKind::Library: return emit_library(static_cast<const LibraryNode&>(n), w);
    }
  } catch (const GenFailure& e) {
    throw CodegenError(ref(n), e.what());
  } catch (const PythonTranslationError& e) {
    throw CodegenError(ref(n), e.what());
  } catch (const sym::SymbolicError& e) {
    throw CodegenError(ref(n), e.what());
  }
}

// --- transients and views ------------------------------------------------------------------

void StateGen::declare_transients(NodeId scope, Writer& w) {
  for (const auto& [name, h] : sg.homes) {
    if (h.state != &st) continue;
    bool here = (scope == kNoNode && h.kind == HomeKind::State && !h.hoisted) ||
                (h.kind == HomeKind::Scope && h.scope == scope);
    if (!here) continue;
    const DataDescriptor& d = sg.sdfg.arrays.at(name);
    std::string n = cpp_ident(name), t = cpp_type(d);
    bool zero = false;
    for (const AccessNode* a : st.access_nodes(name)) zero = zero || a->setzero;
    if (sg.kernel_private(d) && !in_kernel()) continue;  // declared in each kernel (cuda_kernels.cpp)
    if (sg.prog.cuda && !in_kernel() && is_device_storage(d.storage)) {
      sym::Expr size = d.is_scalar() ? sym::Expr(1) : d.total_size;
      w.line("weir_device_buffer<" + t + "> " + n + "__buf(" + sym_cpp(size) + ", \"" + c_escape(name) +
             "\");");
      w.line(t + "* __restrict__ " + n + " = " + n + "__buf.ptr;");
      if (zero)
        w.line("weir_cuda_zero(" + n + ", sizeof(" + t + ") * (" + sym_cpp(size) + "), \"" + c_escape(name) +
               "\");");
      bindings_[name] = Binding{n, &d, false, static_cast<int>(frames_.size())};
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
        w.line("weir_buffer<" + t + "> " + n + "__buf(" + sym_cpp(size) + ", \"" + c_escape(name) + "\");");
        w.line(t + "* __restrict__ " + n + " = " + n + "__buf.ptr;");
        if (zero) w.line("std::memset(" + n + ", 0, sizeof(" + t + ") * (" + sym_cpp(size) + "));");
      }
    }
    bindings_[name] = Binding{n, &d, d.is_scalar(), static_cast<int>(frames_.size())};
  }
}

void StateGen::define_views(NodeId scope, Writer& w) {
  auto it = children_.find(scope);
  if (it == children_.end()) return;
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
      const DataflowEdge* e = view_edge(v);
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
      if (!bindings_.count(viewed)) continue;  // a view of a view defined later in this loop
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
      if (comments()) w.line("// view " + v.data + " = " + memlet_text(viewed, sub));
      w.line(cpp_type(vd) + "* " + n + " = " + def + ";");
      bindings_[v.data] = Binding{n, &vd, false, static_cast<int>(frames_.size())};
    }
  }
  for (std::size_t i = 0; i < views.size(); ++i)
    if (!done[i])
      throw CodegenError(ref(*views[i]), "cannot define view '" + views[i]->data +
                                             "': its viewed container is not available");
}

// --- maps ----------------------------------------------------------------------------------

bool StateGen::map_is_parallel(const MapInfo& m, const ElementRef& where) const {
  using S = ScheduleType;
  bool par = false;
  switch (m.schedule) {
    case S::Default: par = frames_.empty() && !sg.in_parallel; break;
    case S::CPU_Multicore:
    case S::CPU_Persistent: par = !in_parallel(); break;
    case S::GPU_Default:
    case S::GPU_Device:
    case S::GPU_Persistent:
      if (!opts.gpu_as_cpu)
        throw CodegenError(where,
                           "GPU schedule " + std::string(to_string(m.schedule)) + " (gpu_as_cpu is off)");
      par = !in_parallel();
      break;
    case S::GPU_ThreadBlock:
    case S::GPU_ThreadBlock_Dynamic:
      if (!opts.gpu_as_cpu)
        throw CodegenError(where,
                           "GPU schedule " + std::string(to_string(m.schedule)) + " (gpu_as_cpu is off)");
      break;
    case S::Sequential:
    case S::Unrolled:
    case S::SVE_Map: break;
    default:
      throw CodegenError(where, "map schedule " + std::string(to_string(m.schedule)) +
                                    " is not supported by the CPU code generator");
  }
  return par && opts.openmp;
}

void StateGen::emit_map(const MapEntry& e, Writer& w) {
  const MapInfo& m = *e.map;
  ElementRef where = ref(e);
  const auto& ranges = m.range.ranges();
  if (m.params.empty() || ranges.size() != m.params.size())
    throw CodegenError(where, "map has " + std::to_string(m.params.size()) + " parameters but " +
                                  std::to_string(ranges.size()) + " ranges");
  if (sg.prog.cuda && !in_kernel() && m.schedule == ScheduleType::GPU_Device) return emit_kernel(e, w);
  bool parallel = map_is_parallel(m, where);

  // Dynamic map range inputs: connectors that are not IN_*.
  Frame frame;
  frame.entry = e.id();
  Writer pre;
  for (const auto& [c, ct] : e.in_connectors) {
    if (c.rfind("IN_", 0) == 0) continue;
    Location loc;
    ScalarType t = dynamic_input(e, c, loc);
    pre.line("const " + std::string(cpp_name(t)) + " " + cpp_ident(c) + " = " + loc.element() + ";");
    frame.symbols.push_back({c, t});
  }

  std::vector<std::optional<int>> sign(ranges.size());
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const Range& r = ranges[d];
    if (!(r.tile.is_integer() && r.tile.value() == 1))
      throw CodegenError(where, "tiled map ranges are not supported");
    if (r.step.is_integer() && r.step.value() == 0) throw CodegenError(where, "map range with step 0");
    sign[d] = r.step.sign_if_symbols_nonnegative();
    if (sign[d] && *sign[d] == 0) sign[d] = std::nullopt;
  }
  // collapse(n): leading dimensions whose bounds do not depend on earlier parameters.
  int collapse = 0;
  if (parallel && sign[0]) {
    collapse = 1;
    for (std::size_t d = 1; d < ranges.size() && sign[d]; ++d) {
      std::set<std::string> fs = ranges[d].start.free_symbols();
      fs.merge(ranges[d].end.free_symbols());
      fs.merge(ranges[d].step.free_symbols());
      bool dep = false;
      for (std::size_t k = 0; k < d; ++k) dep = dep || fs.count(m.params[k]);
      if (dep) break;
      ++collapse;
    }
  } else {
    parallel = false;
  }
  frame.parallel = parallel;
  for (int d = 0; d < collapse; ++d) frame.parallel_params.push_back(m.params[static_cast<std::size_t>(d)]);
  for (const auto& p : m.params) frame.symbols.push_back({p, ScalarType::Int64});

  if (comments()) {
    std::string desc = "// map " + m.label + "[";
    for (std::size_t d = 0; d < ranges.size(); ++d)
      desc += (d ? ", " : "") + m.params[d] + "=" + range_text(ranges[d]);
    desc += "]";
    if (m.schedule != ScheduleType::Default) desc += " (" + std::string(to_string(m.schedule)) + ")";
    w.line(desc);
  }
  bool wrap = !pre.empty();
  if (wrap) {
    w.open("{");
    w.append(pre);
  }
  if (parallel)
    w.line("#pragma omp parallel for" +
           (collapse > 1 ? " collapse(" + std::to_string(collapse) + ")" : std::string()) +
           small_map_clause(e, collapse));
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const Range& r = ranges[d];
    std::string p = cpp_ident(m.params[d]);
    std::string end = sym_cpp(r.end), step = sym_cpp(r.step);
    std::string cond;
    if (!sign[d])
      cond = "(" + step + " > 0) ? (" + p + " <= " + end + ") : (" + p + " >= " + end + ")";
    else
      cond = p + (*sign[d] > 0 ? " <= " : " >= ") + end;
    std::string inc;
    if (r.step.is_integer() && r.step.value() == 1)
      inc = "++" + p;
    else if (r.step.is_integer() && r.step.value() == -1)
      inc = "--" + p;
    else
      inc = p + " += " + step;
    // auto_optimize's SIMD hint (MapInfo::extra "weir_vectorize") on a sequential map.
    if (d + 1 == ranges.size() && !parallel && opts.openmp && m.extra.find("weir_vectorize") &&
        *m.extra.find("weir_vectorize") == "true")
      w.line("#pragma omp simd");
    w.open("for (int64_t " + p + " = " + sym_cpp(r.start) + "; " + cond + "; " + inc + ") {");
  }
  frames_.push_back(frame);
  Writer body;
  emit_scope(e.id(), body);
  frames_.pop_back();
  w.append(body);
  for (std::size_t d = 0; d < ranges.size(); ++d) w.close();
  if (wrap) w.close();
}

// --- tasklets ------------------------------------------------------------------------------

namespace {

enum class ConnKind { Value, Pointer, Reference, Hooked };

struct Conn {
  std::string name;  // connector (as the code spells it)
  std::string cpp;   // C++ name inside the code block
  ScalarType type = ScalarType::Float64;
  ConnKind kind = ConnKind::Value;
  std::vector<Location> locs;
  std::string wcr;
  bool multi = false;  // points at several elements
};

}  // namespace

// DaCe's library environments a CPP tasklet names (`environments`, e.g. after auto-optimize
// replaced a MatMul by a cblas_dgemm call): BLAS environments (OpenBLAS, MKL, cuBLAS's CPU
// fallback, "cblas") link the system's CBLAS, LAPACK ones its LAPACKE.
void StateGen::use_environments(const Tasklet& t) {
  const std::string* envs = t.extra.find("environments");
  if (!envs) return;
  std::string lower;
  for (char c : *envs) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("blas") != std::string::npos || lower.find("mkl") != std::string::npos)
    sg.prog.link_libraries.insert("blas");
  if (lower.find("lapack") != std::string::npos) sg.prog.link_libraries.insert("lapacke");
}

void StateGen::emit_tasklet(const Tasklet& t, Writer& w) {
  ElementRef where = ref(t);
  bool python = t.code.language == Language::Python;
  if (!python && t.code.language != Language::CPP)
    throw CodegenError(where, "tasklet code in " + std::string(to_string(t.code.language)) +
                                  " is not supported by the CPU code generator");
  std::set<std::string> subscripted = python ? code_names(t.code).subscripted : std::set<std::string>{};

  std::vector<Conn> ins, outs;
  for (const auto& [c, ct] : t.in_connectors) {
    auto es = st.in_edges_by_connector(t.id(), c);
    if (es.empty()) continue;
    if (es.size() > 1)
      throw CodegenError(where, "input connector '" + c + "' has " + std::to_string(es.size()) + " edges");
    const DataflowEdge& e = st.edge(es[0]);
    if (e.memlet.is_empty() && !is_code_node(st.node(e.src))) continue;
    Conn cn;
    cn.name = c;
    cn.cpp = cpp_ident(c);
    Location loc = edge_location(e, true);
    bool ptr = false;
    cn.type = connector_type(t.in_connectors, c, &ptr).value_or(loc.type);
    cn.multi = !loc.single_element();
    // A pointer-typed connector of one element that Python code does not subscript is that
    // element (DaCe's auto-optimize types connectors as pointers and keeps `__out = 1.0`).
    if (python && !cn.multi && !subscripted.count(c)) ptr = false;
    // Dynamic (data-dependent) single elements are references: read only where the code reads.
    cn.kind = (ptr || cn.multi || subscripted.count(c)) ? ConnKind::Pointer
              : e.memlet.dynamic && !loc.data.empty()   ? ConnKind::Reference
                                                        : ConnKind::Value;
    cn.locs.push_back(loc);
    ins.push_back(std::move(cn));
  }
  std::vector<std::string> pre;  // edge variables declared before the block
  for (const auto& [c, ct] : t.out_connectors) {
    Conn cn;
    cn.name = c;
    cn.cpp = cpp_ident(c);
    bool ptr = false;
    auto ctype = connector_type(t.out_connectors, c, &ptr);
    bool dynamic = false;
    for (EdgeId id : st.out_edges_by_connector(t.id(), c)) {
      const DataflowEdge& e = st.edge(id);
      const Node& dst = st.node(e.dst);
      if (e.memlet.is_empty() && !is_code_node(dst)) continue;
      if (is_code_node(dst)) {
        auto key = std::make_pair(t.id(), c);
        if (!edge_vars_.count(key)) {
          ScalarType vt = ctype.value_or(ScalarType::Float64);
          if (!ctype && !e.memlet.data.empty() && sg.sdfg.arrays.count(e.memlet.data))
            vt = sg.sdfg.arrays.at(e.memlet.data).dtype.base;
          std::string var = fresh("__weir_e" + std::to_string(t.id()) + "_" + sanitize_label(c) + "_");
          edge_vars_[key] = {var, vt};
          pre.push_back(std::string(cpp_name(vt)) + " " + var + "{};");
        }
      }
      Location loc = edge_location(e, false);
      dynamic = dynamic || e.memlet.dynamic;
      if (!e.memlet.wcr.empty()) cn.wcr = e.memlet.wcr;
      cn.multi = cn.multi || !loc.single_element();
      if (cn.locs.empty()) cn.type = ctype.value_or(loc.type);
      cn.locs.push_back(loc);
    }
    if (python && !cn.multi && !subscripted.count(c)) ptr = false;  // as for inputs
    if (cn.locs.empty()) {
      cn.type = ctype.value_or(ScalarType::Float64);
    } else if (ptr || cn.multi || subscripted.count(c)) {
      cn.kind = cn.wcr.empty() ? ConnKind::Pointer : ConnKind::Hooked;
    } else if (dynamic) {
      cn.kind = cn.wcr.empty() ? ConnKind::Reference : ConnKind::Hooked;
    }
    if (!python && cn.kind == ConnKind::Hooked) cn.kind = cn.multi ? ConnKind::Pointer : ConnKind::Value;
    if (cn.kind != ConnKind::Value && cn.locs.size() > 1)
      throw CodegenError(where, "output connector '" + c + "' writes to several places through a pointer");
    outs.push_back(std::move(cn));
  }

  // Names a connector must not shadow in the statements around the code (reads, write-backs).
  std::set<std::string> outer_names;
  for (const auto& [n, b] : bindings_) outer_names.insert(b.cpp);
  auto syms = visible_symbols();
  for (const auto& [s, ty] : syms) outer_names.insert(cpp_ident(s));
  bool indirect = false;
  for (const auto* list : {&ins, &outs})
    for (const auto& cn : *list) indirect = indirect || outer_names.count(cn.cpp);

  // Atomicity of write-conflict-resolved writes.
  auto atomic_for = [&](const Location& loc, bool multi) {
    if ((!opts.openmp && !sg.prog.cuda) || loc.data.empty()) return false;
    if (multi) {
      int p = parallel_frame();
      if (p < 0) return sg.in_parallel && !loc.binding->desc->transient;
      return loc.binding->frame < p + 1;
    }
    return needs_atomic(loc.data, loc.start());
  };

  // --- the code ---------------------------------------------------------------------------
  std::vector<std::string> code;
  std::set<std::string> used;
  if (python) {
    PyContext ctx;
    for (const auto& [s, ty] : syms) ctx.vars[s] = PyVar::value(cpp_ident(s), ty);
    auto strides_of = [&](const Location& loc, PyVar& v) {
      if (loc.data.empty()) return;
      const DataDescriptor& d = *loc.binding->desc;
      if (loc.binding->scalar) return;
      auto sizes = loc.subset.size();
      for (std::size_t k = 0; k < d.strides.size(); ++k) {
        v.strides.push_back(sym_cpp(d.strides[k]));
        if (!(k < sizes.size() && sizes[k].is_integer() && sizes[k].value() == 1))
          v.squeezed_strides.push_back(v.strides.back());
      }
    };
    for (const auto& cn : ins) {
      PyVar v = PyVar::value(cn.cpp, cn.type);
      v.writable = cn.kind == ConnKind::Value;
      v.pointer = cn.kind == ConnKind::Pointer;
      if (v.pointer) strides_of(cn.locs[0], v);
      if (v.pointer)
        index_checks(t, cn.name, cn.locs[0], v);  // (computed indices, bounds_checks.cpp)
      else
        v.origin = value_origin(st.edge(st.in_edges_by_connector(t.id(), cn.name)[0]), cn.type);
      ctx.vars[cn.name] = v;
    }
    for (const auto& cn : outs) {
      PyVar v = PyVar::value(cn.cpp, cn.type);
      v.writable = true;
      v.pointer = cn.kind == ConnKind::Pointer || (cn.kind == ConnKind::Hooked && cn.multi);
      v.hooked = cn.kind == ConnKind::Hooked;
      if (v.pointer) strides_of(cn.locs[0], v);
      if (v.pointer) index_checks(t, cn.name, cn.locs[0], v);  // (computed indices, bounds_checks.cpp)
      ctx.vars[cn.name] = v;
    }
    ctx.reserved = outer_names;
    for (const auto& cn : ins) ctx.reserved.insert(cn.cpp);
    for (const auto& cn : outs) ctx.reserved.insert(cn.cpp);
    ctx.write_hook = [&](const std::string& name, const std::string& index, const std::string& value) {
      for (const auto& cn : outs) {
        if (cn.name != name) continue;
        std::string target =
            "__weir_p_" + sanitize_label(cn.name) + "[" + (index.empty() ? "0" : index) + "]";
        return wcr_update(cn.wcr, target, value, cn.type, atomic_for(cn.locs[0], cn.multi));
      }
      throw GenFailure("no output connector '" + name + "'");
    };
    code = translate_statements(t.code, ctx);
    used = ctx.used;
  } else {
    std::string src = t.code.code;
    while (!src.empty() && (src.back() == '\n' || src.back() == ' ')) src.pop_back();
    std::size_t b = 0;
    while (b <= src.size()) {
      std::size_t e = src.find('\n', b);
      if (e == std::string::npos) e = src.size();
      code.push_back(src.substr(b, e - b));
      b = e + 1;
    }
    used = code_names(t.code).reads;  // C++: its identifiers
    use_environments(t);
  }
  // Trusted C++ around the tasklet (check_user_code refused it otherwise), whatever its language.
  if (!t.code_global.code.empty()) sg.prog.global_code.push_back(t.code_global.code);
  if (!t.code_init.code.empty()) sg.prog.init_code.push_back(t.code_init.code);
  if (!t.code_exit.code.empty()) sg.prog.exit_code.push_back(t.code_exit.code);
  // A connector that is both an input and an output (a value): declared once, from the input.
  std::set<std::string> inout;
  for (const auto& o : outs)
    for (const auto& i : ins)
      if (o.name == i.name && o.kind == ConnKind::Value && i.kind == ConnKind::Value) inout.insert(o.name);
  auto is_used = [&](const Conn& cn) {
    return inout.count(cn.name) || used.count(python ? cn.name : cn.cpp) > 0;
  };

  // --- emission ---------------------------------------------------------------------------
  for (const auto& p : pre) w.line(p);
  if (comments()) w.line("// tasklet " + t.label + " (node " + std::to_string(t.id()) + ")");
  w.open("{");
  std::string T;
  // Declarations in the block: direct, or through temporaries when a connector shadows a name
  // that the reads and write-backs use.
  std::vector<std::string> inner;
  for (const auto& cn : ins) {
    if (!is_used(cn)) continue;
    T = cpp_name(cn.type);
    const Location& loc = cn.locs[0];
    std::string value = cn.kind == ConnKind::Pointer ? loc.pointer() : loc.element();
    std::string type = cn.kind == ConnKind::Pointer     ? "const " + T + "*"
                       : cn.kind == ConnKind::Reference ? "const " + T + "&"
                                                        : T;
    if (indirect) {
      std::string tmp = "__weir_in_" + sanitize_label(cn.name);
      w.line(type + " " + tmp + " = " + value + ";");
      inner.push_back(type + " " + cn.cpp + " = " + tmp + ";");
    } else {
      w.line(type + " " + cn.cpp + " = " + value + ";");
    }
  }
  std::vector<std::string> writeback, inner_writeback;
  for (const auto& cn : outs) {
    T = cpp_name(cn.type);
    if (!is_used(cn) && (cn.locs.empty() || cn.kind != ConnKind::Value)) continue;
    switch (cn.kind) {
      case ConnKind::Value: {
        std::string var = cn.cpp;
        bool declared = inout.count(cn.name) > 0;
        if (indirect) {
          var = "__weir_out_" + sanitize_label(cn.name);
          w.line(T + " " + var + "{};");
          if (!declared) inner.push_back(T + " " + cn.cpp + ";");
          inner_writeback.push_back(var + " = " + cn.cpp + ";");
        } else if (!declared) {
          w.line(T + " " + cn.cpp + ";");
        }
        for (const auto& loc : cn.locs) {
          if (cn.wcr.empty() || loc.data.empty())
            writeback.push_back(loc.element() + " = " + var + ";");
          else
            writeback.push_back(wcr_update(cn.wcr, loc.element(), var, cn.type, atomic_for(loc, false)));
        }
        break;
      }
      case ConnKind::Pointer:
      case ConnKind::Reference: {
        std::string type = cn.kind == ConnKind::Pointer ? T + "*" : T + "&";
        std::string value = cn.kind == ConnKind::Pointer ? cn.locs[0].pointer() : cn.locs[0].element();
        if (indirect) {
          std::string tmp = "__weir_out_" + sanitize_label(cn.name);
          w.line(type + " " + tmp + " = " + value + ";");
          inner.push_back(type + " " + cn.cpp + " = " + tmp + ";");
        } else {
          w.line(type + " " + cn.cpp + " = " + value + ";");
        }
        break;
      }
      case ConnKind::Hooked:
        w.line(T + "* __weir_p_" + sanitize_label(cn.name) + " = " + cn.locs[0].pointer() + ";");
        break;
    }
  }
  if (indirect) {
    w.open("{");
    for (const auto& l : inner) w.line(l);
  }
  for (const auto& l : code) w.line(l);
  if (indirect) {
    for (const auto& l : inner_writeback) w.line(l);
    w.close();
  }
  for (const auto& l : writeback) w.lines(l);
  w.close();
}

}  // namespace weir::codegen::detail
