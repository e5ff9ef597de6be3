// Generation of one state's dataflow as a C++ function: StateGen walks the scopes (maps) and
// emits tasklets, memlets, views and nested SDFG calls itself; the other families are classes
// of their own that read the StateGen they work for (ADR 0033): BoundsCheckGen
// (bounds_check_gen.h), LibraryGen (library_gen.h), CopyGen (copy_gen.h), ParallelMapGen
// (parallel_map_gen.h), ConcurrentAccess (concurrent_access.h), StreamGen (stream_gen.h) and the
// CUDA emitter's CudaKernelGen (cuda_kernel_gen.h).
#pragma once

#include <functional>
#include <map>

#include "block_statics.h"
#include "bounds_check_gen.h"
#include "codegen_internal.h"
#include "concurrent_access.h"
#include "weir/sdfg/dependence.h"
#include "weir/sdfg/thread_choice.h"

namespace weir::codegen::detail {

struct StreamPlan;

/// One enclosing map scope while its body is generated.
/// A write-conflict-resolved output of a tasklet directly in a parallel map that every
/// iteration writes at the same element (a reduction to a scalar: DaCe's Reduce expanded as a
/// map): each thread combines its values in `var` and the map combines the threads' partials
/// into the element once (parallel_reduction.cpp).
struct Partial {
  std::string var, have;  // the accumulator and whether it holds a value
  // Filled by the tasklet's code: the element, its type and the WCR.
  std::string target, wcr;
  ScalarType type = ScalarType::Float64;
  bool used = false;
};

struct Frame {
  NodeId entry = kNoNode;
  /// Its loops run as `#pragma omp parallel for`.
  bool parallel = false;
  /// Parameters of the loops distributed over threads (the collapsed ones).
  std::vector<std::string> parallel_params;
  /// Symbols the scope defines (map parameters, dynamic range inputs) and their types.
  std::vector<std::pair<std::string, ScalarType>> symbols;
  /// Containers each thread of the parallel loop reduces into a copy of its own
  /// (parallel_privatization.cpp): their WCR writes need no atomics.
  std::set<std::string> privatized;
  /// The map records "streaming stores off" (weir/sdfg/streaming_choice.h): no row in its scope
  /// streams (streaming_stores.cpp).
  bool streaming_off = false;
};

/// Where a memlet points: a container (or an edge variable) and the start of its subset.
struct Location {
  std::string data;  // container name; empty for an edge variable
  const Binding* binding = nullptr;
  std::string var;  // edge variable (tasklet -> tasklet) when data is empty
  Subset subset;
  ScalarType type = ScalarType::Float64;
  /// The memlet's `wcr_nonatomic`: a pass proved that concurrent iterations never update the
  /// same element (cpu-schedules, weir/sdfg/dependence.h), or DaCe's user asked for plain updates.
  bool wcr_nonatomic = false;
  /// The lvalue of the subset's first element.
  std::string element() const;
  /// A pointer to the subset's first element.
  std::string pointer() const;
  /// Start index per dimension.
  std::vector<sym::Expr> start() const;
  bool single_element() const;
};

/// Containers a state function declares (views, local transients, kernel parameters) by name,
/// and the C++ names they spell: each tasklet asks whether a connector's C++ name is one of
/// them (StateGen::container_cpp_name), which a scan of every binding would make quadratic in a
/// big state's size (ADR 0024).
class Bindings {
 public:
  const Binding* find(const std::string& data) const;
  /// Binds `data` to `b` (replacing its binding, if any).
  void set(const std::string& data, Binding b);
  /// Whether a binding's C++ name is `cpp`.
  bool spells(const std::string& cpp) const { return cpp_names_.count(cpp) > 0; }
  const std::map<std::string, Binding>& all() const { return by_data_; }
  /// From here on, set() remembers what it replaces, so that rollback(mark) can undo it (a CUDA
  /// kernel's bindings, without copying the state's: ADR 0024).
  std::size_t mark();
  /// Undoes every set() since `mark` (the matching mark()'s result; marks nest).
  void rollback(std::size_t mark);

