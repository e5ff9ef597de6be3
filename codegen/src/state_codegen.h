// Generation of one state's dataflow as a C++ function: scopes (maps), tasklets, copies, views,
// nested SDFG calls and library nodes. Shared by dataflow_codegen.cpp, tasklet_*.cpp,
// memlet_codegen.cpp and library_codegen.cpp.
#pragma once

#include <functional>

#include "codegen_internal.h"
#include "weir/sdfg/dependence.h"
#include "weir/sdfg/thread_choice.h"

namespace weir::codegen::detail {

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

struct BlasOperand;
struct BlasCall;

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

/// Whether `n` runs code (tasklet, nested SDFG, library node): an edge between two code nodes is
/// an edge variable, not a memlet into a container.
bool is_code_node(const Node& n);
/// The scalar type of connector `c` in `m` (nullopt if untyped, void or raw JSON); `*pointer`
/// (if given) tells whether it is a pointer.
std::optional<ScalarType> connector_type(const ConnectorMap& m, const std::string& c, bool* pointer);

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
  /// CUDA (cuda_kernels.cpp): a GPU_Device map of host code as a `__global__` kernel and its
  /// launch; a host <-> device copy of host code (cudaMemcpyAsync per contiguous block).
  void emit_kernel(const MapEntry& e, Writer& w);
  void emit_device_copy(const Location& S, const Location& D, const std::vector<std::size_t>& sd,
                        const std::vector<std::size_t>& dd, Writer& w);

 private:
  // --- scopes (dataflow_codegen.cpp) ----------------------------------------------------
  void emit_scope(NodeId scope, Writer& w);
  /// Whether the state's top-level nodes may go into several functions (emit_parts).
  bool may_split() const;
  /// The top-level nodes `nodes`; in a big state (over CodegenOptions::unit_bytes / 2), consecutive
  /// ones as functions of about unit_bytes / 4 that the state function calls, so that they can go
  /// to several translation units (program_units.cpp): a state after auto_optimize may hold a
  /// whole program.
  void emit_parts(const std::vector<NodeId>& nodes, Writer& w);
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
  /// Whether a write-conflict-resolved write through `loc` must be atomic.
  bool tasklet_wcr_atomic(const Location& loc, bool multi) const;
  // --- tasklet code (tasklet_code.cpp) ---------------------------------------------------
  /// Python code translated to C++ lines; `used` gets the connectors it uses. Its locals avoid
  /// `symbol_names` (C++ names of `syms`) and the containers' names.
  /// `hoist`: the loops to hoist invariant code out of (null: none).
  std::vector<std::string> python_tasklet_code(const Tasklet& t, const std::vector<Conn>& ins,
                                               const std::vector<Conn>& outs,
                                               const std::map<std::string, ScalarType>& syms,
                                               const std::set<std::string>& symbol_names,
                                               std::set<std::string>& used, const LoopHoist* hoist = nullptr);
  /// C++ code as its lines; `used` gets its identifiers.
  std::vector<std::string> cpp_tasklet_code(const Tasklet& t, std::set<std::string>& used);
  /// Trusted global / init / exit C++ around the tasklet, into the program.
  void hoist_user_code(const Tasklet& t);
  void use_environments(const Tasklet& t);

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
  /// The tasklet of map `e`'s scope whose invariant part may run before the loops: the scope
  /// holds only Python tasklets and transient scalars between them, and of the tasklets the
  /// one with the most inputs, when no other tasklet there writes a container it reads (the one
  /// tasklet of a field-view K map; a fusion's producer copy beside its consumer); kNoNode
  /// otherwise.
  NodeId hoisted_tasklet(const MapEntry& e) const;
  /// C++ that is true when map `e`'s loops run at least once, when its body can be hoisted
  /// from: a sequential map with a hoisted_tasklet, with steps of +1 or -1 and bounds that do
  /// not use its own parameters (sets `loops.params`); nullopt otherwise.
  std::optional<std::string> hoisting_guard(const MapEntry& e, const std::vector<std::optional<int>>& sign,
                                            LoopHoist& loops) const;
  /// For the tasklet of hoist_'s map: the input connectors whose value is the same in every
  /// iteration (memlets without the loops' parameters, containers the tasklet does not write,
  /// names the code does not assign); fills hoist_->loops.variant with the others.
  std::set<std::string> invariant_connectors(const Tasklet& t, const std::vector<Conn>& ins,
                                             const std::vector<Conn>& outs);
  HoistPlan* hoist_ = nullptr;

