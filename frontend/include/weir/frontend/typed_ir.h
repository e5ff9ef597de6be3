// The typed field-view IR (weir's equivalent of gt4py's FOAST and PAST): the body of every
// @field_operator / @scan_operator as typed expressions and statements, and every @program as
// typed calls with their outputs and domains. Produced by TypeChecker; the input of lowering.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/frontend/module_loader.h"
#include "weir/frontend/python_syntax.h"
#include "weir/frontend/types.h"

namespace weir::frontend {

struct TypedDefinition;

enum class TExprKind {
  Name,           ///< a parameter or local variable: `name`
  Literal,        ///< a scalar literal of `type` (`literal` holds the value)
  Tuple,          ///< `args` are the elements
  TupleGet,       ///< `args[0]`[`index`]
  Unary,          ///< `unary_op` `args[0]`
  Binary,         ///< `args[0]` `binary_op` `args[1]` (element-wise, dims broadcast)
  Compare,        ///< `args[0]` `compare_op` `args[1]`
  Ternary,        ///< `args[1] if args[0] else args[2]` (args[0] a scalar bool)
  Shift,          ///< `args[0]` shifted by `shifts`, in order
  LocalIndex,     ///< `args[0][dim(index)]`: picks entry `index` of the local dimension `dim`
  Builtin,        ///< builtin `name` (neighbor_sum, where, concat_where, broadcast, astype, sqrt...)
                  ///< applied to `args`; `dim` is the axis of reductions, `dims` the target of
                  ///< broadcast, `type` the result (its dtype the target of astype)
  DomainCompare,  ///< a domain condition `dim compare_op args[0]` (args[0] a scalar int)
  Call,           ///< a call of another field/scan operator `callee` with `args` (parameter order)
};

/// One step of a Shift.
struct ShiftStep {
  enum class Kind {
    Cartesian,     ///< move along `offset.source` by `amount` (`IDim + 1`, `Koff[1]`)
    Neighbor,      ///< the `amount`-th neighbour through the connectivity `offset` (`E2V[0]`)
    AllNeighbors,  ///< all neighbours through `offset` (`E2V`): gains the local dimension
    Dynamic,       ///< `as_offset(offset, index_field)`: per-point Cartesian shift by `index_field`
  };
  Kind kind = Kind::Cartesian;
  FieldOffset offset;  ///< for `IDim + 1` a synthetic offset named after the dimension
  std::int64_t amount = 0;
  std::shared_ptr<struct TExpr> index_field;  ///< Dynamic only
};

struct TExpr {
  TExprKind kind = TExprKind::Name;
  Type type;
  SourceLocation loc;
  std::vector<std::shared_ptr<TExpr>> args;
  std::string name;
  ConstantValue literal;
  std::size_t index = 0;
  UnaryOperator unary_op = UnaryOperator::UAdd;
  BinaryOperator binary_op = BinaryOperator::Add;
  CompareOperator compare_op = CompareOperator::Eq;
  std::vector<ShiftStep> shifts;
  Dimension dim;
  std::vector<Dimension> dims;
  const TypedDefinition* callee = nullptr;
};
using TExprPtr = std::shared_ptr<TExpr>;

/// A statement of a field/scan operator body.
struct TStmt {
  enum class Kind { Assign, If, Return };
  Kind kind = Kind::Assign;
  SourceLocation loc;
  /// Assign: target names (a single name, or the names of a tuple target; `starred` is the
  /// index of a `*rest` target or -1) and the types bound to them.
  std::vector<std::string> targets;
  std::vector<Type> target_types;
  int starred = -1;
  bool tuple_target = false;
  TExprPtr value;                   ///< Assign, Return; the condition of If
  std::vector<TStmt> body, orelse;  ///< If
};

struct TParam {
  std::string name;
  Type type;
  SourceLocation loc;
};

/// One call statement of a @program: `callee(args, out=..., domain=...)`.
struct ProgramCall {
  const TypedDefinition* callee = nullptr;
  SourceLocation loc;
  /// In the callee's parameter order: parameters, literals, tuples of them, or scalar
  /// expressions of parameters and literals (`vertical_end - 1`).
  std::vector<TExprPtr> args;
  /// `domain={D: (lo, hi)}`: per dimension, the bounds (scalar int expressions over the
  /// program's parameters and literals).
  struct Range {
    Dimension dim;
    TExprPtr lo, hi;
  };
  /// The outputs: one per field written (a tuple `out=(a, b)` gives several), each a program
  /// parameter name with optional slices (`out=f[1:-1, 1:-1]`: per dimension lower/upper,
  /// relative to the field's extent; nullopt where absent).
  struct Out {
    std::string name;
    Type type;
    std::vector<std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>>> slices;
    /// This output's own domain, from a tuple `domain=({...}, {...})` (one dict per output);
    /// empty: the call's `domain` applies.
    std::vector<Range> domain;
    /// Computed into a temporary and copied to the field afterwards: the call reads this
    /// field at a point another point writes (check_out_hazards; docs/adr/0043). gt4py
    /// evaluates the whole right-hand side before writing, which the copy keeps.
    bool copy = false;
    SourceLocation copy_reason;  ///< the read that overlaps (when `copy`)
  };
  std::vector<Out> outs;
  std::vector<Range> domain;
  /// The domain output `i` is written over: its own, else the call's.
  const std::vector<Range>& domain_of(std::size_t i) const {
    return outs[i].domain.empty() ? domain : outs[i].domain;
  }
};

/// A type-checked definition.
struct TypedDefinition {
  DefinitionKind kind = DefinitionKind::FieldOperator;
  std::string name;
  const Definition* source = nullptr;
  SourceLocation loc;
  std::vector<TParam> params;
  Type returns;             ///< None for a program
  std::vector<TStmt> body;  ///< field/scan operators
  // scan_operator
  Dimension axis;
  bool forward = true;
  TExprPtr init;
  // program
  std::vector<ProgramCall> calls;
  /// A program's parameters as declared. `params` holds one entry per leaf instead: a
  /// parameter of tuple or named-collection type (`x: tuple[A, tuple[B, C]]`, a NamedTuple or
  /// dataclass of fields and scalars) becomes `x_0`, `x_1_0`, `x_1_1` (gt4py's DaCe backend's
  /// names for a flattened tuple), one SDFG argument each; see flat_parameter_names().
  std::vector<TParam> declared_params;
  /// The longest chain of calls from this definition down to an operator that calls none: 1
  /// for such a leaf, 1 + the deepest callee's otherwise. Every call is inlined, so the
  /// lowering recurses this deep; TypeChecker refuses more than kMaxCallDepth.
  int call_depth = 1;
};

/// The leaves of a program parameter `name` of type `type`, in order: `name` itself for a
/// field or scalar, `name_0`, `name_1_0`, ... (by position, also for a named collection) for
/// a (nested) tuple.
std::vector<std::pair<std::string, Type>> flat_parameter_names(const std::string& name, const Type& type);

/// `field_operator lap(f: Field[[I, J], float64]) -> Field[[I, J], float64]`; a program has no
/// arrow; a scan operator shows `(axis=K, forward=True)` after its name.
std::string signature(const TypedDefinition& def);

}  // namespace weir::frontend
