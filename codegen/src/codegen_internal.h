// Internal interfaces of the CPU code generator, shared by its source files:
//   cpu_codegen.cpp          generate_cpu, errors, argument descriptions
//   program_frame.cpp        frame: entry points, arguments, handle, file layout (CPU and CUDA)
//   program_units.cpp        the function list; big programs as several translation units
//   cuda_codegen.cpp         generate_cuda; cuda_kernels.cpp: GPU_Device maps as __global__ kernels
//   cpu_target.cpp, cuda_target.cpp  the translator's spellings per target
//   sdfg_codegen.cpp         one SDFG body (top level or nested): symbols, transient homes
//   control_flow_codegen.cpp regions, loops, conditionals, interstate edges (structured / goto)
//   dataflow_codegen.cpp     state functions, scopes (StateGen, state_codegen.h), and the
//                            families StateGen hands work to, one class each (ADR 0033):
//                            bounds checks (bounds_check_gen.h), library nodes (library_gen.h),
//                            copies (copy_gen.h), a parallel map's OpenMP parts
//                            (parallel_map_gen.h), concurrent accesses (concurrent_access.h),
//                            CUDA kernels (cuda_kernel_gen.h); loop hoisting (loop_hoisting.h)
//   map_codegen.cpp          maps as loop nests, OpenMP, one thread or many
//   tasklet_codegen.cpp      tasklet blocks; tasklet_connectors.cpp, tasklet_code.cpp their parts
//   memlet_codegen.cpp       memlet locations, write-conflict resolution; copy_codegen.cpp copies
//   library_codegen.cpp      nested SDFG calls; library nodes (LibraryGen::emit)
//   expr_to_cpp.cpp          sym::Expr -> C++
//   python_to_cpp.cpp        Python code -> C++
//   prelude.cpp              the helper functions every generated file starts with
//   writer.cpp               indented line writer, identifier scanning, escaping
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "code_facts.h"
#include "target_emitter.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/codegen/python_to_cpp.h"
#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/layout.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic.h"

namespace weir::codegen::detail {

/// A failure deep inside generation, converted into a located CodegenError by the caller that
/// knows the element (node, state, edge).
class GenFailure : public weir::Error {
 public:
  using weir::Error::Error;
};

// --- text --------------------------------------------------------------------------------

/// Lines of C++ with indentation (4 spaces per level).
class Writer {
 public:
  void line(const std::string& s);
  /// Several lines separated by '\n', each at the current indentation.
  void lines(const std::string& s);
  void open(const std::string& s) {
    line(s);
    ++indent_;
  }
  void close(const std::string& s = "}") {
    --indent_;
    line(s);
  }
  void indent() { ++indent_; }
  void dedent() { --indent_; }
  void blank() { lines_.push_back({0, {}}); }
  /// Appends another writer's lines below the current indentation.
  void append(const Writer& w);
  bool empty() const { return lines_.empty(); }
  std::size_t line_count() const { return lines_.size(); }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  /// Replaces the first line at index `from` or later whose text, leading spaces apart, is `old`
  /// by `with` (the leading spaces kept); its index, or npos where there is none.
  std::size_t replace_line(std::size_t from, const std::string& old, const std::string& with);
  /// This text where each `if` whose line is `condition` (opened by open(), with an `} else {`
  /// and its closing `}` at the same indentation) is replaced by the block of the arm taken where
  /// the condition is `holds`: the caller knows its value. Arms are not searched again.
  Writer folded(const std::string& condition, bool holds) const;
  std::string str() const;

