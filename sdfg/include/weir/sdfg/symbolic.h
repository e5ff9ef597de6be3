// weir's symbolic integer expressions: shapes, strides, ranges, volumes and conditions of an
// SDFG. A small canonicalizing expression type of our own (not a CAS): enough to decide the
// equalities DaCe's sympy decides for these expressions, to print them back in a form DaCe and
// sympy read, and to evaluate them exactly.
//
// Canonical form. Every Expr is built by the canonicalizing constructors below, so two
// expressions that are equal as polynomials compare equal ((N+1)-1 == N, (N+1)*(N-1) ==
// N**2 - 1). A polynomial is a sum of monomials with int64 coefficients over "atoms" (symbols
// and every non-polynomial node: divisions, Min/Max, opaque calls, comparisons, ...); atoms keep
// canonical arguments. Symbols are assumed to be integers (DaCe's size and index symbols are),
// which makes e.g. (N + 33)//32 == 1 + (N + 1)//32 valid, and symbolic divisors are assumed
// nonzero (N/N == 1, as in sympy). Simplifications are syntactic: no range reasoning (Max(N, 0)
// stays), no rational coefficients (N/2 + M/2 and (N + M)/2 stay different), no factoring.
//
// Tree shapes (what kind()/args() show to code that walks an Expr, e.g. a C++ printer):
//   Integer, Boolean       value()
//   Symbol                 name()
//   Add    args: >= 2 terms, non-constant terms first in canonical order, constant last if != 0
//   Mul    args: [Integer coefficient if != 1,] factors (atoms or Pow(atom, k >= 2)), >= 2 args
//   Pow    args: base, exponent. Either a polynomial factor (atom ** integer >= 2) or opaque
//          (symbolic exponent, or a sum too large to expand)
//   Div        args: numerator, denominator   true division that is not exact ("N/3")
//   FloorDiv   args: numerator, denominator   Python a//b; denominator 1 means floor(a)
//   CeilDiv    args: numerator, denominator   ceiling(a/b); only where it cannot become a
//              FloorDiv: ceildiv(a, c) for integer-valued a and integer c is (a + c - 1)//c
//   Mod        args: a, b                     Python a % b (sign of b)
//   Min, Max   args: >= 2, flattened, no duplicates, sorted with the one constant last
//   Call       name(), args: opaque function ("Abs", "Piecewise", ...); name "" is a tuple
//   Compare    name() is the operator, args: a, b. One spelling per relation: an integer
//              operand goes right ("N > 0"), else "<"/"<=" ("b > a" is "a < b")
//   Not, And, Or   args: operands (And/Or flattened and sorted)
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "weir/sdfg/errors.h"

namespace weir::sym {

/// A malformed expression text (with the 1-based column of the offending character), or an
/// operation that has no integer answer: division by zero, int64 overflow, an unbound symbol or
/// a non-integer result in evaluate(). column() is 0 when the error is not about a text.
class SymbolicError : public weir::Error {
 public:
  /// An error not tied to a position in a text; what() is `message`.
  explicit SymbolicError(const std::string& message);
  /// A located error; what() is "<message> at column <column> in '<text>'".
  SymbolicError(const std::string& message, std::string_view text, std::size_t column);
  /// 1-based column in text(), or 0.
  std::size_t column() const noexcept { return column_; }
  /// The expression text the error is about (empty when column() is 0).
  const std::string& text() const noexcept { return text_; }
  /// The message without the location suffix.
  const std::string& message() const noexcept { return message_; }

 private:
  std::string message_;
  std::string text_;
  std::size_t column_ = 0;
};

/// Node kinds; see the file comment for the tree shape of each.
enum class Kind : std::uint8_t {
  Integer,
  Boolean,
  Symbol,
  Add,
  Mul,
  Pow,
  Div,
  FloorDiv,
  CeilDiv,
  Mod,
  Min,
  Max,
  Call,
  Compare,
  Not,
  And,
  Or,
};

namespace detail {
struct Node;
struct Access;
}  // namespace detail

/// An immutable symbolic expression in canonical form. Copies share the node (cheap); an Expr
/// may be shared between threads. Constructors that fold integer constants throw SymbolicError
/// on int64 overflow and on division by an integer zero.
class Expr {
 public:
  /// The integer 0.
  Expr();
  /// An integer constant.
  Expr(long long value);  // NOLINT(google-explicit-constructor): 2*N reads best

  /// The symbol `name`, which must be a Python identifier that is not a keyword
  /// (and/or/not/True/False/None); throws SymbolicError otherwise.
  static Expr symbol(std::string name);
  /// Parses Python expression text with pycode's parser and builds it as from_tree does
  /// (symbolic_tree.h; symbolic_parse.cpp says what is rewritten first). Accepts DaCe's symbol
  /// spellings `N`, `$N` and `symbol($N, dtype=...)`, and -9223372036854775808. Float literals
  /// are rejected (shapes and ranges are integers). Throws SymbolicError with the column in
  /// `text`, for pycode's syntax errors too.
  static Expr parse(std::string_view text);
  /// True or False. In arithmetic a boolean acts as 1 or 0 (as in Python).
  static Expr boolean(bool value);

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  Expr operator-() const;
  Expr& operator+=(const Expr& o) { return *this = *this + o; }
  Expr& operator-=(const Expr& o) { return *this = *this - o; }
  Expr& operator*=(const Expr& o) { return *this = *this * o; }
  /// Sum of many terms in one pass (n log n, where repeated + would be quadratic).
  static Expr sum(const std::vector<Expr>& terms);

