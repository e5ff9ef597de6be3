// GPU_Device maps of CUDA host code as `__global__` kernels (one thread per point of the map's
// range, DaCe's axis order: the last parameter is x, the one before y, the rest linearised into
// z), their launches on the program's stream, and copies between host and device memory.
#include <cctype>

#include "cuda_codegen_internal.h"
#include "cuda_kernel_gen.h"
#include "state_codegen.h"
#include "weir/sdfg/gpu_block_size.h"
#include "weir/sdfg/state_uses.h"

namespace weir::codegen::detail {

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// Threads per block along x, y, z: MapInfo::gpu_block_size, else gt4py's defaults (ADR 0020).
std::vector<long long> block_size(const MapInfo& m, const ElementRef& where) {
  std::vector<long long> b;
  for (const auto& s : m.gpu_block_size) {
    long long v = 0;
    bool ok = !s.empty();
    for (char c : s) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (ok) v = std::stoll(s);
    if (!ok || v < 1 || v > 1024)
      throw CodegenError(where, "gpu_block_size entry '" + s + "' is not a thread count in 1..1024");
    b.push_back(v);
  }
  if (auto why = gpu_block_size_misfit(b, m); !why.empty())
    throw CodegenError(where, "gpu_block_size: " + why);
  if (b.empty())
    b = m.params.size() == 1 ? std::vector<long long>{64, 1, 1} : std::vector<long long>{32, 8, 1};
  while (b.size() < 3) b.push_back(1);
  if (b[0] * b[1] * b[2] > 1024)
    throw CodegenError(where, "gpu_block_size " + std::to_string(b[0]) + "x" + std::to_string(b[1]) + "x" +
                                  std::to_string(b[2]) + " has more than 1024 threads");
  return b;
}

/// Refuses kernel ranges that are tiled, step by 0 or depend on another parameter of the map
/// (a kernel's grid is rectangular); errors at `where`.
void check_kernel_ranges(const MapInfo& m, const ElementRef& where) {
  const auto& ranges = m.range.ranges();
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const Range& r = ranges[d];
    if (!(r.tile.is_integer() && r.tile.value() == 1))
      throw CodegenError(where, "tiled map ranges are not supported");
    if (r.step.is_integer() && r.step.value() == 0) throw CodegenError(where, "map range with step 0");
    std::set<std::string> fs = r.start.free_symbols();
    fs.merge(r.end.free_symbols());
    fs.merge(r.step.free_symbols());
    for (const auto& p : m.params)
      if (fs.count(p))
        throw CodegenError(where, "the range of kernel parameter '" + m.params[d] +
                                      "' depends on parameter '" + p + "' (a kernel's grid is rectangular)");
  }
}

/// The start of a kernel's body: each thread's point of map `m` from its block and thread
/// indices (the last parameter is x, the one before y, the rest linearised into z), returning
/// from threads past `count` (the iterations per dimension). Returns the z extent ("" below three
/// dimensions).
std::string thread_index(const MapInfo& m, const std::vector<std::string>& count, Writer& index) {
  const auto& ranges = m.range.ranges();
  const std::size_t n = ranges.size();
  auto param_at = [&](std::size_t d, const std::string& t) {
    const Range& r = ranges[d];
    std::string step = sym_cpp_factor(r.step);
    index.line("const int64_t " + cpp_ident(m.params[d]) + " = " + sym_cpp(r.start) + " + " + t +
               (r.step.is_integer() && r.step.value() == 1 ? "" : " * " + step) + ";");
  };
  index.line("const int64_t __weir_x = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;");
  index.line("if (__weir_x >= " + count[n - 1] + ") return;");
  param_at(n - 1, "__weir_x");
  if (n >= 2) {
    index.line("const int64_t __weir_y = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;");
    index.line("if (__weir_y >= " + count[n - 2] + ") return;");
    param_at(n - 2, "__weir_y");
  }
  std::string z_total;
  if (n >= 3) {
    for (std::size_t d = 0; d + 2 < n; ++d) z_total += (z_total.empty() ? "" : " * ") + count[d];
    index.line("int64_t __weir_z = static_cast<int64_t>(blockIdx.z) * blockDim.z + threadIdx.z;");
    index.line("if (__weir_z >= " + z_total + ") return;");
    for (std::size_t d = n - 2; d-- > 0;) {
      if (d == 0) {
        param_at(0, "__weir_z");
      } else {
        param_at(d, "(__weir_z % " + count[d] + ")");
        index.line("__weir_z /= " + count[d] + ";");
      }
    }
  }
  return z_total;
}

