// Expression -> Python source with precedence-driven parentheses.
#include "weir/pycode/unparse.h"
#include "weir/pycode/unparse_marked.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace weir::pycode {

namespace {

// Python's precedence levels, loosest first (as in CPython's ast._Precedence).
enum Prec : int {
  kTuple = 1,
  kTest,
  kOr,
  kAnd,
  kNot,
  kCmp,
  kExpr,
  kBXor,
  kBAnd,
  kShift,
  kArith,
  kTerm,
  kFactor,
  kPower,
  kAwait,
  kAtom
};

int binary_prec(BinaryOperator op) {
  switch (op) {
    case BinaryOperator::BitOr: return kExpr;
    case BinaryOperator::BitXor: return kBXor;
    case BinaryOperator::BitAnd: return kBAnd;
    case BinaryOperator::LShift:
    case BinaryOperator::RShift: return kShift;
    case BinaryOperator::Add:
    case BinaryOperator::Sub: return kArith;
    case BinaryOperator::Pow: return kPower;
    default: return kTerm;
  }
}

int precedence(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Lambda:
    case ExprKind::IfExp: return kTest;
    case ExprKind::BoolOp: return static_cast<const BoolOp&>(e).op == BoolOperator::Or ? kOr : kAnd;
    case ExprKind::UnaryOp: return static_cast<const UnaryOp&>(e).op == UnaryOperator::Not ? kNot : kFactor;
    case ExprKind::Compare: return kCmp;
    case ExprKind::BinOp: return binary_prec(static_cast<const BinOp&>(e).op);
    case ExprKind::Starred: return kExpr;
    default: return kAtom;
  }
}

std::string format_double(double v, const char* suffix) {
  if (std::isinf(v)) return std::string(v > 0 ? "1e309" : "-1e309") + suffix;
  // Python has no NaN literal. A real NaN is the bare name `nan`, as DaCe writes it (its
  // cppunparse turns it into C's NAN and its free-symbol scan skips it); an imaginary one
  // (`nanj` would be a name) is infinity minus itself. Never "-nan": the sign of a NaN is noise.
  if (std::isnan(v)) return *suffix == '\0' ? "nan" : "(1e309j - 1e309j)";
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? ptr : buf);
  if (*suffix == '\0' && s.find_first_of(".en") == std::string::npos) s += ".0";
  return s + suffix;
}

class Unparser {
 public:
  std::string out;
  const std::set<const Expr*>* marked = nullptr;  ///< always parenthesized (unparse_marked)

  void expr(const Expr& e, int required) {
    bool paren = precedence(e) < required || (marked && marked->count(&e));
    if (paren) out += '(';
    write(e);
    if (paren) out += ')';
  }

