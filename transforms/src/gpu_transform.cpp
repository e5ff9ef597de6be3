// The GPU transformation (see the header). One walk over the SDFG: decide where each
// container lives, then schedule each node of host code (kernel, wrapped kernel, or host),
// entering nested SDFGs with what their containers are bound to.
#include "weir/transforms/gpu_transform.h"

#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "dataflow_util.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/names.h"

namespace weir::transforms {

GpuTransform::GpuTransform()
    : Pass("gpu-transform",
           "Run the SDFG on a GPU (DaCe's GPUTransformSDFG): GPU_Global storage, GPU_Device kernels for "
           "top-level "
           "maps, scalars and kernel-local transients in registers, host<->device copies at the boundary",
           {{"host_arguments", false,
             "keep array arguments in host memory (CPU_Heap) with GPU_Global copies in and out at the SDFG's "
             "boundary (DaCe's use_gpu_storage=False)"},
            {"register_transients", true,
             "transients used only inside kernels are private to a GPU thread (Register)"},
            {"inner_schedule", std::string("Sequential"),
             "schedule of maps inside kernels: Sequential, or GPU_ThreadBlock for maps directly inside the "
             "kernel map"}}) {}

namespace {

bool is_gpu(ScheduleType s) {
  return s == ScheduleType::GPU_Device || s == ScheduleType::GPU_Persistent ||
         s == ScheduleType::GPU_Default || s == ScheduleType::GPU_ThreadBlock ||
         s == ScheduleType::GPU_ThreadBlock_Dynamic;
}

bool is_device_storage(StorageType s) { return s == StorageType::GPU_Global || s == StorageType::GPU_Shared; }

bool has_map(const SDFG& g) {
  for (const SDFGState* st : g.all_states())
    for (const Node* n : st->nodes()) {
      if (n->as<MapEntry>()) return true;
      if (const auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg && has_map(*ns->sdfg)) return true;
    }
  return false;
}

bool is_host_only(StorageType s) { return s == StorageType::CPU_Heap || s == StorageType::CPU_ThreadLocal; }

/// Calls `fn(code, where)` for every piece of control-flow code of `g` (interstate conditions and
/// assignment values, loop statements, branch conditions; not inside nested SDFGs).
void for_each_control_flow_code(SDFG& g, const std::function<void(CodeBlock&, const std::string&)>& fn) {
  std::function<void(ControlFlowRegion&)> walk = [&](ControlFlowRegion& r) {
    std::string at = r.kind() == BlockKind::SDFG ? "SDFG '" + g.name + "'" : "'" + r.path() + "'";
    for (const ControlFlowEdge* ce : r.edges()) {
      ControlFlowEdge& e = r.edge(ce->id);
      fn(e.data.condition, "an interstate edge's condition in " + at);
      for (auto& [t, v] : e.data.assignments)
        fn(v, "the interstate assignment " + t + " = " + v.code + " in " + at);
    }
    if (auto* loop = r.as<LoopRegion>())
      for (CodeBlock* c : {&loop->init_statement, &loop->loop_condition, &loop->update_statement})
        fn(*c, "the statements of loop " + at);
    for (ControlFlowBlock* b : r.blocks()) {
      if (auto* sub = b->as<ControlFlowRegion>()) walk(*sub);
      if (auto* c = b->as<ConditionalBlock>())
        for (auto& br : c->branches()) {
          if (br.condition) fn(*br.condition, "a branch condition of '" + c->path() + "'");
          if (br.body) walk(*br.body);
        }
    }
  };
  walk(g);
}

/// Names read by the control flow of `g`, with where (the first place).
std::map<std::string, std::string> control_flow_reads(SDFG& g) {
  std::map<std::string, std::string> out;
  for_each_control_flow_code(g, [&](CodeBlock& code, const std::string& where) {
    for (const std::string& id : code_names(code).data()) out.emplace(id, where);
  });
  return out;
}

class GpuTransformer {
 public:
  explicit GpuTransformer(const Options& o)
      : host_arguments_(o.get_bool("host_arguments")),
        registers_(o.get_bool("register_transients")),
        thread_blocks_(o.get_string("inner_schedule") == "GPU_ThreadBlock") {
    const std::string& s = o.get_string("inner_schedule");
    if (s != "Sequential" && s != "GPU_ThreadBlock")
      throw TransformError(
          "gpu-transform: option inner_schedule must be Sequential or GPU_ThreadBlock, not '" + s + "'");
  }