/// Declarations in a kernel of the register transients `privates` (each thread's own) that its
/// scope uses: scalars, small arrays on the stack (up to `max_stack_bytes`), else scratch buffers.
void declare_kernel_privates(const SdfgGen& sg, const std::vector<std::string>& privates,
                             const StateUses& uses, std::size_t max_stack_bytes, Writer& decls) {
  for (const auto& name : privates) {
    std::string c = cpp_ident(name);
    if (!uses.containers.count(name)) continue;
    const DataDescriptor& d = sg.sdfg.arrays.at(name);
    std::string t = cpp_type(d);
    auto k = d.total_size.as_integer();
    if (d.is_scalar())
      decls.line(t + " " + c + "{};");
    else if (k && *k > 0 &&
             *k * static_cast<long long>(size_of(d.dtype.base)) <= static_cast<long long>(max_stack_bytes))
      decls.line(t + " " + c + "[" + std::to_string(*k) + "]{};");
    else {
      decls.line("weir_buffer<" + t + "> " + c + "__buf(" + sg.alloc_size(d) + ", \"" + c_escape(name) +
                 "\");");
      decls.line(t + "* __restrict__ " + c + " = " + c + "__buf.ptr;");
    }
  }
}

/// A kernel's launch: its name, where it is (for errors), its map, threads per block, the
/// iteration counts per dimension, the z extent (thread_index) and the launch's arguments.
struct KernelLaunch {
  const std::string& kname;
  const std::string& site;
  const MapInfo& m;
  const std::vector<long long>& block;
  const std::vector<std::string>& count;
  const std::string& z_total;
  const std::vector<std::string>& args;
};

std::string launch_comment(const std::string& kname, const MapInfo& m, const std::vector<long long>& block) {
  const auto& ranges = m.range.ranges();
  std::string desc = "// kernel " + kname + ": map " + m.label + "[";
  for (std::size_t d = 0; d < ranges.size(); ++d)
    desc += (d ? ", " : "") + m.params[d] + "=" + range_text(ranges[d]);
  return desc + "], block (" + std::to_string(block[0]) + ", " + std::to_string(block[1]) + ", " +
         std::to_string(block[2]) + ")";
}

/// The host code of a launch: the dynamic range inputs read, the iteration counts, and the
/// launch on the program's stream where none is 0.
void emit_launch(const KernelLaunch& l, const Writer& dynamic_reads, Writer& w) {
  const auto& ranges = l.m.range.ranges();
  const std::size_t n = ranges.size();
  const auto& count = l.count;
  const auto& block = l.block;
  const std::string& z_total = l.z_total;
  const std::string& kname = l.kname;
  w.open("{");
  w.append(dynamic_reads);
  std::string nonempty;
  for (std::size_t d = 0; d < n; ++d) {
    const Range& r = ranges[d];
    w.line("const int64_t " + count[d] + " = weir_map_count(" + sym_cpp(r.start) + ", " + sym_cpp(r.end) +
           ", " + sym_cpp(r.step) + ");");
    nonempty += (d ? " && " : "") + count[d] + " > 0";
  }
  w.open("if (" + nonempty + ") {");
  std::string s = c_escape(l.site);
  w.line("const dim3 __weir_block(" + std::to_string(block[0]) + ", " + std::to_string(block[1]) + ", " +
         std::to_string(block[2]) + ");");
  w.line(
      "const dim3 __weir_grid(weir_grid_extent(" + count[n - 1] + ", " + std::to_string(block[0]) +
      ", 2147483647u, \"" + s + "\"), " +
      (n >= 2
           ? "weir_grid_extent(" + count[n - 2] + ", " + std::to_string(block[1]) + ", 65535u, \"" + s + "\")"
           : std::string("1")) +
      ", " +
      (n >= 3 ? "weir_grid_extent(" + z_total + ", " + std::to_string(block[2]) + ", 65535u, \"" + s + "\")"
              : std::string("1")) +
      ");");
  w.line("WEIR_LAUNCH(" + kname + ", __weir_grid, __weir_block, weir_stream, " + join(l.args, ", ") + ");");
  w.line("weir_cuda_launched(\"" + s + "\");");
  w.close();
  w.close();
}

