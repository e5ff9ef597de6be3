// The Python 3.12 tokenizer: logical lines, indentation, brackets, literals, operators.
#include "weir/pycode/lexer.h"

#include <array>
#include <cstdio>

namespace weir::pycode {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// r, u, b, f, br, rb, fr, rf in any case.
bool is_string_prefix(std::string_view p) {
  if (p.size() == 1) {
    char c = lower(p[0]);
    return c == 'r' || c == 'u' || c == 'b' || c == 'f';
  }
  if (p.size() == 2) {
    char a = lower(p[0]), b = lower(p[1]);
    if (a > b) std::swap(a, b);
    return (a == 'b' && b == 'r') || (a == 'f' && b == 'r');
  }
  return false;
}

bool has_prefix_char(std::string_view p, char c) {
  for (char x : p)
    if (lower(x) == c) return true;
  return false;
}

constexpr std::array<std::string_view, 4> kThreeCharOps = {"**=", "//=", ">>=", "<<="};
constexpr std::array<std::string_view, 19> kTwoCharOps = {
    "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
constexpr std::string_view kOneCharOps = "+-*/%@&|^~<>()[]{},:;.=";

// Keywords that may directly follow a number literal ("1if x else 2").
bool may_follow_number(std::string_view word) {
  return word == "and" || word == "else" || word == "for" || word == "if" || word == "in" || word == "is" ||
         word == "not" || word == "or";
}

class Lexer {
 public:
  explicit Lexer(const SourceFile& file) : file_(file), src_(file.text()) {}

  std::vector<Token> run();

 private:
  void check_utf8() const;
  struct OpenBracket {
    char c;
    SourceLocation loc;
  };

  const SourceFile& file_;
  std::string_view src_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t col_ = 1;
  std::vector<Token> out_;
  std::vector<int> indents_{0};
  std::vector<int> alt_indents_{0};  // indentation with tabs counted as one column
  std::vector<OpenBracket> brackets_;
  bool line_has_tokens_ = false;

  bool eof() const { return pos_ >= src_.size(); }
  char cur() const { return pos_ < src_.size() ? src_[pos_] : '\0'; }
  char at(std::size_t k) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  SourceLocation here() const { return SourceLocation{file_, line_, col_}; }

  void advance() {
    if (eof()) return;
    char c = src_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if (eof() || (static_cast<unsigned char>(src_[pos_]) & 0xC0) != 0x80) {
      ++col_;
    }
  }
  void advance(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) advance();
  }

  [[noreturn]] void fail(const SourceLocation& loc, const std::string& message) const {
    throw SourceError(loc, message);
  }

  void emit(TokenKind kind, std::size_t begin, const SourceLocation& loc) {
    Token t;
    t.kind = kind;
    t.text = src_.substr(begin, pos_ - begin);
    t.loc = loc;
    t.begin = begin;
    t.end = pos_;
    out_.push_back(std::move(t));
    if (kind != TokenKind::Newline && kind != TokenKind::Indent && kind != TokenKind::Dedent)
      line_has_tokens_ = true;
  }

  void handle_indentation();
  void scan_number();
  void scan_name_or_string();
  void scan_string(std::size_t begin, const SourceLocation& loc, std::string_view prefix, bool emit_token);
  void scan_plain_string_body(char q, bool triple, const SourceLocation& loc);
  void scan_fstring_body(char q, bool triple, const SourceLocation& loc);
  void scan_replacement_field(char q, bool triple, const SourceLocation& loc);
  void scan_format_spec(char q, bool triple, const SourceLocation& loc);
  bool at_closing_quote(char q, bool triple) const {
    return cur() == q && (!triple || (at(1) == q && at(2) == q));
  }
  void scan_operator();
  [[noreturn]] void fail_unterminated(const SourceLocation& loc, bool triple, bool fstring) const {
    std::string what = triple ? "triple-quoted " : "";
    what += fstring ? "f-string literal" : "string literal";
    // At the end of a file that ends with a newline, Python reports the last line.
    std::uint32_t line = eof() && !src_.empty() && src_.back() == '\n' ? line_ - 1 : line_;
    fail(loc, "unterminated " + what + " (detected at line " + std::to_string(line) + ")");
  }
};

std::vector<Token> Lexer::run() {
  check_utf8();
  bool at_line_start = true;
  while (true) {
    if (at_line_start) {
      at_line_start = false;
      handle_indentation();
      if (eof()) break;
      if (cur() == '\n' || cur() == '#') {  // blank or comment-only line
        while (!eof() && cur() != '\n') advance();
        advance();
        at_line_start = true;
        continue;
      }
    }
    if (eof()) break;
    char c = cur();
    if (c == ' ' || c == '\t' || c == '\f') {
      advance();
    } else if (c == '#') {
      while (!eof() && cur() != '\n') advance();
    } else if (c == '\n') {
      if (brackets_.empty()) {
        if (line_has_tokens_) {
          std::size_t begin = pos_;
          SourceLocation loc = here();
          advance();
          emit(TokenKind::Newline, begin, loc);
          line_has_tokens_ = false;
        } else {
          advance();
        }
        at_line_start = true;
      } else {
        advance();
      }
    } else if (c == '\\') {
      SourceLocation loc = here();
      advance();
      if (eof()) fail(loc, "unexpected end of file after line continuation character");
      if (cur() != '\n') fail(loc, "unexpected character after line continuation character");
      advance();
    } else if (is_digit(c) || (c == '.' && is_digit(at(1)))) {
      scan_number();
    } else if (is_ident_start(c)) {
      scan_name_or_string();
    } else if (c == '"' || c == '\'') {
      scan_string(pos_, here(), {}, true);
    } else {
      scan_operator();
    }
  }
  if (!brackets_.empty()) {
    const OpenBracket& open = brackets_.back();
    fail(open.loc, std::string("'") + open.c + "' was never closed");
  }
  if (line_has_tokens_) emit(TokenKind::Newline, pos_, here());
  while (indents_.size() > 1) {
    indents_.pop_back();
    emit(TokenKind::Dedent, pos_, here());
  }
  emit(TokenKind::EndOfFile, pos_, here());
  return std::move(out_);
}

void Lexer::handle_indentation() {
  int col = 0, alt = 0;
  while (!eof()) {
    char c = cur();
    if (c == ' ') {
      ++col;
      ++alt;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++alt;
    } else if (c == '\f') {
      col = alt = 0;
    } else {
      break;
    }
    advance();
  }
  // Blank lines, comment-only lines and the end of the file do not change indentation.
  if (eof() || cur() == '\n' || cur() == '#') return;
  SourceLocation loc = here();
  const char* inconsistent = "inconsistent use of tabs and spaces in indentation";
  if (col == indents_.back()) {
    if (alt != alt_indents_.back()) fail(loc, inconsistent);
  } else if (col > indents_.back()) {
    if (alt <= alt_indents_.back()) fail(loc, inconsistent);
    // CPython's tokenizer limit (MAXINDENT): 99 nested blocks, the 100th is an IndentationError.
    // It also bounds how deep the SDFGs of nested control flow nest (kMaxJsonDepth).
    if (indents_.size() >= kMaxIndentLevels) fail(loc, "too many levels of indentation");
    indents_.push_back(col);
    alt_indents_.push_back(alt);
    emit(TokenKind::Indent, pos_, loc);
  } else {
    while (col < indents_.back()) {
      indents_.pop_back();
      alt_indents_.pop_back();
      emit(TokenKind::Dedent, pos_, loc);
    }
    if (col != indents_.back()) fail(loc, "unindent does not match any outer indentation level");
    if (alt != alt_indents_.back()) fail(loc, inconsistent);
  }
}

void Lexer::scan_number() {
  std::size_t begin = pos_;
  SourceLocation loc = here();
  char c1 = lower(at(1));
  if (cur() == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
    const char* kind = c1 == 'x' ? "hexadecimal" : c1 == 'o' ? "octal" : "binary";
    auto is_base_digit = [c1](char c) {
      if (c1 == 'x') return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f');
      if (c1 == 'o') return c >= '0' && c <= '7';
      return c == '0' || c == '1';
    };
    advance(2);
    int digits = 0;
    while (true) {
      if (cur() == '_' && is_base_digit(at(1))) {
        advance(2);
        ++digits;
      } else if (is_base_digit(cur())) {
        advance();
        ++digits;
      } else {
        break;
      }
    }
    if (digits == 0) fail(loc, std::string("invalid ") + kind + " literal");
    if (is_digit(cur())) fail(here(), std::string("invalid digit '") + cur() + "' in " + kind + " literal");
    if (is_ident_char(cur())) {
      std::size_t save = pos_;
      std::size_t end = pos_;
      while (end < src_.size() && is_ident_char(src_[end])) ++end;
      if (!may_follow_number(src_.substr(save, end - save)))
        fail(loc, std::string("invalid ") + kind + " literal");
    }
    emit(TokenKind::Number, begin, loc);
    return;
  }
  // Decimal digits with single underscores between them; returns false on a bad underscore.
  auto digits = [this]() {
    while (true) {
      if (is_digit(cur())) {
        advance();
      } else if (cur() == '_') {
        if (!is_digit(at(1))) return false;
        advance();
      } else {
        return true;
      }
    }
  };
  bool is_float = false;
  bool imaginary = false;
  if (!digits()) fail(loc, "invalid decimal literal");
  std::size_t int_end = pos_;
  if (cur() == '.') {
    is_float = true;
    advance();
    if (is_digit(cur()) && !digits()) fail(loc, "invalid decimal literal");
  }
  if (lower(cur()) == 'e' && (is_digit(at(1)) || ((at(1) == '+' || at(1) == '-') && is_digit(at(2))))) {
    is_float = true;
    advance(2);
    if (!digits()) fail(loc, "invalid decimal literal");
  }
  if (lower(cur()) == 'j') {
    imaginary = true;
    advance();
  }
  if (!is_float && !imaginary) {
    std::string_view int_part = src_.substr(begin, int_end - begin);
    if (int_part.size() > 1 && int_part[0] == '0' &&
        int_part.find_first_not_of("0_") != std::string_view::npos)
      fail(loc,
           "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
           "octal integers");
  }
  if (is_ident_char(cur())) {
    std::size_t end = pos_;
    while (end < src_.size() && is_ident_char(src_[end])) ++end;
    if (!may_follow_number(src_.substr(pos_, end - pos_)))
      fail(loc, imaginary ? "invalid imaginary literal" : "invalid decimal literal");
  }
  emit(TokenKind::Number, begin, loc);
}

void Lexer::scan_name_or_string() {
  std::size_t begin = pos_;
  SourceLocation loc = here();
  while (!eof() && is_ident_char(cur())) advance();
  std::string_view word = src_.substr(begin, pos_ - begin);
  if ((cur() == '"' || cur() == '\'') && is_string_prefix(word)) {
    scan_string(begin, loc, word, true);
    return;
  }
  // Python allows non-ASCII identifiers (PEP 3131); weir's names become SDFG container, symbol
  // and C++ names, which DaCe and the code generators need as ASCII identifiers.
  for (char ch : word)
    if (static_cast<unsigned char>(ch) >= 0x80)
      fail(loc, "identifier '" + std::string(word) +
                    "' is not ASCII: weir needs ASCII names (they become SDFG and C++ names)");
  emit(TokenKind::Name, begin, loc);
}

// Python source is UTF-8 (PEP 3120): a byte sequence that is not is an error at its position,
// before any token (an invalid byte would otherwise end up in a name or a string).
void Lexer::check_utf8() const {
  std::uint32_t line = 1, col = 1;
  for (std::size_t i = 0; i < src_.size();) {
    auto b = static_cast<unsigned char>(src_[i]);
    std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= src_.size() && !(len == 2 && b < 0xC2) && !(len == 4 && b > 0xF4);
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(src_[i + k]) & 0xC0) == 0x80;
    if (ok && len == 3) {  // no overlong forms, no UTF-16 surrogates
      auto b1 = static_cast<unsigned char>(src_[i + 1]);
      ok = !(b == 0xE0 && b1 < 0xA0) && !(b == 0xED && b1 >= 0xA0);
    }
    if (ok && len == 4) {  // no overlong forms, nothing past U+10FFFF
      auto b1 = static_cast<unsigned char>(src_[i + 1]);
      ok = !(b == 0xF0 && b1 < 0x90) && !(b == 0xF4 && b1 >= 0x90);
    }
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(b));
      fail(SourceLocation{file_, line, col},
           std::string("invalid UTF-8: byte ") + hex +
               " does not begin a valid character (Python source is UTF-8)");
    }
    if (b == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += len;
  }
}

