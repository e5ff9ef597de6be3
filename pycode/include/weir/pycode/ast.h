// The syntax tree of the Python subset weir reads: expressions, statements, modules.
// Nodes are plain structs owned through unique_ptr; every node carries a SourceLocation
// (where it starts, as in Python's ast). Use dyn_cast<T>/isa<T> to inspect a node's kind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weir/pycode/source.h"

namespace weir::pycode {

// ---------------------------------------------------------------------------------------------
// Operators

enum class UnaryOperator { UAdd, USub, Not, Invert };
enum class BinaryOperator {
  Add,
  Sub,
  Mult,
  MatMult,
  Div,
  FloorDiv,
  Mod,
  Pow,
  LShift,
  RShift,
  BitOr,
  BitXor,
  BitAnd
};
enum class BoolOperator { And, Or };
enum class CompareOperator { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

/// Python spelling: "-", "not", "**", "and", "is not", ...
std::string_view to_string(UnaryOperator op);
std::string_view to_string(BinaryOperator op);
std::string_view to_string(BoolOperator op);
std::string_view to_string(CompareOperator op);

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind {
  Name,
  Constant,
  Attribute,
  Subscript,
  Slice,
  Call,
  UnaryOp,
  BinOp,
  BoolOp,
  Compare,
  IfExp,
  Tuple,
  List,
  Dict,
  Set,
  Lambda,
  Starred
};
std::string_view to_string(ExprKind kind);

struct Expr {
  const ExprKind kind;
  SourceLocation loc;
  virtual ~Expr();
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

