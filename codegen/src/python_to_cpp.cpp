// Python (tasklet code, interstate conditions and assignments, loop statements) -> C++, by
// walking pycode's syntax tree. Types are tracked per expression so that Python's
// semantics of `/`, `//`, `%` and `**` can be kept.
#include "weir/codegen/python_to_cpp.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "code_facts.h"
#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"
#include "weir/pycode/int_ops.h"
#include "weir/pycode/names.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/names.h"
#include "weir/sdfg/promotion.h"

namespace weir::codegen {

namespace py = weir::pycode;

namespace {

// C++ operator precedence levels (higher binds tighter).
constexpr int kPrimary = 16, kUnary = 15, kMul = 13, kAdd = 12, kShift = 11, kRel = 9, kEq = 8, kBitAnd = 7,
              kXor = 6, kBitOr = 5, kAnd = 4, kOr = 3, kCond = 2;

// `text` as a C++ string literal (control characters as '?': a message, not data).
std::string string_literal(const std::string& text) {
  std::string lit = "\"";
  for (char ch : text)
    lit += ch == '"' || ch == '\\' ? std::string("\\") + ch
                                   : std::string(1, static_cast<unsigned char>(ch) < 0x20 ? '?' : ch);
  return lit + "\"";
}

// A dimension of a checked subscript: its position in the subscript and its name in the program
// ("Cell"), or "" where the connector does not span a whole field-view dimension.
struct IndexDim {
  std::size_t position = 0;
  std::string along;
};

struct Val {
  std::string text;
  int prec = kPrimary;
  ScalarType type = ScalarType::Float64;
  /// The variable the value is, unchanged (a name read): its origin names a checked index.
  const PyVar* var = nullptr;
  /// The value of an integer literal.
  std::optional<long long> literal;
  /// The value of a float literal (`0.0`), for the constant checks of binop().
  std::optional<double> float_value;
  /// An integer value whose C++ type may be narrower than int64_t although `type` says Int64:
  /// made of small literals (`1` is a C++ int) and bools only (see narrow()).
  bool narrow_int = false;
  /// Where a value that is not a connector comes from (a table entry read through a pointer,
  /// "E2V[V2E[Vertex, 0], 1]"), as PyVar::origin / origin_at.
  std::string origin, origin_at;
  /// An entry of this connectivity table, which the program checks when it is called
  /// (PyContext::entry_checked_tables): -1 or an index below the extents it is used in; empty
  /// when the value is no such entry.
  std::string table;
  /// With `table`: the code replaced a -1 (`max(x, 0)`, `x if x != -1 else ...`), so the value
  /// is an index below those extents (docs/adr/0051).
  bool not_missing = false;

  Val() = default;
  Val(std::string t, int p = kPrimary, ScalarType ty = ScalarType::Float64, const PyVar* v = nullptr,
      std::optional<long long> lit = std::nullopt)
      : text(std::move(t)), prec(p), type(ty), var(v), literal(lit) {}
};

bool is_float(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}
bool is_complex(ScalarType t) { return t == ScalarType::Complex64 || t == ScalarType::Complex128; }
bool is_bool(ScalarType t) { return t == ScalarType::Bool; }
bool is_int(ScalarType t) { return !is_float(t) && !is_complex(t) && !is_bool(t) && t != ScalarType::Void; }

/// Result type of arithmetic on a and b: weir's one promotion table.
ScalarType arith_type(ScalarType a, ScalarType b) { return arithmetic_result_type(a, b); }

/// Whether C++ computes `v` in a type narrower than int64_t (int or bool) where weir's type
/// is an integer: small literals, bools, and what is made of them only.
bool narrow(const Val& v) {
  if (v.narrow_int || v.type == ScalarType::Bool) return true;
  return v.literal && *v.literal >= -2147483647 && *v.literal <= 2147483647;
}

std::string wrap(const Val& v, int need) { return v.prec < need ? "(" + v.text + ")" : v.text; }

/// Wraps any operand that is not a primary/unary expression (for -Wparentheses-clean bit ops).
std::string wrap_strict(const Val& v) { return v.prec < kUnary ? "(" + v.text + ")" : v.text; }

std::string int_literal(long long v) {
  if (v == std::numeric_limits<long long>::min()) return "(-9223372036854775807LL - 1)";
  std::string s = std::to_string(v);
  if (v > 2147483647LL || v < -2147483647LL) s += "LL";
  return s;
}

std::string float_literal(const py::Constant& c) {
  // 1e309 (Python's and DaCe's infinity literal) overflows a C++ double literal: say infinity.
  if (std::isinf(c.float_value)) return "std::numeric_limits<double>::infinity()";
  const std::string& t = c.text;
  bool plain = !t.empty();
  for (char ch : t)
    if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' ||
          ch == '-'))
      plain = false;
  if (plain) return t;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", c.float_value);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

const std::set<std::string>& cpp_keywords() {
  static const std::set<std::string> k = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq",      "std",       "NULL",       "errno",     "assert",   "main",         "int8_t",
      "int16_t",     "int32_t",   "int64_t",    "uint8_t",   "uint16_t", "uint32_t",     "uint64_t",
      "size_t",      "h",         "args",       "handle"};
  return k;
}

/// Strips the module prefix numpy/np/math/dace/cmath and returns (module, name).
std::pair<std::string, std::string> split_callee(const std::string& dotted) {
  auto dot = dotted.rfind('.');
  if (dot == std::string::npos) return {"", dotted};
  std::string mod = dotted.substr(0, dot);
  if (mod == "numpy") mod = "np";
  return {mod, dotted.substr(dot + 1)};
}

class Translator {
 public:
  Translator(const PyContext& ctx, std::string_view code) : ctx_(ctx), code_(code) {}

  // The target's spelling of a <cmath> function (std::sqrt on the CPU).
  std::string math(std::string_view c_name) const { return ctx_.target->math_function(c_name); }

  // --- errors ----------------------------------------------------------------------------
  [[noreturn]] void fail(const py::SourceLocation& loc, const std::string& msg) const {
    std::string where;
    if (loc.known()) {
      std::string_view line = loc.file.valid() ? loc.file.line(loc.line) : std::string_view{};
      where = " (line " + std::to_string(loc.line) + ": `" + std::string(line) + "`)";
    } else {
      where = " in `" + std::string(code_) + "`";
    }
    throw PythonTranslationError(msg + where);
  }

  // --- expressions -----------------------------------------------------------------------
  Val expr(const py::Expr& e) {
    Val v = expr_of_kind(e);
    if (is_complex(v.type)) detail::note_complex();  // <complex> (program_frame.cpp)
    return v;
  }

  Val expr_of_kind(const py::Expr& e) {
    switch (e.kind) {
      case py::ExprKind::Name: return name(static_cast<const py::Name&>(e));
      case py::ExprKind::Constant: return constant(static_cast<const py::Constant&>(e));
      case py::ExprKind::Attribute: return attribute(static_cast<const py::Attribute&>(e));
      case py::ExprKind::Subscript: return subscript(static_cast<const py::Subscript&>(e));
      case py::ExprKind::Call: return call(static_cast<const py::Call&>(e));
      case py::ExprKind::UnaryOp: return unary(static_cast<const py::UnaryOp&>(e));
      case py::ExprKind::BinOp: {
        const auto& b = static_cast<const py::BinOp&>(e);
        // Left first, whatever compiler built weir (argument order is unspecified): what the
        // translator hoists (PyContext::hoist) comes out in source order, the same every build.
        Val l = expr(*b.left);
        Val r = expr(*b.right);
        return binop(b.op, l, r, b.loc, b.right.get());
      }
      case py::ExprKind::BoolOp: return boolop(static_cast<const py::BoolOp&>(e));
      case py::ExprKind::Compare: return compare(static_cast<const py::Compare&>(e));
      case py::ExprKind::IfExp: {
        const auto& i = static_cast<const py::IfExp&>(e);
        Val c = hoisted_condition(*i.test, expr(*i.test));
        ++cond_;  // only one arm runs: nothing in them is checked before the loops
        Val a = expr(*i.body), b = expr(*i.orelse);
        --cond_;
        ScalarType t = a.type == b.type ? a.type : arith_type(a.type, b.type);
        Val r{wrap(c, kCond + 1) + " ? " + wrap(a, kCond + 1) + " : " + wrap(b, kCond + 1), kCond, t};
        r.narrow_int = !is_float(t) && !is_complex(t) && narrow(a) && narrow(b);
        // The field-view lowering's guarded table read, `raw if raw != -1 else max(raw, 0)`: the
        // else branch is always inside, so a failed check has taken `raw`.
        if (origin_of(b).first.empty()) std::tie(r.origin, r.origin_at) = origin_of(a);
        if (a.table == b.table && !a.table.empty()) {
          r.table = a.table;
          r.not_missing = (a.not_missing || skips_missing(*i.test, *i.body)) && b.not_missing;
        }
        return r;
      }
      default: fail(e.loc, "unsupported Python expression (" + std::string(py::to_string(e.kind)) + ")");
    }
  }

  Val name(const py::Name& n) {
    if (auto it = locals_.find(n.id); it != locals_.end()) {
      Val v{it->second.cpp, kPrimary, it->second.type};
      v.origin = it->second.origin;
      v.origin_at = it->second.origin_at;
      v.table = it->second.table;
      v.not_missing = it->second.not_missing;
      return v;
    }
    if (auto it = ctx_.vars.find(n.id); it != ctx_.vars.end()) {
      ctx_.used.insert(n.id);
      if (it->second.hooked)
        fail(n.loc, "cannot read '" + n.id + "', an output with write-conflict resolution");
      bool primary = is_ascii_identifier(it->second.cpp) || it->second.cpp.back() == ']';
      Val v{it->second.cpp, primary ? kPrimary : kAdd, it->second.type, &it->second};
      if (ctx_.entry_checked_tables.count(it->second.table) && !written_.count(n.id))
        v.table = it->second.table;
      return v;
    }
    // The bare names DaCe's cppunparse maps to C's INFINITY and NAN (and its free-symbol scan
    // skips): what DaCe (and weir's unparser) write for NaN, since Python has no literal for it.
    if (n.id == "nan") return {"std::numeric_limits<double>::quiet_NaN()", kPrimary, ScalarType::Float64};
    if (n.id == "inf") return {"std::numeric_limits<double>::infinity()", kPrimary, ScalarType::Float64};
    fail(n.loc, "unknown name '" + n.id + "'");
  }