  // --- scopes as a whole (cuda_kernels.cpp) -----------------------------------------------
  /// The nodes of map `entry`'s scope: the entry, every node inside (nested scopes too) and the
  /// map exits.
  std::vector<NodeId> scope_nodes(NodeId entry) const;
  // --- scatter reductions into per-thread copies (parallel_privatization.cpp) ------------
  struct Privatized {
    std::string data;  // the container
    std::string op;    // compound operator of its WCR: + * & | ^
    ScalarType type;
    sym::Expr size;  // elements of its allocation (total_size)
  };
  /// Containers parallel map `e` only updates with one reassociable WCR and never reads, when
  /// the map is the outermost parallel code (empty otherwise).
  std::vector<Privatized> plan_privatized(const MapEntry& e) const;
  /// `loops` (a `#pragma omp for` nest) inside a parallel region where each thread's `privs`
  /// are copies of its own, filled with the identity and combined into the containers after.
  void emit_privatized(const std::vector<Privatized>& privs, const std::function<void(Writer&)>& loops,
                       Writer& w);
  /// Whether a memlet inside map `entry`'s scope moves complex64/128 data (tasklet connectors
  /// and scalars of std::complex type in the generated body).
  bool moves_complex_values(const MapEntry& entry) const;

  // --- memlets (memlet_codegen.cpp) -----------------------------------------------------
  /// Location of `subset` of container `data` (must be bound).
  Location location(const std::string& data, const Subset& subset) const;
  /// Location an edge into/out of a code node points at: an edge variable for tasklet ->
  /// tasklet edges, else the memlet's container and subset.
  Location edge_location(const DataflowEdge& e, bool incoming) const;
  /// An access-node copy (also scope entry -> access node, access node -> scope exit).
  void emit_access(const AccessNode& n, Writer& w);
  void emit_copy(const DataflowEdge& e, const std::string& src, const std::string& dst, Writer& w);
  /// emit_copy inside its timer when the edge's `instrument` is Timer (timers.cpp).
  void emit_copy_timed(const DataflowEdge& e, const std::string& src, const std::string& dst, Writer& w);
  /// C++ statements applying write-conflict resolution `wcr` to `target` with `value`
  /// (`#pragma omp atomic` or a compare-and-swap update when `atomic`).
  std::string wcr_update(const std::string& wcr, const std::string& target, const std::string& value,
                         ScalarType type, bool atomic) const;
  /// Whether a write-conflict-resolved write to `data` at `idx` may race with another thread.
  bool needs_atomic(const std::string& data, const std::vector<sym::Expr>& idx) const;
  /// The parameters whose iterations run concurrently with this code: the innermost parallel
  /// frame's, or in a nested SDFG called in parallel its symbols that are the calling loop's
  /// parameters (SdfgGen::calling_parallel_symbols); nullopt when unknown or not parallel.
  std::optional<std::vector<std::string>> concurrent_params() const;
  /// Whether symbol `s` has one value in all concurrent iterations: in the state's parallel map,
  /// any symbol but the parameters of its scope and the scopes inside it; in a nested SDFG
  /// called in parallel, a symbol mapped from such (SdfgGen::calling_invariant_symbols) that the
  /// nested SDFG does not assign. false when nothing runs in parallel.
  bool invariant(const std::string& s) const;
  /// Whether every symbol of `region` is invariant.
  bool invariant(const Subset& region) const;
  /// The concurrent iterations of `params` for the dependence analysis (weir/sdfg/dependence.h):
  /// the symbols invariant() accepts are fixed.
  Concurrency concurrency(const std::vector<std::string>& params) const;
  /// Whether each of concurrent_params() separates its own dimension of `idx` (as a*param + b,
  /// a a nonzero integer, b invariant): concurrent iterations touch disjoint elements
  /// (disjoint_points).
  bool pins_parallel_params(const std::vector<sym::Expr>& idx) const;
  /// Whether `data`'s element 0 is the same place for every concurrent iteration (a container,
  /// a transient, a connector whose outer memlet does not move with them, a view of a fixed
  /// slice of such): then indices that pin the parameters are disjoint places.
  bool fixed_base(const std::string& data) const;
  /// The same for a region: only its single-point dimensions count.
  bool pins_parallel_params(const Subset& region) const;
  /// In a nested SDFG called in parallel: whether `data` is memory other calls may write too
  /// (not a transient of the call, not a private parameter; a view as what it views).
  bool shared_by_calls(const std::string& data) const;
  /// Whether `data` belongs to one iteration of the innermost parallel frame: allocated in its
  /// body, or a view defined there of a slice pinned by the parallel parameters.
  bool private_to_iteration(const std::string& data) const;
  /// The edge that defines a view access node (its "views" edge), or nullptr.
  const DataflowEdge* view_edge(const AccessNode& n) const;