  std::size_t changed = 0;

  /// `g` runs on the host (the top-level SDFG, or a nested SDFG called from host code whose
  /// arguments' storage the caller has set).
  void host_sdfg(SDFG& g, bool top) {
    // Where each container is accessed: at a state's top level, or inside a map.
    std::map<std::string, std::pair<bool, bool>> use;  // name -> (top, inside)
    for (SDFGState* st : g.all_states()) {
      ScopeTree tree = st->scope_tree();
      for (Node* n : st->nodes())
        if (auto* a = n->as<AccessNode>())
          (tree.parent[a->id()] == kNoNode ? use[a->data].first : use[a->data].second) = true;
    }
    std::set<std::string> host_scalars = find_host_scalars(g);
    std::map<std::string, std::string> clones;
    if (top && host_arguments_) clones = clone_arguments(g, use);

    for (auto& [name, d] : g.arrays) {
      if (clones.count(name) || host_scalars.count(name) || is_device_storage(d.storage) ||
          d.kind == DataKind::Stream)
        continue;
      if (!d.transient) {
        // Nested SDFGs: the caller bound the arguments; scalars stay by value; with host
        // arguments the ones not copied stay where they are.
        if (top && !host_arguments_ && !d.is_scalar()) set_storage(d, StorageType::GPU_Global);
        continue;
      }
      auto u = use.find(name);
      if (u == use.end()) continue;
      if (u->second.first)
        set_storage(d, StorageType::GPU_Global);
      else if (registers_ || is_host_only(d.storage))
        set_storage(d, StorageType::Register);
    }

    mirror_for_control_flow(g, clones);
    for (SDFGState* st : g.all_states()) host_state(*st, host_scalars);
  }

 private:
  bool host_arguments_, registers_, thread_blocks_;

  void set_storage(DataDescriptor& d, StorageType s) {
    if (d.storage == s) return;
    d.storage = s;
    ++changed;
  }

  static std::set<std::string> written_containers(const SDFG& g) {
    std::set<std::string> out;
    for (const SDFGState* st : g.all_states())
      for (const Node* n : st->nodes())
        if (const auto* a = n->as<AccessNode>(); a && !st->in_edges(a->id()).empty()) out.insert(a->data);
    return out;
  }

  /// Scalars only host code writes: arguments, and transient scalars every writer of which is
  /// a host tasklet (one at a state's top level that reads only such scalars and writes only
  /// scalars) or a copy from one. A fixed point: dropping one can disqualify its readers.
  std::set<std::string> find_host_scalars(const SDFG& g) const {
    std::set<std::string> h;
    for (const auto& [name, d] : g.arrays)
      if (d.is_scalar() && !is_device_storage(d.storage)) h.insert(name);
    for (bool again = true; again;) {
      again = false;
      for (const SDFGState* st : g.all_states()) {
        ScopeTree tree = st->scope_tree();
        for (const Node* n : st->nodes()) {
          const auto* a = n->as<AccessNode>();
          if (!a || !h.count(a->data) || !g.data(a->data).transient) continue;
          bool host = tree.parent[a->id()] == kNoNode;
          // A nested SDFG that takes it as an array gets a pointer, which kernels inside deref.
          for (EdgeId e : st->out_edges(a->id()))
            if (const auto* ns = st->node(st->edge(e).dst).as<NestedSDFGNode>();
                ns && ns->sdfg && ns->sdfg->has_data(st->edge(e).dst_conn) &&
                !ns->sdfg->data(st->edge(e).dst_conn).is_scalar())
              host = false;
          for (EdgeId e : st->in_edges(a->id())) {
            const Node& src = st->node(st->edge(e).src);
            const auto* sa = src.as<AccessNode>();
            host = host && ((sa && h.count(sa->data)) || is_host_tasklet(*st, tree, src, h));
          }
          if (!host) {
            h.erase(a->data);
            again = true;
          }
        }
      }
    }
    return h;
  }