 private:
  std::vector<std::pair<int, std::string>> lines_;
  int indent_ = 0;
};

/// A label as an identifier fragment ("for_51/BinOp 52" -> "for_51_BinOp_52"), at most 40 chars.
std::string sanitize_label(const std::string& label);

/// C string literal contents (escapes quotes, backslashes, control characters).
std::string c_escape(const std::string& s);

/// JSON string contents (escapes quotes, backslashes, control characters as \u00XX).
std::string json_escape(const std::string& s);

// --- symbolic expressions ----------------------------------------------------------------

/// C++ (int64 arithmetic, Python floor semantics through the prelude's helpers). Throws
/// GenFailure for functions that have no C++ equivalent.
std::string sym_cpp(const sym::Expr& e);
/// As sym_cpp, parenthesized unless it binds at least as tightly as a product.
std::string sym_cpp_factor(const sym::Expr& e);
/// Element offset of `idx` (one index per dimension) in a container:
/// sum((idx_d + offset_d) * stride_d) + start_offset, one term per dimension.
std::string linear_offset(const DataDescriptor& desc, const std::vector<sym::Expr>& idx);
/// Python slice text of a range with exclusive end ("0:NL - 2", "i", "0:N:2").
std::string range_text(const Range& r);

// --- the translation unit ----------------------------------------------------------------

/// The functions of a program in generation order (a function comes before the first function
/// that calls it), each kept as its text: joining them, scanning them and splitting them into
/// translation units is linear in the program's size.
class FunctionList {
 public:
  struct Function {
    std::string text;
    /// The prototype without storage class ("void weir_state_0(double* a)"), empty for a
    /// function that must stay in the unit that calls it (CUDA kernels, device functions).
    std::string declaration;
    /// What its code needs (recorded while it was emitted: code_facts.h).
    CodeFacts facts;
  };
  /// Adds a function; its text defines it as `static` + declaration (program_units.cpp).
  void append(const Writer& w, std::string declaration = {}, CodeFacts facts = {});
  std::size_t size() const { return functions_.size(); }
  const Function& operator[](std::size_t i) const { return functions_[i]; }
  /// Total bytes of the functions' text.
  std::size_t bytes() const { return bytes_; }
  /// Whether a function from index `first` on has the fact `flag` (&CodeFacts::may_fault: it
  /// can record a run-time fault).
  bool any(bool CodeFacts::*flag, std::size_t first = 0) const;
  /// Every function's text in order.
  std::string str() const;

 private:
  std::vector<Function> functions_;
  std::size_t bytes_ = 0;
};

/// The whole program being generated.
struct Program {
  const CodegenOptions& opts;
  const SDFG& top;
  /// Static functions (state functions, nested SDFGs) in the order they are generated; a
  /// function is generated before the first function that calls it.
  FunctionList functions;
  /// File-scope code of CPP tasklets and SDFGs (global_code), in generation order.
  std::vector<std::string> global_code;
  /// Trusted CPP code_init / code_exit of tasklets (weir_init / weir_finalize), in generation order.
  std::vector<std::string> init_code, exit_code;
  std::set<std::string> function_names;
  /// Libraries that CPP tasklets' DaCe environments need (GeneratedCode::link_libraries).
  std::set<std::string> link_libraries;
  /// The target (target_emitter.h): what the CPU and CUDA emit differently.
  const TargetEmitter& target;

  /// The elements whose `instrument` is Timer (weir/sdfg/instrumented.h); an element's timer
  /// slot is its index (timers.cpp).
  std::vector<TimedElement> timed;

  /// Connectivity tables weir_run checks before the states run, so that indices that are their
  /// entries need no checks in the loops (table_entry_checks.cpp, docs/adr/0051).
  std::set<std::string> entry_checked_tables;
  /// The index checks those entry checks replaced (filled as the states are generated).
  std::vector<TableProof> table_proofs;