  Val constant(const py::Constant& c) {
    switch (c.value_kind) {
      case py::ConstantKind::Int:
        return {int_literal(c.int_value), c.int_value < 0 ? kUnary : kPrimary, ScalarType::Int64, nullptr,
                c.int_value};
      case py::ConstantKind::Float: {
        Val v{float_literal(c), kPrimary, ScalarType::Float64};
        v.float_value = c.float_value;
        return v;
      }
      case py::ConstantKind::Bool: return {c.bool_value ? "true" : "false", kPrimary, ScalarType::Bool};
      case py::ConstantKind::Imaginary: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", c.float_value);
        // 1e309j (an infinite imaginary part) has no C++ literal.
        std::string im =
            std::isinf(c.float_value) ? "std::numeric_limits<double>::infinity()" : std::string(buf);
        return {"std::complex<double>(0.0, " + im + ")", kPrimary, ScalarType::Complex128};
      }
      default: fail(c.loc, "unsupported constant `" + c.text + "`");
    }
  }

  Val attribute(const py::Attribute& a) {
    std::string d = py::dotted_name(&a);
    auto [mod, nm] = split_callee(d);
    if (mod == "math" || mod == "np" || mod == "dace") {
      if (nm == "pi") return {"3.141592653589793", kPrimary, ScalarType::Float64};
      if (nm == "e") return {"2.718281828459045", kPrimary, ScalarType::Float64};
      if (nm == "tau") return {"6.283185307179586", kPrimary, ScalarType::Float64};
      if (nm == "inf" || nm == "infty" || nm == "Inf")
        return {"std::numeric_limits<double>::infinity()", kPrimary, ScalarType::Float64};
      if (nm == "nan" || nm == "NaN")
        return {"std::numeric_limits<double>::quiet_NaN()", kPrimary, ScalarType::Float64};
    }
    fail(a.loc, "unsupported attribute `" + py::unparse(a) + "`");
  }

  /// Linear index of `v[indices]` for a pointer variable.
  std::string linear_index(const PyVar& v, std::vector<Val> idx, const py::SourceLocation& loc,
                           const std::vector<const py::Expr*>& asts) {
    const std::vector<std::string>* strides = &v.strides;
    const std::vector<std::string>* extents = &v.extents;
    const std::vector<std::optional<long long>>* extent_values = &v.extent_values;
    const std::vector<std::string>* dims = &v.extent_dims;
    if (!v.strides.empty() && idx.size() != v.strides.size()) {
      if (idx.size() == v.squeezed_strides.size())
        strides = &v.squeezed_strides, extents = &v.squeezed_extents,
        extent_values = &v.squeezed_extent_values, dims = &v.squeezed_extent_dims;
      else
        fail(loc, "subscript with " + std::to_string(idx.size()) + " indices of a " +
                      std::to_string(v.strides.size()) + "-dimensional connector");
    }
    if (strides->empty()) {
      if (idx.size() != 1)
        fail(loc, "subscript with " + std::to_string(idx.size()) + " indices of a 1-D connector");
      return idx[0].text;
    }
    // (bounds checks of computed indices, CodegenOptions::bounds_checks)
    if (extents->size() == idx.size())
      for (std::size_t d = 0; d < idx.size(); ++d)
        if (!literal_inside(idx[d], d < extent_values->size() ? (*extent_values)[d] : std::nullopt)) {
          // Proven by the table's entry check (docs/adr/0051): no check here.
          if (idx[d].not_missing && v.extents_at_entry && ctx_.entry_checked_tables.count(idx[d].table)) {
            ctx_.proofs.push_back({idx[d].table, (*extents)[d], v.data, d});
            continue;
          }
          const py::Expr* ast = d < asts.size() ? asts[d] : nullptr;
          const std::string along = d < dims->size() ? (*dims)[d] : std::string();
          if (auto h = hoisted_check(v, idx[d], ast, (*extents)[d], {d, along}))
            idx[d] = *h;
          else
            idx[d] = checked_index(v, idx[d], (*extents)[d], {d, along});
        }
    if (!v.writable && asts.size() == idx.size()) record_row(v, *strides, idx, asts);
    return offset(idx, *strides);
  }

  /// The linear offset of indices `idx` with `strides`: sum of index * stride.
  std::string offset(const std::vector<Val>& idx, const std::vector<std::string>& strides) const {
    std::string out;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      if (idx[d].text == "0") continue;
      const std::string& s = strides[d];
      std::string term;
      if (s == "1")
        term = idx[d].prec <= kAdd ? wrap(idx[d], kAdd) : idx[d].text;
      else
        term = wrap(idx[d], kMul) + " * " +
               (is_ascii_identifier(s) || std::isdigit(static_cast<unsigned char>(s[0])) ? s : "(" + s + ")");
      if (!out.empty()) out += " + ";
      out += term;
    }
    return out.empty() ? "0" : out;
  }

  /// A row the loops read (LoopHoist::rows): `v[idx]` read in every iteration (not in a hoisted
  /// statement, not under a condition) with invariant indices but the last, a loop parameter
  /// (+ c) in a contiguous dimension. The indices are final (checked or hoisted), so their C++
  /// is valid before the loops wherever the index is invariant.
  void record_row(const PyVar& v, const std::vector<std::string>& strides, std::vector<Val> idx,
                  const std::vector<const py::Expr*>& asts) {
    if (!ctx_.hoist || hoisting_ || depth_ > 0 || cond_ > 0 || strides.size() < 2 || strides.back() != "1" ||
        idx.size() != strides.size())
      return;
    for (std::size_t d = 0; d + 1 < asts.size(); ++d)
      if (!asts[d] || varies(*asts[d])) return;
    auto at = param_plus_literal(asts.back());
    if (!at) return;
    auto param = ctx_.hoist->params.find(at->first);
    if (param == ctx_.hoist->params.end()) return;
    const auto& [first, last] = param->second;
    const long long c = at->second;
    idx.back() =
        Val{"(" + first + ")" + (c == 0 ? "" : (c > 0 ? " + " : " - ") + std::to_string(c > 0 ? c : -c)),
            kAdd, ScalarType::Int64};
    LoopHoist::Row row{"&" + v.cpp + "[" + offset(idx, strides) + "]", "(" + last + ") - (" + first + ") + 1",
                       v.type};
    for (const LoopHoist::Row& r : ctx_.hoist->rows)
      if (r.start == row.start) return;
    ctx_.hoist->rows.push_back(std::move(row));
  }

  /// (p, c) when `ast` is a loop parameter p of the hoisting's loops, `p + c`, `c + p` or `p - c`
  /// (c a literal; for `p - c` the pair holds -c), not shadowed by a local; nullopt otherwise.
  std::optional<std::pair<std::string, long long>> param_plus_literal(const py::Expr* ast) const {
    if (!ast) return std::nullopt;
    const py::Name* p = py::dyn_cast<py::Name>(ast);
    std::optional<long long> c = 0;
    if (auto* b = py::dyn_cast<py::BinOp>(ast);
        b && (b->op == py::BinaryOperator::Add || b->op == py::BinaryOperator::Sub)) {
      auto literal = [](const py::Expr& e) -> std::optional<long long> {
        auto* k = py::dyn_cast<py::Constant>(&e);
        if (!k || k->value_kind != py::ConstantKind::Int || k->int_value < -(1LL << 40) ||
            k->int_value > (1LL << 40))
          return std::nullopt;
        return k->int_value;
      };
      p = py::dyn_cast<py::Name>(b->left.get());
      c = literal(*b->right);
      if (!p && b->op == py::BinaryOperator::Add)
        p = py::dyn_cast<py::Name>(b->right.get()), c = literal(*b->left);
      if (c && b->op == py::BinaryOperator::Sub) c = -*c;
    }
    if (!p || !c || !ctx_.hoist->params.count(p->id) || locals_.count(p->id)) return std::nullopt;
    return std::make_pair(p->id, *c);
  }

  /// Whether `index` is an integer literal with 0 <= index < extent (`extent`: the dimension's
  /// size when it is a constant, PyVar::extent_values).
  static bool literal_inside(const Val& index, std::optional<long long> extent) {
    return index.literal &&
           (*index.literal == 0 || (*index.literal > 0 && extent && *index.literal < *extent));
  }

  /// Whether `test` is `x != -1` (or `-1 != x`) for the `body` x of `body if test else ...`:
  /// the arm runs only when the entry x is no missing neighbour.
  static bool skips_missing(const py::Expr& test, const py::Expr& body) {
    auto* c = py::dyn_cast<py::Compare>(&test);
    if (!c || c->ops.size() != 1 || c->comparators.size() != 1 || c->ops[0] != py::CompareOperator::NotEq)
      return false;
    auto minus_one = [](const py::Expr& e) {
      if (auto* k = py::dyn_cast<py::Constant>(&e))
        return k->value_kind == py::ConstantKind::Int && k->int_value == -1;
      if (auto* u = py::dyn_cast<py::UnaryOp>(&e)) {
        auto* k = py::dyn_cast<py::Constant>(u->operand.get());
        return u->op == py::UnaryOperator::USub && k && k->value_kind == py::ConstantKind::Int &&
               k->int_value == 1;
      }
      return false;
    };
    const std::string x = py::unparse(body);
    return (minus_one(*c->comparators[0]) && py::unparse(*c->left) == x) ||
           (minus_one(*c->left) && py::unparse(*c->comparators[0]) == x);
  }

  /// Where `v` comes from (Val::origin, else its connector's), or "".
  static std::pair<std::string, std::string> origin_of(const Val& v) {
    if (!v.origin.empty()) return {v.origin, v.origin_at};
    if (v.var && !v.var->origin.empty()) return {v.var->origin, v.var->origin_at};
    return {};
  }

  /// `v` inside another value's origin: its origin (without location), a map parameter, a
  /// literal; "" when none describes it.
  static std::string describe(const Val& v) {
    if (auto o = origin_of(v).first; !o.empty()) return o;
    if (v.var && !v.var->shown.empty()) return v.var->shown;
    if (v.literal) return std::to_string(*v.literal);
    return {};
  }

  /// `i` as weir_index(i, extent, "site", dim): the error names the site, and the origin of
  /// an index that has one (a connector, a table entry read through a pointer).
  Val checked_index(const PyVar& v, const Val& i, const std::string& extent, const IndexDim& dim,
                    const std::map<std::string, std::string>* point = nullptr) const {
    auto [from, at] = origin_of(i);
    const std::string origin = from.empty() || at.empty() ? from : from + " (" + at + ")";
    const auto& literal = string_literal;
    std::string names, values;
    std::map<std::string, std::string> first;  // a hoisted statement's checks: the first iteration
    if (!point && hoisting_) {
      for (const auto& [p, ends] : ctx_.hoist->params) first[cpp_ident(p)] = ends.first;
      point = &first;
    }
    // The map point by dimension: the field-view lowering's map parameters are `__E` for E.
    for (const std::string& p : v.check_point) {
      names += (names.empty() ? "" : ",") + (p.rfind("__", 0) == 0 && p.size() > 2 ? p.substr(2) : p);
      // Before the loops their parameters are not declared: the point names the iteration
      // whose access the hoisted check stands for.
      auto sub = point ? point->find(p) : std::map<std::string, std::string>::const_iterator{};
      values += ", " + (point && sub != point->end() ? "static_cast<int64_t>(" + sub->second + ")" : p);
    }
    detail::note_fault();
    return {"weir_index(" + i.text + ", " + extent + ", " + literal(v.check_site) + ", " +
                literal(v.check_detail) + ", " + literal(origin) + ", " + std::to_string(dim.position) +
                ", " + literal(dim.along) + ", " + literal(names) + values + ")",
            kPrimary, ScalarType::Int64};
  }

  std::vector<Val> indices(const py::Expr& index) {
    std::vector<Val> idx;
    if (auto* t = py::dyn_cast<py::Tuple>(&index)) {
      for (const auto& el : t->elts) idx.push_back(expr(*el));
    } else {
      idx.push_back(expr(index));
    }
    for (const auto& el : idx)
      if (el.text.empty()) fail(index.loc, "empty index");
    return idx;
  }

  /// (variable, C++ index) of a subscript `x[...]` of a pointer variable; `idx`: its indices.
  std::pair<const PyVar*, std::string> subscript_target(const py::Subscript& s,
                                                        std::vector<Val>* idx = nullptr) {
    auto* n = py::dyn_cast<py::Name>(s.value.get());
    if (!n) fail(s.loc, "unsupported subscript of `" + py::unparse(*s.value) + "`");
    auto it = ctx_.vars.find(n->id);
    if (it == ctx_.vars.end()) fail(s.loc, "unknown name '" + n->id + "'");
    ctx_.used.insert(n->id);
    if (!it->second.pointer) fail(s.loc, "subscript of '" + n->id + "', which is a single value");
    if (py::isa<py::Slice>(s.index.get())) fail(s.loc, "slices are not supported in tasklet code");
    if (auto* t = py::dyn_cast<py::Tuple>(s.index.get()))
      for (const auto& el : t->elts)
        if (py::isa<py::Slice>(el.get())) fail(s.loc, "slices are not supported in tasklet code");
    std::vector<Val> i = indices(*s.index);
    if (idx) *idx = i;
    std::vector<const py::Expr*> asts;
    if (auto* t = py::dyn_cast<py::Tuple>(s.index.get()))
      for (const auto& el : t->elts) asts.push_back(el.get());
    else
      asts.push_back(s.index.get());
    return {&it->second, linear_index(it->second, std::move(i), s.loc, asts)};
  }

  Val subscript(const py::Subscript& s) {
    std::vector<Val> idx;
    auto [var, index] = subscript_target(s, &idx);
    if (var->hooked) fail(s.loc, "cannot read an output with write-conflict resolution");
    Val r{var->cpp + "[" + index + "]", kPrimary, var->type};
    // A table entry read through a whole-table pointer (a neighbour of a neighbour): its origin
    // names the entry, for the error of a check whose index it is.
    if (!var->data.empty()) {
      std::string text = var->data + "[";
      for (std::size_t k = 0; k < idx.size() && !text.empty(); ++k) {
        std::string d = describe(idx[k]);
        text = d.empty() ? std::string() : text + (k ? ", " : "") + d;
      }
      if (!text.empty()) r.origin = text + "]";
      if (ctx_.entry_checked_tables.count(var->data) && is_int(var->type)) r.table = var->data;
    }
    return hoisted_load(s, *var, std::move(r));
  }

  Val cast_to(ScalarType t, const Val& v) {
    // A float to an integer type through NumPy's (x86) rule, never C++'s undefined conversion of
    // NaN, inf or an out-of-range value (prelude: weir_ftoi).
    if ((v.type == ScalarType::Float32 || v.type == ScalarType::Float64) && is_int(t))
      return {"weir_ftoi<" + std::string(cpp_name(t)) + ">(" + v.text + ")", kPrimary, t};
    return {"static_cast<" + std::string(cpp_name(t)) + ">(" + v.text + ")", kPrimary, t};
  }

  static ScalarType float_result(ScalarType arg) {
    return arg == ScalarType::Float32 ? ScalarType::Float32 : ScalarType::Float64;
  }

  /// Fails unless `callee` was called with `n` arguments.
  void need_args(const std::string& callee, const std::vector<Val>& a, std::size_t n, const py::Call& c) {
    if (a.size() != n)
      fail(c.loc,
           "'" + callee + "' takes " + std::to_string(n) + " argument(s), got " + std::to_string(a.size()));
  }

  /// A function of `math`, `cmath`, NumPy or DaCe (or a bare math name) on values `a`: sqrt, exp,
  /// the trigonometric functions, atan2/hypot/copysign/fmod, rounding, isnan/isinf/isfinite,
  /// pow/power/square, sign, where; nullopt for another name.
  /// `callee`: the name as the code spells it (for errors).
  std::optional<Val> math_call(const std::string& callee, const std::string& mod, const std::string& nm,
                               const std::vector<Val>& a, const py::Call& c) {
    auto nargs = [&](std::size_t n) { need_args(callee, a, n, c); };
    static const std::map<std::string, std::string> unary = {
        {"sqrt", "sqrt"},     {"exp", "exp"},       {"exp2", "exp2"},    {"expm1", "expm1"},
        {"log", "log"},       {"log2", "log2"},     {"log10", "log10"},  {"log1p", "log1p"},
        {"sin", "sin"},       {"cos", "cos"},       {"tan", "tan"},      {"asin", "asin"},
        {"acos", "acos"},     {"atan", "atan"},     {"arcsin", "asin"},  {"arccos", "acos"},
        {"arctan", "atan"},   {"sinh", "sinh"},     {"cosh", "cosh"},    {"tanh", "tanh"},
        {"asinh", "asinh"},   {"acosh", "acosh"},   {"atanh", "atanh"},  {"arcsinh", "asinh"},
        {"arccosh", "acosh"}, {"arctanh", "atanh"}, {"erf", "erf"},      {"erfc", "erfc"},
        {"cbrt", "cbrt"},     {"gamma", "tgamma"},  {"lgamma", "lgamma"}};
    if (auto it = unary.find(nm); it != unary.end()) {
      nargs(1);
      return Val{math(it->second) + "(" + a[0].text + ")", kPrimary, float_result(a[0].type)};
    }
    static const std::map<std::string, std::string> binary = {{"atan2", "atan2"},
                                                              {"arctan2", "atan2"},
                                                              {"hypot", "hypot"},
                                                              {"copysign", "copysign"},
                                                              {"fmod", "fmod"}};
    if (auto it = binary.find(nm); it != binary.end()) {
      nargs(2);
      // NumPy's fmod of integers stays an integer (C's %, 0 by zero); math.fmod gives a float.
      if (nm == "fmod" && mod == "np" && (is_int(a[0].type) || is_bool(a[0].type)) &&
          (is_int(a[1].type) || is_bool(a[1].type)))
        return Val{"weir_ifmod(" + a[0].text + ", " + a[1].text + ")", kPrimary,
                   arith_type(a[0].type == ScalarType::Bool ? ScalarType::Int64 : a[0].type,
                              a[1].type == ScalarType::Bool ? ScalarType::Int64 : a[1].type)};
      return Val{math(it->second) + "(" + a[0].text + ", " + a[1].text + ")", kPrimary,
                 float_result(arith_type(a[0].type, a[1].type))};
    }
    if (nm == "floor" || nm == "ceil" || nm == "trunc" || nm == "rint") {
      nargs(1);
      std::string f = math(nm == "rint" ? "nearbyint" : nm);
      if (is_int(a[0].type) || is_bool(a[0].type)) {
        if (mod == "math") return cast_to(ScalarType::Int64, a[0]);
        return cast_to(ScalarType::Float64, a[0]);
      }
      Val v{f + "(" + a[0].text + ")", kPrimary, float_result(a[0].type)};
      if (mod == "math") return cast_to(ScalarType::Int64, v);  // math.floor returns an int
      return v;
    }
    if (nm == "isnan" || nm == "isinf" || nm == "isfinite") {
      nargs(1);
      return Val{math(nm) + "(" + a[0].text + ")", kPrimary, ScalarType::Bool};
    }
    if (nm == "pow" || nm == "power") {
      nargs(2);
      if (mod == "math")
        return Val{math("pow") + "(" + a[0].text + ", " + a[1].text + ")", kPrimary, ScalarType::Float64};
      return power(a[0], a[1], c.args[1].get());
    }
    if (nm == "square") {
      nargs(1);
      return power(a[0], {"2", kPrimary, ScalarType::Int64}, nullptr, 2);
    }
    if (nm == "sign") {
      nargs(1);
      return Val{"weir_sign(" + a[0].text + ")", kPrimary, a[0].type};
    }
    if (nm == "where") {
      nargs(3);
      return Val{wrap(a[0], kCond + 1) + " ? " + wrap(a[1], kCond + 1) + " : " + wrap(a[2], kCond + 1), kCond,
                 arith_type(a[1].type, a[2].type)};
    }
    return std::nullopt;
  }

  Val call(const py::Call& c) {
    std::string callee = py::dotted_name(c.func.get());
    // `decltype(__out)(x)`, DaCe's cast to a connector's type (its np.arange tasklets).
    if (const auto* dt = py::dyn_cast<py::Call>(c.func.get());
        dt && py::dotted_name(dt->func.get()) == "decltype" && dt->args.size() == 1 && c.args.size() == 1 &&
        c.keywords.empty() && dt->keywords.empty()) {
      const auto* var = py::dyn_cast<py::Name>(dt->args[0].get());
      auto it = var ? ctx_.vars.find(var->id) : ctx_.vars.end();
      if (it == ctx_.vars.end()) fail(c.loc, "`decltype` of something other than a connector");
      return cast_to(it->second.type, expr(*c.args[0]));
    }
    if (callee.empty()) fail(c.loc, "unsupported call of `" + py::unparse(*c.func) + "`");
    if (!c.keywords.empty()) fail(c.loc, "keyword arguments are not supported (`" + py::unparse(c) + "`)");
    std::vector<Val> a;
    for (const auto& arg : c.args) {
      if (py::isa<py::Starred>(arg.get())) fail(c.loc, "starred arguments are not supported");
      a.push_back(expr(*arg));
    }
    auto [mod, nm] = split_callee(callee);
    if (mod.empty() || (mod == "np" && (nm == "conj" || nm == "conjugate")))
      if (auto v = dace_runtime_call(nm, a, c)) return *v;
    // SymPy's spellings, which DaCe writes on interstate edges: Min, Max, Abs.
    if (mod.empty() && (nm == "Min" || nm == "Max" || nm == "Abs"))
      nm = nm == "Abs" ? "abs" : nm == "Min" ? "min" : "max";
    auto nargs = [&](std::size_t n) { need_args(callee, a, n, c); };
    // DaCe's Python tasklets call math functions bare too (`sqrt(x)`, `exp(x)`, as its own
    // code generator takes them); a bare name is taken as the NumPy function of that name.
    static const std::set<std::string> bare_math = {
        "sqrt",  "exp",  "exp2",  "expm1",   "log",      "log2",     "log10",   "log1p",   "sin",
        "cos",   "tan",  "asin",  "acos",    "atan",     "arcsin",   "arccos",  "arctan",  "sinh",
        "cosh",  "tanh", "asinh", "acosh",   "atanh",    "arcsinh",  "arccosh", "arctanh", "erf",
        "erfc",  "cbrt", "atan2", "arctan2", "hypot",    "copysign", "fmod",    "floor",   "ceil",
        "trunc", "rint", "isnan", "isinf",   "isfinite", "sign",     "square"};
    bool math_mod = mod == "math" || mod == "np" || mod == "dace" || mod == "cmath" ||
                    (mod.empty() && bare_math.count(nm));
    // Type casts: int(x), float(x), bool(x), dace.float64(x), np.int32(x).
    if (mod.empty() && (nm == "int" || nm == "float" || nm == "bool")) {
      nargs(1);
      return cast_to(nm == "int"     ? ScalarType::Int64
                     : nm == "float" ? ScalarType::Float64
                                     : ScalarType::Bool,
                     a[0]);
    }
    if ((mod == "dace" || mod == "np") && nm != "float" && nm != "int") {
      std::string tn = nm == "bool" ? "bool_" : nm;
      if (auto t = scalar_type_from_string(tn); t && *t != ScalarType::Void && *t != ScalarType::Float16) {
        nargs(1);
        return cast_to(*t, a[0]);
      }
    }
    if ((mod.empty() || math_mod) && (nm == "abs" || nm == "fabs" || nm == "absolute")) {
      nargs(1);
      ScalarType t = is_bool(a[0].type) ? ScalarType::Int64 : a[0].type;
      if (nm == "fabs") t = float_result(t);
      if (is_complex(t)) {
        // The modulus, as NumPy's absolute: hypot of the parts (weir_cabs, prelude.cpp).
        t = t == ScalarType::Complex64 ? ScalarType::Float32 : ScalarType::Float64;
        return {"weir_cabs(" + a[0].text + ")", kPrimary, t};
      }
      Val r{math("abs") + "(" + a[0].text + ")", kPrimary, t};
      r.narrow_int = is_int(t) && narrow(a[0]);
      return r;
    }
    // Python's min/max (the first argument unless another is strictly smaller/larger: order
    // decides where NaN is), NumPy's minimum/maximum (NaN wins) and fmin/fmax (NaN loses).
    if ((mod.empty() && (nm == "min" || nm == "max")) ||
        (mod == "np" && (nm == "minimum" || nm == "maximum" || nm == "fmin" || nm == "fmax"))) {
      if (a.size() < 2) fail(c.loc, "'" + callee + "' needs at least two arguments");
      if (mod == "np") nargs(2);
      std::string fn = nm == "min" ? "weir_min(" : nm == "max" ? "weir_max(" : "weir_" + nm + "(";
      Val acc = a[0];
      for (std::size_t i = 1; i < a.size(); ++i) {
        const bool both_narrow = narrow(acc) && narrow(a[i]);
        Val next{fn + acc.text + ", " + a[i].text + ")", kPrimary, arith_type(acc.type, a[i].type)};
        next.narrow_int = both_narrow && is_int(next.type);
        // max(entry, 0) of a table entry: -1 replaced by 0, an index (the lowering's clamp).
        if (nm == "max" && mod.empty() && !acc.table.empty() && a[i].literal && *a[i].literal == 0) {
          next.table = acc.table;
          next.not_missing = true;
        }
        acc = next;
      }
      return acc;
    }
    if (math_mod)
      if (auto v = math_call(callee, mod, nm, a, c)) return *v;
    if (mod.empty() && nm == "round") {
      nargs(1);
      if (!is_float(a[0].type)) return a[0];
      return cast_to(ScalarType::Int64, {math("nearbyint") + "(" + a[0].text + ")", kPrimary, a[0].type});
    }
    if (mod.empty() && nm == "pow") {
      nargs(2);
      return power(a[0], a[1], c.args[1].get());
    }
    fail(c.loc, "unsupported function '" + callee + "'");
  }

  /// The functions of DaCe's runtime that its frontend and symbolic printer write into tasklets
  /// and interstate code: `cpp_mod` (np.fmod: C's %, fmod), `py_mod`/`Mod` (Python's %),
  /// `py_floor`/`int_floor` (Python's //), `int_ceil` (ceiling division), `reciprocal`, `ROUND`,
  /// sympy's `bitwise_*`/`left_shift`/`right_shift`, `IfExpr`, `AND`/`OR`, NumPy's `conj`,
  /// `deg2rad`, `rad2deg`, `signbit`, `np_float_pow`. nullopt for another name.
  std::optional<Val> dace_runtime_call(const std::string& nm, const std::vector<Val>& a, const py::Call& c) {
    using B = py::BinaryOperator;
    auto nargs = [&](std::size_t n) {
      if (a.size() != n)
        fail(c.loc,
             "'" + nm + "' takes " + std::to_string(n) + " argument(s), got " + std::to_string(a.size()));
    };
    auto integral = [](const Val& v) { return is_int(v.type) || is_bool(v.type); };
    static const std::map<std::string, B> binary = {{"py_mod", B::Mod},         {"Mod", B::Mod},
                                                    {"py_floor", B::FloorDiv},  {"int_floor", B::FloorDiv},
                                                    {"bitwise_and", B::BitAnd}, {"bitwise_or", B::BitOr},
                                                    {"bitwise_xor", B::BitXor}, {"left_shift", B::LShift},
                                                    {"right_shift", B::RShift}};
    if (auto it = binary.find(nm); it != binary.end()) {
      nargs(2);
      return binop(it->second, a[0], a[1], c.loc, c.args[1].get());
    }
    if (nm == "cpp_mod") {  // C's remainder: the sign of the dividend (NumPy's fmod)
      nargs(2);
      if (integral(a[0]) && integral(a[1]))
        return Val{"weir_ifmod(" + a[0].text + ", " + a[1].text + ")", kPrimary,
                   arith_type(is_bool(a[0].type) ? ScalarType::Int64 : a[0].type,
                              is_bool(a[1].type) ? ScalarType::Int64 : a[1].type)};
      return Val{math("fmod") + "(" + a[0].text + ", " + a[1].text + ")", kPrimary,
                 float_result(arith_type(a[0].type, a[1].type))};
    }
    if (nm == "int_ceil") {
      nargs(2);
      if (!integral(a[0]) || !integral(a[1])) fail(c.loc, "'int_ceil' of non-integer operands");
      return Val{"weir_ceildiv(" + a[0].text + ", " + a[1].text + ")", kPrimary, ScalarType::Int64};
    }
    if (nm == "reciprocal") {
      nargs(1);
      if (integral(a[0])) fail(c.loc, "'reciprocal' of an integer is not supported");
      return binop(B::Div, Val{"1", kPrimary, ScalarType::Int64, nullptr, 1}, a[0], c.loc);
    }
    if (nm == "ROUND") {
      nargs(1);
      if (!is_float(a[0].type)) return a[0];
      return cast_to(ScalarType::Int64, {math("nearbyint") + "(" + a[0].text + ")", kPrimary, a[0].type});
    }
    if (nm == "bitwise_invert") {
      nargs(1);
      if (!integral(a[0])) fail(c.loc, "'bitwise_invert' of a floating-point value");
      return Val{"~" + wrap(a[0], kUnary), kUnary, is_bool(a[0].type) ? ScalarType::Int64 : a[0].type};
    }
    if (nm == "IfExpr") {
      nargs(3);
      return Val{wrap(a[0], kCond + 1) + " ? " + wrap(a[1], kCond + 1) + " : " + wrap(a[2], kCond + 1), kCond,
                 arith_type(a[1].type, a[2].type)};
    }
    if (nm == "conj" || nm == "conjugate") {  // NumPy's: the value itself for a real number
      nargs(1);
      if (!is_complex(a[0].type)) return a[0];
      return Val{"std::conj(" + a[0].text + ")", kPrimary, a[0].type};
    }
    if (nm == "deg2rad" || nm == "rad2deg") {
      nargs(1);
      const ScalarType t = float_result(a[0].type);
      const std::string f = nm == "deg2rad" ? "(3.141592653589793 / 180.0)" : "(180.0 / 3.141592653589793)";
      return Val{"static_cast<" + std::string(cpp_name(t)) + ">(" + a[0].text + " * " + f + ")", kPrimary, t};
    }
    if (nm == "signbit") {
      nargs(1);
      return Val{"std::signbit(" + a[0].text + ")", kPrimary, ScalarType::Bool};
    }
    if (nm == "np_float_pow") {  // NumPy's float_power: in double
      nargs(2);
      return Val{"std::pow(static_cast<double>(" + a[0].text + "), static_cast<double>(" + a[1].text + "))",
                 kPrimary, ScalarType::Float64};
    }
    if (nm == "AND" || nm == "OR") {
      nargs(2);
      return Val{"(" + a[0].text + (nm == "AND" ? ") && (" : ") || (") + a[1].text + ")", kPrimary,
                 ScalarType::Bool};
    }
    return std::nullopt;
  }

  /// Integer value of a literal exponent (`2`, `-1`, `2.0`), if it is one.
  static std::optional<long long> literal_exponent(const py::Expr* e) {
    if (!e) return std::nullopt;
    bool neg = false;
    if (auto* u = py::dyn_cast<py::UnaryOp>(e); u && u->op == py::UnaryOperator::USub) {
      neg = true;
      e = u->operand.get();
    }
    auto* c = py::dyn_cast<py::Constant>(e);
    if (!c) return std::nullopt;
    long long v;
    if (c->value_kind == py::ConstantKind::Int)
      v = c->int_value;
    else if (c->value_kind == py::ConstantKind::Float &&
             c->float_value == static_cast<double>(static_cast<long long>(c->float_value)) &&
             std::abs(c->float_value) < 1e9)
      v = static_cast<long long>(c->float_value);
    else
      return std::nullopt;
    return neg ? -v : v;
  }

  Val power(const Val& base, const Val& exp, const py::Expr* exp_node,
            std::optional<long long> known = std::nullopt) {
    std::optional<long long> k = known ? known : literal_exponent(exp_node);
    bool float_exp = is_float(exp.type);
    ScalarType t = arith_type(base.type, exp.type);
    if (k && !is_complex(t)) {
      ScalarType rt =
          (is_int(base.type) || is_bool(base.type)) && !float_exp ? ScalarType::Int64 : float_result(t);
      if (*k == 0) {
        if (rt == ScalarType::Int64) return {"1", kPrimary, rt, nullptr, 1};  // a literal 1
        return {"1.0", kPrimary, rt};
      }
      if (*k == 1) return base.type == rt ? base : cast_to(rt, base);
      bool simple = base.prec == kPrimary && base.text.find('(') == std::string::npos;
      // Floats: x * x rounds once, like pow(x, 2); higher powers by multiplication round once
      // per product and differ from pow (the embedded backend's and NumPy's meaning) in the
      // last bits, so they stay calls of std::pow. Integers are exact either way.
      const bool integral = rt == ScalarType::Int64;
      if (!integral && *k > 2)
        return {"static_cast<" + std::string(cpp_name(rt)) + ">(" + math("pow") + "(" + base.text + ", " +
                    std::to_string(*k) + "))",
                kPrimary, rt};
      if (*k > 1 && *k <= 4 && simple) {
        std::string b =
            base.type == rt ? base.text : "static_cast<" + std::string(cpp_name(rt)) + ">(" + base.text + ")";
        std::string s = b;
        for (long long i = 1; i < *k; ++i) s += " * " + b;
        Val r{s, kMul, rt};
        // A narrow base (a C++ int or bool) multiplies in int: int64_t first.
        if (integral && narrow(base)) r.text = "static_cast<int64_t>(" + b + ")" + s.substr(b.size());
        return r;
      }
      if (*k > 1)
        return {"weir_powi(" +
                    std::string(rt == ScalarType::Int64 ? "static_cast<int64_t>("
                                                        : "static_cast<" + std::string(cpp_name(rt)) + ">(") +
                    base.text + "), " + std::to_string(*k) + ")",
                kPrimary, rt};
      // Negative integer exponent: Python gives a float.
      return {math("pow") + "(static_cast<double>(" + base.text + "), " + std::to_string(*k) + ")", kPrimary,
              ScalarType::Float64};
    }
    if ((is_int(base.type) || is_bool(base.type)) && (is_int(exp.type) || is_bool(exp.type))) {
      detail::note_fault();  // a negative exponent is a fault
      // With the tasklet's source line, the fault leads with it (as an index fault does).
      const std::string at = ctx_.fault_line.empty() ? std::string()
                                                     : ", " + string_literal(ctx_.fault_line) + ", " +
                                                           string_literal(ctx_.fault_tasklet);
      return {"weir_ipow(" + base.text + ", " + exp.text + at + ")", kPrimary, ScalarType::Int64};
    }
    if (is_complex(t)) {
      // z ** 2 (DaCe writes `z ** dace.complex128(2)`) as a product, as NumPy computes small
      // integer powers; other powers through std::pow of complex operands.
      std::optional<long long> ck = k;
      if (!ck && exp_node)
        if (auto* call = py::dyn_cast<py::Call>(exp_node); call && call->args.size() == 1)
          if (auto* lit = py::dyn_cast<py::Constant>(call->args[0].get());
              lit && lit->value_kind == py::ConstantKind::Int)
            ck = lit->int_value;
      Val b = is_complex(base.type) ? base : cast_to(t, base);
      if (ck && *ck >= 1 && *ck <= 4) {
        std::string out = b.text;
        for (long long i = 1; i < *ck; ++i) out = "weir_cmul(" + out + ", " + b.text + ")";
        return {out, kPrimary, t};
      }
      Val e = is_complex(exp.type) ? exp : cast_to(t, exp);
      return {math("pow") + "(" + b.text + ", " + e.text + ")", kPrimary, t};
    }
    return {math("pow") + "(" + base.text + ", " + exp.text + ")", kPrimary, float_result(t)};
  }

  Val unary(const py::UnaryOp& u) {
    Val v = expr(*u.operand);
    switch (u.op) {
      case py::UnaryOperator::USub: {
        if (v.literal) {
          py::IntOpResult r = py::int_neg(*v.literal);
          if (!r.ok()) fail(u.loc, "`-" + std::to_string(*v.literal) + "`: " + py::describe(r.fault));
          return {int_literal(r.value), r.value < 0 ? kUnary : kPrimary, ScalarType::Int64, nullptr, r.value};
        }
        std::string inner = wrap(v, kUnary);
        if (!inner.empty() && (inner[0] == '-' || inner[0] == '+')) inner = "(" + inner + ")";
        Val r{"-" + inner, kUnary, is_bool(v.type) ? ScalarType::Int64 : v.type};
        if (v.float_value) r.float_value = -*v.float_value;
        r.narrow_int = !is_float(r.type) && narrow(v);
        return r;
      }
      case py::UnaryOperator::UAdd: return v;
      case py::UnaryOperator::Not: return {"!" + wrap(v, kUnary), kUnary, ScalarType::Bool};
      case py::UnaryOperator::Invert:
        if (is_float(v.type)) fail(u.loc, "bitwise inversion `~` of a floating-point value");
        {
          Val r{"~" + wrap(v, kUnary), kUnary, is_bool(v.type) ? ScalarType::Int64 : v.type};
          r.narrow_int = narrow(v);
          return r;
        }
    }
    fail(u.loc, "unsupported unary operator");
  }

  Val binop(py::BinaryOperator op, const Val& l0, const Val& r0, const py::SourceLocation& loc,
            const py::Expr* right_node = nullptr) {
    using B = py::BinaryOperator;
    ScalarType t = arith_type(l0.type, r0.type);
    // std::complex<double> arithmetic takes only complex<double> or double operands: the
    // real side of mixed arithmetic becomes complex first (NumPy's promotion).
    Val l = l0, r = r0;
    if (is_complex(t) && op != B::Pow) {
      if (!is_complex(l.type)) l = cast_to(t, l);
      if (!is_complex(r.type)) r = cast_to(t, r);
    }
    bool ints = (is_int(l.type) || is_bool(l.type)) && (is_int(r.type) || is_bool(r.type));
    // `2147483647 + (i ** 0)` is int64 arithmetic in weir's types but int arithmetic in C++
    // (both operands are ints there): the left operand becomes int64_t first.
    if (ints && t == ScalarType::Int64 && narrow(l) && narrow(r) &&
        (op == py::BinaryOperator::Add || op == py::BinaryOperator::Sub || op == py::BinaryOperator::Mult ||
         op == py::BinaryOperator::LShift))
      l = {"static_cast<int64_t>(" + l.text + ")", kPrimary, ScalarType::Int64};
    if (l0.literal && r0.literal)
      if (auto folded = fold_ints(op, *l0.literal, *r0.literal, loc)) return *folded;
    // A constant divided by a constant zero raises ZeroDivisionError in Python, whatever the
    // types (a connector's value divided by zero is NumPy's inf, NaN or 0: ADR 0014).
    if ((op == py::BinaryOperator::Div || op == py::BinaryOperator::FloorDiv ||
         op == py::BinaryOperator::Mod) &&
        (l0.literal || l0.float_value) &&
        ((r0.literal && *r0.literal == 0) || (r0.float_value && *r0.float_value == 0.0)))
      fail(loc, "division by zero of constants (Python raises ZeroDivisionError)");
    switch (op) {
      case B::Add: return {wrap(l, kAdd) + " + " + wrap(r, kAdd + 1), kAdd, t};
      case B::Sub: return {wrap(l, kAdd) + " - " + wrap(r, kAdd + 1), kAdd, t};
      case B::Mult:
        if (is_complex(t)) return {"weir_cmul(" + l.text + ", " + r.text + ")", kPrimary, t};
        return {wrap(l, kMul) + " * " + wrap(r, kMul + 1), kMul, t};
      case B::Div:
        if (ints)
          return {"static_cast<double>(" + l.text + ") / " + wrap(r, kMul + 1), kMul, ScalarType::Float64};
        return {wrap(l, kMul) + " / " + wrap(r, kMul + 1), kMul, t};
      case B::FloorDiv:
        if (ints) return {"weir_floordiv(" + l.text + ", " + r.text + ")", kPrimary, ScalarType::Int64};
        if (is_complex(t))
          return {math("floor") + "(" + wrap(l, kMul) + " / " + wrap(r, kMul + 1) + ")", kPrimary, t};
        return {"weir_ffloordiv<" + std::string(cpp_name(t)) + ">(" + l.text + ", " + r.text + ")", kPrimary,
                t};
      case B::Mod:
        if (ints) return {"weir_mod(" + l.text + ", " + r.text + ")", kPrimary, ScalarType::Int64};
        return {"weir_fmod<" + std::string(cpp_name(t)) + ">(" + l.text + ", " + r.text + ")", kPrimary, t};
      case B::Pow: return power(l, r, right_node);
      case B::LShift:
      case B::RShift:
        if (!ints) fail(loc, "shift of a non-integer value");
        return {wrap_strict(l) + (op == B::LShift ? " << " : " >> ") + wrap_strict(r), kShift, t};
      case B::BitAnd:
      case B::BitOr:
      case B::BitXor: {
        if (!ints) fail(loc, "bitwise operation on a non-integer value");
        const char* s = op == B::BitAnd ? " & " : op == B::BitOr ? " | " : " ^ ";
        int p = op == B::BitAnd ? kBitAnd : op == B::BitOr ? kBitOr : kXor;
        ScalarType bt = is_bool(l.type) && is_bool(r.type) ? ScalarType::Bool : t;
        Val v{wrap_strict(l) + s + wrap_strict(r), p, bt};
        v.narrow_int = narrow(l) && narrow(r);
        return v;
      }
      case B::MatMult: break;
    }
    fail(loc, "unsupported operator `" + std::string(py::to_string(op)) + "`");
  }

  /// `a op b` of two integer literals, folded as Python computes it: an int64 literal, or
  /// the operation refused at `loc` where Python's result is not an int64 (`2 ** 70`, a
  /// division by zero). nullopt: not folded here (`/`, a negative power: float results).
  std::optional<Val> fold_ints(py::BinaryOperator op, long long a, long long b,
                               const py::SourceLocation& loc) {
    using B = py::BinaryOperator;
    py::IntOpResult r;
    switch (op) {
      case B::Add: r = py::int_add(a, b); break;
      case B::Sub: r = py::int_sub(a, b); break;
      case B::Mult: r = py::int_mul(a, b); break;
      case B::FloorDiv: r = py::int_floordiv(a, b); break;
      case B::Mod: r = py::int_mod(a, b); break;
      case B::Pow:
        if (b < 0) return std::nullopt;
        r = py::int_pow(a, b);
        break;
      case B::LShift: r = py::int_lshift(a, b); break;
      case B::RShift: r = py::int_rshift(a, b); break;
      case B::BitAnd: r.value = a & b; break;
      case B::BitOr: r.value = a | b; break;
      case B::BitXor: r.value = a ^ b; break;
      case B::Div:
        if (b == 0) fail(loc, "division by zero of integer constants (Python raises ZeroDivisionError)");
        return std::nullopt;
      case B::MatMult: return std::nullopt;
    }
    if (!r.ok())
      fail(loc, "`" + std::to_string(a) + " " + std::string(py::to_string(op)) + " " + std::to_string(b) +
                    "` of integer constants: " + py::describe(r.fault));
    return Val{int_literal(r.value), r.value < 0 ? kUnary : kPrimary, ScalarType::Int64, nullptr, r.value};
  }

  /// `a and b ...` / `a or b ...` as Python: the first operand that decides (falsy for `and`,
  /// truthy for `or`) or the last one, itself and not a bool, evaluated left to right and no
  /// further (short circuit). Operands of several types take their common type (NumPy's
  /// promotion: `x or 7.0` with an int x is a float), as the value stored would be.
  Val boolop(const py::BoolOp& b) {
    const bool is_and = b.op == py::BoolOperator::And;
    std::vector<Val> vals;
    bool all_bool = true;
    for (const auto& v : b.values) {
      if (!vals.empty()) ++cond_;  // short circuit: the later operands may not run
      vals.push_back(expr(*v));
      all_bool = all_bool && is_bool(vals.back().type);
    }
    cond_ -= static_cast<int>(b.values.size()) - 1;
    if (all_bool) {
      std::string out;
      for (const Val& x : vals) {
        if (!out.empty()) out += is_and ? " && " : " || ";
        out += x.prec <= kAnd ? "(" + x.text + ")" : x.text;
      }
      return {out, is_and ? kAnd : kOr, ScalarType::Bool};
    }
    ScalarType t = vals[0].type;
    for (std::size_t i = 1; i < vals.size(); ++i) t = arith_type(t, vals[i].type);
    if (is_bool(t)) t = ScalarType::Int64;
    const std::string T(cpp_name(t));
    std::string body = "[&]() -> " + T + " { ";
    for (std::size_t i = 0; i + 1 < vals.size(); ++i) {
      std::string v = "__weir_b" + std::to_string(i);
      body += "const " + T + " " + v + " = static_cast<" + T + ">(" + vals[i].text + "); ";
      body += std::string("if (") + (is_and ? "!(" : "(") + v + " != " + T + "(0))) return " + v + "; ";
    }
    body += "return static_cast<" + T + ">(" + vals.back().text + "); }()";
    return {body, kPrimary, t};
  }

  Val compare(const py::Compare& c) {
    std::vector<Val> operands{expr(*c.left)};
    for (const auto& e : c.comparators) operands.push_back(expr(*e));
    std::vector<std::string> parts;
    int prec = kRel;
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      const char* op = nullptr;
      int p = kRel;
      switch (c.ops[i]) {
        case py::CompareOperator::Eq:
          op = " == ";
          p = kEq;
          break;
        case py::CompareOperator::NotEq:
          op = " != ";
          p = kEq;
          break;
        case py::CompareOperator::Lt: op = " < "; break;
        case py::CompareOperator::LtE: op = " <= "; break;
        case py::CompareOperator::Gt: op = " > "; break;
        case py::CompareOperator::GtE: op = " >= "; break;
        default: fail(c.loc, "unsupported comparison `" + std::string(py::to_string(c.ops[i])) + "`");
      }
      // Operands that are themselves comparisons get parentheses (-Wparentheses).
      parts.push_back(wrap(operands[i], kShift) + op + wrap(operands[i + 1], kShift));
      prec = p;
    }
    if (parts.size() == 1) return {parts[0], prec, ScalarType::Bool};
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : " && ") + ("(" + p + ")");
    return {out, kAnd, ScalarType::Bool};
  }

  // --- statements ------------------------------------------------------------------------
  struct Local {
    std::string cpp;
    ScalarType type;
    std::string origin, origin_at;  // as Val's
    std::string table{};            // as Val's, for a local assigned once (entry_once_)
    bool not_missing = false;
  };

  std::string indent() const { return std::string(static_cast<std::size_t>(depth_) * 4, ' '); }
  void emit(const std::string& s) {
    std::size_t b = 0;
    while (b <= s.size()) {  // a write hook may return several lines ("#pragma ...\nx += v;")
      std::size_t e = s.find('\n', b);
      if (e == std::string::npos) e = s.size();
      out_.push_back(indent() + s.substr(b, e - b));
      b = e + 1;
    }
  }

  std::string fresh_local_name(const std::string& py) {
    std::string base = cpp_ident(py);
    std::string n = base;
    auto taken = [&](const std::string& c) {
      if (ctx_.reserved.count(c) || (ctx_.is_reserved && ctx_.is_reserved(c))) return true;
      for (const auto& [k, v] : ctx_.vars)
        if (v.cpp == c) return true;
      for (const auto& [k, v] : locals_)
        if (v.cpp == c) return true;
      return false;
    };
    while (taken(n)) n = "_" + n;
    return n;
  }

  /// `target = value` for a Name target.
  void assign_name(const py::Name& target, const Val& value,
                   std::optional<ScalarType> declared = std::nullopt) {
    if (auto it = locals_.find(target.id); it != locals_.end()) {
      emit(it->second.cpp + " = " + value.text + ";");
      // Inside a branch either assignment may hold afterwards: an origin only if both agree.
      auto o = origin_of(value);
      if (depth_ > 0 && o != std::make_pair(it->second.origin, it->second.origin_at)) o = {};
      std::tie(it->second.origin, it->second.origin_at) = o;
      return;
    }
    if (auto it = ctx_.vars.find(target.id); it != ctx_.vars.end()) {
      ctx_.used.insert(target.id);
      const PyVar& v = it->second;
      if (v.hooked) {
        if (!ctx_.write_hook) fail(target.loc, "no write hook for '" + target.id + "'");
        emit(ctx_.write_hook(target.id, "", value.text));
        return;
      }
      if (!v.writable || v.pointer) fail(target.loc, "cannot assign to '" + target.id + "'");
      emit(v.cpp + " = " + value.text + ";");
      return;
    }
    if (!ctx_.allow_locals) fail(target.loc, "assignment to unknown name '" + target.id + "'");
    auto [origin, origin_at] = origin_of(value);
    Local l{fresh_local_name(target.id), declared ? *declared : value.type, origin, origin_at};
    if (entry_once_.count(target.id) && depth_ == 0 && !declared) {
      l.table = value.table;
      l.not_missing = value.not_missing;
    }
    locals_[target.id] = l;
    if (depth_ == 0) {
      if (declared)
        emit(std::string(cpp_name(*declared)) + " " + l.cpp + " = " + value.text + ";");
      else
        emit("auto " + l.cpp + " = " + value.text + ";");
    } else {
      // First assigned inside a block: declared before the enclosing top-level statement.
      pending_.push_back(std::string(cpp_name(l.type)) + " " + l.cpp + "{};");
      emit(l.cpp + " = " + value.text + ";");
    }
  }

  void assign_subscript(const py::Subscript& s, const Val& value) {
    auto [var, index] = subscript_target(s);
    auto* n = py::dyn_cast<py::Name>(s.value.get());
    if (var->hooked) {
      if (!ctx_.write_hook) fail(s.loc, "no write hook");
      emit(ctx_.write_hook(n->id, index, value.text));
      return;
    }
    if (!var->writable) fail(s.loc, "cannot assign to '" + n->id + "', an input");
    emit(var->cpp + "[" + index + "] = " + value.text + ";");
  }

  void assign(const py::Expr& target, const Val& value, const py::SourceLocation& loc) {
    if (auto* n = py::dyn_cast<py::Name>(&target)) return assign_name(*n, value);
    if (auto* s = py::dyn_cast<py::Subscript>(&target)) return assign_subscript(*s, value);
    fail(loc, "unsupported assignment target `" + py::unparse(target) + "`");
  }

  std::optional<ScalarType> annotation_type(const py::Expr& a) {
    std::string d = py::dotted_name(&a);
    auto [mod, nm] = split_callee(d);
    if (mod.empty() && nm == "int") return ScalarType::Int64;
    if (mod.empty() && nm == "float") return ScalarType::Float64;
    if (mod.empty() && nm == "bool") return ScalarType::Bool;
    if (mod == "dace" || mod == "np") {
      if (auto t = scalar_type_from_string(nm == "bool" ? "bool_" : nm)) return t;
    }
    return std::nullopt;
  }

  void stmt(const py::Stmt& s) {
    switch (s.kind) {
      case py::StmtKind::Assign: {
        const auto& a = static_cast<const py::Assign&>(s);
        if (a.targets.size() == 1 && py::isa<py::Tuple>(a.targets[0].get())) {
          const auto& tt = static_cast<const py::Tuple&>(*a.targets[0]);
          auto* vt = py::dyn_cast<py::Tuple>(a.value.get());
          if (!vt || vt->elts.size() != tt.elts.size()) fail(s.loc, "unsupported tuple assignment");
          std::vector<Val> vals;
          for (const auto& e : vt->elts) vals.push_back(expr(*e));
          std::vector<std::string> temps;
          for (std::size_t i = 0; i < vals.size(); ++i) {
            std::string t = "__weir_t" + std::to_string(temp_counter_++);
            emit("const auto " + t + " = " + vals[i].text + ";");
            temps.push_back(t);
          }
          for (std::size_t i = 0; i < vals.size(); ++i)
            assign(*tt.elts[i], {temps[i], kPrimary, vals[i].type}, s.loc);
          return;
        }
        Val v = expr(*a.value);
        const py::Expr* first = nullptr;
        for (const auto& t : a.targets) {
          if (py::isa<py::Tuple>(t.get()) || py::isa<py::List>(t.get()))
            fail(s.loc, "unsupported tuple assignment");
          if (!first) {
            assign(*t, v, s.loc);
            first = t.get();
          } else {
            assign(*t, expr(*first), s.loc);  // a = b = v: b takes a's value
          }
        }
        return;
      }
      case py::StmtKind::AnnAssign: {
        const auto& a = static_cast<const py::AnnAssign&>(s);
        auto* n = py::dyn_cast<py::Name>(a.target.get());
        if (!n || !a.value) fail(s.loc, "unsupported annotated assignment");
        auto t = annotation_type(*a.annotation);
        if (!t) fail(s.loc, "unsupported type annotation `" + py::unparse(*a.annotation) + "`");
        Val v = expr(*a.value);
        if (!locals_.count(n->id) && !ctx_.vars.count(n->id)) return assign_name(*n, v, t);
        return assign_name(*n, v);
      }
      case py::StmtKind::AugAssign: {
        const auto& a = static_cast<const py::AugAssign&>(s);
        using B = py::BinaryOperator;
        Val cur = [&]() -> Val {
          if (auto* n = py::dyn_cast<py::Name>(a.target.get())) {
            if (auto it = ctx_.vars.find(n->id); it != ctx_.vars.end() && it->second.hooked)
              fail(s.loc,
                   "augmented assignment to '" + n->id + "', an output with write-conflict resolution");
          }
          return expr(*a.target);
        }();
        Val rhs = expr(*a.value);
        bool simple_op = a.op == B::Add || a.op == B::Sub || a.op == B::Mult || a.op == B::BitAnd ||
                         a.op == B::BitOr || a.op == B::BitXor || a.op == B::LShift || a.op == B::RShift ||
                         (a.op == B::Div && is_float(cur.type));
        if (simple_op) {
          std::string target = cur.text;
          // Validate the target is assignable through the normal path.
          if (auto* n = py::dyn_cast<py::Name>(a.target.get())) {
            if (!locals_.count(n->id)) {
              auto it = ctx_.vars.find(n->id);
              if (it == ctx_.vars.end()) fail(s.loc, "unknown name '" + n->id + "'");
              if (!it->second.writable || it->second.pointer) fail(s.loc, "cannot assign to '" + n->id + "'");
            }
          } else if (!py::isa<py::Subscript>(a.target.get())) {
            fail(s.loc, "unsupported assignment target");
          } else {
            auto* sub = static_cast<const py::Subscript*>(a.target.get());
            auto [var, idx] = subscript_target(*sub);
            if (!var->writable) fail(s.loc, "cannot assign to an input");
          }
          emit(target + " " + std::string(py::to_string(a.op)) + "= " + rhs.text + ";");
          return;
        }
        assign(*a.target, binop(a.op, cur, rhs, s.loc, a.value.get()), s.loc);
        return;
      }
      case py::StmtKind::If: {
        const auto& i = static_cast<const py::If&>(s);
        Val c = expr(*i.test);
        emit("if (" + c.text + ") {");
        block(i.body);
        const py::StmtList* orelse = &i.orelse;
        while (!orelse->empty()) {
          if (orelse->size() == 1 && (*orelse)[0]->kind == py::StmtKind::If &&
              static_cast<const py::If&>(*(*orelse)[0]).is_elif) {
            const auto& e = static_cast<const py::If&>(*(*orelse)[0]);
            emit("} else if (" + expr(*e.test).text + ") {");
            block(e.body);
            orelse = &e.orelse;
          } else {
            emit("} else {");
            block(*orelse);
            break;
          }
        }
        emit("}");
        return;
      }
      case py::StmtKind::Pass: return;
      case py::StmtKind::Expr: {
        const auto& e = static_cast<const py::ExprStmt&>(s);
        if (auto* c = py::dyn_cast<py::Constant>(e.value.get());
            c && c->value_kind == py::ConstantKind::String)
          return;  // docstring
        emit(expr(*e.value).text + ";");
        return;
      }
      case py::StmtKind::Import:
      case py::StmtKind::ImportFrom: return;  // `import math` in tasklet code: nothing to do
      default: fail(s.loc, "unsupported statement (" + std::string(py::to_string(s.kind)) + ")");
    }
  }

  void block(const py::StmtList& body) {
    ++depth_;
    for (const auto& s : body) stmt(*s);
    --depth_;
  }

  std::vector<std::string> statements(const py::StmtList& body) {
    std::vector<std::string> all;
    std::set<std::string> once;  // locals that one top-level `x = e` assigns, nothing else
    {
      std::map<std::string, int> assigned;
      for (const auto& s : body)
        for (const std::string& n : written(*s)) assigned[n] += single_assignment(*s) ? 1 : 2;
      for (const auto& [n, k] : assigned)
        if (k == 1 && !ctx_.vars.count(n)) once.insert(n);
      for (const auto& [n, k] : assigned) written_.insert(n);
    }
    entry_once_ = once;
    if (ctx_.hoist) variant_ = ctx_.hoist->variant;
    for (const auto& s : body) {
      out_.clear();
      pending_.clear();
      const std::string* x = ctx_.hoist ? single_assignment(*s) : nullptr;
      const bool hoist = x && once.count(*x) && !varies(*static_cast<const py::Assign&>(*s).value);
      hoisting_ = hoist;
      stmt(*s);
      hoisting_ = false;
      auto& to = hoist ? ctx_.hoist->lines : all;
      to.insert(to.end(), pending_.begin(), pending_.end());
      to.insert(to.end(), out_.begin(), out_.end());
      if (!hoist && ctx_.hoist)
        for (const std::string& n : written(*s)) variant_.insert(n);
    }
    return all;
  }

  // --- loop-invariant code motion (PyContext::hoist) --------------------------------------
  /// The name `x` of a statement `x = e` (one target, a name), else null.
  static const std::string* single_assignment(const py::Stmt& s) {
    if (s.kind != py::StmtKind::Assign) return nullptr;
    const auto& a = static_cast<const py::Assign&>(s);
    if (a.targets.size() != 1) return nullptr;
    auto* n = py::dyn_cast<py::Name>(a.targets[0].get());
    return n ? &n->id : nullptr;
  }

  /// The names a statement assigns, whole or in part.
  static std::set<std::string> written(const py::Stmt& s) {
    std::set<std::string> out;
    auto target = [&](const py::Expr& t) { out.merge(py::names_used(t).data()); };
    switch (s.kind) {
      case py::StmtKind::Assign:
        for (const auto& t : static_cast<const py::Assign&>(s).targets) target(*t);
        break;
      case py::StmtKind::AugAssign: target(*static_cast<const py::AugAssign&>(s).target); break;
      case py::StmtKind::AnnAssign: target(*static_cast<const py::AnnAssign&>(s).target); break;
      case py::StmtKind::If: {
        const auto& i = static_cast<const py::If&>(s);
        out.merge(py::names_used(i.body).writes);
        out.merge(py::names_used(i.orelse).writes);
        break;
      }
      default: break;
    }
    return out;
  }

  /// Whether `e` reads something that differs between the loops' iterations.
  bool varies(const py::Expr& e) const {
    for (const std::string& n : py::names_used(e).data())
      if (variant_.count(n)) return true;
    return false;
  }

  /// Whether C++ text `text` names one of the loops' parameters (an extent that depends on them).
  bool mentions_param(const std::string& text) const {
    for (const auto& [p, ends] : ctx_.hoist->params) {
      const std::string c = cpp_ident(p);
      for (std::size_t at = text.find(c); at != std::string::npos; at = text.find(c, at + 1)) {
        auto ident = [&](std::size_t k) {
          return k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_');
        };
        if (!(at > 0 && ident(at - 1)) && !ident(at + c.size())) return true;
      }
    }
    return false;
  }

  /// The check of index `i` (dimension `dim` of `v`, from `ast`) moved before the loops, when
  /// every iteration computes it (not under a condition): an invariant index is checked there
  /// into a variable the loops read; a loop parameter (`p`, `p + c`, `p - c` with a literal c)
  /// is checked at its first and last value and used unchecked. Nullopt: checked in the loop.
  std::optional<Val> hoisted_check(const PyVar& v, const Val& i, const py::Expr* ast,
                                   const std::string& extent, const IndexDim& dim) {
    if (!ctx_.hoist || hoisting_ || !ast || depth_ > 0 || cond_ > 0 || mentions_param(extent))
      return std::nullopt;
    auto& lines = ctx_.hoist->lines;
    if (!varies(*ast)) {
      std::map<std::string, std::string> point;
      for (const auto& [p, ends] : ctx_.hoist->params) point[cpp_ident(p)] = ends.first;
      std::string h = "__weir_h" + std::to_string(hoist_counter_++);
      lines.push_back("const int64_t " + h + " = " + checked_index(v, i, extent, dim, &point).text + ";");
      return Val{h, kPrimary, ScalarType::Int64};
    }
    // p, p + c, c + p, p - c
    auto pc = param_plus_literal(ast);
    if (!pc) return std::nullopt;
    const std::string& pid = pc->first;
    const long long* c = &pc->second;
    auto param = ctx_.hoist->params.find(pid);
    // Every other name the index reads must be invariant too (only the parameter moves).
    std::set<std::string> others = py::names_used(*ast).data();
    others.erase(pid);
    for (const std::string& n : others)
      if (variant_.count(n)) return std::nullopt;
    for (const std::string* end : {&param->second.first, &param->second.second}) {
      std::map<std::string, std::string> point;
      for (const auto& [q, ends] : ctx_.hoist->params) point[cpp_ident(q)] = ends.first;
      point[cpp_ident(pid)] = *end;
      std::string at =
          "(" + *end + ")" + (*c == 0 ? "" : (*c > 0 ? " + " : " - ") + std::to_string(*c > 0 ? *c : -*c));
      Val e{at, kAdd, ScalarType::Int64};
      e.origin = i.origin, e.origin_at = i.origin_at;
      std::string check = "(void)" + checked_index(v, e, extent, dim, &point).text + ";";
      if (hoisted_checks_.insert(check).second) lines.push_back(check);  // once per distinct check
    }
    return i;
  }

  /// The read `r` of `s`, an element of pointer connector `v`, as a variable loaded once before
  /// the loops where every iteration reads the same element: read unconditionally (not in a
  /// hoisted statement, a block or an arm of `a if c else b`), from a connector the loops do not
  /// change (not in LoopHoist::variant: its container is not written in the scope), at indices
  /// that read nothing variant and whose checks are done (proven at entry or hoisted: no
  /// weir_index left in `r`). nabla's `S_MXX[V2E[v, n]]` in its K loop: GCC did not move such
  /// loads out of the loop where it could not prove that the loop's stores miss them (OpenMP's
  /// outlined parallel loop, stores through a pointer; docs/adr/0041, session 31). Identical
  /// reads share one variable. `r` unchanged otherwise.
  Val hoisted_load(const py::Subscript& s, const PyVar& v, Val r) {
    auto* n = py::dyn_cast<py::Name>(s.value.get());
    if (!ctx_.hoist || hoisting_ || depth_ > 0 || cond_ > 0 || !n || v.writable || v.hooked ||
        variant_.count(n->id) || varies(*s.index) || r.text.find("weir_index(") != std::string::npos ||
        mentions_param(r.text))
      return r;
    auto [at, fresh] = hoisted_loads_.emplace(r.text, "__weir_l" + std::to_string(hoisted_loads_.size()));
    if (fresh)
      ctx_.hoist->lines.push_back("const " + std::string(cpp_name(v.type)) + " " + at->second + " = " +
                                  r.text + ";");
    r.text = at->second;
    r.prec = kPrimary;
    return r;
  }

  /// The condition `test` (its C++ `c`) of `a if test else b` in the loops hoisting is done out of,
  /// when it reads nothing that varies and is a comparison of names and literals (no call, no
  /// subscript: nothing that can fault): a bool computed before the loops (LoopHoist::
  /// conditions), which the code generator may fold in a version of the loops. Else `c`.
  Val hoisted_condition(const py::Expr& test, Val c) {
    if (!ctx_.hoist || hoisting_ || varies(test)) return c;
    auto* cmp = py::dyn_cast<py::Compare>(&test);
    if (!cmp) return c;
    auto simple = [](const py::Expr& x) {
      if (py::isa<py::Name>(&x) || py::isa<py::Constant>(&x)) return true;
      auto* u = py::dyn_cast<py::UnaryOp>(&x);
      return u && py::isa<py::Constant>(u->operand.get());
    };
    if (!simple(*cmp->left)) return c;
    for (const auto& x : cmp->comparators)
      if (!simple(*x)) return c;
    auto [at, fresh] =
        hoisted_conditions_.emplace(c.text, "__weir_c" + std::to_string(hoisted_conditions_.size()));
    if (fresh) {
      ctx_.hoist->lines.push_back("const bool " + at->second + " = " + c.text + ";");
      ctx_.hoist->conditions.push_back(at->second);
    }
    return Val{at->second, kPrimary, ScalarType::Bool};
  }

  const PyContext& ctx_;
  std::string_view code_;
  std::map<std::string, Local> locals_;
  std::vector<std::string> out_, pending_;
  int depth_ = 0;
  int temp_counter_ = 0;
  // Hoisting (PyContext::hoist): names whose value varies between iterations, how deep the
  // expression being translated is under a condition (an arm of `a if c else b`, a later
  // operand of `and`/`or`), whether the statement is being hoisted, the hoisted variables.
  std::set<std::string> variant_;
  /// Locals one top-level `x = e` assigns and nothing else: a table entry's fact holds for
  /// every use (Val::table).
  std::set<std::string> entry_once_;
  /// Every name the code assigns (a connector assigned is no table entry any more).
  std::set<std::string> written_;
  int cond_ = 0;
  bool hoisting_ = false;
  int hoist_counter_ = 0;
  std::set<std::string> hoisted_checks_;
  std::map<std::string, std::string> hoisted_conditions_;  // C++ of a condition -> its bool
  std::map<std::string, std::string> hoisted_loads_;       // C++ of a hoisted read -> its variable
};