  static bool is_host_tasklet(const SDFGState& st, const ScopeTree& tree, const Node& n,
                              const std::set<std::string>& h) {
    if (n.kind() != NodeKind::Tasklet || tree.parent[n.id()] != kNoNode) return false;
    for (EdgeId e : st.in_edges(n.id()))
      if (!st.edge(e).memlet.is_empty() && !h.count(st.edge(e).memlet.data)) return false;
    for (EdgeId e : st.out_edges(n.id())) {
      const Memlet& m = st.edge(e).memlet;
      if (!m.is_empty() && !h.count(m.data)) return false;
    }
    return true;
  }

  /// host_arguments: a GPU_Global transient `gpu_<name>` for every array argument that host
  /// code does not only copy to or from GPU memory already, used everywhere instead, with the
  /// copy states at the boundary. Returns argument -> copy.
  std::map<std::string, std::string> clone_arguments(
      SDFG& g, const std::map<std::string, std::pair<bool, bool>>& use) {
    std::map<std::string, std::string> clones;
    for (auto& [name, d] : g.arrays) {
      if (d.transient || d.is_scalar() || d.kind == DataKind::Stream || is_device_storage(d.storage) ||
          !use.count(name) || only_device_copies(g, name))
        continue;
      clones[name] = "";
    }
    if (clones.empty()) return clones;
    for (auto& [name, copy] : clones) {
      DataDescriptor c = g.data(name);
      c.transient = true;
      c.storage = StorageType::GPU_Global;
      copy = g.unique_data_name("gpu_" + name);
      g.add_data(copy, c);
      set_storage(g.data(name), StorageType::CPU_Heap);
      ++changed;
    }
    for (SDFGState* st : g.all_states()) {
      for (Node* n : st->nodes())
        if (auto* a = n->as<AccessNode>(); a && clones.count(a->data)) {
          a->data = clones.at(a->data);
          a->label = a->data;
        }
      for (const DataflowEdge* e : st->edges())
        if (clones.count(e->memlet.data)) st->edge(e->id).memlet.data = clones.at(e->memlet.data);
    }
    std::set<std::string> written = written_containers(g);
    auto copy_state = [&](ControlFlowRegion& r, const std::string& label, bool in) -> SDFGState& {
      SDFGState& s = r.add_state(label);
      for (const auto& [name, copy] : clones) {
        if (!in && !written.count(copy)) continue;
        const std::string& src = in ? name : copy;
        const std::string& dst = in ? copy : name;
        AccessNode& a = s.add_access(src);
        AccessNode& b = s.add_access(dst);
        s.add_edge(a.id(), "", b.id(), "", Memlet::simple(src, Subset::full(g.data(src).shape)));
      }
      return s;
    };
    BlockId start = g.start_block();
    if (start == kNoBlock)
      throw TransformError("gpu-transform: SDFG '" + g.name + "' has no unique start block");
    // The program may end at a block whose out-edges all have conditions: then the copy-out
    // follows the whole body, moved into a region (a region ends wherever its control flow does).
    std::vector<BlockId> sinks;
    bool conditional_end = false;
    for (ControlFlowBlock* b : g.blocks()) {
      auto outs = g.out_edges(b->id());
      bool unconditional = false;
      for (const ControlFlowEdge* e : outs) unconditional = unconditional || e->data.is_unconditional();
      if (outs.empty() && b->kind() != BlockKind::Return)
        sinks.push_back(b->id());
      else if (!outs.empty() && !unconditional)
        conditional_end = true;
    }
    if (conditional_end) {
      start = wrap_body(g, start);
      sinks = {start};
    }
    SDFGState& in = copy_state(g, "gpu_copy_in", true);
    g.add_edge(in.id(), start);
    g.set_start_block(in.id());
    bool any_written = false;
    for (const auto& [name, copy] : clones) any_written = any_written || written.count(copy);
    if (!any_written) return clones;
    if (!sinks.empty()) {
      SDFGState& out = copy_state(g, "gpu_copy_out", false);
      for (BlockId s : sinks) g.add_edge(s, out.id());
    }
    // A return block ends the program early: copy out before it.
    std::function<void(ControlFlowRegion&)> before_returns = [&](ControlFlowRegion& r) {
      for (ControlFlowBlock* b : r.blocks()) {
        if (auto* sub = b->as<ControlFlowRegion>()) before_returns(*sub);
        if (auto* c = b->as<ConditionalBlock>())
          for (auto& br : c->branches())
            if (br.body) before_returns(*br.body);
        if (b->kind() != BlockKind::Return) continue;
        BlockId ret = b->id();
        bool was_start = r.start_block() == ret;
        SDFGState& out = copy_state(r, "gpu_copy_out_before_return", false);
        for (const ControlFlowEdge* e : r.in_edges(ret)) {
          ControlFlowEdge moved = *e;
          r.remove_edge(moved.id);
          r.add_edge(moved.src, out.id(), moved.data);
        }
        r.add_edge(out.id(), ret);
        if (was_start) r.set_start_block(out.id());
      }
    };
    before_returns(g);
    return clones;
  }