  // --- maps (map_codegen.cpp) -----------------------------------------------------------
  /// Map `e` as a loop nest: with OpenMP where it runs in parallel and the verdict
  /// (threads_verdict) is not one thread, per-thread partials or copies of its reductions.
  void emit_map(const MapEntry& e, Writer& w);
  /// Whether map `m`'s schedule runs on OpenMP's threads here (not inside another parallel
  /// loop); a GPU schedule without gpu_as_cpu or an unknown one is a CodegenError at `where`.
  bool map_is_parallel(const MapInfo& m, const ElementRef& where) const;

  // --- nested SDFGs and library nodes (library_codegen.cpp) ------------------------------
  void emit_nested(const NestedSDFGNode& n, Writer& w);
  /// What the function of nested SDFG `n` (its connectors `cv`), called by concurrent iterations,
  /// knows of the calling iteration (`ng`'s calling_* sets, private_params, fixed_base_params):
  /// which of its symbols are the concurrent parameters or invariant, and which connectors' memory
  /// is the iteration's own or at a fixed place, so that its WCR writes need atomics only where
  /// concurrent calls can meet (StateGen::needs_atomic).
  void describe_calling_iteration(const NestedSDFGNode& n, const std::vector<std::string>& cv,
                                  SdfgGen& ng) const;
  /// The connectors of `n` (among `conns`) whose pointers may be `__restrict__`
  /// (Binding::unaliased): each the only connector of its outer container, which is no view and
  /// is distinct memory here (top level, a transient, or an unaliased parameter itself).
  std::set<std::string> unaliased_connectors(const NestedSDFGNode& n,
                                             const std::vector<std::string>& conns) const;

