// Internals of the type checker shared by its parts: type_checker.cpp (definitions, helpers),
// type_checker_statements.cpp, type_checker_expressions.cpp, type_checker_calls.cpp,
// type_checker_builtins.cpp, type_checker_shifts.cpp and type_checker_program.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "weir/frontend/type_checker.h"
#include "weir/pycode/unparse.h"

namespace weir::frontend::typecheck {

using Scope = std::map<std::string, Type>;

/// A typed expression of kind `k` and type `t` at `loc`, without operands.
TExprPtr mk(TExprKind k, Type t, SourceLocation loc);
/// The verb of `op` in "cannot <verb> float64 and bool".
std::string_view verb(BinaryOperator op);
/// The math builtins defined on floating-point values only.
const std::set<std::string>& float_math();
/// The type with every named collection turned into a plain tuple.
Type unnamed(const Type& t);
/// `t` with the data type of every leaf replaced by `dtype`.
Type map_leaves(const Type& t, ScalarKind dtype);

/// Checks one field operator, scan operator or program and writes its typed form.
class FunctionChecker {
 public:
  FunctionChecker(TypeChecker& tc, const Definition& def, TypedDefinition& out)
      : tc_(tc), def_(def), out_(out), module_(*def.module) {}

  void run();

 private:
  // ------------------------------------------------------------------------------- helpers

  Type annotation_type(const Expr& e) { return value_to_type(evaluate(e, module_), e.loc); }

  Value global(const Expr& e) { return evaluate(e, module_); }

  // Retypes Python literals in a scan's init to the carry's dtypes (leaf by leaf).
  static void adapt_literals(TExpr& e, const Type& want);
  bool is_local(const Expr& e) const;

  static std::string name_of(const Expr& e) { return unparse(e); }

  TExprPtr literal(const ConstantValue& c, const SourceLocation& loc);

  TExprPtr value_expr(const Value& v, const Expr& e);

  static bool is_int_literal(const TExprPtr& e);

  // Element-wise result of two data types, or an error "cannot add float64 and float32".
  Type promote(const Type& a, const Type& b, std::string_view what, const SourceLocation& loc);
  /// promote() of two operands' types; where they do not promote and one is a literal of the
  /// other's kind but another width, the error says how to write it (`float32(0.1)`).
  Type promote_with_hint(const TExprPtr& l, const TExprPtr& r, std::string_view what,
                         const SourceLocation& loc);

  // ------------------------------------------------------------------------------- statements

  bool block(const StmtList& stmts, std::vector<TStmt>& out, Scope& scope);

  void bind(const Expr& target, const TExprPtr& value, TStmt& st, Scope& scope);

  bool stmt(const Stmt& s, std::vector<TStmt>& out, Scope& scope);

  // ------------------------------------------------------------------------------- expressions

  TExprPtr binary(BinaryOperator op, TExprPtr l, TExprPtr r, const SourceLocation& loc);

  TExprPtr expr(const Expr& e, Scope& scope);
  // expr's cases. expr and the cases that recurse keep only the recursion in their frames and
  // build the node in the *_result functions: a frame per nesting level must stay small in
  // every build (issue 17, frontend/test_nesting_stack.cpp).
  TExprPtr name_expr(const Name& n, Scope& scope);
  TExprPtr attribute_expr(const Attribute& a, Scope& scope);
  TExprPtr constant_expr(const Constant& c);
  TExprPtr tuple_expr(const Tuple& t, Scope& scope);
  TExprPtr unary_expr(const UnaryOp& u, Scope& scope);
  TExprPtr unary_result(const UnaryOp& u, TExprPtr x);
  TExprPtr binop_expr(const BinOp& b, Scope& scope);
  TExprPtr binop_result(const BinOp& b, TExprPtr l, TExprPtr r);
  TExprPtr ifexp_expr(const IfExp& i, Scope& scope);
  TExprPtr ifexp_result(const IfExp& i, TExprPtr c, TExprPtr a, TExprPtr b);
  [[noreturn]] void unsupported_expr(const Expr& e);

  // Whether `e` is (an attribute, subscript or call of) a local name.
  static bool rooted_in(const Expr& e, const Scope& scope);