  /// Moves every block of `g` into a new region "gpu_body" (edges and start kept); returns it.
  static BlockId wrap_body(SDFG& g, BlockId start) {
    std::vector<ControlFlowEdge> edges;
    for (const ControlFlowEdge* e : g.edges()) edges.push_back(*e);
    std::vector<BlockId> ids;
    for (ControlFlowBlock* b : g.blocks()) ids.push_back(b->id());
    ControlFlowRegion& body = g.add_region("gpu_body");
    std::map<BlockId, BlockId> moved;
    for (BlockId id : ids) moved[id] = body.add_block(g.take_block(id), id == start).id();
    for (const ControlFlowEdge& e : edges) body.add_edge(moved.at(e.src), moved.at(e.dst), e.data);
    g.set_start_block(body.id());
    return body.id();
  }

  /// Every access node of `name` only joins access nodes of GPU containers (a copy in or out
  /// that is already there: running the pass again adds nothing).
  static bool only_device_copies(const SDFG& g, const std::string& name) {
    for (const SDFGState* st : g.all_states())
      for (const AccessNode* a : st->access_nodes(name)) {
        auto other_on_device = [&](NodeId o) {
          const auto* b = st->node(o).as<AccessNode>();
          return b && g.has_data(b->data) && is_device_storage(g.data(b->data).storage);
        };
        for (EdgeId e : st->in_edges(a->id()))
          if (!other_on_device(st->edge(e).src)) return false;
        for (EdgeId e : st->out_edges(a->id()))
          if (!other_on_device(st->edge(e).dst)) return false;
      }
    return true;
  }