// pos_ is at the opening quote; `prefix` (already consumed) started at `begin`.
void Lexer::scan_string(std::size_t begin, const SourceLocation& loc, std::string_view prefix,
                        bool emit_token) {
  char q = cur();
  bool triple = at(1) == q && at(2) == q;
  advance(triple ? 3 : 1);
  bool fstring = has_prefix_char(prefix, 'f');
  if (fstring)
    scan_fstring_body(q, triple, loc);
  else
    scan_plain_string_body(q, triple, loc);
  if (emit_token) emit(fstring ? TokenKind::FString : TokenKind::String, begin, loc);
}

void Lexer::scan_plain_string_body(char q, bool triple, const SourceLocation& loc) {
  while (true) {
    if (eof()) fail_unterminated(loc, triple, false);
    char c = cur();
    if (c == '\\') {
      advance();
      if (eof()) fail_unterminated(loc, triple, false);
      advance();
    } else if (c == '\n' && !triple) {
      fail_unterminated(loc, triple, false);
    } else if (at_closing_quote(q, triple)) {
      advance(triple ? 3 : 1);
      return;
    } else {
      advance();
    }
  }
}

void Lexer::scan_fstring_body(char q, bool triple, const SourceLocation& loc) {
  while (true) {
    if (eof()) fail_unterminated(loc, triple, true);
    char c = cur();
    if (c == '\\') {
      advance();
      if (eof()) fail_unterminated(loc, triple, true);
      if (cur() != '{' && cur() != '}') advance();
    } else if (c == '\n' && !triple) {
      fail_unterminated(loc, triple, true);
    } else if (at_closing_quote(q, triple)) {
      advance(triple ? 3 : 1);
      return;
    } else if (c == '{') {
      if (at(1) == '{') {
        advance(2);
      } else {
        advance();
        scan_replacement_field(q, triple, loc);
      }
    } else {
      advance();  // literal text, including '}}'
    }
  }
}