 protected:
  Expr(ExprKind k, SourceLocation l) : kind(k), loc(std::move(l)) {}
};
using ExprPtr = std::unique_ptr<Expr>;
using ExprList = std::vector<ExprPtr>;

/// An identifier: `f`, `IDim`.
struct Name final : Expr {
  static constexpr ExprKind kKind = ExprKind::Name;
  explicit Name(SourceLocation l, std::string id_ = {}) : Expr(kKind, std::move(l)), id(std::move(id_)) {}
  std::string id;
};

enum class ConstantKind { Int, Float, Imaginary, String, Bytes, Bool, None, Ellipsis };
std::string_view to_string(ConstantKind kind);

/// A literal. Numbers keep their source text; adjacent string literals are concatenated.
struct Constant final : Expr {
  static constexpr ExprKind kKind = ExprKind::Constant;
  explicit Constant(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ConstantKind value_kind = ConstantKind::None;
  std::int64_t int_value = 0;  ///< Int
  double float_value = 0.0;    ///< Float, Imaginary (the imaginary part)
  std::string str_value;       ///< String (UTF-8), Bytes (raw bytes)
  bool bool_value = false;     ///< Bool
  std::string text;            ///< the literal as written (for strings: all parts, as written)
};

/// `value.attr`, e.g. `gtx.Field`.
struct Attribute final : Expr {
  static constexpr ExprKind kKind = ExprKind::Attribute;
  explicit Attribute(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprPtr value;
  std::string attr;
  SourceLocation attr_loc;  ///< where the attribute name is
};

/// `value[index]`. Several indices (`f[1:-1, 0]`) form a Tuple index; slices are Slice nodes.
struct Subscript final : Expr {
  static constexpr ExprKind kKind = ExprKind::Subscript;
  explicit Subscript(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprPtr value;
  ExprPtr index;
};

/// `lower:upper:step` inside a subscript; absent parts are null.
struct Slice final : Expr {
  static constexpr ExprKind kKind = ExprKind::Slice;
  explicit Slice(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprPtr lower, upper, step;
};

/// `name=value` in a call or class header; `**value` when name is empty.
struct Keyword {
  std::string arg;
  ExprPtr value;
  SourceLocation loc;
};

/// `func(args..., keywords...)`; `*x` arguments are Starred nodes in args.
struct Call final : Expr {
  static constexpr ExprKind kKind = ExprKind::Call;
  explicit Call(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprPtr func;
  ExprList args;
  std::vector<Keyword> keywords;
};

struct UnaryOp final : Expr {
  static constexpr ExprKind kKind = ExprKind::UnaryOp;
  explicit UnaryOp(SourceLocation l) : Expr(kKind, std::move(l)) {}
  UnaryOperator op = UnaryOperator::UAdd;
  ExprPtr operand;
};

/// loc is where the left operand starts; op_loc where the operator is.
struct BinOp final : Expr {
  static constexpr ExprKind kKind = ExprKind::BinOp;
  explicit BinOp(SourceLocation l) : Expr(kKind, std::move(l)) {}
  BinaryOperator op = BinaryOperator::Add;
  ExprPtr left, right;
  SourceLocation op_loc;
};

/// `a and b and c` (one node, values flattened as in Python's ast).
struct BoolOp final : Expr {
  static constexpr ExprKind kKind = ExprKind::BoolOp;
  explicit BoolOp(SourceLocation l) : Expr(kKind, std::move(l)) {}
  BoolOperator op = BoolOperator::And;
  ExprList values;
};

/// `left op0 c0 op1 c1 ...`; a chain `a < b < c` has two ops.
struct Compare final : Expr {
  static constexpr ExprKind kKind = ExprKind::Compare;
  explicit Compare(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprPtr left;
  std::vector<CompareOperator> ops;
  ExprList comparators;
  std::vector<SourceLocation> op_locs;
};

/// `body if test else orelse`.
struct IfExp final : Expr {
  static constexpr ExprKind kKind = ExprKind::IfExp;
  explicit IfExp(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprPtr test, body, orelse;
};

struct Tuple final : Expr {
  static constexpr ExprKind kKind = ExprKind::Tuple;
  explicit Tuple(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprList elts;
  bool parenthesized = false;  ///< written with ( )
};

struct List final : Expr {
  static constexpr ExprKind kKind = ExprKind::List;
  explicit List(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprList elts;
};

/// `{k: v, **d}`: a null key means `**value`.
struct Dict final : Expr {
  static constexpr ExprKind kKind = ExprKind::Dict;
  explicit Dict(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprList keys;
  ExprList values;
};

struct Set final : Expr {
  static constexpr ExprKind kKind = ExprKind::Set;
  explicit Set(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprList elts;
};

/// A function or lambda parameter. The bare `*` and `/` markers are not parameters; they
/// show in the kinds of the parameters around them.
enum class ParamKind { PositionalOnly, Normal, VarArgs, KeywordOnly, VarKeywords };
std::string_view to_string(ParamKind kind);

struct Parameter {
  std::string name;
  ParamKind kind = ParamKind::Normal;
  ExprPtr annotation;     ///< may be null (always null in a lambda)
  ExprPtr default_value;  ///< may be null
  SourceLocation loc;
};

struct Lambda final : Expr {
  static constexpr ExprKind kKind = ExprKind::Lambda;
  explicit Lambda(SourceLocation l) : Expr(kKind, std::move(l)) {}
  std::vector<Parameter> params;
  ExprPtr body;
};

/// `*value` in a call, a tuple/list/set display or an assignment target.
struct Starred final : Expr {
  static constexpr ExprKind kKind = ExprKind::Starred;
  explicit Starred(SourceLocation l) : Expr(kKind, std::move(l)) {}
  ExprPtr value;
};

// ---------------------------------------------------------------------------------------------
// Statements

enum class StmtKind {
  Assign,
  AnnAssign,
  AugAssign,
  Return,
  Pass,
  Expr,
  If,
  FunctionDef,
  ClassDef,
  Import,
  ImportFrom,
  Unparsed,
  For,
  While,
  Break,
  Continue
};
std::string_view to_string(StmtKind kind);

struct Stmt {
  const StmtKind kind;
  SourceLocation loc;
  virtual ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