  /// Control flow runs on the host: a container it reads that lives in GPU memory gets a host
  /// mirror `host_<name>` (Register for scalars, CPU_Heap for arrays) that the control-flow code
  /// reads instead, copied from the device container at the end of every state that writes it
  /// (and first thing, for an argument); a host argument with a device copy is refreshed from
  /// that copy the same way (DaCe's GPUTransformSDFG, step 7).
  void mirror_for_control_flow(SDFG& g, const std::map<std::string, std::string>& clones) {
    std::map<std::string, std::string> rename;
    std::vector<std::pair<std::string, std::string>> copies;  // device -> host
    std::vector<std::pair<std::string, std::string>> initial;
    for (const auto& [name, where] : control_flow_reads(g)) {
      if (!g.has_data(name)) continue;
      if (auto c = clones.find(name); c != clones.end()) {
        copies.emplace_back(c->second, name);
        continue;
      }
      DataDescriptor d = g.data(name);
      if (!is_device_storage(d.storage)) continue;
      bool argument = !d.transient;
      d.transient = true;
      d.storage = d.is_scalar() ? StorageType::Register : StorageType::CPU_Heap;
      std::string host = g.unique_data_name("host_" + name);
      g.add_data(host, d);
      ++changed;
      rename[name] = host;
      copies.emplace_back(name, host);
      if (argument) initial.emplace_back(name, host);
    }
    if (copies.empty()) return;
    auto add_copy = [&](SDFGState& st, NodeId from, const std::string& dev, const std::string& host) {
      NodeId to = st.add_access(host).id();
      st.add_edge(from, "", to, "", Memlet::simple(dev, Subset::full(g.data(dev).shape)));
      ++changed;
    };
    for (SDFGState* st : g.all_states()) {
      ScopeTree tree = st->scope_tree();
      std::vector<NodeId> order = st->topological_order();
      for (const auto& [dev, host] : copies) {
        NodeId last = kNoNode;  // the last top-level write of `dev` in this state
        for (NodeId n : order)
          if (const auto* a = st->node(n).as<AccessNode>();
              a && a->data == dev && tree.parent[n] == kNoNode && !st->in_edges(n).empty())
            last = n;
        if (last != kNoNode) add_copy(*st, last, dev, host);
      }
    }
    if (!initial.empty()) {
      BlockId start = g.start_block();
      SDFGState& first = g.add_state("gpu_mirror_in");
      for (const auto& [dev, host] : initial) add_copy(first, first.add_access(dev).id(), dev, host);
      g.add_edge(first.id(), start);
      g.set_start_block(first.id());
    }
    if (!rename.empty())
      for_each_control_flow_code(g,
                                 [&](CodeBlock& code, const std::string&) { rename_in_code(code, rename); });
  }

  void host_state(SDFGState& st, const std::set<std::string>& host_scalars) {
    SDFG& g = *st.sdfg();
    copies_as_kernels(st);
    ScopeTree tree = st.scope_tree();
    std::vector<NodeId> top;
    for (Node* n : st.nodes())
      if (tree.parent[n->id()] == kNoNode) top.push_back(n->id());
    for (NodeId id : top) {
      Node& n = st.node(id);
      if (auto* me = n.as<MapEntry>()) {
        if (!is_gpu(me->map->schedule)) {
          me->map->schedule = ScheduleType::GPU_Device;
          ++changed;
        }
        for (EdgeId e : st.in_edges(id)) {
          const DataflowEdge& ed = st.edge(e);
          if (ed.dst_conn.rfind("IN_", 0) == 0 || ed.memlet.is_empty() || host_scalars.count(ed.memlet.data))
            continue;
          throw TransformError("gpu-transform: map '" + me->map->label + "' in state '" + st.path() +
                               "' has range input '" + ed.dst_conn + "' from '" + ed.memlet.data +
                               "', which is not a host scalar: a kernel's grid is computed on the host");
        }
        device_scope(st, tree, *me);
      } else if (n.kind() == NodeKind::Tasklet) {
        if (!is_host_tasklet(st, tree, n, host_scalars)) wrap_in_kernel(st, n);
      } else if (auto* lib = n.as<LibraryNode>()) {
        // Its expansion is loops over device data: one thread of a one-point kernel runs them
        // (correct, not fast; a parallel expansion per library is for later, ADR 0020).
        wrap_in_kernel(st, n);
        lib->schedule = ScheduleType::Sequential;
      } else if (auto* ns = n.as<NestedSDFGNode>()) {
        if (!ns->sdfg) continue;
        bind_arguments(g, st, *ns);
        if (has_map(*ns->sdfg)) {
          host_sdfg(*ns->sdfg, false);
        } else {
          wrap_in_kernel(st, n);
          device_sdfg(*ns->sdfg);
        }
      }
    }
  }