/// The dynamic range inputs (connectors that are not IN_*) of the maps among `nodes` other than
/// `entry`: a kernel's body declares them.
std::set<std::string> inner_dynamic_inputs(const SDFGState& st, const std::vector<NodeId>& nodes,
                                           NodeId entry) {
  std::set<std::string> inner_dynamic;
  for (NodeId id : nodes)
    if (auto* inner = st.node(id).as<MapEntry>(); inner && id != entry)
      for (const auto& [c, ct] : inner->in_connectors)
        if (c.rfind("IN_", 0) != 0) inner_dynamic.insert(c);
  return inner_dynamic;
}

}  // namespace

bool uses_device(const SDFG& sdfg, const SDFGState& st, const StateUses& uses) {
  for (const Node* n : st.nodes())
    if (auto* e = n->as<MapEntry>(); e && e->map->schedule == ScheduleType::GPU_Device) return true;
  for (const auto& name : uses.containers)
    if (auto it = sdfg.arrays.find(name); it != sdfg.arrays.end() && is_device_storage(it->second.storage))
      return true;
  return false;
}

void CudaKernelGen::emit_kernel(const MapEntry& e, Writer& w) {
  const MapInfo& m = *e.map;
  ElementRef where = g_.ref(e);
  const auto& ranges = m.range.ranges();
  const std::size_t n = ranges.size();
  if (m.params.empty() || n != m.params.size())
    throw CodegenError(where, "map has " + std::to_string(m.params.size()) + " parameters but " +
                                  std::to_string(n) + " ranges");
  // Dynamic range inputs (connectors that are not IN_*): read on the host before the launch (the
  // grid is computed there), so they must come from host memory; passed to the kernel by value.
  Writer dynamic_reads;
  std::vector<std::pair<std::string, ScalarType>> dynamic;
  for (const auto& [c, ct] : e.in_connectors) {
    if (c.rfind("IN_", 0) == 0) continue;
    Location loc;
    ScalarType t = g_.dynamic_input(e, c, loc);
    if (loc.binding && is_device_storage(loc.binding->desc->storage))
      throw CodegenError(where,
                         "the kernel's dynamic range input '" + c + "' reads '" + loc.data +
                             "' in device memory: a kernel's grid is computed on the host (keep it in a "
                             "host scalar)");
    dynamic_reads.line("const " + std::string(cpp_name(t)) + " " + cpp_ident(c) + " = " + loc.element() +
                       ";");
    dynamic.push_back({c, t});
  }
  check_kernel_ranges(m, where);
  std::vector<long long> block = block_size(m, where);
  std::string site =
      "state '" + (g_.st.path().empty() ? g_.st.label : g_.st.path()) + "', map '" + m.label + "'";
  std::string kname = g_.sg.prog.unique_function_name(g_.sg.prefix + "kernel_" + sanitize_label(m.label));

  // --- the kernel body: the map's scope, with each thread at one point ----------------------
  std::vector<std::string> count(n);  // iterations per dimension (kernel parameters)
  for (std::size_t d = 0; d < n; ++d) count[d] = "__weir_n" + std::to_string(d);
  Writer index;
  const std::string z_total = thread_index(m, count, index);

  const std::size_t host_bindings = g_.bindings_.mark();  // the host's, restored after the body
  // The scope's nodes, and the values of host code nodes (edge variables) on edges into them that
  // the kernel may read; ones its body declares are its own. (Only these edges' variables, not
  // every one of the state: ADR 0024.)
  const std::vector<NodeId> nodes = scope_nodes(g_.st, g_.children_, e.id());
  std::map<std::pair<NodeId, std::string>, std::pair<std::string, ScalarType>> host_edge_vars;
  for (NodeId id : nodes)
    for (EdgeId in : g_.st.in_edges(id)) {
      const DataflowEdge& edge = g_.st.edge(in);
      if (auto var = g_.edge_vars_.find({edge.src, edge.src_conn}); var != g_.edge_vars_.end())
        host_edge_vars.insert(*var);
    }
  Frame frame;
  frame.entry = e.id();
  frame.parallel = true;
  frame.parallel_params = m.params;
  for (const auto& p : m.params) frame.symbols.push_back({p, ScalarType::Int64});
  for (const auto& d : dynamic) frame.symbols.push_back(d);
  g_.frames_.push_back(frame);
  // Register transients whose home is outside this map (the state, several states) are private
  // to each thread: bound here, declared below where the body uses them.
  if (!g_.kernel_privates_) {
    g_.kernel_privates_.emplace();
    for (const auto& [name, h] : g_.sg.homes)
      if (h.kind != HomeKind::Unused && h.kind != HomeKind::Scope &&
          g_.sg.kernel_private(g_.sg.sdfg.arrays.at(name)))
        g_.kernel_privates_->push_back(name);
  }
  const std::vector<std::string>& privates = *g_.kernel_privates_;
  for (const auto& name : privates) {
    const DataDescriptor& d = g_.sg.sdfg.arrays.at(name);
    g_.bindings_.set(name, Binding{cpp_ident(name), &d, d.is_scalar(), static_cast<int>(g_.frames_.size())});
  }
  Writer body;
  g_.emit_scope(e.id(), body);
  g_.frames_.pop_back();
  g_.bindings_.rollback(host_bindings);

  // What the kernel reads and writes, from the IR: the containers, symbols and edge values of
  // its scope's nodes and edges (its range included), a superset of what the body names.
  const StateUses uses = node_uses(g_.sg.sdfg, g_.st, nodes);
  Writer decls;
  declare_kernel_privates(g_.sg, privates, uses, g_.opts.max_stack_bytes, decls);

  // --- parameters: what the body uses of the host's containers, values and symbols ----------
  std::vector<std::string> params, args;
  std::set<std::string> passed(m.params.begin(), m.params.end());
  for (const auto& [c, t] : dynamic) {
    params.push_back("const " + std::string(cpp_name(t)) + " " + cpp_ident(c));
    args.push_back(cpp_ident(c));
    passed.insert(cpp_ident(c));
  }
  // The host's containers: the state's own bindings, hiding the SDFG body's (g_.sg.body_data, not
  // copied into each state since linear generation, ADR 0024), in name order.
  std::map<std::string, const Binding*> host_data;
  const std::set<std::string> declared(privates.begin(), privates.end());
  for (const auto& name : uses.containers) {
    if (declared.count(name)) continue;
    if (const Binding* h = g_.bindings_.find(name))
      host_data[name] = h;
    else if (auto b = g_.sg.body_data.find(name); b != g_.sg.body_data.end())
      host_data[name] = &b->second;
  }
  for (const auto& [name, bp] : host_data) {
    const Binding& b = *bp;
    if (passed.count(b.cpp)) continue;
    std::string t = cpp_type(*b.desc);
    params.push_back(b.scalar ? "const " + t + " " + b.cpp : t + "* __restrict__ " + b.cpp);
    args.push_back(b.cpp);
    passed.insert(b.cpp);
  }
  // Values of host code nodes on edges into the scope (tasklet -> node in the kernel).
  for (NodeId id : nodes)
    for (EdgeId in : g_.st.in_edges(id)) {
      const DataflowEdge& edge = g_.st.edge(in);
      auto var = host_edge_vars.find({edge.src, edge.src_conn});
      if (var == host_edge_vars.end() || passed.count(var->second.first)) continue;
      params.push_back("const " + std::string(cpp_name(var->second.second)) + " " + var->second.first);
      args.push_back(var->second.first);
      passed.insert(var->second.first);
    }
  // Symbols: not the dynamic range inputs of maps inside, which the body declares.
  const std::set<std::string> inner_dynamic = inner_dynamic_inputs(g_.st, nodes, e.id());
  for (const auto& [s, t] : g_.visible_symbols()) {
    std::string c = cpp_ident(s);
    if (!uses.names.count(s) || inner_dynamic.count(s) || passed.count(c)) continue;
    params.push_back("const " + std::string(cpp_name(t)) + " " + c);
    args.push_back(c);
    passed.insert(c);
  }
  for (std::size_t d = 0; d < n; ++d) {
    params.push_back("const int64_t " + count[d]);
    args.push_back(count[d]);
  }

  Writer k;
  if (g_.opts.emit_comments)
    k.line("// kernel of map '" + m.label + "' in state '" + g_.st.label + "' of SDFG '" + g_.sg.sdfg.name +
           "'");
  long long threads = block[0] * block[1] * block[2];
  k.open("static __global__ void __launch_bounds__(" + std::to_string(threads) + ") " + kname + "(" +
         join(params, ", ") + ") {");
  k.append(index);
  k.append(decls);
  k.append(body);
  k.close();
  k.blank();
  g_.sg.prog.functions.append(k);

  // --- the launch ---------------------------------------------------------------------------
  if (g_.opts.emit_comments) w.line(launch_comment(kname, m, block));
  emit_launch(KernelLaunch{kname, site, m, block, count, z_total, args}, dynamic_reads, w);
}

