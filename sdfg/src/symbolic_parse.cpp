// Parser for weir::sym::Expr: the Python expression subset that SDFG files use for shapes,
// ranges, volumes and conditions. Builds through the public canonicalizing constructors.
//
// Grammar (Python precedence, loosest first):
//   expr       := and_expr ('or' and_expr)*
//   and_expr   := not_expr ('and' not_expr)*
//   not_expr   := 'not' not_expr | comparison
//   comparison := sum (('<'|'<='|'>'|'>='|'=='|'!=') sum)*      a < b < c is a < b and b < c
//   sum        := product (('+'|'-') product)*
//   product    := unary (('*'|'/'|'//'|'%') unary)*
//   unary      := ('+'|'-'|'~') unary | power
//   power      := primary ['**' unary]                            right-associative
//   primary    := INT | NAME | '$' NAME | 'True' | 'False' | NAME '(' args ')'
//               | '(' expr ')' | '(' [expr (',' expr)* [',']] ')'  (a tuple)
//   args       := [arg (',' arg)* [',']],  arg := expr | NAME '=' expr
// `symbol(N)` / `symbol($N, dtype=dace.int64)` is the symbol N (keyword values are ignored and
// may be dotted names). Keyword arguments are accepted only there. Float literals are an error.
#include <climits>
#include <string>
#include <utility>

#include "weir/sdfg/symbolic.h"

namespace weir::sym {
namespace {

enum class Tok { End, Int, Name, Dollar, Op, LParen, RParen, Comma, Assign, Dot };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;         // the token's characters ('$N' includes the '$')
  std::size_t pos = 0;           // 0-based offset
  unsigned long long value = 0;  // Int: the literal, <= 2**63 (larger is an error)
};

constexpr unsigned long long kTwo63 = 1ULL << 63;
constexpr int kMaxDepth = 200;  // nesting limit: the parser and the tree walks are recursive

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expr parse() {
    next();
    if (tok_.kind == Tok::End) fail("empty expression", tok_.pos);
    Expr e = parse_or();
    if (tok_.kind != Tok::End) unexpected();
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& message, std::size_t pos) const {
    throw SymbolicError(message, text_, pos + 1);
  }

  std::string describe(const Token& t) const {
    switch (t.kind) {
      case Tok::End: return "end of expression";
      case Tok::Int: return "integer " + std::string(t.text);
      case Tok::Name: return "name '" + std::string(t.text) + "'";
      case Tok::Dollar: return "symbol '" + std::string(t.text) + "'";
      default: return "'" + std::string(t.text) + "'";
    }
  }

  [[noreturn]] void unexpected() const { fail("unexpected " + describe(tok_), tok_.pos); }

  void expect(Tok kind, const char* what) {
    if (tok_.kind != kind) fail(std::string("expected ") + what + ", found " + describe(tok_), tok_.pos);
    next();
  }

  // Runs a constructor; its errors (division by zero, overflow, arity) get the column of pos.
  template <class F>
  Expr at(std::size_t pos, F&& f) const {
    try {
      return f();
    } catch (const SymbolicError& e) {
      if (e.column() != 0) throw;
      fail(e.message(), pos);
    }
  }

  // ---- lexer ----

