// sym::Expr -> C++: int64 arithmetic; `//`, `%`, ceiling, Min/Max go through the prelude's
// helpers (weir_floordiv, weir_mod, ...) so that Python's floor semantics hold for negative
// operands. Products are printed compactly (`2*N`), sums spaced (`N - 1`).
#include <cstdlib>

#include "codegen_internal.h"

namespace weir::codegen::detail {

namespace {

constexpr int kPrimary = 16, kUnary = 15, kMul = 13, kAdd = 12, kRel = 9, kEq = 8, kAnd = 4, kOr = 3;

struct Text {
  std::string s;
  int prec;
};

std::string paren(const Text& t, int need) { return t.prec < need ? "(" + t.s + ")" : t.s; }

std::string int_text(long long v) {
  std::string s = std::to_string(v);
  if (v > 2147483647LL || v < -2147483647LL) s += "LL";
  return s;
}

Text print(const sym::Expr& e);

/// A product without its sign: `2*N*M` for coefficient -2 when `negate`.
Text product(const sym::Expr& e, bool& negative) {
  const auto& args = e.args();
  std::string out;
  std::size_t first = 0;
  negative = false;
  if (!args.empty() && args[0].is_integer()) {
    long long c = args[0].value();
    first = 1;
    if (c < 0) {
      negative = true;
      c = -c;
    }
    if (c != 1) out = int_text(c);
  }
  for (std::size_t i = first; i < args.size(); ++i) {
    if (!out.empty()) out += "*";
    out += paren(print(args[i]), kMul + 1);
  }
  return {out, kMul};
}

/// Whether a sum term prints with a leading minus (so the sum can write " - term").
bool negative_term(const sym::Expr& t, Text& abs_text) {
  if (t.is_integer() && t.value() < 0) {
    abs_text = {int_text(-t.value()), kPrimary};
    return true;
  }
  if (t.kind() == sym::Kind::Mul) {
    bool neg = false;
    Text p = product(t, neg);
    if (neg) {
      abs_text = p;
      return true;
    }
  }
  return false;
}

std::string call(const char* fn, const std::vector<sym::Expr>& args) {
  std::string out = std::string(fn) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + print(args[i]).s;
  return out + ")";
}

std::string nary(const char* fn, const std::vector<sym::Expr>& args) {
  // weir_min(a, weir_min(b, c))
  std::string out = print(args.back()).s;
  for (std::size_t i = args.size() - 1; i-- > 0;)
    out = std::string(fn) + "(" + print(args[i]).s + ", " + out + ")";
  return out;
}

Text print(const sym::Expr& e) {
  using K = sym::Kind;
  switch (e.kind()) {
    case K::Integer: return {int_text(e.value()), e.value() < 0 ? kUnary : kPrimary};
    case K::Boolean: return {e.value() ? "true" : "false", kPrimary};
    case K::Symbol: return {cpp_ident(e.name()), kPrimary};
    case K::Add: {
      std::string out;
      for (const auto& t : e.args()) {
        Text abs;
        if (!out.empty() && negative_term(t, abs)) {
          out += " - " + paren(abs, kAdd + 1);
        } else {
          Text x = print(t);
          out += (out.empty() ? "" : " + ") + paren(x, out.empty() ? kAdd : kAdd + 1);
        }
      }
      return {out, kAdd};
    }
    case K::Mul: {
      bool neg = false;
      Text p = product(e, neg);
      if (neg) return {"-" + paren(p, kUnary), kUnary};
      return p;
    }
    case K::Pow: {
      const auto& b = e.args()[0];
      const auto& x = e.args()[1];
      if (x.is_integer() && x.value() >= 2 && x.value() <= 3 && b.is_symbol()) {
        std::string s = print(b).s;
        std::string out = s;
        for (long long i = 1; i < x.value(); ++i) out += "*" + s;
        return {out, kMul};
      }
      note_fault();  // a negative exponent is a fault
      return {call("weir_ipow", e.args()), kPrimary};
    }
    case K::Div: return {paren(print(e.args()[0]), kMul) + " / " + paren(print(e.args()[1]), kMul + 1), kMul};
    case K::FloorDiv: {
      const auto& d = e.args()[1];
      if (d.is_integer() && d.value() == 1) {
        const auto& n = e.args()[0];
        if (n.kind() == K::Div) return {call("weir_floordiv", n.args()), kPrimary};
        return print(n);
      }
      return {call("weir_floordiv", e.args()), kPrimary};
    }
    case K::CeilDiv: return {call("weir_ceildiv", e.args()), kPrimary};
    case K::Mod: return {call("weir_mod", e.args()), kPrimary};
    case K::Min: return {nary("weir_min", e.args()), kPrimary};
    case K::Max: return {nary("weir_max", e.args()), kPrimary};
    case K::Call: {
      const std::string& f = e.name();
      if ((f == "Abs" || f == "abs") && e.args().size() == 1) return {call("weir_iabs", e.args()), kPrimary};
      if (f == "int_floor" && e.args().size() == 2) return {call("weir_floordiv", e.args()), kPrimary};
      if (f == "int_ceil" && e.args().size() == 2) return {call("weir_ceildiv", e.args()), kPrimary};
      throw GenFailure("the symbolic function '" + f + "' in `" + e.str() + "` has no C++ equivalent");
    }
    case K::Compare: {
      const std::string& op = e.name();
      int p = (op == "==" || op == "!=") ? kEq : kRel;
      return {paren(print(e.args()[0]), p + 1) + " " + op + " " + paren(print(e.args()[1]), p + 1), p};
    }
    case K::Not: return {"!" + paren(print(e.args()[0]), kUnary), kUnary};
    case K::And:
    case K::Or: {
      bool a = e.kind() == K::And;
      std::string out;
      for (const auto& x : e.args())
        out += (out.empty() ? "" : (a ? " && " : " || ")) + paren(print(x), kAnd + 1);
      return {out, a ? kAnd : kOr};
    }
  }
  throw GenFailure("unsupported symbolic expression `" + e.str() + "`");
}

bool is_zero(const sym::Expr& e) { return e.is_integer() && e.value() == 0; }
bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

}  // namespace

std::string sym_cpp(const sym::Expr& e) { return print(e).s; }

std::string sym_cpp_factor(const sym::Expr& e) { return paren(print(e), kMul + 1); }

std::string linear_offset(const DataDescriptor& desc, const std::vector<sym::Expr>& idx) {
  std::vector<sym::Expr> terms;
  std::string out;
  for (std::size_t d = 0; d < idx.size(); ++d) {
    sym::Expr i = idx[d];
    if (d < desc.offset.size() && !is_zero(desc.offset[d])) i = i + desc.offset[d];
    if (is_zero(i)) continue;
    sym::Expr stride = d < desc.strides.size() ? desc.strides[d] : sym::Expr(1);
    if (is_zero(stride)) continue;
    std::string term;
    if (is_one(stride)) {
      Text t = print(i);
      term = t.prec < kAdd ? "(" + t.s + ")" : t.s;
    } else if (stride.is_integer() && i.is_integer()) {
      term = int_text(i.value() * stride.value());
    } else if (is_one(i)) {
      Text t = print(stride);
      term = t.prec < kAdd ? "(" + t.s + ")" : t.s;
    } else if (i.is_integer() && i.value() == -1) {
      term = "-" + paren(print(stride), kUnary);
    } else {
      term = paren(print(i), kMul) + "*" + paren(print(stride), kMul + 1);
    }
    if (!out.empty()) {
      if (term[0] == '-')
        out += " - " + term.substr(1);
      else
        out += " + " + term;
    } else {
      out = term;
    }
  }
  if (!is_zero(desc.start_offset)) {
    Text so = print(desc.start_offset);
    out += (out.empty() ? "" : " + ") + paren(so, kAdd + 1);
  }
  return out.empty() ? "0" : out;
}

std::string range_text(const Range& r) {
  if (r.start == r.end && is_one(r.step)) return r.start.str();
  auto sign = r.step.sign_if_symbols_nonnegative();
  std::string s = r.start.str() + ":" + (sign && *sign < 0 ? r.end - 1 : r.end + 1).str();
  if (!is_one(r.step)) s += ":" + r.step.str();
  return s;
}

}  // namespace weir::codegen::detail
