// One SDFG body (the top-level program or a nested SDFG): which symbols it declares, where each
// transient lives (body, state or map scope) and how containers are bound to C++ variables.
#include <algorithm>

#include "codegen_internal.h"
#include "weir/sdfg/code_rewrite.h"

namespace weir::codegen::detail {

namespace {

// Symbols the control flow assigns, loop variables (and what loop statements assign: "i = 0;
// j = 0"), and every name its code reads, from the code's syntax trees.
void collect_interstate(const ControlFlowRegion& r, std::set<std::string>& assigned,
                        std::set<std::string>& loop_vars, std::set<std::string>& names) {
  for (const ControlFlowEdge* e : r.edges()) {
    names.merge(code_names(e->data.condition).data());
    for (const auto& [k, v] : e->data.assignments) {
      assigned.insert(k);
      names.merge(code_names(v).data());
    }
  }
  for (const ControlFlowBlock* b : r.blocks()) {
    if (auto* loop = b->as<LoopRegion>()) {
      if (!loop->loop_variable.empty()) loop_vars.insert(loop->loop_variable);
      for (const auto* c : {&loop->init_statement, &loop->loop_condition, &loop->update_statement}) {
        pycode::NameUse use = code_names(*c);
        names.merge(use.data());
        if (c != &loop->loop_condition) loop_vars.merge(use.writes);
      }
    }
    if (auto* sub = b->as<ControlFlowRegion>()) {
      collect_interstate(*sub, assigned, loop_vars, names);
    } else if (auto* cond = b->as<ConditionalBlock>()) {
      for (const auto& br : cond->branches()) {
        if (br.condition) names.merge(code_names(*br.condition).data());
        if (br.body) collect_interstate(*br.body, assigned, loop_vars, names);
      }
    }
  }
}

/// Ancestor chain of a scope (the scope itself first, kNoNode last).
std::vector<NodeId> scope_chain(const ScopeTree& t, NodeId s) {
  std::vector<NodeId> out;
  while (s != kNoNode) {
    out.push_back(s);
    s = t.parent[s];
  }
  out.push_back(kNoNode);
  return out;
}

NodeId lca(const ScopeTree& t, NodeId a, NodeId b) {
  auto ca = scope_chain(t, a);
  std::set<NodeId> sb;
  for (NodeId x : scope_chain(t, b)) sb.insert(x);
  for (NodeId x : ca)
    if (sb.count(x)) return x;
  return kNoNode;
}

// Whether any state of `sdfg` (its own, not inside nested SDFGs, whose writes reach it through
// an access node) writes container `name`, or its control flow assigns the name.
bool writes_container(const SDFG& sdfg, const std::string& name) {
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes())
      if (auto* a = n->as<AccessNode>(); a && a->data == name && !st->in_edges(n->id()).empty()) return true;
  std::set<std::string> assigned, loop_vars, names;
  collect_interstate(sdfg, assigned, loop_vars, names);
  return assigned.count(name) || loop_vars.count(name);
}

}  // namespace

std::string cpp_type(const DataDescriptor& d) { return std::string(cpp_name(d.dtype.base)); }

std::optional<std::string> unsupported_storage(StorageType s, const CodegenOptions& o) {
  switch (s) {
    case StorageType::Default:
    case StorageType::Register:
    case StorageType::CPU_Pinned:
    case StorageType::CPU_Heap:
    case StorageType::CPU_ThreadLocal:
    case StorageType::SVE_Register: return std::nullopt;
    case StorageType::GPU_Global:
    case StorageType::GPU_Shared:
      if (o.gpu_as_cpu) return std::nullopt;
      return "GPU storage " + std::string(to_string(s)) + " (gpu_as_cpu is off)";
    default: return "storage " + std::string(to_string(s)) + " is not supported by the CPU code generator";
  }
}

SdfgGen::SdfgGen(Program& prog, const SDFG& sdfg, bool top_level, bool in_parallel, std::string prefix)
    : prog(prog), sdfg(sdfg), top_level(top_level), in_parallel(in_parallel), prefix(std::move(prefix)) {}

ElementRef SdfgGen::ref(const ControlFlowBlock* b, long node, const std::string& node_label) const {
  ElementRef r;
  r.sdfg = sdfg.name;
  if (b) r.block_path = b->path().empty() ? b->label : b->path();
  r.node = node;
  r.node_label = node_label;
  return r;
}