  Program(const CodegenOptions& o, const SDFG& s, const TargetEmitter& t);
  std::string unique_function_name(const std::string& base);
  /// The timer slot of state `st` (kind State, `id` ignored), of its node `id` or of its copy edge
  /// `id`; nullopt when the element is not timed.
  std::optional<std::size_t> timer_slot(const SDFGState& st, TimedKind kind, std::uint32_t id = 0) const;
};

// --- bounds-check elision by proof (table_entry_checks.cpp, docs/adr/0051) -------------------

/// The connectivity tables of `sdfg` (the lowering's record, attribute weir_connectivities)
/// whose entries weir_run may check to prove the indices read from them: 2-d int32/int64
/// arguments in host memory that no state writes. None without bounds checks or on a device.
std::set<std::string> entry_checked_tables(const SDFG& sdfg, const CodegenOptions& opts,
                                           const TargetEmitter& target);
/// The checks at the top of weir_run of the tables `proofs` name, against the extents the proofs
/// rely on; a failed check throws "connectivity table 'V2E': entry [3, 1] = 24 is outside [0,
/// 24), the extent of 'S_MXX' in dimension 0, which it indexes (...)".
void emit_table_entry_checks(const SDFG& sdfg, const std::vector<TableProof>& proofs, Writer& w);
/// GeneratedCode::notes for `proofs`: one per table, with the number of indices and the
/// containers they index.
std::vector<std::string> table_proof_notes(const std::vector<TableProof>& proofs);

// --- timers of instrumented elements (timers.cpp, docs/adr/0048-profiling.md) -----------------

/// `code` inside a block that times it into timer slot `slot`; `per_thread` (an element inside a
/// map scope): into the running thread's row of slots (weir_profile_thread_slot).
void emit_timed(std::size_t slot, const Writer& code, Writer& w, bool per_thread = false);
/// The same for one line of C++ (a state call; `per_thread`: of an SDFG called inside a parallel
/// map).
std::string timed_line(std::size_t slot, const std::string& code, bool per_thread = false);
/// What a program with timers adds after the prelude: weir_profile.h and the slots.
std::string timer_globals(std::size_t slots);
/// What weir_run does first in a program with timers: zero the slots and the per-thread rows
/// (allocating them for omp_get_max_threads() threads; weir_fail when that fails).
std::string timer_clear();
/// The entry points weir_profile_elements / weir_profile_read (program_abi.h) for `timed`.
std::string timer_entry_points(const std::vector<TimedElement>& timed);

/// Where a transient lives.
enum class HomeKind {
  Unused,   // no access node: not allocated
  Program,  // the SDFG body: handle (top level, sizes known at weir_init) or body locals
  State,    // one state, at its top level
  Scope,    // inside one map scope of one state
};

struct TransientHome {
  HomeKind kind = HomeKind::Unused;
  const SDFGState* state = nullptr;
  NodeId scope = kNoNode;
  /// An array allocated once for the whole body (the top-level handle / nested body start)
  /// although its home is a state: its size only depends on symbols known at the start.
  bool hoisted = false;
  /// A transient of several states whose size depends on symbols the control flow assigns
  /// (a loop's bounds): a growable buffer of the body, sized before each state that uses it
  /// with the symbols' values there (contents kept when it grows).
  bool resized = false;
};

/// How a data container is reached from the code being generated.
struct Binding {
  std::string cpp;
  const DataDescriptor* desc = nullptr;
  /// Scalar: `cpp` is the value (a T or T&); otherwise a pointer to element 0.
  bool scalar = false;
  /// Nesting depth of the scope frame that declares it (-1: function parameter / body level).
  int frame = -1;
  /// A nested SDFG's pointer parameter that is the only way to its data in the call (another
  /// container, not a view, not passed twice): `__restrict__`, as the top level's and
  /// transients' pointers are, so that its loops vectorize.
  bool unaliased = false;
  /// A nested SDFG's scalar parameter that none of its states writes: `const T&` in its
  /// functions, so that a caller may pass a constant (a CUDA kernel's by-value scalar parameter,
  /// an implicit solver's time step) as well as a variable.
  bool read_only = false;
  /// A view: the container it views and where (`viewed`[`view_subset`]), for atomicity.
  std::string viewed{};
  Subset view_subset{};
};

/// The code of one SDFG body (the top-level program in weir_run, or a nested SDFG function).
class SdfgGen {
 public:
  SdfgGen(Program& prog, const SDFG& sdfg, bool top_level, bool in_parallel, std::string prefix);

  Program& prog;
  const SDFG& sdfg;
  const bool top_level;
  /// A nested SDFG called inside a parallel loop: all its maps run sequentially, and WCR writes
  /// to its non-transient containers are atomic.
  const bool in_parallel;
  const std::string prefix;