template <class F>
auto guarded(std::string_view code, F&& f) {
  try {
    return f();
  } catch (const py::SourceError& e) {
    throw PythonTranslationError("cannot parse Python code `" + std::string(code) + "`: " + e.message());
  }
}

std::string expression_to_cpp(const py::Expr& e, std::string_view code, const PyContext& ctx,
                              ScalarType* type) {
  Translator t(ctx, code);
  Val v = t.expr(e);
  if (type) *type = v.type;
  return v.text;
}

}  // namespace

std::string cpp_ident(const std::string& name) {
  // The last line of defence against names that would inject C++ (validate() rejects them).
  if (!is_ascii_identifier(name))
    throw PythonTranslationError("'" + name +
                                 "' is not a name C++ can use (names in an SDFG must be identifiers, "
                                 "[A-Za-z_][A-Za-z0-9_]*; `weir validate` reports where)");
  if (cpp_keywords().count(name) || name.rfind("weir_", 0) == 0) return name + "_";
  return name;
}

std::vector<std::string> translate_python_statements(std::string_view code, PyContext& ctx) {
  return translate_statements(CodeBlock{std::string(code), Language::Python}, ctx);
}

std::vector<std::string> translate_statements(const CodeBlock& code, PyContext& ctx) {
  return guarded(code.code, [&] {
    auto tree = code.parsed();
    Translator t(ctx, code.code);
    return t.statements(tree->body());
  });
}