  /// Copies between two device containers at a state's top level that the CUDA runtime cannot
  /// do (cudaMemcpy moves bytes): with a write-conflict resolution (`B[0, 1:3] += A[1, 5, 1:3]`)
  /// or between element types. Each becomes a GPU_Device map of one point per element copied,
  /// whose tasklet reads the source element and writes the destination's with the copy's wcr.
  void copies_as_kernels(SDFGState& st) {
    split_self_copies(st);
    const SDFG& g = *st.sdfg();
    ScopeTree tree = st.scope_tree();
    std::vector<EdgeId> copies;
    for (const DataflowEdge* e : st.edges()) {
      const auto* a = st.node(e->src).as<AccessNode>();
      const auto* b = st.node(e->dst).as<AccessNode>();
      if (!a || !b || e->memlet.is_empty() || tree.parent[a->id()] != kNoNode) continue;
      const DataDescriptor& da = g.arrays.at(a->data);
      const DataDescriptor& db = g.arrays.at(b->data);
      if (da.is_view() || db.is_view() || !is_device_storage(da.storage) || !is_device_storage(db.storage))
        continue;
      if (!e->memlet.wcr.empty() || da.dtype != db.dtype) copies.push_back(e->id);
    }
    for (EdgeId id : copies) copy_as_kernel(st, id);
  }

  /// A copy between two regions of one device container (`P[5:0:-1, 2:4] = P[0:5, 2:4]`) reads
  /// its whole source before writing, as NumPy and the CPU generator do; cudaMemcpy of
  /// overlapping rows (and a kernel) would read rows already written. Each becomes two copies
  /// through a GPU_Global transient of the copied extent: P[src] -> T -> P[dst] (the second with
  /// the copy's wcr, which copies_as_kernels then makes a kernel).
  void split_self_copies(SDFGState& st) {
    SDFG& g = *st.sdfg();
    ScopeTree tree = st.scope_tree();
    std::vector<EdgeId> self;
    for (const DataflowEdge* e : st.edges()) {
      const auto* a = st.node(e->src).as<AccessNode>();
      const auto* b = st.node(e->dst).as<AccessNode>();
      if (!a || !b || a->data != b->data || e->memlet.is_empty() || tree.parent[a->id()] != kNoNode) continue;
      const DataDescriptor& d = g.arrays.at(a->data);
      if (!d.is_view() && !d.is_scalar() && is_device_storage(d.storage)) self.push_back(e->id);
    }
    for (EdgeId id : self) {
      const DataflowEdge e = st.edge(id);
      const std::string name = st.node(e.src).as<AccessNode>()->data;
      CopySubsets ends = copy_subsets(e.memlet, name, name);
      if (!ends.src || !ends.dst) continue;  // code generation names the fault
      std::vector<sym::Expr> shape;
      for (const auto& r : ends.src->ranges())
        if (r.size().as_integer() != std::optional<long long>(1)) shape.push_back(r.size());
      if (shape.empty()) shape.push_back(sym::Expr(1));
      const std::string tmp = g.unique_data_name(name + "_copy");
      DataDescriptor& t = g.add_array(tmp, g.arrays.at(name).dtype.base, shape, true);
      t.storage = StorageType::GPU_Global;
      AccessNode& tn = st.add_access(tmp);
      Memlet in = Memlet::simple(name, *ends.src);
      in.other_subset = Subset::full(shape);
      Memlet out = Memlet::simple(name, *ends.dst, e.memlet.wcr);
      out.other_subset = Subset::full(shape);
      st.add_edge(e.src, e.src_conn, tn.id(), "", in);
      st.add_edge(tn.id(), "", e.dst, e.dst_conn, out);
      st.remove_edge(id);
      ++changed;
    }
  }