// After the '{' of a replacement field; consumes through its closing '}'. Expressions may
// contain nested strings with any quotes (Python 3.12), brackets, comments and newlines.
void Lexer::scan_replacement_field(char q, bool triple, const SourceLocation& loc) {
  int depth = 0;
  while (true) {
    if (eof()) fail_unterminated(loc, triple, true);
    char c = cur();
    if (c == '#') {
      while (!eof() && cur() != '\n') advance();
    } else if (c == '"' || c == '\'') {
      scan_string(pos_, here(), {}, false);
    } else if (is_ident_start(c)) {
      std::size_t begin = pos_;
      while (!eof() && is_ident_char(cur())) advance();
      std::string_view word = src_.substr(begin, pos_ - begin);
      if ((cur() == '"' || cur() == '\'') && is_string_prefix(word)) scan_string(begin, here(), word, false);
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
      advance();
    } else if (c == ')' || c == ']') {
      --depth;
      advance();
    } else if (c == '}') {
      advance();
      if (depth <= 0) return;
      --depth;
    } else if (c == ':' && depth <= 0) {
      advance();
      scan_format_spec(q, triple, loc);
      return;
    } else {
      advance();
    }
  }
}

// After the ':' of a replacement field; consumes through the field's closing '}'.
void Lexer::scan_format_spec(char q, bool triple, const SourceLocation& loc) {
  while (true) {
    if (eof()) fail_unterminated(loc, triple, true);
    char c = cur();
    if (c == '{') {
      advance();
      scan_replacement_field(q, triple, loc);
    } else if (c == '}') {
      advance();
      return;
    } else if ((c == '\n' && !triple) || at_closing_quote(q, triple)) {
      fail(here(), "f-string: expecting '}'");
    } else if (c == '\\') {
      advance(2);
    } else {
      advance();
    }
  }
}