std::string translate_python_expression(std::string_view code, const PyContext& ctx, ScalarType* type) {
  return guarded(code, [&] {
    py::ExprPtr e = py::parse_expression(code, "<expression>");
    return expression_to_cpp(*e, code, ctx, type);
  });
}

std::string translate_expression(const CodeBlock& code, const PyContext& ctx, ScalarType* type) {
  return guarded(code.code, [&] {
    auto tree = code.parsed();
    const py::Expr* e = tree->expression();
    if (!e) throw PythonTranslationError("expected one expression, not `" + code.code + "`");
    return expression_to_cpp(*e, code.code, ctx, type);
  });
}

std::string translate_python_assignments(std::string_view code, const PyContext& ctx) {
  return translate_assignments(CodeBlock{std::string(code), Language::Python}, ctx);
}

std::string translate_assignments(const CodeBlock& code, const PyContext& ctx) {
  return guarded(code.code, [&] {
    auto tree = code.parsed();
    Translator t(ctx, code.code);
    std::string out;
    for (const auto& s : tree->body()) {
      std::string target;
      Val value;
      if (auto* a = py::dyn_cast<py::Assign>(s.get())) {
        auto* n = a->targets.size() == 1 ? py::dyn_cast<py::Name>(a->targets[0].get()) : nullptr;
        if (!n) t.fail(s->loc, "unsupported assignment");
        target = n->id;
        value = t.expr(*a->value);
      } else if (auto* a = py::dyn_cast<py::AugAssign>(s.get())) {
        auto* n = py::dyn_cast<py::Name>(a->target.get());
        if (!n) t.fail(s->loc, "unsupported assignment");
        target = n->id;
        value = t.binop(a->op, t.expr(*a->target), t.expr(*a->value), s->loc, a->value.get());
      } else if (s->kind == py::StmtKind::Pass) {
        continue;
      } else {
        t.fail(s->loc, "expected an assignment");
      }
      auto it = ctx.vars.find(target);
      if (it == ctx.vars.end() || !it->second.writable) t.fail(s->loc, "cannot assign to '" + target + "'");
      if (!out.empty()) out += ", ";
      out += it->second.cpp + " = " + value.text;
    }
    return out;
  });
}