  void next() {
    std::size_t i = pos_;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t' || text_[i] == '\n' || text_[i] == '\r'))
      ++i;
    after_pow_ = is_op("**");
    tok_ = Token{};
    tok_.pos = i;
    if (i >= text_.size()) {
      pos_ = i;
      return;
    }
    char c = text_[i];
    std::size_t start = i;
    if (is_digit(c) || (c == '.' && i + 1 < text_.size() && is_digit(text_[i + 1]))) {
      lex_number(start);
      return;
    }
    if (is_alpha(c)) {
      while (i < text_.size() && (is_alpha(text_[i]) || is_digit(text_[i]))) ++i;
      set(Tok::Name, start, i);
      return;
    }
    if (c == '$') {
      ++i;
      if (i >= text_.size() || !is_alpha(text_[i])) fail("expected a symbol name after '$'", start);
      while (i < text_.size() && (is_alpha(text_[i]) || is_digit(text_[i]))) ++i;
      set(Tok::Dollar, start, i);
      return;
    }
    auto two = [&](char a, char b) { return c == a && i + 1 < text_.size() && text_[i + 1] == b; };
    if (two('*', '*') || two('/', '/') || two('<', '=') || two('>', '=') || two('=', '=') || two('!', '=')) {
      set(Tok::Op, start, i + 2);
      return;
    }
    switch (c) {
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
      case '<':
      case '>':
      case '~': set(Tok::Op, start, i + 1); return;
      case '(': set(Tok::LParen, start, i + 1); return;
      case ')': set(Tok::RParen, start, i + 1); return;
      case ',': set(Tok::Comma, start, i + 1); return;
      case '=': set(Tok::Assign, start, i + 1); return;
      case '.': set(Tok::Dot, start, i + 1); return;
      default: break;
    }
    fail(std::string("unexpected character '") + c + "'", start);
  }

  void set(Tok kind, std::size_t start, std::size_t end) {
    tok_.kind = kind;
    tok_.text = text_.substr(start, end - start);
    pos_ = end;
  }

  void lex_number(std::size_t start) {
    std::size_t i = start;
    unsigned long long v = 0;
    bool too_big = false;
    while (i < text_.size() && (is_digit(text_[i]) || (text_[i] == '_' && i > start))) {
      if (text_[i] != '_') {
        unsigned d = static_cast<unsigned>(text_[i] - '0');
        if (v > (kTwo63 - d) / 10)
          too_big = true;
        else
          v = v * 10 + d;
      }
      ++i;
    }
    // An exponent DaCe's frontend writes as a float (`i**2.0` for `i**2` in an index): integral,
    // it is the integer (sympy's Pow of an integer by 2.0 is the same integer).
    if (i < text_.size() && text_[i] == '.' && after_pow_) {
      std::size_t j = i + 1;
      while (j < text_.size() && text_[j] == '0') ++j;
      if (j == text_.size() || !(is_digit(text_[j]) || is_alpha(text_[j]) || text_[j] == '.')) {
        if (too_big)
          fail("integer literal " + std::string(text_.substr(start, i - start)) + " does not fit in 64 bits",
               start);
        set(Tok::Int, start, j);
        tok_.value = v;
        return;
      }
    }
    // A float literal (1.5, .5, 1e3, 2.): not part of the integer language of shapes.
    bool is_float = i < text_.size() && (text_[i] == '.' || text_[i] == 'e' || text_[i] == 'E');
    if (is_float) {
      std::size_t j = i + 1;
      while (j < text_.size() &&
             (is_digit(text_[j]) || is_alpha(text_[j]) || text_[j] == '.' ||
              ((text_[j] == '+' || text_[j] == '-') && (text_[j - 1] == 'e' || text_[j - 1] == 'E'))))
        ++j;
      fail("floating-point literal '" + std::string(text_.substr(start, j - start)) +
               "' is not supported (symbolic expressions are integer)",
           start);
    }
    if (i < text_.size() && is_alpha(text_[i])) {
      std::size_t j = i;
      while (j < text_.size() && (is_alpha(text_[j]) || is_digit(text_[j]))) ++j;
      fail("invalid integer literal '" + std::string(text_.substr(start, j - start)) + "'", start);
    }
    if (too_big)
      fail("integer literal " + std::string(text_.substr(start, i - start)) + " does not fit in 64 bits",
           start);
    set(Tok::Int, start, i);
    tok_.value = v;
  }

