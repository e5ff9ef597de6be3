// Internals of the SDFG lowering shared by lowering_program.cpp (programs, states, maps),
// lowering_expr.cpp (field-operator expressions -> tasklet code) and lowering_builtins.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "domain_split.h"
#include "weir/frontend/lowering.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/symbolic.h"

namespace weir::frontend::lowering {

/// Throws "not supported yet by the SDFG lowering: <what>" at `loc`.
[[noreturn]] void unsupported(const SourceLocation& loc, const std::string& what);

ScalarType to_sdfg_type(ScalarKind k);
/// The field-view dtype of an SDFG element type; the types field-view code has no name for
/// (float16, complex, void) give float32, float64 and int64, never reached from field-view
/// types through arithmetic_result_type.
ScalarKind from_sdfg_type(ScalarType t);

/// Where a value is evaluated, relative to the map point (the "shift" of a read):
///  - `off`: Cartesian offsets per dimension name (`f(IDim + 1)` -> off["I"] = 1);
///  - `at`: dimensions whose index is a tasklet value (a neighbour index read from a
///    connectivity table, `f(E2V[0])` -> at["Vertex"] = "__t3");
///  - `local`: the entry of each local dimension (inside a neighbour reduction, or picked by
///    `f[E2VDim(1)]` / `f(E2V[1])`).
struct Shift {
  std::map<std::string, std::int64_t> off;
  std::map<std::string, std::string> at;
  std::map<std::string, std::int64_t> local;
  /// Python condition under which the value at this point is used ("" always): inside a
  /// concat_where branch, its condition; inside a neighbour reduction, that the neighbour
  /// exists. Reads that may leave their container elsewhere (shifted reads in a branch, direct
  /// neighbours) read at the raw index only where it holds (docs/adr/0014).
  std::string taken;
  bool empty() const { return off.empty() && at.empty() && local.empty(); }
  bool operator<(const Shift& o) const {
    return std::tie(off, at, local, taken) < std::tie(o.off, o.at, o.local, o.taken);
  }
  /// This point, used only where `cond` holds too.
  Shift when(const std::string& cond) const {
    Shift s = *this;
    s.taken = taken.empty() ? cond : "(" + taken + " and " + cond + ")";
    return s;
  }
  /// `raw` where the value is used, `fallback` (an index inside the container) elsewhere.
  std::string guarded(const std::string& raw, const std::string& fallback) const {
    return taken.empty() ? raw : "(" + raw + " if " + taken + " else " + fallback + ")";
  }
};

struct Env;
using EnvPtr = std::shared_ptr<const Env>;
struct Val;
using ValuePtr = std::shared_ptr<const Val>;

/// What a name of an inlined field operator stands for.
struct Val {
  enum class Kind {
    Field,   ///< a program field: container `name` over `dims`
    Scalar,  ///< a program Scalar container `name`
    Symbol,  ///< a symbol `name` (a scalar parameter used in domain bounds)
    Lazy,    ///< `expr` evaluated in `env` at the point where it is used
    Elem,    ///< element `index` of `elems[0]`
    Tuple,   ///< `elems`
    Select,  ///< `elems[1] if elems[0] else elems[2]` (an `if` statement)
  };
  Kind kind = Kind::Lazy;
  std::string name;
  std::vector<Dimension> dims;
  TExprPtr expr;
  EnvPtr env;
  std::size_t index = 0;
  std::vector<ValuePtr> elems;
};

/// An immutable scope: a linked list of bindings (each assignment adds a node, so earlier
/// closures keep seeing the values they were created with).
struct Env {
  EnvPtr parent;
  std::string name;
  ValuePtr value;
};
EnvPtr bind_name(EnvPtr env, std::string name, ValuePtr value);
ValuePtr lookup(const EnvPtr& env, const std::string& name);
ValuePtr lazy(TExprPtr expr, EnvPtr env);
/// A text that two scopes share exactly when they bind the same names to the same values
/// (expressions of the typed IR, containers, scopes alike): the same scan call in two builders
/// of one call's tasklets (the regions of a split domain) is computed once.
std::string scope_key(const EnvPtr& env);

/// Python code of a value at one point: a scalar expression, or a tuple of codes. Whether it is
/// an atom (a name or a literal, which KernelBuilder::temp uses as it is) is known where it is
/// built, never read off its text.
struct Code {
  std::string text;
  bool tuple = false;
  /// A name (connector, temporary, symbol) or a literal.
  bool atom = false;
  std::vector<Code> elems;
  /// A compound expression (`(a + b)`, `max(x, 0)`).
  static Code scalar(std::string t) {
    Code c;
    c.text = std::move(t);
    return c;
  }
  /// A name or a literal.
  static Code atomic(std::string t) {
    Code c = scalar(std::move(t));
    c.atom = true;
    return c;
  }
};

/// One read of a tasklet: connector `conn` reads `container` at `index` (one entry per
/// dimension; a Scalar container has index [0]). A `whole` read is a connector over the
/// entire container that the code subscripts at tasklet-computed indices (neighbours).
struct Read {
  std::string conn;
  std::string container;
  std::vector<sym::Expr> index;
  /// Per dimension: the parameter the index is relative to (empty: an absolute index),
  /// and the offset from it.
  std::vector<std::string> params;
  std::vector<std::int64_t> offsets;
  bool whole = false;
  /// DaCe DebugInfo JSON of the source expression (connectivity table reads), kept on the memlet.
  std::string debuginfo;
};

/// What the tasklet builder asks of the program lowering (containers and blocks it adds).
class LoweringContext {
 public:
  virtual ~LoweringContext() = default;
  /// Adds the connectivity table of the unstructured `offset` if needed (an int32 argument
  /// named after the offset, shape [rows, max neighbours]); returns its max neighbours.
  virtual std::int64_t table(const FieldOffset& offset, const SourceLocation& loc) = 0;
  /// The number of entries of local dimension `dim`.
  virtual std::int64_t local_size(const Dimension& dim, const SourceLocation& loc) = 0;
  /// The connectivity whose local dimension is `dim` (its -1 entries mark missing
  /// neighbours); nullptr if none is used.
  virtual const FieldOffset* table_of_local(const Dimension& dim) = 0;
  /// Python text of the extent of dimension `j` of `container`'s shape.
  virtual std::string extent(const std::string& container, std::size_t j) = 0;
  /// Whether `name` is a symbol of the SDFG (a scalar parameter used in domain bounds).
  virtual bool is_symbol(const std::string& name) = 0;
  /// Computes the scan operator call `call` (arguments in `env`) into transients over the
  /// current call's domain, before the current call; returns a Field value (or a Tuple of
  /// them) for its result.
  virtual ValuePtr scan(const TExpr& call, const EnvPtr& env) = 0;
  /// Computes the field-operator call `call` (arguments in `env`, a field result) into a
  /// transient over the current call's domain, in its own map before the current call; returns
  /// the Field value of the transient (KernelBuilder::stored_calls decides which calls).
  virtual ValuePtr stored_call(const TExpr& call, const EnvPtr& env) = 0;
};

/// Most points through neighbour tables at which one tasklet may recompute a nested
/// field-operator call; a call read at more is stored in a transient by its own map instead.
/// The same number as greedy-map-fusion's `max_points` (the frontend does not link the
/// transforms), so the lowering emits what that cost rule would keep (docs/adr/0008).
inline constexpr std::size_t kMaxRecomputedPoints = 9;

/// A nested call the lowering stores: the call expression and the scope_key of its scope.
using CallSite = std::pair<const void*, std::string>;

/// Builds the code of one tasklet: inlines operator calls, records the reads.
class KernelBuilder {
 public:
  /// `params`: dimension name -> map parameter of the output domain.
  explicit KernelBuilder(std::map<std::string, std::string> params, LoweringContext* ctx = nullptr)
      : params_(std::move(params)), ctx_(ctx) {}