 private:
  void put(const std::string& data, std::optional<Binding> b);
  std::map<std::string, Binding> by_data_;
  std::map<std::string, std::size_t> cpp_names_;  // C++ name -> how many bindings spell it
  /// While marked: (container, its binding before a set()) per set(), oldest first.
  std::vector<std::pair<std::string, std::optional<Binding>>> undo_;
  int marks_ = 0;
};

/// How a tasklet connector reaches its data in the tasklet's block (tasklet_connectors.cpp).
enum class ConnKind {
  Value,      // a local copy of one element (written back after the code for outputs)
  Pointer,    // a pointer to the subset's first element
  Reference,  // a reference to one data-dependent (dynamic) element
  Hooked,     // Python writes with write-conflict resolution, through the translator's write hook
};

/// One connector of a tasklet as the generated block sees it.
struct Conn {
  std::string name;  // connector (as the code spells it)
  std::string cpp;   // C++ name inside the code block
  ScalarType type = ScalarType::Float64;
  ConnKind kind = ConnKind::Value;
  std::vector<Location> locs;
  std::string wcr;
  bool multi = false;  // points at several elements
};

/// The check after the code of a tasklet that declares a fault (weir/sdfg/tasklet_fault.h):
/// where its code connector is not 0, the fault is recorded (its message, with the argument
/// connector's value) and raised after the state (tasklet_fault.cpp). Nothing for a tasklet
/// without one. `outs`: its output connectors; `device`: in GPU code, where a declared fault is
/// a CodegenError at `where` (the fault state is the host's), as a malformed declaration is.
void emit_tasklet_fault(const Tasklet& t, const std::vector<Conn>& outs, bool device, const ElementRef& where,
                        Writer& w);

/// Whether `n` runs code (tasklet, nested SDFG, library node): an edge between two code nodes is
/// an edge variable, not a memlet into a container.
bool is_code_node(const Node& n);
/// The scalar type of connector `c` in `m` (nullopt if untyped, void or raw JSON); `*pointer`
/// (if given) tells whether it is a pointer.
std::optional<ScalarType> connector_type(const ConnectorMap& m, const std::string& c, bool* pointer);
/// The nodes of map `entry`'s scope in `st`: the entry, every node inside (nested scopes too) and
/// the map exits. `children`: the nodes of each scope (StateGen's, in the order it emits them).
std::vector<NodeId> scope_nodes(const SDFGState& st, const std::map<NodeId, std::vector<NodeId>>& children,
                                NodeId entry);

class StateGen {
 public:
  StateGen(SdfgGen& sg, const SDFGState& st);

  /// Emits the function body (everything between the braces).
  void emit_state_body(Writer& w);

  SdfgGen& sg;
  const SDFGState& st;
  const CodegenOptions& opts;
  /// The state function's name, parameters and the arguments that pass them (generate_state).
  std::string function;
  std::vector<std::string> params, args;

  // --- what a target emitter (target_emitter.h) builds on ---------------------------------
  /// Whether the code being generated runs on the device (a CUDA kernel or device function):
  /// inside a parallel scope of a target whose parallel scopes run there.
  bool device_code() const;
  ElementRef ref(const Node& n) const { return sg.ref(&st, static_cast<long>(n.id()), n.label); }