  // --- reductions to one element in parallel maps (parallel_reduction.cpp) --------------------
  /// Registers a Partial for each WCR output of a tasklet directly in the scope of map `e`
  /// whose element does not depend on the map's parameters; returns how many.
  std::size_t plan_partials(const MapEntry& e);
  /// The loops `nest` wrapped with the partials' declarations and their combination: in the
  /// parallel branch per thread (`#pragma omp parallel` + `omp for`, combined atomically), in the
  /// sequential one seeded with the element (the same order as without partials).
  void emit_with_partials(const std::function<void(bool, Writer&)>& nest, bool parallel, Writer& w);
  /// Partials of the map being emitted, by (tasklet, connector).
  std::map<std::pair<NodeId, std::string>, Partial> partials_;
  void emit_library(const LibraryNode& n, Writer& w);
  // --- BLAS library nodes as loops (blas_codegen.cpp) --------------------------------------
  void emit_blas(const LibraryNode& n, Writer& w);
  /// The location of connector `conn` of `n` (present = false if it has no edge).
  BlasOperand blas_operand(const LibraryNode& n, const std::string& conn, bool input) const;
  // --- LAPACK library nodes: Cholesky, Solve, Inv (lapack_codegen.cpp) --------------------
  /// Whether `n` is one of DaCe's linalg nodes that emit_lapack generates.
  static bool is_lapack(const LibraryNode& n);
  /// Emits `n` as loops (pure) or LAPACKE calls, by its implementation; a singular or not
  /// positive definite matrix is a fault raised after the state.
  void emit_lapack(const LibraryNode& n, Writer& w);
  /// Whether `n` is one of DaCe's lapack nodes (Getrf, Getrs, Getri, Potrf) that
  /// emit_lapack_factor generates (lapack_factor_codegen.cpp).
  static bool is_lapack_factor(const LibraryNode& n);
  /// Emits `n` as LAPACK's routine: loops, or one LAPACKE call for OpenBLAS, MKL or LAPACKE.
  void emit_lapack_factor(const LibraryNode& n, Writer& w);
  // --- HaloExchange, weir's distributed-memory node (halo_exchange_codegen.cpp) -----------
  /// Emits `n` as non-blocking MPI (MPI_Irecv/MPI_Isend/MPI_Waitall per decomposed axis, with
  /// packing and unpacking loops) and makes the program include <mpi.h> and link -lmpi.
  void emit_halo_exchange(const LibraryNode& n, Writer& w);
  // --- small parallel maps (parallel_threshold.cpp) ---------------------------------------
  /// One thread or many for parallel map `e`: the verdict cpu-schedules recorded on it, else
  /// choose_threads' (weir/sdfg/thread_choice.h). A malformed record is a CodegenError at the map.
  ThreadsVerdict threads_verdict(const MapEntry& e) const;
  /// A map of unknown work: `parallel` or `sequential` loops, chosen at run time from the
  /// one-thread time per point the sequential branch measured at earlier calls.
  /// `flat`: a body whose points are a fair measure of work (tiny maps skip the measuring).
  void emit_measured_choice(const sym::Expr& points, bool flat, const std::function<void(Writer&)>& parallel,
                            const std::function<void(Writer&)>& sequential, Writer& w);
  /// The `#pragma omp parallel for` of a library node's loops doing about `work` operations:
  /// none for a constant below the small-map threshold, an if() clause for a symbolic amount.
  std::string small_work_pragma(const sym::Expr& work) const;
  /// `loops` (a loop nest doing about `work` operations) with `#pragma omp parallel for` where
  /// the work is large, without where it is small, both behind a test where it is symbolic.
  void emit_parallel_loops(const sym::Expr& work, const Writer& loops, Writer& w);
  // --- BLAS library nodes as CBLAS calls (cblas_codegen.cpp) -----------------------------
  /// Whether `n`'s implementation is a CBLAS one (OpenBLAS, MKL, cBLAS: DaCe's names).
  static bool wants_cblas(const LibraryNode& n);
  /// Emits `c` as one CBLAS call and links the system's CBLAS; false (nothing emitted) where
  /// CBLAS cannot express it, and the loops run instead.
  bool emit_cblas(const BlasCall& c, Writer& w);