 private:
  void list(const ExprList& items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) out += ", ";
      expr(*items[i], kTest);
    }
  }

  void slice_or_test(const Expr& e) {
    if (auto* s = dyn_cast<Slice>(&e)) {
      if (s->lower) expr(*s->lower, kTest);
      out += ':';
      if (s->upper) expr(*s->upper, kTest);
      if (s->step) {
        out += ':';
        expr(*s->step, kTest);
      }
      return;
    }
    expr(e, kTest);
  }

  void params(const std::vector<Parameter>& ps) {
    bool star_written = false;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const Parameter& p = ps[i];
      if (i) out += ", ";
      if (p.kind == ParamKind::KeywordOnly && !star_written) {
        out += "*, ";
        star_written = true;
      }
      if (p.kind == ParamKind::VarArgs) {
        out += '*';
        star_written = true;
      }
      if (p.kind == ParamKind::VarKeywords) out += "**";
      out += p.name;
      if (p.annotation) {
        out += ": ";
        expr(*p.annotation, kTest);
      }
      if (p.default_value) {
        out += p.annotation ? " = " : "=";
        expr(*p.default_value, kTest);
      }
      bool last_positional_only = p.kind == ParamKind::PositionalOnly &&
                                  (i + 1 == ps.size() || ps[i + 1].kind != ParamKind::PositionalOnly);
      if (last_positional_only) out += ", /";
    }
  }

  // One function per kind: write() recurses once per nesting level, so its frame must stay
  // small in every build (at -O0 with AddressSanitizer a switch keeps every case's locals).
  void write(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name: out += static_cast<const Name&>(e).id; return;
      case ExprKind::Constant: constant(static_cast<const Constant&>(e)); return;
      case ExprKind::Attribute: write_attribute(e); return;
      case ExprKind::Subscript: write_subscript(e); return;
      case ExprKind::Slice: slice_or_test(e); return;
      case ExprKind::Call: write_call(e); return;
      case ExprKind::UnaryOp: write_unary_op(e); return;
      case ExprKind::BinOp: write_bin_op(e); return;
      case ExprKind::BoolOp: write_bool_op(e); return;
      case ExprKind::Compare: write_compare(e); return;
      case ExprKind::IfExp: write_if_exp(e); return;
      case ExprKind::Tuple: write_tuple(e); return;
      case ExprKind::List:
        out += '[';
        list(static_cast<const List&>(e).elts);
        out += ']';
        return;
      case ExprKind::Set: write_set(e); return;
      case ExprKind::Dict: write_dict(e); return;
      case ExprKind::Lambda: write_lambda(e); return;
      case ExprKind::Starred:
        out += '*';
        expr(*static_cast<const Starred&>(e).value, kExpr);
        return;
    }
  }

  void write_attribute(const Expr& e) {
    auto& a = static_cast<const Attribute&>(e);
    auto* c = dyn_cast<Constant>(a.value.get());
    if (c && c->value_kind == ConstantKind::Int) {
      out += '(';
      write(*c);
      out += ')';
    } else {
      expr(*a.value, kAtom);
    }
    out += '.';
    out += a.attr;
  }

  void write_subscript(const Expr& e) {
    auto& s = static_cast<const Subscript&>(e);
    expr(*s.value, kAtom);
    out += '[';
    auto* t = dyn_cast<Tuple>(s.index.get());
    if (t && !t->elts.empty()) {
      for (std::size_t i = 0; i < t->elts.size(); ++i) {
        if (i) out += ", ";
        slice_or_test(*t->elts[i]);
      }
      if (t->elts.size() == 1) out += ',';
    } else {
      slice_or_test(*s.index);
    }
    out += ']';
  }

  void write_call(const Expr& e) {
    auto& c = static_cast<const Call&>(e);
    expr(*c.func, kAtom);
    out += '(';
    list(c.args);
    for (std::size_t i = 0; i < c.keywords.size(); ++i) {
      if (i || !c.args.empty()) out += ", ";
      const Keyword& k = c.keywords[i];
      if (k.arg.empty()) {
        out += "**";
        expr(*k.value, kExpr);
      } else {
        out += k.arg + "=";
        expr(*k.value, kTest);
      }
    }
    out += ')';
  }

  void write_unary_op(const Expr& e) {
    auto& u = static_cast<const UnaryOp&>(e);
    out += to_string(u.op);
    if (u.op == UnaryOperator::Not) {
      out += ' ';
      expr(*u.operand, kNot);
    } else {
      expr(*u.operand, kFactor);
    }
  }

  void write_bin_op(const Expr& e) {
    auto& b = static_cast<const BinOp&>(e);
    int p = binary_prec(b.op);
    bool pow = b.op == BinaryOperator::Pow;
    expr(*b.left, pow ? p + 1 : p);
    out += ' ';
    out += to_string(b.op);
    out += ' ';
    expr(*b.right, pow ? static_cast<int>(kFactor) : p + 1);
  }

  void write_bool_op(const Expr& e) {
    auto& b = static_cast<const BoolOp&>(e);
    int p = precedence(e) + 1;
    for (std::size_t i = 0; i < b.values.size(); ++i) {
      if (i) {
        out += ' ';
        out += to_string(b.op);
        out += ' ';
      }
      expr(*b.values[i], p);
    }
  }

  void write_compare(const Expr& e) {
    auto& c = static_cast<const Compare&>(e);
    expr(*c.left, kCmp + 1);
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      out += ' ';
      out += to_string(c.ops[i]);
      out += ' ';
      expr(*c.comparators[i], kCmp + 1);
    }
  }

  void write_if_exp(const Expr& e) {
    auto& i = static_cast<const IfExp&>(e);
    expr(*i.body, kTest + 1);
    out += " if ";
    expr(*i.test, kTest + 1);
    out += " else ";
    expr(*i.orelse, kTest);
  }

  void write_tuple(const Expr& e) {
    auto& t = static_cast<const Tuple&>(e);
    out += '(';
    list(t.elts);
    if (t.elts.size() == 1) out += ',';
    out += ')';
  }

  void write_set(const Expr& e) {
    auto& s = static_cast<const Set&>(e);
    if (s.elts.empty()) {
      out += "{*()}";
      return;
    }
    out += '{';
    list(s.elts);
    out += '}';
  }

  void write_dict(const Expr& e) {
    auto& d = static_cast<const Dict&>(e);
    out += '{';
    for (std::size_t i = 0; i < d.values.size(); ++i) {
      if (i) out += ", ";
      if (d.keys[i]) {
        expr(*d.keys[i], kTest);
        out += ": ";
        expr(*d.values[i], kTest);
      } else {
        out += "**";
        expr(*d.values[i], kExpr);
      }
    }
    out += '}';
  }

  void write_lambda(const Expr& e) {
    auto& l = static_cast<const Lambda&>(e);
    out += "lambda";
    if (!l.params.empty()) out += ' ';
    params(l.params);
    out += ": ";
    expr(*l.body, kTest);
  }

  void constant(const Constant& c) {
    switch (c.value_kind) {
      case ConstantKind::Int: out += c.text.empty() ? std::to_string(c.int_value) : c.text; return;
      case ConstantKind::Float: out += c.text.empty() ? format_double(c.float_value, "") : c.text; return;
      case ConstantKind::Imaginary:
        out += c.text.empty() ? format_double(c.float_value, "j") : c.text;
        return;
      case ConstantKind::String: out += python_repr(c.str_value, false); return;
      case ConstantKind::Bytes: out += python_repr(c.str_value, true); return;
      case ConstantKind::Bool: out += c.bool_value ? "True" : "False"; return;
      case ConstantKind::None: out += "None"; return;
      case ConstantKind::Ellipsis: out += "..."; return;
    }
  }
};

}  // namespace

