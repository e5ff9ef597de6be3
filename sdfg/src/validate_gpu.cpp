// Validation of what may run where on a GPU (DaCe's validate_state rules for GPU storage and
// schedules). Host code is a state's top level and the inside of non-GPU maps, in an SDFG not
// called from a kernel; device code is everything inside a kernel map (GPU_Device,
// GPU_Persistent, GPU_Default outside a kernel), including nested SDFGs called there.
//  - device code may touch GPU_Global, GPU_Shared, CPU_Pinned (mapped host memory) and its own
//    thread-private containers (Register, or Default transients whose access nodes are all
//    inside it); it may read, never write, a host scalar (kernels get scalars by value);
//  - host code may copy between host and device containers (access node to access node) but
//    no tasklet, library node or CPU map of it may touch GPU_Global/GPU_Shared data, and
//    control flow (interstate edges, loop statements, branch conditions) may not read them;
//  - GPU_ThreadBlock maps live only inside kernels, CPU_Multicore maps only outside;
//  - a nested SDFG's argument keeps the outer container's side (host or device).
#include <map>
#include <set>

#include "validate_internal.h"
#include "weir/sdfg/code_rewrite.h"

namespace weir::detail {
namespace {

bool is_kernel_schedule(ScheduleType s) {
  return s == ScheduleType::GPU_Device || s == ScheduleType::GPU_Persistent || s == ScheduleType::GPU_Default;
}

bool is_block_schedule(ScheduleType s) {
  return s == ScheduleType::GPU_ThreadBlock || s == ScheduleType::GPU_ThreadBlock_Dynamic;
}

bool is_gpu_schedule(ScheduleType s) { return is_kernel_schedule(s) || is_block_schedule(s); }

bool is_device_storage(StorageType s) { return s == StorageType::GPU_Global || s == StorageType::GPU_Shared; }

/// Whether anything of `sdfg` (or its nested SDFGs) uses a GPU storage or schedule; SDFGs
/// without are skipped, so CPU-only SDFGs pay no scope walk.
bool uses_gpu(const SDFG& sdfg) {
  for (const auto& [name, d] : sdfg.arrays)
    if (is_device_storage(d.storage)) return true;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes()) {
      if (const auto* me = n->as<MapEntry>(); me && me->map && is_gpu_schedule(me->map->schedule))
        return true;
      if (const auto* lib = n->as<LibraryNode>(); lib && is_gpu_schedule(lib->schedule)) return true;
      if (const auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg && uses_gpu(*ns->sdfg)) return true;
    }
  return false;
}

class GpuChecker {
 public:
  GpuChecker(const SDFG& sdfg, std::string path, bool device, std::vector<Diagnostic>& out)
      : sdfg_(sdfg), path_(std::move(path)), device_(device), out_(out) {}

  void run() {
    if (!device_) check_control_flow();
    for (const SDFGState* st : sdfg_.all_states()) check_state(*st);
  }

 private:
  const SDFG& sdfg_;
  std::string path_;
  bool device_;  // the whole SDFG is called from a kernel
  std::vector<Diagnostic>& out_;

  ElementRef at(const ControlFlowBlock& b) const {
    ElementRef r;
    r.sdfg = path_;
    if (b.kind() != BlockKind::SDFG) r.block_path = b.path();
    return r;
  }
  ElementRef at(const SDFGState& st, const Node& n) const {
    ElementRef r = at(st);
    r.node = static_cast<long>(n.id());
    r.node_label = n.label;
    return r;
  }
  void report(const std::string& code, const std::string& message, ElementRef where) {
    out_.push_back(Diagnostic{code, message, std::move(where)});
  }

  const DataDescriptor* desc(const std::string& name) const {
    auto it = sdfg_.arrays.find(name);
    return it == sdfg_.arrays.end() ? nullptr : &it->second;
  }

  static std::string storage_text(const DataDescriptor& d) { return std::string(to_string(d.storage)); }

  void check_control_flow() {
    // Names come from the parsed code; code that does not parse is reported by the code check.
    auto names_of = [](const CodeBlock& code) -> std::set<std::string> {
      try {
        return code_names(code).data();
      } catch (const Error&) {
        return {};
      }
    };
    auto check_code = [&](const CodeBlock& code, const std::string& what, const ElementRef& where) {
      for (const std::string& id : names_of(code))
        if (const DataDescriptor* d = desc(id); d && is_device_storage(d->storage))
          report("gpu-device-data-in-control-flow",
                 what + " reads '" + id + "', which is in GPU memory (" + storage_text(*d) +
                     "): host control flow cannot read it (copy it to a host container first)",
                 where);
    };
    for_each_region(sdfg_, [&](const ControlFlowRegion& r) {
      for (const ControlFlowEdge* e : r.edges()) {
        ElementRef where = at(r);
        where.edge = static_cast<long>(e->id);
        check_code(e->data.condition, "the interstate edge's condition", where);
        for (const auto& [target, value] : e->data.assignments)
          check_code(value, "the interstate assignment " + target + " = " + value.code, where);
      }
      if (const auto* loop = r.as<LoopRegion>()) {
        check_code(loop->init_statement, "the loop's init statement", at(r));
        check_code(loop->loop_condition, "the loop's condition", at(r));
        check_code(loop->update_statement, "the loop's update statement", at(r));
      }
      for (const ControlFlowBlock* b : r.blocks())
        if (const auto* c = b->as<ConditionalBlock>())
          for (const auto& branch : c->branches())
            if (branch.condition) check_code(*branch.condition, "a branch condition", at(*c));
    });
  }