  // --- bounds checks of the outermost scopes (bounds_checks.cpp) -------------------------
  /// Emits the run-time checks of a node at the top of the state (outside maps) against the
  /// containers' shapes: its outer memlets, and for a map the inner ones over its range. In a
  /// nested SDFG's body a violation is recorded and the state returns (weir_bounds_ok); at the
  /// top level it throws. Nothing with CodegenOptions::bounds_checks off.
  void emit_bounds_checks(const Node& n, Writer& w);
  /// Appends `checks` to `w`; at the top level, checks that read only symbols are skipped while
  /// the symbols keep the values of the last passing checks (a thread_local cache per site).
  void append_checks(const Writer& checks, Writer& w);
  /// Checks of `subset` of container `data`; `map` (may be null): the map whose parameters an
  /// unpropagated subset may use; `node` (may be null): the node whose debuginfo locates the
  /// access when the memlet's does not; `edge` (may be null): the memlet's edge, whose inner
  /// memlets (through map scopes and into a nested SDFG) locate the access and tell a shifted
  /// read when the memlet itself, propagated by a transformation, says neither. `desc` (may be
  /// null): the descriptor to check against when `data` is no longer in the SDFG (an access a
  /// fusion removed, CheckedAccess); `data`'s own descriptor wins when it exists.
  void emit_memlet_checks(const Memlet& m, const std::string& data, const Subset& subset, bool write,
                          const std::string& where, const MapInfo* map, const Node* node,
                          const DataflowEdge* edge, Writer& w, const DataDescriptor* desc = nullptr);
  /// Checks of the accesses a fusion removed from map `me` (its kCheckedAccessesAttribute) into
  /// `checks`; `state_where` is the state's part of the error's location. Throws CodegenError
  /// at the map when the attribute is malformed.
  void removed_access_checks(const MapEntry& me, const std::string& state_where, Writer& checks);
  /// Whether `e` only uses symbols known before the state's top-level scopes run.
  bool checkable(const sym::Expr& e) const;
  /// C++ that is true when the data on connector `conn` of `node` (an in-connector of a map
  /// entry, or with `write` an out-connector of a map exit, inside top-level maps with
  /// parameters `params`) is not accessed at all: `node`'s map has no iterations, or every path
  /// of the memlet tree beyond it runs through a nested map without iterations. "" when it may
  /// be accessed or that cannot be told before the state runs (a nested range that uses
  /// `params` or symbols defined inside). Propagated subsets over an empty map need not be
  /// empty (DaCe's propagation: the hull of `i` and `i + 1` over i in [6, 5] is [6, 6]), so
  /// their checks need this guard.
  std::string idle_through(NodeId node, const std::string& conn, bool write,
                           std::set<std::string> params) const;
  /// The part of idle_through after `node`'s own map: true when every edge on the paired
  /// connector (IN_x -> OUT_x, with `write` OUT_x -> IN_x) reaches only nested maps without
  /// iterations; "" when one may access the data (or there is none).
  std::string idle_beyond(NodeId node, const std::string& conn, bool write,
                          const std::set<std::string>& params) const;
  /// C++ of the lowest / highest value of `e` over `map`'s iterations, nullopt if unknown.
  std::optional<std::string> extreme_over_map(const sym::Expr& e, const MapInfo* map, bool lowest) const;
  /// Run-time checks of the indices Python code computes for pointer connector `conn` of `t`
  /// (at `loc`): sets `v`'s extents and check site (nothing with bounds checks off, or for
  /// subsets with steps other than 1).
  void index_checks(const Tasklet& t, const std::string& conn, const Location& loc, PyVar& v) const;
  /// What a value connector's memlet reads ("E2V[Edge, 1]", map parameters as the error's map
  /// point names them) and where (its memlet's debuginfo), for the errors of index_checks: sets
  /// `v`'s origin and origin_at; nothing for non-integers.
  void value_origin(const DataflowEdge& e, ScalarType type, PyVar& v) const;
  /// Dynamic map range inputs of this state (defined inside their map's scope).
  std::set<std::string> dynamic_inputs_;
  bool dynamic_inputs_known_ = false;

  // --- helpers ---------------------------------------------------------------------------
  std::string fresh(const std::string& base) { return base + std::to_string(counter_++); }
  /// A loop variable `base` + k for copies and reductions that no visible name uses.
  std::string loop_var(const std::string& base, std::size_t k) const;
  /// Every symbol visible at this point (body symbols and enclosing scopes' symbols).
  std::map<std::string, ScalarType> visible_symbols() const;
  /// The C++ test (true when it fails) of a reach condition checked where the scope runs (a
  /// view's or a nested SDFG argument's reach on a map's parameters, ADR 0037). Throws
  /// CodegenError at `where` when it depends on a value the scope does not know or has no C++
  /// spelling: such a reach is refused, never left unchecked.
  std::string scope_reach_test(const LayoutCondition& c, const ElementRef& where) const;
  bool comments() const { return opts.emit_comments; }

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
};

/// The container names map `m` records in `attribute` (kPartialsAttribute or
/// kPrivatizedAttribute, weir/sdfg/reduction_choice.h), nullopt without a record. Throws
/// CodegenError at `where` for a malformed record or one naming a container not in `proved`
/// (what the analysis proves here): a wrong record would change results (parallel_reduction.cpp).
std::optional<std::set<std::string>> recorded_reductions(const MapInfo& m, const char* attribute,
                                                         const std::set<std::string>& proved,
                                                         const ElementRef& where);

/// The C++ spelling of a memlet subset for comments: "A[0:N, i]".
std::string memlet_text(const std::string& data, const Subset& s);

}  // namespace weir::codegen::detail