void CudaKernelGen::emit_device_copy(const Location& S, const Location& D, const std::vector<std::size_t>& sd,
                                     const std::vector<std::size_t>& dd, Writer& w) const {
  std::string T(cpp_name(D.type));
  bool to_host = !is_device_storage(D.binding->desc->storage);
  std::string what = "\"copy to " + c_escape(D.data) + "\"";
  auto is_one = [](const sym::Expr& x) { return x.is_integer() && x.value() == 1; };
  auto stride = [](const Location& L, std::size_t d) {
    return L.binding->scalar ? sym::Expr(1) : L.binding->desc->strides[d];
  };
  // Innermost copy dimension unit-stride on both sides: whole rows per copy.
  bool rows = !sd.empty() && is_one(S.subset[sd.back()].step) && is_one(D.subset[dd.back()].step) &&
              is_one(stride(S, sd.back())) && is_one(stride(D, dd.back()));
  // One contiguous block on both sides: a single copy.
  auto block = [&](const Location& L, const std::vector<std::size_t>& dims) {
    if (L.binding->scalar) return dims.empty();
    for (std::size_t k = 0; k < dims.size(); ++k) {
      if (!is_one(L.subset[dims[k]].step)) return false;
      sym::Expr expect = k + 1 < dims.size()
                             ? L.binding->desc->strides[dims[k + 1]] * L.subset[dims[k + 1]].size()
                             : sym::Expr(1);
      if (L.binding->desc->strides[dims[k]] != expect) return false;
    }
    return true;
  };
  sym::Expr total = 1;
  for (std::size_t d : sd) total *= S.subset[d].size();
  if (sd.empty() || (block(S, sd) && block(D, dd))) {
    w.line("weir_cuda_copy(" + D.pointer() + ", " + S.pointer() + ", sizeof(" + T + ") * (" + sym_cpp(total) +
           "), " + (to_host ? "true" : "false") + ", " + what + ");");
    return;
  }
  // A loop nest over the other dimensions, one copy per row (or per element).
  std::size_t loops = rows ? sd.size() - 1 : sd.size();
  std::vector<sym::Expr> sidx = S.start(), didx = D.start();
  for (std::size_t k = 0; k < loops; ++k) {
    std::string c = g_.loop_var("__c", k);
    sym::Expr cv = sym::Expr::symbol(c);
    w.open("for (int64_t " + c + " = 0; " + c + " < " + sym_cpp(S.subset[sd[k]].size()) + "; ++" + c + ") {");
    sidx[sd[k]] = S.subset[sd[k]].start + cv * S.subset[sd[k]].step;
    didx[dd[k]] = D.subset[dd[k]].start + cv * D.subset[dd[k]].step;
  }
  auto ptr = [](const Location& L, const std::vector<sym::Expr>& idx) {
    if (L.binding->scalar) return "&" + L.binding->cpp;
    return "&" + L.binding->cpp + "[" + linear_offset(*L.binding->desc, idx) + "]";
  };
  std::string bytes =
      rows ? "sizeof(" + T + ") * (" + sym_cpp(S.subset[sd.back()].size()) + ")" : "sizeof(" + T + ")";
  w.line("weir_cuda_copy(" + ptr(D, didx) + ", " + ptr(S, sidx) + ", " + bytes + ", " +
         (to_host ? "true" : "false") + ", " + what + ");");
  for (std::size_t k = 0; k < loops; ++k) w.close();
}

}  // namespace weir::codegen::detail