namespace {

// A write-conflict resolution's lambda of two parameters (parsed per call: WCRs are short).
struct WcrLambda {
  py::ExprPtr tree;
  const py::Lambda& lambda() const { return *py::dyn_cast<py::Lambda>(tree.get()); }
};

WcrLambda wcr_lambda(std::string_view text) {
  WcrLambda w{py::parse_expression(text, "<wcr>")};
  auto* l = py::dyn_cast<py::Lambda>(w.tree.get());
  if (!l || l->params.size() != 2)
    throw PythonTranslationError("write-conflict resolution must be a lambda of two arguments: `" +
                                 std::string(text) + "`");
  return w;
}

// The lambda's body with its first parameter as C++ `a` and its second as `b`.
std::string wcr_body(std::string_view text, const WcrLambda& w, const std::string& a, const std::string& b,
                     ScalarType type) {
  const py::Lambda& l = w.lambda();
  PyContext ctx;
  ctx.allow_locals = false;
  ctx.vars[l.params[0].name] = PyVar::value(a, type);
  ctx.vars[l.params[1].name] = PyVar::value(b, type);
  Translator t(ctx, text);
  return t.expr(*l.body).text;
}

}  // namespace

std::string translate_wcr(std::string_view lambda, const std::string& target, const std::string& value,
                          ScalarType type, std::string* op) {
  return guarded(lambda, [&] {
    WcrLambda w = wcr_lambda(lambda);
    const py::Lambda* l = &w.lambda();
    const std::string& a = l->params[0].name;
    const std::string& b = l->params[1].name;
    if (op) op->clear();
    if (auto* bin = py::dyn_cast<py::BinOp>(l->body.get())) {
      auto* ln = py::dyn_cast<py::Name>(bin->left.get());
      auto* rn = py::dyn_cast<py::Name>(bin->right.get());
      if (ln && rn) {
        using B = py::BinaryOperator;
        bool ab = ln->id == a && rn->id == b;
        bool ba = ln->id == b && rn->id == a;
        bool commutative = bin->op == B::Add || bin->op == B::Mult || bin->op == B::BitAnd ||
                           bin->op == B::BitOr || bin->op == B::BitXor;
        if ((ab || (ba && commutative)) && (commutative || bin->op == B::Sub)) {
          std::string o(py::to_string(bin->op));
          if (op) *op = o;
          return target + " " + o + "= " + value;
        }
      }
    }
    return target + " = " + wcr_body(lambda, w, target, value, type);
  });
}

std::string translate_wcr_combine(std::string_view lambda, const std::string& a, const std::string& b,
                                  ScalarType type) {
  return guarded(lambda, [&] { return wcr_body(lambda, wcr_lambda(lambda), a, b, type); });
}

}  // namespace weir::codegen