  void copy_as_kernel(SDFGState& st, EdgeId id) {
    const DataflowEdge e = st.edge(id);
    const SDFG& g = *st.sdfg();
    const std::string& src = st.node(e.src).as<AccessNode>()->data;
    const std::string& dst = st.node(e.dst).as<AccessNode>()->data;
    CopySubsets ends = copy_subsets(e.memlet, src, dst);
    if (!ends.src && !ends.dst) return;  // code generation names the fault
    // The end without a subset: the same shape from 0 when the ranks agree, else all of it.
    auto other = [&](const std::string& name, const Subset& known) {
      const DataDescriptor& d = g.arrays.at(name);
      if (d.is_scalar()) return Subset({Range::index(0)});
      if (d.shape.size() != known.dims()) return Subset::full(d.shape);
      std::vector<Range> rs;
      for (const auto& r : known.ranges()) rs.push_back(Range(0, r.size() - 1));
      return Subset(rs);
    };
    const Subset ssub = ends.src ? *ends.src : other(src, *ends.dst);
    const Subset dsub = ends.dst ? *ends.dst : other(dst, ssub);
    // The copy's dimensions: the non-unit ones of each end, matched in order.
    auto copied = [](const Subset& s) {
      std::vector<std::size_t> out;
      for (std::size_t d = 0; d < s.dims(); ++d)
        if (s[d].size().as_integer() != std::optional<long long>(1)) out.push_back(d);
      return out;
    };
    const std::vector<std::size_t> sd = copied(ssub), dd = copied(dsub);
    if (sd.size() != dd.size()) return;  // code generation names the fault
    std::vector<std::string> params;
    std::vector<Range> ranges;
    for (std::size_t k = 0; k < sd.size(); ++k) {
      params.push_back(detail::fresh_param(g, st, "__copy" + std::to_string(k)));
      ranges.push_back(Range(0, ssub[sd[k]].size() - 1));
    }
    if (params.empty()) {
      params.push_back(detail::fresh_param(g, st, "__copy"));
      ranges.push_back(Range(0, 0));
    }
    // The element of `s` at the map's point: start + parameter * step along the copied dimensions.
    auto element = [&](const Subset& s, const std::vector<std::size_t>& dims) {
      std::vector<Range> rs;
      for (std::size_t d = 0; d < s.dims(); ++d) rs.push_back(Range::index(s[d].start));
      for (std::size_t k = 0; k < dims.size(); ++k) {
        const Range& r = s[dims[k]];
        rs[dims[k]] = Range::index(r.start + sym::Expr::symbol(params[k]) * r.step);
      }
      return Subset(rs);
    };
    MapEntry& me = st.add_map("copy_" + src + "_" + dst, params, Subset(ranges), ScheduleType::GPU_Device);
    Tasklet& t =
        st.add_tasklet("copy_" + src + "_" + dst, {"__out = __in", Language::Python}, {"__in"}, {"__out"});
    auto in =
        st.add_memlet_path({e.src, me.id(), t.id()}, Memlet::simple(src, element(ssub, sd)), "", "__in");
    auto out = st.add_memlet_path({t.id(), me.exit, e.dst},
                                  Memlet::simple(dst, element(dsub, dd), e.memlet.wcr), "__out", "");
    st.edge(in.front()).memlet = Memlet::simple(src, ssub);
    st.edge(out.back()).memlet = Memlet::simple(dst, dsub, e.memlet.wcr);
    st.remove_edge(id);
    ++changed;
  }

  /// Runs `n` (a tasklet or nested SDFG at a state's top level) as a one-point GPU_Device map.
  void wrap_in_kernel(SDFGState& st, Node& n) {
    std::string param =
        detail::fresh_param(*st.sdfg(), st, "__gpu_" + std::string(is_identifier(n.label) ? n.label : "k"));
    // Labels reach C++ (library nodes have ones like "Reduce (Min), Axes: all"): an identifier.
    std::string label = n.label;
    for (char& c : label)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    if (label.empty() || std::isdigit(static_cast<unsigned char>(label[0]))) label = "k" + label;
    MapEntry& me = st.add_map(label + "_gpu", {param}, Subset({Range(sym::Expr(0), sym::Expr(0))}),
                              ScheduleType::GPU_Device);
    NodeId id = n.id(), entry = me.id(), exit = me.exit;
    std::vector<DataflowEdge> ins, outs;
    for (EdgeId e : st.in_edges(id)) ins.push_back(st.edge(e));
    for (EdgeId e : st.out_edges(id)) outs.push_back(st.edge(e));
    for (const auto& e : ins) {
      st.remove_edge(e.id);
      st.add_memlet_path({e.src, entry, id}, e.memlet, e.src_conn, e.dst_conn);
    }
    for (const auto& e : outs) {
      st.remove_edge(e.id);
      st.add_memlet_path({id, exit, e.dst}, e.memlet, e.src_conn, e.dst_conn);
    }
    if (ins.empty()) st.add_edge(entry, "", id, "", Memlet{});
    if (outs.empty()) st.add_edge(id, "", exit, "", Memlet{});
    ++changed;
  }