  /// Symbols known when the body starts (free symbols; nested: the symbol mapping).
  std::set<std::string> init_symbols;
  /// Parameters (nested SDFG connectors) bound as Binding::unaliased; set before analyse().
  std::set<std::string> unaliased_params;
  /// Parameters (nested SDFG connectors, in_parallel) whose memory is the calling iteration's
  /// own (a slice pinned by the parallel parameters): their write-conflict resolution needs no
  /// atomics.
  std::set<std::string> private_params;
  /// In a nested SDFG called in parallel: its symbols that are the calling loop's parallel
  /// parameters (one value per concurrent call), when every parameter has one
  /// (`calling_params_known`); and the connectors whose outer memlet does not move with them.
  std::vector<std::string> calling_parallel_symbols;
  bool calling_params_known = false;
  std::set<std::string> fixed_base_params;
  /// In a nested SDFG called in parallel: its symbols whose value is the same in every
  /// concurrent call (mapped from expressions of the caller's invariant symbols).
  std::set<std::string> calling_invariant_symbols;
  /// Every symbol the body may use -> C++ type (free, mapped, assigned, loop variables).
  std::map<std::string, ScalarType> symbols;
  /// Symbols the body declares (assigned on interstate edges, loop variables).
  std::vector<std::string> local_symbols;
  std::map<std::string, TransientHome> homes;
  /// Containers visible in the body: arguments / connectors and Program-level transients.
  std::map<std::string, Binding> body_data;
  /// The C++ names of body_data (set by analyse()).
  std::set<std::string> body_cpp_names;
  /// The transients whose home is resized per state (TransientHome::resized; set by analyse()).
  std::vector<std::string> resized_homes;
  /// The transients by the state of their home (TransientHome::state), in name order (set by
  /// analyse()).
  std::map<const SDFGState*, std::vector<std::string>> state_homes;

  /// Analyses symbols and transients; binds the given arguments / connectors (`params`, data
  /// names) and takes `param_symbols` as the symbols known at the start.
  void analyse(const std::vector<std::string>& params, const std::set<std::string>& param_symbols);
  /// Emits the body: local symbols, body-level transients (nested: allocated here), control
  /// flow. At the top level, body arrays are bound by the caller (from the handle).
  void emit_body(Writer& w);
  /// Arrays allocated for the whole body (Program homes and hoisted State homes).
  std::vector<std::string> body_arrays() const;
  /// Scalars declared in the body (Program-home transient scalars).
  std::vector<std::string> body_scalars() const;
  /// Whether a container is a C++ value (`T&`) rather than a pointer: scalars, except device
  /// scalars in CUDA host code (one-element device arrays).
  bool bound_as_scalar(const DataDescriptor& d) const;
  /// A Register transient of CUDA host code: declared inside each kernel that uses it.
  bool kernel_private(const DataDescriptor& d) const;
  /// Whether the body runs on the device (a nested SDFG called in a CUDA kernel).
  bool device_code() const { return in_parallel && prog.target.parallel_scopes_on_device(); }
  /// A fresh number for labels of this body (goto-based control flow).
  int next_label() { return label_counter_++; }
  /// C++ of the element count of a container (total size).
  std::string alloc_size(const DataDescriptor& d) const;
  /// Context for Python code on interstate edges, loop statements and conditions.
  PyContext interstate_context() const;
  /// "return 0;" at the top level, "return;" in nested functions.
  std::string return_statement() const { return top_level ? "return 0;" : "return;"; }
  ElementRef ref(const ControlFlowBlock* b = nullptr, long node = -1,
                 const std::string& node_label = {}) const;
  /// Generates the state's function (if it has nodes) and returns the statement calling it.
  std::string state_call(const SDFGState& st);
  /// Emits run-time checks of the layout conditions (weir/sdfg/layout.h) of the SDFG's
  /// descriptors that depend on symbol values (layout_checks.cpp, ADR 0037); throws CodegenError
  /// for a condition that fails, or that cannot be checked before the container is used. The
  /// undecided reaches of views and nested SDFG arguments whose symbols are known when the body
  /// starts are checked here too; those on symbols the body assigns go to state_reach_checks.
  void emit_layout_checks(Writer& w);

  /// Where the generated code checks an undecided reach condition (of a view or of a nested SDFG's
  /// argument, ADR 0037): where the body starts (its symbols are the call's, and the body does
  /// not assign them), before the state that binds it (symbols of the body: the control flow
  /// assigns some), or where it is used (it depends on a map's parameters or other values of a
  /// scope: a nested SDFG's argument is checked at its call, a view is not checked).
  enum class CheckPoint { BodyStart, StateStart, Use };
  CheckPoint reach_check_point(const LayoutCondition& c) const;
  /// The statement checking `c` at run time (the message gets `why`): at the top level it throws,
  /// in a nested SDFG's body it records the fault and returns (notes the fault).
  std::string layout_check_statement(const LayoutCondition& c, const std::string& why) const;
  /// Symbols the body assigns (interstate assignments, loop variables; set by analyse()).
  std::set<std::string> assigned_symbols;
  /// Undecided reach conditions checked before a state (CheckPoint::StateStart; set by
  /// emit_layout_checks, emitted by state_call).
  std::map<const SDFGState*, std::vector<LayoutCondition>> state_reach_checks;
  /// States of a loop whose bounds checks run before the loop (loop_check_hoisting.h): their
  /// functions emit none.
  std::set<const SDFGState*> hoisted_check_states;

