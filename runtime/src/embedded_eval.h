// The embedded interpreter's evaluator (internal): field operators, scan operators and their
// expressions over whole fields (semantics in weir/runtime/embedded.h).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "embedded_value.h"
#include "weir/frontend/typed_ir.h"

namespace weir::runtime::embedded {

/// A connectivity table as the interpreter reads it: rows x cols entries, -1 = no neighbour.
struct Table {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> data;
};

/// What evaluation needs besides the expressions: the connectivity tables by offset name, and
/// per dimension name the range that bounds unbounded pieces of concat_where results (the hull
/// of every argument's range widened by how far the program's shifts can reach).
struct Context {
  std::map<std::string, Table> tables;
  std::map<std::string, Range> universe;
};

/// Throws ProgramError "<file:line:col>: <message>".
[[noreturn]] void fail(const frontend::SourceLocation& loc, const std::string& message);

/// How far (sum of |shift amounts| along every call path) evaluating `def` can read from a
/// point, per call tree; bounds the widening of Context::universe.
std::int64_t shift_reach(const frontend::TypedDefinition& def);

class Evaluator {
 public:
  explicit Evaluator(const Context& ctx) : ctx_(ctx) {}

  /// Calls a field operator or scan operator with `args` (in parameter order; a scan
  /// operator's carry is not among them). `loc` is the call's location for messages.
  Value call(const frontend::TypedDefinition& def, const std::vector<Value>& args,
             const frontend::SourceLocation& loc);
  /// Evaluates a scalar expression of a program (a domain bound) in `env`.
  Value eval(const frontend::TExpr& e, std::map<std::string, Value>& env);
  /// The output domain of the program call being evaluated: scan operators run over its range
  /// along their axis (gt4py's column range), not over all levels their arguments have.
  void set_call_domain(const std::vector<Dimension>& dims, const std::vector<Range>& ranges);

  /// Why values are undefined: a gather through a -1 connectivity table entry, `offset`[`row`,
  /// `col`], at the shift `loc` of the field named `read` (empty: not a name).
  struct Cause {
    frontend::SourceLocation loc;
    std::string offset, read;
    std::int64_t row = 0, col = 0;
  };
  /// The cause a FieldVal::valid mark names, or nullptr (defined, or kUnknownCause).
  const Cause* cause(std::uint32_t mark) const;

 private:
  using Env = std::map<std::string, Value>;
  bool exec(const std::vector<frontend::TStmt>& body, Env& env, Value& result);
  Value scan(const frontend::TypedDefinition& def, const std::vector<Value>& args,
             const frontend::SourceLocation& loc);
  void scan_levels(const frontend::TypedDefinition& def, const std::vector<Value>& args, const Value& init,
                   std::vector<FieldVal>& outs, std::size_t pax, const frontend::SourceLocation& loc);
  Value builtin(const frontend::TExpr& e, Env& env);
  FieldVal shift(FieldVal f, const frontend::ShiftStep& step, Env& env, const frontend::TExpr& e);
  FieldVal gather(const FieldVal& f, const frontend::ShiftStep& step, const frontend::TExpr& e);
  FieldVal reduce(const FieldVal& f, const Dimension& dim, const std::string& op);
  /// `ce`: the condition of concat_where(ce, a, b); `e`: the call (for locations).
  Value concat_where(const frontend::TExpr& ce, const Value& a, const Value& b, Env& env,
                     const frontend::TExpr& e);
  const Table& table(const frontend::FieldOffset& off, const frontend::SourceLocation& loc) const;

  /// The mark of a missing neighbour `offset`[row, col] met by the shift step `s` of `e`: one
  /// cause per table entry and step, however many points (levels) read through it.
  std::uint32_t missing_neighbour(const frontend::ShiftStep& s, const frontend::TExpr& e, std::int64_t row,
                                  std::int64_t col);

  const Context& ctx_;
  std::vector<Cause> causes_;  // mark k names causes_[k - 2]
  std::map<std::tuple<const void*, std::int64_t, std::int64_t>, std::uint32_t> cause_of_;
  std::map<std::string, Range> call_domain_;
  /// Per local dimension name, the connectivity a neighbour shift last gathered along it and
  /// the dimension indexing its rows: a reduction skips exactly the neighbours that table marks
  /// -1 (gt4py's reductions mask by the connectivity of their axis), and any other undefined
  /// neighbour value leaves the result undefined rather than silently dropped.
  struct Gathered {
    std::string offset;
    Dimension rows;
  };
  std::map<std::string, Gathered> gathered_;
};

}  // namespace weir::runtime::embedded
