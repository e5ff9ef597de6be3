// Printing weir::sym::Expr as Python/sympy text. Parentheses follow Python's precedence so
// that the text parses back to the same canonical expression (parse(e.str()) == e).
#include <string>

#include "weir/sdfg/symbolic.h"

namespace weir::sym {
namespace {

// Python precedence levels, loosest first.
enum Prec : int { kOr = 1, kAnd, kNot, kCmp, kAdd, kMul, kUnary, kPow, kAtom };

bool is_unit_divisor(const Expr& e) { return e.args()[1].as_integer() == 1; }

// A term printed with a leading minus: a negative constant or product.
bool is_negative_term(const Expr& t) {
  if (t.kind() == Kind::Integer) return t.value() < 0;
  return t.kind() == Kind::Mul && t.args()[0].kind() == Kind::Integer && t.args()[0].value() < 0;
}

class Printer {
 public:
  explicit Printer(bool dollar) : dollar_(dollar) {}

  static int prec(const Expr& e) {
    switch (e.kind()) {
      case Kind::Integer: return e.value() < 0 ? kUnary : kAtom;
      case Kind::Add: return kAdd;
      case Kind::Mul:  // "-x" is unary; "-2*x" parses as (-2)*x, a product
        return e.args().size() == 2 && e.args()[0].as_integer() == -1 ? kUnary : kMul;
      case Kind::Pow: return kPow;
      case Kind::Div:
      case Kind::Mod: return kMul;
      case Kind::FloorDiv: return is_unit_divisor(e) ? kAtom : kMul;  // floor(a) or a//b
      case Kind::Compare: return kCmp;
      case Kind::Not: return kNot;
      case Kind::And: return kAnd;
      case Kind::Or: return kOr;
      default: return kAtom;  // Boolean, Symbol, CeilDiv, Min, Max, Call
    }
  }

  void emit(const Expr& e, std::string& out) const {
    const auto& a = e.args();
    switch (e.kind()) {
      case Kind::Integer: out += std::to_string(e.value()); break;
      case Kind::Boolean: out += e.value() ? "True" : "False"; break;
      case Kind::Symbol:
        if (dollar_) out += '$';
        out += e.name();
        break;
      case Kind::Add:
        for (std::size_t i = 0; i < a.size(); ++i) {
          bool neg = is_negative_term(a[i]);
          if (i == 0)
            out += neg ? "-" : "";
          else
            out += neg ? " - " : " + ";
          emit_term_magnitude(a[i], neg, i == 0, out);
        }
        break;
      case Kind::Mul: {
        bool neg = is_negative_term(e);
        if (neg) out += '-';
        emit_term_magnitude(e, neg, true, out);
        break;
      }
      case Kind::Pow:
        wrap(a[0], kAtom, out);
        out += "**";
        wrap(a[1], kAtom, out);
        break;
      case Kind::Div: binary(a[0], "/", a[1], out); break;
      case Kind::Mod: binary(a[0], " % ", a[1], out); break;
      case Kind::FloorDiv:
        if (is_unit_divisor(e))
          call("floor", {a[0]}, out);
        else
          binary(a[0], "//", a[1], out);
        break;
      case Kind::CeilDiv:
        out += "ceiling(";
        if (is_unit_divisor(e))
          emit(a[0], out);
        else
          binary(a[0], "/", a[1], out);
        out += ')';
        break;
      case Kind::Min: call("Min", a, out); break;
      case Kind::Max: call("Max", a, out); break;
      case Kind::Call:
        call(e.name(), a, out);
        if (e.name().empty() && a.size() == 1) out.insert(out.size() - 1, ",");  // 1-tuple
        break;
      case Kind::Compare:
        wrap(a[0], kAdd, out);
        out += ' ';
        out += e.name();
        out += ' ';
        wrap(a[1], kAdd, out);
        break;
      case Kind::Not:
        out += "not ";
        wrap(a[0], kCmp, out);
        break;
      case Kind::And:
      case Kind::Or:
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (i > 0) out += e.kind() == Kind::And ? " and " : " or ";
          wrap(a[i], e.kind() == Kind::And ? kNot : kAnd, out);
        }
        break;
    }
  }

 private:
  void wrap(const Expr& e, int min_prec, std::string& out) const {
    bool paren = prec(e) < min_prec;
    if (paren) out += '(';
    emit(e, out);
    if (paren) out += ')';
  }

  // Left operand at product level, right operand tighter: a/(2*b), (a + 1)//b.
  void binary(const Expr& l, const char* op, const Expr& r, std::string& out) const {
    wrap(l, kMul, out);
    out += op;
    wrap(r, kUnary, out);
  }

  void call(const std::string& fn, const std::vector<Expr>& args, std::string& out) const {
    out += fn;
    out += '(';
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (i > 0) out += ", ";
      emit(args[i], out);
    }
    out += ')';
  }

  // A sum term or product without its sign. `neg`: a '-' was written before it; `leading`:
  // that '-' is unary (start of the text), where -a//b would mean (-a)//b.
  void emit_term_magnitude(const Expr& t, bool neg, bool leading, std::string& out) const {
    if (t.kind() == Kind::Integer) {
      long long v = t.value();
      out += neg ? std::to_string(0ULL - static_cast<unsigned long long>(v)) : std::to_string(v);
      return;
    }
    if (t.kind() != Kind::Mul) {  // a positive atom term
      wrap(t, kMul, out);
      return;
    }
    const auto& a = t.args();
    std::size_t first = 0;
    std::string coef;
    if (a[0].kind() == Kind::Integer) {
      long long c = a[0].value();
      unsigned long long m =
          c < 0 ? 0ULL - static_cast<unsigned long long>(c) : static_cast<unsigned long long>(c);
      if (m != 1) coef = std::to_string(m);
      first = 1;
    }
    std::size_t items = (coef.empty() ? 0 : 1) + (a.size() - first);
    if (items == 1) {  // "-x": the single factor follows a minus sign
      wrap(a[first], neg && leading ? kUnary : kMul, out);
      return;
    }
    if (!coef.empty()) out += coef;
    for (std::size_t i = first; i < a.size(); ++i) {
      if (i > first || !coef.empty()) out += '*';
      wrap(a[i], kUnary, out);  // a*(b//c), never a*b//c
    }
  }

  bool dollar_;
};

}  // namespace

std::string Expr::str() const {
  std::string out;
  Printer(false).emit(*this, out);
  return out;
}

std::string Expr::dace_str() const {
  std::string out;
  Printer(true).emit(*this, out);
  return out;
}

}  // namespace weir::sym