  /// Per node: whether it runs in device code (memoized up the scope tree).
  std::vector<signed char> context_;
  const ScopeTree* tree_ = nullptr;
  const SDFGState* st_ = nullptr;

  bool in_device(NodeId n) {
    if (device_) return true;
    if (n >= tree_->parent.size()) return false;
    if (context_[n] >= 0) return context_[n] != 0;
    NodeId p = tree_->parent[n];
    bool dev = false;
    // A map exit belongs to its entry's scope; its context is the entry's.
    if (st_->node(n).kind() == NodeKind::MapExit)
      dev = p != kNoNode && in_device(p);
    else if (p != kNoNode) {
      const auto* me = st_->node(p).as<MapEntry>();
      dev = in_device(p) || (me && me->map && is_kernel_schedule(me->map->schedule));
    }
    context_[n] = dev ? 1 : 0;
    return dev;
  }

  void check_state(const SDFGState& st) {
    ScopeTree tree;
    try {
      tree = st.scope_tree();
    } catch (const std::exception&) {
      return;  // reported by the scope checks
    }
    tree_ = &tree;
    st_ = &st;
    context_.assign(st.node_capacity(), -1);
    // Containers with an access node in host code of this state (a Default transient that has
    // one lives in host memory).
    std::set<std::string> host_accessed;
    for (const Node* n : st.nodes())
      if (const auto* a = n->as<AccessNode>(); a && !in_device(a->id())) host_accessed.insert(a->data);
    for (const Node* n : st.nodes()) {
      bool dev = in_device(n->id());
      if (const auto* me = n->as<MapEntry>()) {
        if (!me->map) continue;
        ScheduleType s = me->map->schedule;
        if (!dev && is_block_schedule(s))
          report("gpu-threadblock-outside-kernel",
                 describe_node(*n) + " has schedule " + std::string(to_string(s)) +
                     " but is not inside a GPU_Device map (thread-block maps run inside kernels)",
                 at(st, *n));
        if (dev && s == ScheduleType::CPU_Multicore)
          report("gpu-cpu-schedule-in-kernel",
                 describe_node(*n) + " has schedule CPU_Multicore inside a GPU kernel", at(st, *n));
        if (!dev && is_kernel_schedule(s)) check_kernel_boundary(st, *me, host_accessed);
      } else if (const auto* a = n->as<AccessNode>()) {
        if (dev) check_device_access(st, *a);
      } else if (n->kind() == NodeKind::Tasklet || n->kind() == NodeKind::Library) {
        bool gpu_library = n->kind() == NodeKind::Library && is_gpu_schedule(n->as<LibraryNode>()->schedule);
        if (!dev && !gpu_library) check_host_code_node(st, *n);
      } else if (const auto* ns = n->as<NestedSDFGNode>()) {
        check_nested(st, *ns, dev);
      }
    }
    tree_ = nullptr;
    st_ = nullptr;
  }

  /// Memlets entering or leaving a kernel map name data the kernel reads or writes.
  void check_kernel_boundary(const SDFGState& st, const MapEntry& me,
                             const std::set<std::string>& host_accessed) {
    std::map<std::string, bool> touched;  // data -> written
    for (EdgeId id : st.in_edges(me.id()))
      if (!st.edge(id).memlet.is_empty()) touched.emplace(st.edge(id).memlet.data, false);
    if (st.has_node(me.exit))
      for (EdgeId id : st.out_edges(me.exit))
        if (!st.edge(id).memlet.is_empty()) touched[st.edge(id).memlet.data] = true;
    for (const auto& [name, written] : touched) {
      const DataDescriptor* d = desc(name);
      if (!d) continue;
      std::string why = host_memory(*d, host_accessed.count(name) != 0, written);
      if (!why.empty())
        report("gpu-host-data-in-kernel",
               describe_node(me) + " (" + std::string(to_string(me.map->schedule)) + ") " +
                   (written ? "writes" : "reads") + " '" + name + "', " + why,
               at(st, me));
    }
  }

  /// Why a kernel cannot use `d` (empty when it can).
  static std::string host_memory(const DataDescriptor& d, bool host_accessed, bool written) {
    if (is_device_storage(d.storage) || d.storage == StorageType::CPU_Pinned) return "";
    // Scalars outside GPU memory reach kernels by value (DaCe's calling convention).
    if (d.is_scalar())
      return written ? "a host scalar (" + storage_text(d) +
                           "): kernels get scalars by value and cannot write them"
                     : "";
    switch (d.storage) {
      case StorageType::CPU_Heap:
      case StorageType::CPU_ThreadLocal: return "which is in host memory (" + storage_text(d) + ")";
      case StorageType::Default:
      case StorageType::Register:
        if (d.transient && !host_accessed && d.storage == StorageType::Register) return "";
        return "which is in host memory (storage " + storage_text(d) +
               (d.transient ? " transient" : " argument") + " outside the kernel)";
      default: return "whose storage " + storage_text(d) + " a CUDA kernel cannot access";
    }
  }