  /// Inside a kernel: inner maps and library nodes run sequentially per thread (or as the
  /// kernel's thread block), nested SDFGs become device code.
  void device_scope(SDFGState& st, const ScopeTree& tree, MapEntry& kernel) {
    for (NodeId id : detail::scope_body(st, tree, kernel.id())) {
      Node& n = st.node(id);
      if (auto* me = n.as<MapEntry>()) {
        bool block = thread_blocks_ && tree.parent[id] == kernel.id();
        set_schedule(me->map->schedule, block ? ScheduleType::GPU_ThreadBlock : ScheduleType::Sequential);
      } else if (auto* lib = n.as<LibraryNode>()) {
        set_schedule(lib->schedule, ScheduleType::Sequential);
      } else if (auto* ns = n.as<NestedSDFGNode>(); ns && ns->sdfg) {
        bind_arguments(*st.sdfg(), st, *ns);
        device_sdfg(*ns->sdfg);
      }
    }
  }

  void set_schedule(ScheduleType& s, ScheduleType want) {
    if (s == want || (want == ScheduleType::Sequential && is_gpu(s) && s != ScheduleType::GPU_Device)) return;
    s = want;
    ++changed;
  }

  /// A nested SDFG called from a kernel: all of it is device code.
  void device_sdfg(SDFG& g) {
    for (auto& [name, d] : g.arrays) {
      if (d.kind == DataKind::Stream || is_device_storage(d.storage)) continue;
      // Host memory cannot be used in a kernel: transients become thread-private, scalar
      // arguments are values.
      bool host_only = is_host_only(d.storage);
      if (d.transient ? registers_ || host_only : d.is_scalar() && host_only)
        set_storage(d, StorageType::Register);
    }
    for (SDFGState* st : g.all_states())
      for (Node* n : st->nodes()) {
        if (auto* me = n->as<MapEntry>())
          set_schedule(me->map->schedule, ScheduleType::Sequential);
        else if (auto* lib = n->as<LibraryNode>())
          set_schedule(lib->schedule, ScheduleType::Sequential);
        else if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) {
          bind_arguments(g, *st, *ns);
          device_sdfg(*ns->sdfg);
        }
      }
  }

  /// The nested SDFG's arrays bound to outer containers live where those do.
  void bind_arguments(const SDFG& outer, const SDFGState& st, NestedSDFGNode& ns) {
    auto bind = [&](const Memlet& m, const std::string& conn) {
      if (m.is_empty() || !outer.has_data(m.data) || !ns.sdfg->has_data(conn)) return;
      const DataDescriptor& o = outer.data(m.data);
      DataDescriptor& i = ns.sdfg->data(conn);
      if (is_device_storage(o.storage) != is_device_storage(i.storage))
        set_storage(i, is_device_storage(o.storage) ? o.storage : StorageType::Default);
    };
    for (EdgeId e : st.in_edges(ns.id())) bind(st.edge(e).memlet, st.edge(e).dst_conn);
    for (EdgeId e : st.out_edges(ns.id())) bind(st.edge(e).memlet, st.edge(e).src_conn);
  }
};

}  // namespace

std::size_t GpuTransform::run_pass(SDFG& sdfg, Transaction& tx) {
  // Storage, schedules, new states and copies everywhere: one whole-SDFG change.
  return tx.modify_all([&] {
    GpuTransformer t(options());
    t.host_sdfg(sdfg, true);
    return t.changed;
  });
}

}  // namespace weir::transforms