  bool is_op(const char* op) const { return tok_.kind == Tok::Op && tok_.text == op; }
  bool is_word(const char* w) const { return tok_.kind == Tok::Name && tok_.text == w; }

  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth) p_.fail("expression nested too deeply", p_.tok_.pos);
    }
    ~Depth() { --p_.depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;
    Parser& p_;
  };

  // ---- grammar ----

  Expr parse_or() {
    Expr e = parse_and();
    while (is_word("or")) {
      std::size_t pos = tok_.pos;
      next();
      Expr r = parse_and();
      e = at(pos, [&] { return Expr::logical_or(e, r); });
    }
    return e;
  }

  Expr parse_and() {
    Expr e = parse_not();
    while (is_word("and")) {
      std::size_t pos = tok_.pos;
      next();
      Expr r = parse_not();
      e = at(pos, [&] { return Expr::logical_and(e, r); });
    }
    return e;
  }

  Expr parse_not() {
    if (is_word("not")) {
      Depth guard(*this);
      std::size_t pos = tok_.pos;
      next();
      Expr x = parse_not();
      return at(pos, [&] { return Expr::logical_not(x); });
    }
    return parse_comparison();
  }

  Expr parse_comparison() {
    Expr left = parse_sum();
    std::optional<Expr> result;
    while (tok_.kind == Tok::Op &&
           (is_op("<") || is_op("<=") || is_op(">") || is_op(">=") || is_op("==") || is_op("!="))) {
      std::string op(tok_.text);
      std::size_t pos = tok_.pos;
      next();
      Expr right = parse_sum();
      Expr c = at(pos, [&] { return Expr::compare(op, left, right); });
      result = result ? at(pos, [&] { return Expr::logical_and(*result, c); }) : c;
      left = right;
    }
    return result ? *result : left;
  }

  Expr parse_sum() {
    std::size_t pos = tok_.pos;
    Expr first = parse_product();
    if (!is_op("+") && !is_op("-")) return first;
    // All terms are added at once: repeated + on a long sum would be quadratic.
    std::vector<Expr> terms{first};
    while (is_op("+") || is_op("-")) {
      bool minus = is_op("-");
      std::size_t op_pos = tok_.pos;
      next();
      Expr t = parse_product();
      terms.push_back(minus ? at(op_pos, [&] { return -t; }) : t);
    }
    return at(pos, [&] { return Expr::sum(terms); });
  }

  Expr parse_product() {
    Expr e = parse_unary();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      std::string op(tok_.text);
      std::size_t pos = tok_.pos;
      next();
      Expr r = parse_unary();
      e = at(pos, [&] {
        if (op == "*") return times(e, r);
        if (op == "/") return Expr::div(e, r);
        if (op == "//") return Expr::floordiv(e, r);
        return Expr::mod(e, r);
      });
    }
    return e;
  }

  // a * b, where a true quotient by an integer takes the other factor into its numerator: DaCe
  // prints sympy's N/3 as `1/3*$N`, whose ceiling is then ceildiv(N, 3) (exact on rationals).
  static Expr times(const Expr& a, const Expr& b) {
    if (a.kind() == Kind::Div && a.args()[1].is_integer()) return Expr::div(a.args()[0] * b, a.args()[1]);
    if (b.kind() == Kind::Div && b.args()[1].is_integer()) return Expr::div(a * b.args()[0], b.args()[1]);
    return a * b;
  }

  Expr parse_unary() {
    if (is_op("+") || is_op("-") || is_op("~")) {
      Depth guard(*this);
      char op = tok_.text[0];
      std::size_t pos = tok_.pos;
      next();
      // -9223372036854775808 is INT64_MIN, although its literal alone does not fit.
      if (op == '-' && tok_.kind == Tok::Int && tok_.value == kTwo63) {
        std::size_t lit = tok_.pos;
        next();
        if (is_op("**")) fail("integer literal does not fit in 64 bits", lit);
        return Expr(LLONG_MIN);
      }
      Expr x = parse_unary();
      return at(pos, [&] {
        if (op == '+') return Expr() + x;  // +True is 1
        if (op == '-') return -x;
        return -x - Expr(1);  // Python ~x == -x - 1
      });
    }
    return parse_power();
  }

  Expr parse_power() {
    Expr base = parse_primary();
    if (!is_op("**")) return base;
    Depth guard(*this);
    std::size_t pos = tok_.pos;
    next();
    Expr exp = parse_unary();
    return at(pos, [&] { return Expr::pow(base, exp); });
  }

  Expr parse_primary() {
    Depth guard(*this);
    Token t = tok_;
    switch (t.kind) {
      case Tok::Int:
        if (t.value == kTwo63)
          fail("integer literal " + std::string(t.text) + " does not fit in 64 bits", t.pos);
        next();
        return Expr(static_cast<long long>(t.value));
      case Tok::Dollar: next(); return at(t.pos, [&] { return Expr::symbol(std::string(t.text.substr(1))); });
      case Tok::LParen: return parse_parenthesized();
      case Tok::Name: break;
      default: unexpected();
    }
    if (t.text == "True" || t.text == "False") {
      next();
      return Expr::boolean(t.text == "True");
    }
    if (t.text == "and" || t.text == "or" || t.text == "not") unexpected();
    next();
    if (tok_.kind == Tok::Dot) {
      if (in_keyword_value_ == 0) unexpected();
      // A dotted name such as dace.int64: only as an (ignored) keyword value.
      while (tok_.kind == Tok::Dot) {
        next();
        if (tok_.kind != Tok::Name) fail("expected a name after '.', found " + describe(tok_), tok_.pos);
        next();
      }
      return Expr();
    }
    if (tok_.kind == Tok::LParen) return parse_call(t);
    return at(t.pos, [&] { return Expr::symbol(std::string(t.text)); });
  }

  // '(' expr ')' or a tuple.
  Expr parse_parenthesized() {
    std::size_t open = tok_.pos;
    next();
    std::vector<Expr> items;
    bool tuple = false;
    while (tok_.kind != Tok::RParen) {
      if (tok_.kind == Tok::End)
        fail("expected ')' to close '(' at column " + std::to_string(open + 1) + ", found end of expression",
             tok_.pos);
      items.push_back(parse_or());
      if (tok_.kind == Tok::End)
        fail("expected ')' to close '(' at column " + std::to_string(open + 1) + ", found end of expression",
             tok_.pos);
      if (tok_.kind == Tok::Comma) {
        tuple = true;
        next();
      } else if (tok_.kind != Tok::RParen) {
        fail("expected ')' or ',', found " + describe(tok_), tok_.pos);
      }
    }
    next();
    if (!tuple && items.size() == 1) return items[0];
    return at(open, [&] { return Expr::call("", std::move(items)); });
  }

  Expr parse_call(const Token& fn) {
    next();  // '('
    std::vector<Expr> args;
    bool keywords = false;
    while (tok_.kind != Tok::RParen) {
      if (tok_.kind == Tok::Name && peek_is_assign()) {
        Token kw = tok_;
        if (fn.text != "symbol")
          fail("keyword argument '" + std::string(kw.text) + "' is only supported in symbol(...)", kw.pos);
        next();
        next();  // '='
        ++in_keyword_value_;
        parse_or();  // ignored: dtype and assumptions do not change the symbol
        --in_keyword_value_;
        keywords = true;
      } else {
        if (keywords) fail("positional argument after keyword argument", tok_.pos);
        args.push_back(parse_or());
      }
      if (tok_.kind == Tok::Comma)
        next();
      else if (tok_.kind != Tok::RParen)
        fail("expected ')' or ',' in call of " + std::string(fn.text) + ", found " + describe(tok_),
             tok_.pos);
    }
    next();
    if (fn.text == "symbol") {
      if (args.size() != 1 || !args[0].is_symbol())
        fail("symbol(...) expects one symbol name, e.g. symbol($N, dtype=dace.int64)", fn.pos);
      return args[0];
    }
    return at(fn.pos, [&] { return Expr::call(std::string(fn.text), std::move(args)); });
  }

  // Whether the token after the current one is '=' (a keyword argument).
  bool peek_is_assign() {
    std::size_t save_pos = pos_;
    Token save = tok_;
    next();
    bool r = tok_.kind == Tok::Assign;
    pos_ = save_pos;
    tok_ = save;
    return r;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Token tok_;
  bool after_pow_ = false;  // the token before the one being lexed is `**`
  int depth_ = 0;
  int in_keyword_value_ = 0;
};

}  // namespace

Expr Expr::parse(std::string_view text) { return Parser(text).parse(); }

}  // namespace weir::sym