  void check_device_access(const SDFGState& st, const AccessNode& a) {
    const DataDescriptor* d = desc(a.data);
    if (!d) return;
    bool written = !st.in_edges(a.id()).empty();
    std::string why;
    if (d->storage == StorageType::CPU_Heap || d->storage == StorageType::CPU_ThreadLocal)
      why = "which is in host memory (" + storage_text(*d) + ")";
    else if (d->is_scalar() && !d->transient && written && !device_)
      why = "a host scalar argument: kernels get scalars by value and cannot write them";
    else if (!d->transient && !d->is_scalar() && d->storage == StorageType::Default && !device_)
      why = "an argument in host memory (storage Default)";
    if (!why.empty())
      report("gpu-host-data-in-kernel",
             describe_node(a) + " inside a GPU kernel " + (written ? "writes" : "reads") + " '" + a.data +
                 "', " + why,
             at(st, a));
  }

  void check_host_code_node(const SDFGState& st, const Node& n) {
    std::set<std::string> seen;
    auto check = [&](EdgeId id, bool write) {
      const Memlet& m = st.edge(id).memlet;
      if (m.is_empty() || !seen.insert(m.data).second) return;
      const DataDescriptor* d = desc(m.data);
      if (d && is_device_storage(d->storage))
        report(
            "gpu-device-data-on-host",
            describe_node(n) + " runs on the host but " + (write ? "writes" : "reads") + " '" + m.data +
                "', which is in GPU memory (" + storage_text(*d) + ")" +
                (n.kind() == NodeKind::Library ? ": give it a GPU schedule or copy the data to the host"
                                               : ": put it in a GPU_Device map or copy the data to the host"),
            at(st, n));
    };
    for (EdgeId id : st.in_edges(n.id())) check(id, false);
    for (EdgeId id : st.out_edges(n.id())) check(id, true);
  }

  void check_nested(const SDFGState& st, const NestedSDFGNode& ns, bool dev) {
    if (!ns.sdfg) return;
    const SDFG& inner = *ns.sdfg;
    // An argument of the nested SDFG is the outer container: host stays host, device device.
    auto side = [&](EdgeId id, const std::string& conn) {
      const Memlet& m = st.edge(id).memlet;
      const DataDescriptor* outer = m.is_empty() ? nullptr : desc(m.data);
      auto it = inner.arrays.find(conn);
      if (!outer || it == inner.arrays.end() || it->second.is_scalar() || outer->is_scalar()) return;
      bool outer_dev = is_device_storage(outer->storage), inner_dev = is_device_storage(it->second.storage);
      bool inner_host =
          it->second.storage == StorageType::CPU_Heap || it->second.storage == StorageType::CPU_ThreadLocal;
      // Host code of a nested SDFG sees the container as declared inside: it must say GPU
      // memory when the outer one is (device code reads both alike).
      bool mismatch =
          dev ? outer_dev && inner_host : outer_dev != inner_dev && outer->storage != StorageType::CPU_Pinned;
      if (mismatch)
        report("gpu-nested-storage",
               describe_node(ns) + ": its container '" + conn + "' (" + storage_text(it->second) +
                   ") is the outer container '" + m.data + "' (" + storage_text(*outer) +
                   "): host and GPU memory differ, give both the same storage",
               at(st, ns));
    };
    for (EdgeId id : st.in_edges(ns.id())) side(id, st.edge(id).dst_conn);
    for (EdgeId id : st.out_edges(ns.id())) side(id, st.edge(id).src_conn);
    if (uses_gpu(inner) || dev) GpuChecker(inner, path_ + "/" + inner.name, dev, out_).run();
  }
};

/// Whether a nested SDFG validated on its own is called from a kernel (parent links).
bool called_from_device(const SDFG& sdfg) {
  const NestedSDFGNode* node = sdfg.parent_node();
  const SDFGState* st = sdfg.parent_state();
  if (!node || !st) return false;
  try {
    ScopeTree tree = st->scope_tree();
    for (NodeId p = tree.parent[node->id()]; p != kNoNode; p = tree.parent[p])
      if (const auto* me = st->node(p).as<MapEntry>(); me && me->map && is_kernel_schedule(me->map->schedule))
        return true;
  } catch (const std::exception&) {
    return false;
  }
  const SDFG* outer = st->sdfg();
  return outer && outer != &sdfg && called_from_device(*outer);
}

}  // namespace

void validate_gpu(Validator& v) {
  // Nested SDFGs are checked from their parent (which knows whether they run in a kernel).
  if (v.depth != 0) return;
  if (!uses_gpu(v.sdfg) && !called_from_device(v.sdfg)) return;
  GpuChecker(v.sdfg, v.name_path, called_from_device(v.sdfg), v.out).run();
}

}  // namespace weir::detail