 private:
  void check_descriptors() const;
  int state_counter_ = 0;
  int label_counter_ = 0;
};

/// Throws CodegenError at `where` when `c` (the reach of a view or of a nested SDFG's argument,
/// weir/sdfg/layout.h) provably fails (layout_checks.cpp, ADR 0037); nothing for nullopt.
void require_reach(const std::optional<LayoutCondition>& c, const ElementRef& where);

/// C++ of a layout condition that is true when `c` fails: its value is negative while every
/// extent of `c.nonempty` is at least 1 (layout_checks.cpp).
std::string layout_failure_test(const LayoutCondition& c);
/// The refusal of a condition that is undecidable and has no C++ spelling (`e`).
std::string unwritable_check(const LayoutCondition& c, const GenFailure& e);

/// The free symbols of a layout condition: of its value and of its extents.
std::set<std::string> layout_condition_symbols(const LayoutCondition& c);
/// The C++ test (true when it fails) of a reach condition checked where a scope runs (a view's or
/// a nested SDFG argument's reach on a map's parameters, ADR 0037); `visible`: the symbols known
/// there (StateGen::visible_symbols). Throws CodegenError at `where` when it depends on a value
/// the scope does not know or has no C++ spelling: such a reach is refused, never left unchecked
/// (layout_checks.cpp).
std::string scope_reach_test(const LayoutCondition& c, const std::map<std::string, ScalarType>& visible,
                             const ElementRef& where);

/// Generates one state as a static function (dataflow_codegen.cpp); returns the call statement,
/// empty for a state without nodes.
std::string generate_state(SdfgGen& sg, const SDFGState& st, const std::string& fn_name);

/// Emits the control flow of a region into `w` (control_flow_codegen.cpp).
void emit_region(SdfgGen& sg, const ControlFlowRegion& r, Writer& w);

/// Throws CodegenError at the first user-written C++ of `sdfg` or its nested SDFGs unless
/// `options.trust_code`, and at user code in a language other than C++ (user_code.cpp). Returns
/// whether `sdfg` holds user-written C++ (so that trusting code changes no other program's source).
bool check_user_code(const SDFG& sdfg, const CodegenOptions& options);

/// The #include lines a generated translation unit starts with (prelude.cpp): light headers
/// only, <complex> when the code uses complex numbers, and the full former set (<string>,
/// <algorithm>, <stdexcept>, <complex>) when it may hold user-written C++ (`user_code`).
std::string prelude_headers(bool complex_numbers, bool user_code);
/// The whole translation unit of `sdfg` (program_frame.cpp): generate_cpu, and generate_cuda
/// with cuda_emitter() (kernels, device memory, the program's stream).
GeneratedCode generate_program(const SDFG& sdfg, const CodegenOptions& options, const TargetEmitter& target);

/// The file-scope helper functions (prelude.cpp), after prelude_headers().
const std::string& prelude_text();
/// prelude_text() for one of several translation units of a program: the fault state is one
/// hidden inline variable set shared by all units instead of a static per unit.
std::string unit_prelude_text();

/// The program's translation units for parallel compilation (program_units.cpp): `head` (the
/// comment, headers, prelude with a shared fault state, file-scope code) starts each;
/// units[0] gets `entry` (the entry points) and the declarations of `entry_calls` (the
/// functions it calls), the others the functions, about `unit_bytes` each, with the
/// declarations of what they call elsewhere (their recorded CodeFacts::calls).
/// Empty when the functions fit in one unit or one has no declaration.
std::vector<std::string> split_units(const FunctionList& functions, const std::string& head,
                                     const std::string& entry, const std::set<std::string>& entry_calls,
                                     std::size_t unit_bytes);

/// C++ type of a container element.
std::string cpp_type(const DataDescriptor& d);

/// Whether a storage / schedule is supported, with the reason if not.
std::optional<std::string> unsupported_storage(StorageType s, const CodegenOptions& o);

}  // namespace weir::codegen::detail