 private:
  // --- scopes (dataflow_codegen.cpp) ----------------------------------------------------
  void emit_scope(NodeId scope, Writer& w);
  /// The top-level nodes `nodes`; in a big state (over CodegenOptions::unit_bytes / 2), consecutive
  /// ones as functions of about unit_bytes / 4 that the state function calls, so that they can go
  /// to several translation units (program_units.cpp): a state after auto_optimize may hold a
  /// whole program. Returns false, having emitted nothing, where they may not go into several
  /// functions: unit_bytes 0, a target that compiles one unit (CUDA), a nested SDFG's state, one
  /// its caller calls in parallel, or code nodes at the top level (they may share edge variables).
  bool emit_parts(const std::vector<NodeId>& nodes, Writer& w);
  void emit_node(const Node& n, Writer& w);
  /// The node's code without its timer (emit_node adds it for a timed element).
  void emit_untimed(const Node& n, Writer& w);
  void declare_transients(NodeId scope, Writer& w);
  /// Defines the views of `scope`; returns the tests (C++ conditions that are true on failure,
  /// with their messages) of the reaches that depend on values of the scope (a map's parameters):
  /// emit_scope runs the scope's body only when none fails (ADR 0037).
  std::vector<std::pair<std::string, std::string>> define_views(NodeId scope, Writer& w);
  /// Whether a code block is inside a parallel loop of this function or its caller.
  bool in_parallel() const;
  /// Index of the innermost parallel frame, -1 if none.
  int parallel_frame() const;
  /// A dynamic map range input (connector `c` of `e`, not IN_*): where its one edge reads
  /// (`loc`) and its C++ type (integers widen to int64). Throws CodegenError for != 1 edge.
  ScalarType dynamic_input(const MapEntry& e, const std::string& c, Location& loc) const;

  // --- tasklets (tasklet_codegen.cpp) ---------------------------------------------------
  void emit_tasklet(const Tasklet& t, Writer& w);
  /// Whether a container visible here is spelled `cpp` in C++ (a connector must not shadow it in
  /// the statements around the code). Asked per name: the body's containers are not copied.
  bool container_cpp_name(const std::string& cpp) const;
  /// The tasklet's block: connector declarations, the code lines, write-backs. `pre`: edge
  /// variables declared before it; `used`: the names the code uses; `indirect`: a connector
  /// shadows an outer name, so declarations go through temporaries; `hoisted`: input
  /// connectors declared before the loops instead (hoist_->declarations).
  void emit_tasklet_block(const Tasklet& t, const std::vector<Conn>& ins, const std::vector<Conn>& outs,
                          const std::vector<std::string>& pre, const std::vector<std::string>& code,
                          const std::set<std::string>& used, bool python, bool indirect, Writer& w,
                          const std::set<std::string>& hoisted = {});
  // --- tasklet connectors (tasklet_connectors.cpp) ---------------------------------------
  /// The input connectors with an edge; `subscripted`: connectors Python code subscripts.
  std::vector<Conn> tasklet_inputs(const Tasklet& t, bool python,
                                   const std::set<std::string>& subscripted) const;
  /// The output connectors; declares the edge variables of tasklet -> code node edges (into `pre`).
  std::vector<Conn> tasklet_outputs(const Tasklet& t, bool python, const std::set<std::string>& subscripted,
                                    std::vector<std::string>& pre);
  // --- tasklet code (tasklet_code.cpp) ---------------------------------------------------
  /// Python code translated to C++ lines; `used` gets the connectors it uses. Its locals avoid
  /// `symbol_names` (C++ names of `syms`) and the containers' names.
  /// `hoist`: the loops to hoist invariant code out of (null: none).
  std::vector<std::string> python_tasklet_code(const Tasklet& t, const std::vector<Conn>& ins,
                                               const std::vector<Conn>& outs,
                                               const std::map<std::string, ScalarType>& syms,
                                               const std::set<std::string>& symbol_names,
                                               std::set<std::string>& used, const LoopHoist* hoist = nullptr);

  // --- loop-invariant code motion (loop_hoisting.cpp, docs/adr/0041) ---------------------
  /// What a sequential innermost map hoists out of its loops: set by emit_map while it emits
  /// the body of a map that qualifies, filled by the one Python tasklet inside.
  struct HoistPlan {
    NodeId entry = kNoNode;
    NodeId tasklet = kNoNode;  ///< the tasklet whose invariant part is hoisted (hoisted_tasklet)
    /// Its parameters and, from the tasklet, what varies; the translator's hoisted code.
    LoopHoist loops;
    /// Declarations of the tasklet's invariant input connectors (before loops.lines).
    std::vector<std::string> declarations;
  };
  HoistPlan* hoist_ = nullptr;

