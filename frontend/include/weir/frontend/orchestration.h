// Orchestration functions: plain Python functions (no decorator) that call @programs and field
// operators in loops and branches, rebind field names (`f, g = g, f`) and compute scalars. The
// checker turns one into an Orchestration (typed statements over field variables and scalar
// variables); the embedded backend runs it call by call, the SDFG lowering makes one SDFG of it
// (docs/adr/0019-orchestration.md).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/frontend/typed_ir.h"

namespace weir::frontend {

/// The value given for one callee parameter: a field variable or a scalar expression over the
/// function's scalar variables and literals.
struct OArg {
  std::string field;  ///< the field variable (non-empty for a field parameter)
  TExprPtr scalar;    ///< the scalar expression (for a scalar parameter)
};

/// A statement of an orchestration function. Names are the function's variables (a nested
/// orchestration function's variables are renamed `__<callee><n>_<name>` when it is inlined).
struct OStmt {
  enum class Kind {
    Call,    ///< `callee` (a @program, possibly synthesized for a field operator call) with `args`
    Assign,  ///< scalars: `targets[i] = values[i]`, every value computed first (tuple assignment)
    Bind,    ///< fields: `targets[i]` names what `sources[i]` named, all at once (`f, g = g, f`);
             ///< an empty source unbinds the target (the end of an inlined function)
    Alloc,   ///< `targets[0]` is a new local field of `type`, shape `values` (int64 each);
             ///< `zero`: gtx.zeros (else gtx.empty: contents undefined)
    For,     ///< `for targets[0] in range(values[0], values[1], values[2])`: `step` its value
    While,   ///< `while values[0]: body`
    If,      ///< `if values[0]: body else: orelse`
    Break,
    Continue,
    Reduce,  ///< `targets[0] = reduction(sources[0][lower:upper, ...])` over the whole slice:
             ///< `np.max(f[1:-1, 1:-1])`, `f.asnumpy().sum()` (docs/adr/0019, 2026-12-06)
  };
  Kind kind = Kind::Call;
  SourceLocation loc;
  const TypedDefinition* callee = nullptr;
  std::vector<OArg> args;
  std::vector<std::string> targets;
  std::vector<TExprPtr> values;
  std::vector<std::string> sources;
  Type type;
  bool zero = true;
  std::int64_t step = 1;
  std::vector<OStmt> body, orelse;
  /// Reduce: "max", "min" or "sum".
  std::string reduction;
  /// Reduce: of the absolute values (`np.max(np.abs(f))`, the usual CFL form).
  bool absolute = false;
  /// Reduce: per dimension of the field, Python's slice bounds (`lower` negative: from the end;
  /// `upper` nullopt: the end, negative: from the end); dimensions past these are whole.
  std::vector<std::int64_t> lower;
  std::vector<std::optional<std::int64_t>> upper;
};

/// The half-open range `[lo, hi)` a Reduce statement's slice covers along its dimension `d` of
/// a field with `size` points there, as Python clamps slice bounds (an empty range has hi == lo).
std::pair<std::int64_t, std::int64_t> reduce_range(const OStmt& s, std::size_t d, std::int64_t size);

/// A checked orchestration function. Field parameters are the caller's arrays (the function's
/// "slots"); each field variable names one slot at a time, Bind statements rename. Scalars are
/// values of their dtype (parameters, assignments, loop variables).
struct Orchestration {
  std::string name;
  SourceLocation loc;
  std::vector<TParam> params;  ///< in order: fields and scalars
  std::vector<OStmt> body;
  std::map<std::string, Type> fields;   ///< every field variable (parameters, locals) and its type
  std::map<std::string, Type> scalars;  ///< every scalar variable and its dtype
  /// The @programs the statements call, each once, in order of first call. Field operator
  /// calls are wrapped into programs owned by `owned`.
  std::vector<const TypedDefinition*> callees;
  std::vector<std::unique_ptr<TypedDefinition>> owned;
};

/// Checks the plain function `def` of `module` as an orchestration function (re-parsing its
/// body with loops accepted). Callees are type-checked with `checker`, which must outlive the
/// result. Parameters without annotations take the type of the callee parameter they are first
/// passed to (a scalar used only in `range()`/conditions: int64 / bool). Throws FrontendError at
/// the construct for anything outside the orchestration language, e.g. "'print' is not
/// supported in an orchestrated function".
std::unique_ptr<Orchestration> check_orchestration(const FunctionDef& def, const LoadedModule& module,
                                                   TypeChecker& checker);

/// The field parameters some call may write (through any name bound to them), in parameter
/// order: what the caller's arrays may hold new values in after the call.
std::vector<std::string> written_parameters(const Orchestration& o);

/// The int64 size symbol of field parameter `field` along the (non-local) dimension `dim`:
/// `__<field>_<dim>_size` (`<field>_<dim>_size` when the name starts with `__`), as a
/// single program's lowering names it. Every field parameter has its own sizes (full and half
/// levels differ along K); a call maps its callee's size symbols to the sizes of the arrays it
/// passes, and a local field's extent is its own size expression (docs/adr/0049).
std::string size_symbol(const std::string& field, const std::string& dim);

/// Lowers an orchestration function to ONE new SDFG (docs/adr/0019-orchestration.md): field
/// parameters are non-transient arrays (shape symbols `__f_I_size`, size_symbol), local fields
/// transients shaped by their size expressions;
/// int and bool scalar parameters are symbols, float ones Scalar containers copied into
/// symbols at the start; assigned scalars and loop variables are symbols set on interstate
/// edges. Each call is a nested SDFG (the callee's own lowering) in its own state, loops are
/// LoopRegions, `if` a ConditionalBlock. Field names are resolved to
/// arrays at compile time; where several bindings are possible (a swap in a loop or a branch) the symbol
/// `__binding` numbers them and each call is a ConditionalBlock over it. Nothing is ever copied between
/// fields. `arg_names`: the parameters, then the connectivity tables by name. Throws
/// FrontendError as lower_to_sdfg does for callees, and at a call that passes one array for
/// two written parameters.
std::unique_ptr<SDFG> lower_orchestration(const Orchestration& o, const LoweringOptions& options = {});

/// The plain function `name` at module level of `module`, or null.
const FunctionDef* find_plain_function(const LoadedModule& module, const std::string& name);

}  // namespace weir::frontend