  Code eval(const TExpr& e, const EnvPtr& env, const Shift& shift);
  // eval's cases: the recursive ones keep only their operands' Code in their frames and build
  // the result in *_code (one frame per nesting level must stay small in every build; issue 17).
  Code eval_name(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code eval_tuple(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code eval_unary(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code unary_code(const TExpr& e, const Code& x);
  Code eval_binary(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code binary_code(const TExpr& e, const Code& a, const Code& b);
  Code eval_ternary(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code eval_call(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code eval_local_index(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code eval_value(const ValuePtr& v, const Shift& shift);
  /// The element at `path` (tuple indices, outermost first) of the tuple value `v` at `shift`,
  /// computing only that element where the value allows (a tuple, astype / where / an `if`
  /// of tuples, a call's tuple result): the other elements may be over dimensions that the
  /// point does not have (`a_wp, v_wp = astype((a, v), wpfloat)` then `a_wp(E2C[0])`).
  Code value_elem(const ValuePtr& v, std::vector<std::size_t> path, const Shift& shift);
  /// The same for the value of expression `e` in `env`.
  Code expr_elem(const TExpr& e, const EnvPtr& env, std::vector<std::size_t> path, const Shift& shift);
  /// Binds the callee's parameters (of a field or scan operator) to `args` and runs its body;
  /// returns the result value.
  ValuePtr inline_call(const TypedDefinition& callee, const std::vector<ValuePtr>& args,
                       const SourceLocation& loc);

  /// The nested field-operator calls with a field result that this builder inlined at more
  /// than kMaxRecomputedPoints distinct points, one of them a neighbour (read through a
  /// connectivity table), and never at a Cartesian offset: the calls to store instead.
  std::set<CallSite> stored_calls() const;
  /// Reads the results of the calls `calls` from transients (LoweringContext::stored_call)
  /// instead of inlining them.
  void store_calls(std::set<CallSite> calls) {
    store_ = std::move(calls);
    store_exprs_.clear();
    for (const CallSite& c : store_) store_exprs_.insert(c.first);
  }

  /// Tasklet statements computing temporaries, in order.
  const std::vector<std::string>& lines() const { return lines_; }
  const std::vector<Read>& reads() const { return reads_; }
  const std::map<std::string, std::string>& params() const { return params_; }
  void set_location(SourceLocation loc) { where_ = std::move(loc); }
  /// Records in `cuts` every cut of the output domain that a concat_where condition on a map
  /// index tests (both branches are still computed, guarded).
  void collect_cuts(std::vector<DomainCut>* cuts) { cuts_ = cuts; }
  /// Builds the tasklet of one region of the split domain: a concat_where whose condition the
  /// region decides computes only the branch taken there.
  void in_region(const DomainRegion* region) { region_ = region; }

  // used by the builtins
  Code builtin(const TExpr& e, const EnvPtr& env, const Shift& shift);
  /// The map parameter of `dim` shifted by `shift` (`__K + 1`), as Python text.
  std::string index_text(const Dimension& dim, const Shift& shift, const SourceLocation& loc) const;
  /// The point `shift` moved by the steps of a Shift expression (last step first); `env` is
  /// where as_offset's offsets are evaluated.
  Shift shifted(const TExpr& e, const EnvPtr& env, const Shift& shift);
  /// A neighbour reduction (neighbor_sum, max_over, min_over) at `shift`.
  Code reduction(const TExpr& e, const EnvPtr& env, const Shift& shift);
  /// Python text reading `container` over `dims` at `shift` (a connector, or a subscript of a
  /// whole-container connector).
  Code read(const std::string& container, const std::vector<Dimension>& dims, const Shift& shift,
            const SourceLocation& loc);
  Code temp(Code c);
  LoweringContext& ctx(const SourceLocation& loc);
  /// A concat_where condition at `shift`: its Python text, and its value where the region being
  /// built decides it (a condition on a map index whose bounds are symbols or constants).
  struct Decided {
    std::string text;
    std::optional<bool> value;
  };
  Decided domain_condition(const TExpr& c, const EnvPtr& env, const Shift& shift);

 private:
  /// Where execution of a statement list falls through (`env`) and what it returns: `ret`
  /// (null: never returns) when `when` holds (null: always).
  struct Flow {
    EnvPtr env;
    ValuePtr ret;
    ValuePtr when;
  };
  Flow exec(const std::vector<TStmt>& stmts, std::size_t i, EnvPtr env);
  Flow exec_if(const TStmt& s, const EnvPtr& env);
  /// The neighbour index (clamped to >= 0) and the raw table entry of `offset` entry `k` at
  /// `shift`.
  std::pair<std::string, std::string> neighbour(const FieldOffset& offset, std::int64_t k, const Shift& shift,
                                                const SourceLocation& loc);

  std::map<std::string, std::string> params_;
  std::vector<std::string> lines_;
  std::vector<Read> reads_;
  std::map<std::string, std::string> read_conns_;  // "container[offsets]" -> connector
  std::map<std::tuple<const void*, const void*, Shift>, Code> memo_;
  /// Elements of named values (value_elem of a Lazy value), keyed like memo_ plus the path.
  std::map<std::tuple<const void*, const void*, Shift, std::vector<std::size_t>>, Code> elem_memo_;
  /// The inlined result of a call expression in a scope (for elements of its tuple result).
  std::map<std::pair<const void*, const void*>, ValuePtr> inlined_;
  /// What memo_ keys point to, kept alive so that no later scope or value reuses an address
  /// (a freed callee scope reused by the next call of the same operator would hit the memo).
  std::vector<std::shared_ptr<const void>> keep_;
  std::map<std::string, std::pair<std::string, std::string>> neighbours_;  // table read -> (clamped, raw)
  /// Per nested call (expression, scope) with a field result: the points it was inlined at.
  std::map<std::pair<const void*, const void*>, std::set<Shift>> call_points_;
  /// The scopes of call_points_ (for their scope_key).
  std::map<const void*, EnvPtr> call_scopes_;
  std::set<CallSite> store_;
  std::set<const void*> store_exprs_;  // the call expressions of store_
  LoweringContext* ctx_ = nullptr;
  int temps_ = 0;
  /// > 0 while a concat_where branch is evaluated: the tasklet computes both branches at every
  /// point, so a shifted read there is clamped into its container where the branch is not
  /// taken (Shift::taken; where it is, the read is checked: docs/adr/0014).
  int guarded_ = 0;
  SourceLocation where_;  // location of the program call (for reads)
  /// The name a field is read through (`f` of `f(I + 1)`), kept as the read's debuginfo.
  SourceLocation read_at_;
  /// Set while a name that only stands for another name (an argument `v` passed on, `t = a`)
  /// is evaluated: the read keeps the location of the use that shifts it (read_at_).
  bool alias_ = false;
  /// The outermost Shift being evaluated (`s(I + 1)`), unknown outside one.
  SourceLocation shift_at_;
  std::vector<DomainCut>* cuts_ = nullptr;
  const DomainRegion* region_ = nullptr;
};

/// DaCe's DebugInfo of `loc` as JSON text (`{"type": "DebugInfo", "start_line": ...}`), kept in
/// the `debuginfo` of nodes and memlets so that viewers, DaCe and weir's run-time errors map
/// them back to their .py line.
std::string debuginfo_json(const SourceLocation& loc);

/// Records `dims` as the dimensions of the array `d` the lowering makes (weir/sdfg/field_dims.h),
/// so that messages name them ("along K") where its extents are expressions.
void record_dims(DataDescriptor& d, const std::vector<Dimension>& dims);

/// Combines codes leaf by leaf.
Code zip(const std::vector<Code>& parts, const std::string& what,
         const std::function<std::string(const std::vector<std::string>&)>& f);

/// The dace name of a dtype in casts: `float64`, `bool_`.
std::string dace_type_name(ScalarKind k);

/// Python text of a literal of type `dtype`.
std::string literal_text(const ConstantValue& c, ScalarKind dtype);
/// literal_text as Code: an atom unless it is negative (parenthesized), a float32 (a call) or a string.
Code literal_code(const ConstantValue& c, ScalarKind dtype);

}  // namespace weir::frontend::lowering