std::string python_repr(const std::string& value, bool bytes) {
  bool has_single = value.find('\'') != std::string::npos;
  bool has_double = value.find('"') != std::string::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out = bytes ? "b" : "";
  out += quote;
  for (std::size_t i = 0; i < value.size(); ++i) {
    char ch = value[i];
    unsigned char c = static_cast<unsigned char>(ch);
    if (!bytes && c == 0xED && i + 2 < value.size() &&
        (static_cast<unsigned char>(value[i + 1]) & 0xE0) == 0xA0) {
      // A lone surrogate (from a \ud800 escape): not valid UTF-8, print it escaped.
      unsigned cp = 0xD000u | ((static_cast<unsigned char>(value[i + 1]) & 0x3Fu) << 6) |
                    (static_cast<unsigned char>(value[i + 2]) & 0x3Fu);
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
      i += 2;
    } else if (ch == quote || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F || (bytes && c >= 0x80)) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += ch;
    }
  }
  out += quote;
  return out;
}

std::string unparse(const Expr& expr) {
  Unparser u;
  u.expr(expr, kTuple);
  return u.out;
}

std::string unparse_marked(const Expr& expr, const std::set<const Expr*>& marked) {
  Unparser u;
  u.marked = &marked;
  u.expr(expr, kTuple);
  return u.out;
}

}  // namespace weir::pycode