void SdfgGen::check_descriptors() const {
  for (const auto& entry : sdfg.arrays) {
    // (No structured binding: C++17/20 lambdas cannot capture one portably; clang 14 refuses.)
    const std::string& name = entry.first;
    const DataDescriptor& d = entry.second;
    ElementRef where = ref();
    auto fail = [&](const std::string& msg) {
      throw CodegenError(where, "container '" + name + "': " + msg);
    };
    if (d.kind == DataKind::Stream) fail("streams are not supported by the CPU code generator");
    if (d.kind == DataKind::Reference) fail("references are not supported by the CPU code generator");
    if (d.kind == DataKind::Unknown) fail("unknown descriptor type '" + d.type_name + "'");
    if (!d.dtype.raw_json.empty() || d.dtype.pointer_depth > 0 || d.dtype.base == ScalarType::Void)
      fail("element type " + d.dtype.str() + " is not supported");
    if (d.dtype.base == ScalarType::Float16)
      fail("element type " + d.dtype.str() + " is not supported by the CPU code generator yet");
    if (auto why = unsupported_storage(d.storage, prog.opts)) fail(*why);
    if (auto why = prog.target.refuses(d)) fail(*why);
    if (!d.is_scalar() && d.strides.size() != d.shape.size()) fail("strides do not match the shape");
  }
}

std::string SdfgGen::alloc_size(const DataDescriptor& d) const {
  sym::Expr n = d.total_size;
  if (n.is_integer() && n.value() <= 0) {
    n = 1;
    for (const auto& s : d.shape) n *= s;
  }
  return sym_cpp(n);
}

void SdfgGen::analyse(const std::vector<std::string>& params, const std::set<std::string>& param_symbols) {
  check_descriptors();
  // --- symbols ----------------------------------------------------------------------------
  std::set<std::string> assigned, loop_vars;
  std::set<std::string> interstate_names;
  collect_interstate(sdfg, assigned, loop_vars, interstate_names);
  init_symbols = param_symbols;
  auto type_of = [&](const std::string& s) {
    auto it = sdfg.symbols.find(s);
    if (it != sdfg.symbols.end() && it->second.raw_json.empty() && it->second.pointer_depth == 0 &&
        it->second.base != ScalarType::Void) {
      // Integer symbols compute in int64, as symbolic sizes and ranges do: a uint32 symbol
      // (spmv's `start = A_row[i]`) would wrap in `stop - start - 1` of an empty range.
      ScalarType t = it->second.base;
      bool integral = t != ScalarType::Bool && t != ScalarType::Float16 && t != ScalarType::Float32 &&
                      t != ScalarType::Float64 && t != ScalarType::Complex64 && t != ScalarType::Complex128;
      return integral ? ScalarType::Int64 : t;
    }
    return ScalarType::Int64;
  };
  for (const auto& s : init_symbols) symbols[s] = type_of(s);
  std::set<std::string> defined = assigned;
  defined.insert(loop_vars.begin(), loop_vars.end());
  assigned_symbols = defined;
  for (const auto& s : defined) {
    if (sdfg.arrays.count(s)) continue;
    if (!init_symbols.count(s)) local_symbols.push_back(s);
    symbols[s] = type_of(s);
  }
  // Symbols declared in sdfg.symbols but never defined nor free are unused; skip them.

  // --- transient homes --------------------------------------------------------------------
  std::set<std::string> interstate_data;
  for (const auto& id : interstate_names)
    if (sdfg.arrays.count(id)) interstate_data.insert(id);

  struct Use {
    std::map<const SDFGState*, NodeId> scope;  // LCA per state
  };
  std::map<std::string, Use> uses;
  for (const SDFGState* st : sdfg.all_states()) {
    if (st->num_nodes() == 0) continue;
    ScopeTree tree;
    try {
      tree = st->scope_tree();
    } catch (const IRError& e) {
      throw CodegenError(ref(st), e.what());
    }
    for (const Node* n : st->nodes()) {
      auto* a = n->as<AccessNode>();
      if (!a) continue;
      auto it = sdfg.arrays.find(a->data);
      if (it == sdfg.arrays.end())
        throw CodegenError(ref(st, n->id(), n->label), "access node of unknown container '" + a->data + "'");
      if (!it->second.transient || it->second.is_view()) continue;
      auto& u = uses[a->data];
      NodeId s = tree.parent[n->id()];
      auto [pos, fresh] = u.scope.emplace(st, s);
      if (!fresh) pos->second = lca(tree, pos->second, s);
    }
  }
  for (const auto& [name, d] : sdfg.arrays) {
    if (!d.transient || d.is_view()) continue;
    TransientHome h;
    auto u = uses.find(name);
    if (interstate_data.count(name) || (u != uses.end() && u->second.scope.size() > 1)) {
      h.kind = HomeKind::Program;
    } else if (u != uses.end() && u->second.scope.size() == 1) {
      h.state = u->second.scope.begin()->first;
      h.scope = u->second.scope.begin()->second;
      h.kind = h.scope == kNoNode ? HomeKind::State : HomeKind::Scope;
    }
    if (!d.is_scalar() && (h.kind == HomeKind::Program || h.kind == HomeKind::State)) {
      sym::Expr size = d.total_size;
      std::set<std::string> syms = size.free_symbols();
      for (const auto& s : d.shape) syms.merge(s.free_symbols());
      bool known_at_start =
          std::all_of(syms.begin(), syms.end(), [&](const std::string& s) { return init_symbols.count(s); });
      auto bytes = size.as_integer();
      bool small = bytes && *bytes * static_cast<long long>(size_of(d.dtype.base)) <=
                                static_cast<long long>(prog.opts.max_stack_bytes);
      if (h.kind == HomeKind::Program && !known_at_start) h.resized = true;
      if (h.kind == HomeKind::State && !small && known_at_start) h.hoisted = true;
    }
    homes[name] = h;
  }

  // --- body bindings ----------------------------------------------------------------------
  for (const auto& p : params) {
    auto it = sdfg.arrays.find(p);
    if (it == sdfg.arrays.end()) continue;  // a symbol
    body_data[p] = Binding{cpp_ident(p), &it->second, bound_as_scalar(it->second), -1};
    body_data[p].unaliased = unaliased_params.count(p) > 0;
    body_data[p].read_only = !top_level && body_data[p].scalar && !writes_container(sdfg, p);
  }
  for (const auto& name : body_arrays())
    body_data[name] = Binding{cpp_ident(name), &sdfg.arrays.at(name), false, -1};
  for (const auto& name : body_scalars())
    body_data[name] = Binding{cpp_ident(name), &sdfg.arrays.at(name), true, -1};
  for (const auto& [name, h] : homes)
    if (h.resized) {
      body_data[name] = Binding{cpp_ident(name), &sdfg.arrays.at(name), false, -1};
      resized_homes.push_back(name);
    }
  for (const auto& [name, b] : body_data) body_cpp_names.insert(b.cpp);
  for (const auto& [name, h] : homes)
    if (h.state) state_homes[h.state].push_back(name);
}