  // --- streaming stores and prefetch (StreamGen, stream_gen.h; docs/adr/0041) --------------
  /// The plan of the map whose body is being emitted (null: none streams).
  StreamPlan* stream_ = nullptr;
  /// Entries of the maps whose loops end with weir_stream_fence() on each thread (StreamPlan::
  /// fence_at of the streaming maps inside them).
  std::set<NodeId> stream_fences_;
  /// Per fence map (stream_fences_), what each streamed row's nest found before the map's choice
  /// of store kind: a C++ test of the call's sizes that is false where the row cannot stream
  /// (weir_stream_may), or "true" where it depends on the enclosing loops (StreamGen).
  std::map<NodeId, std::vector<std::string>> stream_gates_;
  /// Fence maps whose parallel branch of a measured thread choice holds the store choice itself
  /// (emit_map): emit_map_choosing_stores does not make copies of them again.
  std::set<NodeId> stores_chosen_;
  /// Block-scope statics of the code being emitted, hoisted while a map is emitted for two
  /// copies (emit_map_choosing_stores).
  BlockStatics statics_;

  // --- memlets (memlet_codegen.cpp) -----------------------------------------------------
  /// Location of `subset` of container `data` (must be bound).
  Location location(const std::string& data, const Subset& subset) const;
  /// Location an edge into/out of a code node points at: an edge variable for tasklet ->
  /// tasklet edges, else the memlet's container and subset.
  Location edge_location(const DataflowEdge& e, bool incoming) const;
  /// C++ statements applying write-conflict resolution `wcr` to `target` with `value`
  /// (`#pragma omp atomic` or a compare-and-swap update when `atomic`).
  std::string wcr_update(const std::string& wcr, const std::string& target, const std::string& value,
                         ScalarType type, bool atomic) const;

  // --- maps (map_codegen.cpp) -----------------------------------------------------------
  /// Map `e` as a loop nest: with OpenMP where it runs in parallel and the verdict
  /// (threads_verdict) is not one thread, per-thread partials or copies of its reductions.
  void emit_map(const MapEntry& e, Writer& w);
  /// Map `e`'s dynamic range inputs (its connectors that are not IN_*): declared as constants
  /// in `pre` and added to `frame`'s symbols.
  void declare_dynamic_inputs(const MapEntry& e, Frame& frame, Writer& pre) const;
  /// The timer slot of the map, library node or nested SDFG call that is the whole body of map
  /// `e` (its only child, timed, on the CPU, and `e` declares nothing in its scope and is not
  /// vectorized): that node is then timed once per thread around `e`'s loops, not around each of
  /// its executions (docs/adr/0048, "one clock read per chunk"); nullopt otherwise.
  std::optional<std::size_t> chunk_timer_slot(const MapEntry& e) const;
  /// The node whose timer the loops being emitted hold (chunk_timer_slot): emit_node emits it
  /// untimed. kNoNode outside such loops.
  NodeId chunk_timed_ = kNoNode;
  /// The body of `frame.entry`'s scope emitted with `frame` as its innermost frame.
  void emit_scope_in(const Frame& frame, Writer& w);
  /// Whether map `m`'s schedule runs on OpenMP's threads here (not inside another parallel
  /// loop); a GPU schedule without gpu_as_cpu or an unknown one is a CodegenError at `where`.
  bool map_is_parallel(const MapInfo& m, const ElementRef& where) const;

  // --- nested SDFGs (library_codegen.cpp; library nodes: library_gen.h) -------------------
  void emit_nested(const NestedSDFGNode& n, Writer& w);
  /// What the function of nested SDFG `n` (its connectors `cv`), called by concurrent iterations,
  /// knows of the calling iteration (`ng`'s calling_* sets, private_params, fixed_base_params):
  /// which of its symbols are the concurrent parameters or invariant, and which connectors' memory
  /// is the iteration's own or at a fixed place, so that its WCR writes need atomics only where
  /// concurrent calls can meet (ConcurrentAccess::needs_atomic).
  void describe_calling_iteration(const NestedSDFGNode& n, const std::vector<std::string>& cv,
                                  SdfgGen& ng) const;
  /// The connectors of `n` (among `conns`) whose pointers may be `__restrict__`
  /// (Binding::unaliased): each the only connector of its outer container, which is no view and
  /// is distinct memory here (top level, a transient, or an unaliased parameter itself).
  std::set<std::string> unaliased_connectors(const NestedSDFGNode& n,
                                             const std::vector<std::string>& conns) const;