void Lexer::scan_operator() {
  std::size_t begin = pos_;
  SourceLocation loc = here();
  std::string_view rest = src_.substr(pos_);
  if (rest.substr(0, 3) == "...") {
    advance(3);
    emit(TokenKind::Op, begin, loc);
    return;
  }
  for (std::string_view op : kThreeCharOps) {
    if (rest.substr(0, 3) == op) {
      advance(3);
      emit(TokenKind::Op, begin, loc);
      return;
    }
  }
  for (std::string_view op : kTwoCharOps) {
    if (rest.substr(0, 2) == op) {
      advance(2);
      emit(TokenKind::Op, begin, loc);
      return;
    }
  }
  char c = cur();
  if (kOneCharOps.find(c) == std::string_view::npos) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(c)));
    std::string shown = static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F
                            ? std::string("'") + c + "' "
                            : std::string();
    fail(loc, "invalid character " + shown + "(" + buf + ")");
  }
  if (c == '(' || c == '[' || c == '{') {
    brackets_.push_back({c, loc});
  } else if (c == ')' || c == ']' || c == '}') {
    if (brackets_.empty()) fail(loc, std::string("unmatched '") + c + "'");
    char open = brackets_.back().c;
    char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
    if (c != expected) {
      std::string msg =
          std::string("closing parenthesis '") + c + "' does not match opening parenthesis '" + open + "'";
      if (brackets_.back().loc.line != loc.line)
        msg += " on line " + std::to_string(brackets_.back().loc.line);
      fail(loc, msg);
    }
    brackets_.pop_back();
  }
  advance();
  emit(TokenKind::Op, begin, loc);
}

}  // namespace

std::vector<Token> tokenize(const SourceFile& file) { return Lexer(file).run(); }

}  // namespace weir::pycode