bool SdfgGen::bound_as_scalar(const DataDescriptor& d) const {
  // Device scalars are one-element device arrays (kernels write them through a pointer).
  return d.is_scalar() && !(!device_code() && prog.target.device_storage(d.storage));
}

bool SdfgGen::kernel_private(const DataDescriptor& d) const {
  return prog.target.parallel_scopes_on_device() && !in_parallel && d.transient &&
         d.storage == StorageType::Register;
}

std::vector<std::string> SdfgGen::body_arrays() const {
  std::vector<std::string> out;
  for (const auto& [name, h] : homes) {
    const DataDescriptor& d = sdfg.arrays.at(name);
    if (bound_as_scalar(d) || kernel_private(d)) continue;
    if (h.resized) continue;
    if (h.kind == HomeKind::Program || (h.kind == HomeKind::State && h.hoisted)) out.push_back(name);
  }
  return out;
}

std::vector<std::string> SdfgGen::body_scalars() const {
  std::vector<std::string> out;
  for (const auto& [name, h] : homes)
    if (h.kind == HomeKind::Program && bound_as_scalar(sdfg.arrays.at(name)) &&
        !kernel_private(sdfg.arrays.at(name)))
      out.push_back(name);
  return out;
}

PyContext SdfgGen::interstate_context() const {
  PyContext ctx;
  ctx.allow_locals = false;
  for (const auto& [s, t] : symbols) {
    PyVar v;
    v.cpp = cpp_ident(s);
    v.type = t;
    v.writable = !init_symbols.count(s);
    ctx.vars[s] = v;
  }
  for (const auto& [name, b] : body_data) {
    PyVar v;
    v.cpp = b.cpp;
    v.type = b.desc->dtype.base;
    if (!b.scalar) {
      v.pointer = true;
      for (const auto& s : b.desc->strides) v.strides.push_back(sym_cpp(s));
      v.squeezed_strides = v.strides;
    }
    ctx.vars[name] = v;
  }
  return ctx;
}

