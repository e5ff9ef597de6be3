// Internals of the SDFG lowering shared by lowering_program.cpp (programs, states, maps),
// lowering_expr.cpp (field-operator expressions -> tasklet code) and lowering_builtins.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "weir/frontend/lowering.h"
#include "weir/frontend/source.h"
#include "weir/sdfg/symbolic.h"

namespace weir::frontend::lowering {

/// Throws "not supported yet by the SDFG lowering: <what>" at `loc`.
[[noreturn]] void unsupported(const SourceLocation& loc, const std::string& what);

ScalarType to_sdfg_type(ScalarKind k);

/// Offsets per dimension name relative to the map point.
using Shift = std::map<std::string, std::int64_t>;

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

/// Python code of a value at one point: a scalar expression, or a tuple of codes.
struct Code {
  std::string text;
  bool tuple = false;
  std::vector<Code> elems;
  static Code scalar(std::string t) { Code c; c.text = std::move(t); return c; }
};

/// One read of a tasklet: connector `conn` reads `container` at `index` (one entry per
/// dimension; a Scalar container has index [0]).
struct Read {
  std::string conn;
  std::string container;
  std::vector<sym::Expr> index;
  std::vector<std::int64_t> offsets;  ///< per dimension, relative to the map point
};

/// Builds the code of one tasklet: inlines operator calls, records the reads.
class KernelBuilder {
 public:
  /// `params`: dimension name -> map parameter of the output domain.
  explicit KernelBuilder(std::map<std::string, std::string> params) : params_(std::move(params)) {}

  Code eval(const TExpr& e, const EnvPtr& env, const Shift& shift);
  Code eval_value(const ValuePtr& v, const Shift& shift);
  /// Binds the callee's parameters to `args` and runs its body; returns the result value.
  ValuePtr inline_call(const TypedDefinition& callee, const std::vector<ValuePtr>& args,
                       const SourceLocation& loc);

  /// Tasklet statements computing temporaries, in order.
  const std::vector<std::string>& lines() const { return lines_; }
  const std::vector<Read>& reads() const { return reads_; }
  const std::map<std::string, std::string>& params() const { return params_; }
  void set_location(SourceLocation loc) { where_ = std::move(loc); }

  // used by the builtins
  Code builtin(const TExpr& e, const EnvPtr& env, const Shift& shift);
  /// The map parameter of `dim` shifted by `shift` (`__K + 1`), as Python text.
  std::string index_text(const Dimension& dim, const Shift& shift, const SourceLocation& loc) const;

 private:
  ValuePtr exec(const std::vector<const TStmt*>& stmts, std::size_t i, EnvPtr env);
  std::string read(const std::string& container, const std::vector<Dimension>& dims,
                   const Shift& shift, const SourceLocation& loc);
  Code temp(Code c);

  std::map<std::string, std::string> params_;
  std::vector<std::string> lines_;
  std::vector<Read> reads_;
  std::map<std::string, std::string> read_conns_;  // "container[offsets]" -> connector
  std::map<std::tuple<const void*, const void*, Shift>, Code> memo_;
  int temps_ = 0;
  SourceLocation where_;  // location of the program call (for reads)
};

/// Combines codes leaf by leaf.
Code zip(const std::vector<Code>& parts, const std::string& what,
         const std::function<std::string(const std::vector<std::string>&)>& f);

/// Python text of a literal of type `dtype`.
std::string literal_text(const ConstantValue& c, ScalarKind dtype);

}  // namespace weir::frontend::lowering