 protected:
  Stmt(StmtKind k, SourceLocation l) : kind(k), loc(std::move(l)) {}
};
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

/// `t1 = t2 = value`; targets may be Tuple/List (with at most one Starred each).
struct Assign final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Assign;
  explicit Assign(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprList targets;
  ExprPtr value;
};

/// `target: annotation [= value]`.
struct AnnAssign final : Stmt {
  static constexpr StmtKind kKind = StmtKind::AnnAssign;
  explicit AnnAssign(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprPtr target;
  ExprPtr annotation;
  ExprPtr value;  ///< may be null
};

/// `target op= value`.
struct AugAssign final : Stmt {
  static constexpr StmtKind kKind = StmtKind::AugAssign;
  explicit AugAssign(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprPtr target;
  BinaryOperator op = BinaryOperator::Add;
  ExprPtr value;
};

struct Return final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Return;
  explicit Return(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprPtr value;  ///< may be null
};

struct Pass final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Pass;
  explicit Pass(SourceLocation l) : Stmt(kKind, std::move(l)) {}
};

/// An expression used as a statement (a call, a docstring).
struct ExprStmt final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Expr;
  explicit ExprStmt(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprPtr value;
};

/// `if test: body else: orelse`; `elif` is an If alone in orelse with is_elif set.
struct If final : Stmt {
  static constexpr StmtKind kKind = StmtKind::If;
  explicit If(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprPtr test;
  StmtList body;
  StmtList orelse;
  bool is_elif = false;
};

/// `for target in iter: body else: orelse`. Parsed only where loops are accepted
/// (parse_function_with_loops: orchestration functions).
struct For final : Stmt {
  static constexpr StmtKind kKind = StmtKind::For;
  explicit For(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprPtr target;
  ExprPtr iter;
  StmtList body;
  StmtList orelse;
};

/// `while test: body else: orelse` (as For, only where loops are accepted).
struct While final : Stmt {
  static constexpr StmtKind kKind = StmtKind::While;
  explicit While(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  ExprPtr test;
  StmtList body;
  StmtList orelse;
};

struct Break final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Break;
  explicit Break(SourceLocation l) : Stmt(kKind, std::move(l)) {}
};

struct Continue final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Continue;
  explicit Continue(SourceLocation l) : Stmt(kKind, std::move(l)) {}
};

/// `def name(params) -> returns: body`; loc is the `def` keyword. When the body of an
/// undecorated (or not gt4py-decorated) function could not be parsed, body_skipped is set and
/// body holds one Unparsed statement.
struct FunctionDef final : Stmt {
  static constexpr StmtKind kKind = StmtKind::FunctionDef;
  explicit FunctionDef(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  std::string name;
  ExprList decorators;
  std::vector<Parameter> params;
  ExprPtr returns;  ///< may be null
  StmtList body;
  bool body_skipped = false;
};

/// `class name(bases, keywords): body`; loc is the `class` keyword. Statements of the body
/// are handled like module-level statements (unknown ones become Unparsed).
struct ClassDef final : Stmt {
  static constexpr StmtKind kKind = StmtKind::ClassDef;
  explicit ClassDef(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  std::string name;
  ExprList decorators;
  ExprList bases;
  std::vector<Keyword> keywords;
  StmtList body;
};

/// `name as asname` in an import; asname is empty when absent; name is dotted or "*".
struct Alias {
  std::string name;
  std::string asname;
  SourceLocation loc;
};

/// `import a.b as c, d`.
struct Import final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Import;
  explicit Import(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  std::vector<Alias> names;
};

/// `from ..module import x as y`: level counts the leading dots; module may be empty.
struct ImportFrom final : Stmt {
  static constexpr StmtKind kKind = StmtKind::ImportFrom;
  explicit ImportFrom(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  std::string module;
  int level = 0;
  std::vector<Alias> names;
};

/// A statement skipped without being understood (at module or class level, or the body of a
/// helper function): its source text, first token and, when a parse was tried and failed,
/// the reason. Later stages ignore it unless something it defines is needed.
struct Unparsed final : Stmt {
  static constexpr StmtKind kKind = StmtKind::Unparsed;
  explicit Unparsed(SourceLocation l) : Stmt(kKind, std::move(l)) {}
  std::string text;         ///< source text from the first token to the end of the last line
  std::string first_token;  ///< e.g. "match", "for", "@", "print"; "<string>" for a literal
  std::string reason;       ///< empty when skipped without trying; else the parse error
  std::uint32_t end_line = 0;
};

/// A parsed file.
struct Module {
  SourceFile file;
  StmtList body;
};

// ---------------------------------------------------------------------------------------------
// Helpers

/// The node as a T when its kind is T::kKind, else null (also for a null node).
template <class T, class Node>
T* dyn_cast(Node* node) {
  return node && node->kind == T::kKind ? static_cast<T*>(node) : nullptr;
}
template <class T, class Node>
const T* dyn_cast(const Node* node) {
  return node && node->kind == T::kKind ? static_cast<const T*>(node) : nullptr;
}
template <class T, class Node>
bool isa(const Node* node) {
  return node && node->kind == T::kKind;
}

/// A deep copy of an expression (null gives null).
ExprPtr clone(const Expr* expr);
/// A deep copy of a statement (null gives null) or of statements.
StmtPtr clone(const Stmt* stmt);
StmtList clone(const StmtList& body);

/// The dotted name of a Name/Attribute chain (`gtx.next.Field`), or "" for anything else.
std::string dotted_name(const Expr* expr);

}  // namespace weir::pycode