std::string SdfgGen::state_call(const SDFGState& st) {
  if (st.num_nodes() == 0) return {};
  std::string label = sanitize_label(st.label);
  std::string base =
      prefix + "state_" + std::to_string(state_counter_++) + (label.empty() ? "" : "_" + label);
  const std::size_t before = prog.functions.size();
  const std::string fn = prog.unique_function_name(base);
  std::string call = generate_state(*this, st, fn);
  note_call(fn);
  if (auto slot = prog.timer_slot(st, TimedKind::State)) {
    // A state of an SDFG called inside a parallel map runs on many threads: each records into its
    // own row of slots. Elsewhere one thread writes the slot.
    if (device_code())
      throw CodegenError(ref(&st), "a Timer (instrument) inside a GPU kernel is not supported");
    call = timed_line(*slot, call, in_parallel);
  }
  // Reaches of its views and nested SDFG arguments on symbols the control flow assigns, checked
  // with their values when the state starts (ADR 0037).
  if (auto checks = state_reach_checks.find(&st); checks != state_reach_checks.end()) {
    std::string pre;
    for (const LayoutCondition& c : checks->second)
      pre += layout_check_statement(c, " (false for the symbol values when state '" + st.label +
                                           "' of SDFG '" + sdfg.name + "' starts)") +
             " ";
    call = pre + call;
  }
  // Faults the state's code can record (computed indices outside their container, negative
  // integer powers, accesses outside a nested SDFG's containers; bounds_checks.cpp) stop the
  // run after it, before any later state reads them: a nested SDFG returns at once, the
  // top-level state that called it throws.
  if (prog.functions.any(&CodeFacts::may_fault, before))
    call += top_level ? " weir_raise_fault(\"state '" + c_escape(st.label) + "': \");"
                      : " if (weir_fault_pending()) " + return_statement();
  return call;
}

void SdfgGen::emit_body(Writer& w) {
  emit_layout_checks(w);
  // Symbols the control flow defines (loop variables, interstate assignments).
  for (const auto& s : local_symbols)
    w.line(std::string(cpp_name(symbols.at(s))) + " " + cpp_ident(s) + " = 0;");
  for (const auto& name : body_scalars()) {
    const DataDescriptor& d = sdfg.arrays.at(name);
    w.line(cpp_type(d) + " " + cpp_ident(name) + "{};");
  }
  if (!top_level) {
    for (const auto& name : body_arrays()) {
      const DataDescriptor& d = sdfg.arrays.at(name);
      std::string n = cpp_ident(name);
      // Small arrays of a known size live on the stack, value-initialized as body scalars are (a
      // state that faults returns before writing it, and the caller returns on the pending
      // fault: compilers cannot see that). On the CPU a thread-local buffer costs a TLS lookup
      // (__tls_get_addr in a shared library) per call: azimint_hist's per-point nested SDFG
      // spent 6% of its time there for a one-element array.
      const bool host_device_memory = !device_code() && prog.target.device_storage(d.storage);
      auto k = sdfg.arrays.at(name).total_size.as_integer();
      if (!host_device_memory && k && *k > 0 &&
          *k * static_cast<long long>(size_of(d.dtype.base)) <=
              static_cast<long long>(prog.opts.max_stack_bytes)) {
        w.line(cpp_type(d) + " " + n + "[" + std::to_string(*k) + "]{};");
        continue;
      }
      // Where the target places it (a device function's per-call heap, device memory).
      if (prog.target.declare_body_array(w, d, n, alloc_size(d), name, device_code())) continue;
      // Kept per thread between calls (a nested SDFG inside a map runs once per point).
      w.line("static thread_local weir_scratch<" + cpp_type(d) + "> " + n + "__buf;");
      w.line(cpp_type(d) + "* __restrict__ " + n + " = " + n + "__buf.get(" + alloc_size(d) + ", \"" +
             c_escape(name) + "\");");
    }
  }
  for (const auto& [name, h] : homes) {
    if (!h.resized) continue;
    const DataDescriptor& d = sdfg.arrays.at(name);
    std::string n = cpp_ident(name);
    w.line(std::string(prog.target.scratch_class(d)) + "<" + cpp_type(d) + "> " + n +
           "__buf;  // sized before each state that uses it");
    w.line(cpp_type(d) + "* " + n + " = nullptr;");
  }
  emit_region(*this, sdfg, w);
}

std::string Program::unique_function_name(const std::string& base) {
  std::string n = base;
  for (int i = 1; !function_names.insert(n).second; ++i) n = base + "_" + std::to_string(i);
  return n;
}

}  // namespace weir::codegen::detail