  /// Python a // b: floor(a/b). Exact when b divides a; integer multiples of an integer b are
  /// moved out ((N + 33)//32 == 1 + (N + 1)//32). Throws on an integer zero divisor.
  static Expr floordiv(Expr a, Expr b);
  /// ceiling(a/b), exact on integers. For integer b > 0 and integer-valued a this is
  /// (a + b - 1)//b, so ceildiv(N, 32) prints as "(N + 31)//32".
  static Expr ceildiv(Expr a, Expr b);
  /// Python a % b (sympy Mod): the result has the sign of b.
  static Expr mod(Expr a, Expr b);
  /// True division a / b: the exact quotient when b divides a (e.g. (2*N + 4)/2 == N + 2),
  /// else an opaque Div atom (no rational coefficients).
  static Expr div(Expr a, Expr b);
  /// a ** b. Integer exponents >= 0 expand polynomially (large expansions stay opaque);
  /// negative integer exponents become 1/(a ** -b).
  static Expr pow(Expr a, Expr b);
  static Expr min(Expr a, Expr b);
  static Expr max(Expr a, Expr b);
  static Expr min(std::vector<Expr> args);  ///< n-ary; throws on an empty list
  static Expr max(std::vector<Expr> args);  ///< n-ary; throws on an empty list
  /// Calls function `fn`. Known names are routed to the constructors above: Min/min, Max/max,
  /// ceiling, floor, int_floor(a,b), int_ceil(a,b), Mod(a,b), Pow(a,b), Abs/abs. Any other
  /// name (Piecewise, sqrt, ...) gives an opaque Call atom; "" is a tuple. Throws
  /// SymbolicError for a wrong argument count of a known function or a malformed name.
  static Expr call(std::string fn, std::vector<Expr> args);
  /// op is one of "<", "<=", ">", ">=", "==", "!="; folds to a Boolean when a - b is a
  /// constant. Throws SymbolicError for another op.
  static Expr compare(const std::string& op, Expr a, Expr b);
  /// Boolean connectives, flattened and sorted; constants fold (x and True is x, x or True is
  /// True). They evaluate to 1/0, not to an operand as Python's and/or do.
  static Expr logical_and(Expr a, Expr b);
  static Expr logical_or(Expr a, Expr b);
  /// not x; folds constants, not not (a < b) is a < b, not (a < b) is a >= b.
  static Expr logical_not(Expr a);

  /// Python/sympy text, deterministic and re-parseable (parse(e.str()) == e):
  /// "N - 1", "2*I*J", "Min(N, 32)", "(N + 31)//32", "N**2".
  std::string str() const;
  /// Like str() but every symbol is written `$N`, DaCe's (>= 2.0a4) descriptor spelling.
  std::string dace_str() const;

  /// Whether this is an integer constant (not a boolean).
  bool is_integer() const;
  std::optional<long long> as_integer() const;
  bool is_boolean() const;
  bool is_symbol() const;
  /// The symbol's name. Precondition: is_symbol().
  const std::string& symbol_name() const;
  /// Whether the value is an integer whenever all symbols are (false for N/3 or opaque calls).
  bool is_integer_valued() const;

  Kind kind() const;
  /// Integer value or Boolean (0/1). Precondition: kind() is Integer or Boolean.
  long long value() const;
  /// Symbol name, Call function name or Compare operator; empty for other kinds.
  const std::string& name() const;
  /// Operands; empty for Integer, Boolean and Symbol.
  const std::vector<Expr>& args() const;

  /// Names of all symbols in the expression.
  std::set<std::string> free_symbols() const;
  /// Replaces symbols by expressions (simultaneously) and re-canonicalizes.
  Expr subs(const std::map<std::string, Expr>& m) const;
  /// Exact value with Python semantics (// and % floor; ceiling exact; comparisons and
  /// booleans give 1/0). Intermediate values may be rationals; the result must be an integer.
  /// Throws SymbolicError naming an unbound symbol, on division by zero, int64 overflow, a
  /// non-integer result or an opaque function other than Abs.
  long long evaluate(const std::map<std::string, long long>& values) const;
  /// evaluate(), or nullopt where it would throw.
  std::optional<long long> try_evaluate(const std::map<std::string, long long>& values) const;

  /// -1, 0 or +1 when the sign is provable assuming every symbol is >= 0 (sizes), else nullopt.
  std::optional<int> sign_if_symbols_nonnegative() const;
  /// Whether the value is provably >= 0 assuming every symbol is >= 0 (e.g. N + 1, N*M, N//2).
  bool nonnegative_if_symbols_nonnegative() const;

  /// Equality of canonical forms.
  bool operator==(const Expr& o) const;
  bool operator!=(const Expr& o) const { return !(*this == o); }
  std::size_t hash() const;
  /// A deterministic total order on expressions (for sorting; not numeric order).
  static int compare_order(const Expr& a, const Expr& b);

 private:
  explicit Expr(std::shared_ptr<const detail::Node> node);
  std::shared_ptr<const detail::Node> node_;
  friend struct detail::Access;
};

std::ostream& operator<<(std::ostream& os, const Expr& e);

}  // namespace weir::sym

namespace std {
template <>
struct hash<weir::sym::Expr> {
  std::size_t operator()(const weir::sym::Expr& e) const noexcept { return e.hash(); }
};
}  // namespace std