  // `state.u`: the element `u` of a named collection.
  TExprPtr element(const Attribute& a, TExprPtr base);

  // `State(u, v=x)`: a named collection built from its elements (positional, then by name),
  // each `arg(expr)` of the element's type.
  TExprPtr collection(const Call& c, const Type& t, const std::function<TExprPtr(const Expr&)>& arg);

  TExprPtr subscript(const Subscript& s, Scope& scope);

  TExprPtr compare(const Compare& c, Scope& scope);

  // ------------------------------------------------------------------------------- calls

  const Expr* keyword(const Call& c, const std::string& name);

  void expect_args(const Call& c, const std::string& fn, std::size_t n,
                   const std::set<std::string>& keywords = {});

  TExprPtr call(const Call& c, Scope& scope);

  TExprPtr constructor(const Call& c, ScalarKind k, const std::string& fn, Scope& scope);

  TExprPtr typed_constant(ScalarKind k, double d, const SourceLocation& loc);

  ShiftStep shift_step(const Expr& a, const Type& field, std::vector<Dimension>& dims, Scope& scope);

  TExprPtr shift(const Call& c, TExprPtr field, Scope& scope);

  Type where_type(const Type& mask, const Type& a, const Type& b, const std::string& fn,
                  const SourceLocation& loc);

  TExprPtr builtin(const Call& c, const std::string& name, const std::string& fn, Scope& scope);

  // Orders the call's arguments by the callee's parameters and checks their types.
  // Returns the call's result type.
  Type match_call(const Call& c, const TypedDefinition& callee, std::vector<TExprPtr>& args,
                  const std::vector<TExprPtr>& positional,
                  const std::vector<std::pair<const Keyword*, TExprPtr>>& keywords);

  static bool scan_compatible(const Type& got, const Type& want, std::vector<Dimension>& dims);

  static Type lift(const Type& t, const std::vector<Dimension>& dims);

  const TypedDefinition& callee_of(const Definition& d, const SourceLocation& loc);

  TExprPtr operator_call(const Call& c, const Definition& d, Scope& scope);

  // ------------------------------------------------------------------------------- scan, program

  void check_scan_header(const FunctionDef& f);

  // A program argument: a parameter, a literal, a tuple of arguments, or a scalar expression
  // of parameters and literals (`vertical_end - 1`), computed where the program runs.
  TExprPtr program_arg(const Expr& e);

  std::optional<std::int64_t> slice_bound(const Expr* e);

  // A program parameter: one entry of out_.params per leaf of a tuple or collection type
  // (`x_0`, `x_1_0`, ...), the declared one in out_.declared_params.
  void program_param(const Parameter& p, const Type& t);

  // `e` with every reference to a tuple parameter replaced by the tuple of its leaves, and
  // every element of such a tuple (`x[0]`, `x.a`) by the leaf or subtuple it names.
  TExprPtr flat_refs(const TExprPtr& e);

  // `out`, `out.a`, `out[1]`, `out[1].b` of a tuple parameter `out`: the flat name of that part
  // ("out", "out_0", "out_1_0") and its type; nullopt when `e` is not such a path.
  std::optional<std::pair<std::string, Type>> param_part(const Expr& e);

  // Appends the out= field `name` of type `t` (`base` its expression, `index` its slices).
  void out_field(const std::string& name, const Type& t, const Expr& base, const Expr* index,
                 ProgramCall& pc);

  // The type of out= `e` (a tuple keeps its nesting); appends its fields to pc.outs, flat.
  Type out_target(const Expr& e, ProgramCall& pc);

  TExprPtr bound(const Expr& e);

  // `{D: (lo, hi), ...}` for outputs of `types` (what `what` names in messages).
  std::vector<ProgramCall::Range> domain_ranges(const Expr& domain, const std::vector<Type>& types,
                                                const std::string& what);

  void check_program(const FunctionDef& f);

  TypeChecker& tc_;
  const Definition& def_;
  TypedDefinition& out_;
  const LoadedModule& module_;
  Scope scope_;
  // A program's parameters of tuple or collection type, by declared name.
  std::map<std::string, Type> tuple_params_;
  Type declared_return_, deduced_return_;
  bool has_declared_return_ = false, has_deduced_return_ = false;
};

}  // namespace weir::frontend::typecheck