  /// Partials of the map being emitted, by (tasklet, connector).
  std::map<std::pair<NodeId, std::string>, Partial> partials_;
  // --- helpers ---------------------------------------------------------------------------
  std::string fresh(const std::string& base) { return base + std::to_string(counter_++); }
  /// A loop variable `base` + k for copies and reductions that no visible name uses.
  std::string loop_var(const std::string& base, std::size_t k) const;
  /// Every symbol visible at this point (body symbols and enclosing scopes' symbols).
  std::map<std::string, ScalarType> visible_symbols() const;

  friend class BoundsCheckGen;
  friend class LibraryGen;
  friend class ConcurrentAccess;
  friend class ParallelMapGen;
  friend class CopyGen;
  friend class CudaKernelGen;
  friend class StreamGen;
  ScopeTree scopes_;
  std::map<NodeId, std::vector<NodeId>> children_;
  std::vector<Frame> frames_;
  /// Containers declared in this state (views, local transients, kernel parameters); they hide
  /// the body's (sg.body_data), which are not copied per state (linear generation, ADR 0024).
  Bindings bindings_;
  /// The transients this state declares, by the scope that declares them (kNoNode: the state
  /// function's top), in sg.state_homes' order: declare_transients looks up only its scope's.
  std::map<NodeId, std::vector<std::string>> transients_by_scope_;
  /// Containers that an access node of this state asks to be zeroed (AccessNode::setzero).
  std::set<std::string> zeroed_;
  /// CUDA: the register transients each kernel declares for its threads (SdfgGen::kernel_private,
  /// homed outside any map), in sg.homes' order; computed by the first kernel.
  std::optional<std::vector<std::string>> kernel_privates_;
  /// The binding of container `data` visible at this point (bindings_, then the body's), or null.
  const Binding* binding(const std::string& data) const;
  /// (node, out connector) of a code node whose value flows to another code node -> variable.
  std::map<std::pair<NodeId, std::string>, std::pair<std::string, ScalarType>> edge_vars_;
  std::set<EdgeId> view_edges_;
  int counter_ = 0;
  /// The bounds checks of this state (bounds_check_gen.h).
  BoundsCheckGen checks_{*this};
};

/// The container names map `m` records in `attribute` (kPartialsAttribute or
/// kPrivatizedAttribute, weir/sdfg/reduction_choice.h), nullopt without a record. Throws
/// CodegenError at `where` for a malformed record or one naming a container not in `proved`
/// (what the analysis proves here): a wrong record would change results (parallel_reduction.cpp).
std::optional<std::set<std::string>> recorded_reductions(const MapInfo& m, const char* attribute,
                                                         const std::set<std::string>& proved,
                                                         const ElementRef& where);

/// Trusted global / init / exit C++ around tasklet `t` (check_user_code refused it otherwise),
/// into the program (tasklet_code.cpp).
void hoist_user_code(Program& prog, const Tasklet& t);
/// The code of C++ tasklet `t` as its lines (taken as written: check_user_code accepted it); `used`
/// gets its identifiers, and the program the headers and libraries it may call (tasklet_code.cpp).
std::vector<std::string> cpp_tasklet_code(Program& prog, const Tasklet& t, std::set<std::string>& used);
/// The libraries a C++ tasklet's code or DaCe environments need (CBLAS, LAPACKE), linked into
/// the program (tasklet_code.cpp).
void use_environments(Program& prog, const Tasklet& t);

/// The C++ spelling of a memlet subset for comments: "A[0:N, i]".
std::string memlet_text(const std::string& data, const Subset& s);

}  // namespace weir::codegen::detail
