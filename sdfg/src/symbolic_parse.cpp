// Expr::parse: expression text (shapes, ranges, volumes and conditions of SDFG files, DaCe's JSON
// values) read by pycode's parser and built by sym::from_tree (symbolic_tree.cpp), the one
// Python expression grammar of weir (issue 33, point 4; docs/adr/0033). What pycode does not read
// is rewritten first, column for column, so that every error keeps its place in the text:
// - DaCe's symbols `$N` (a `$` before a name): the `$` becomes a space;
// - INT64_MIN, `-9223372036854775808` after an operator, an opening bracket, a comma or at the
//   start: its literal alone does not fit in int64, so `-` and the literal become
//   `~9223372036854775807` (Python's ~x is -x - 1), the same value in as many characters;
// - line breaks and tabs become spaces (the text is one line for the columns); `#` and `\`
//   (a comment, a line continuation) are errors.
// pycode's syntax errors and from_tree's errors are SymbolicErrors at their column of `text`.
#include <cctype>
#include <string>
#include <string_view>

#include "weir/pycode/parser.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/symbolic_tree.h"

namespace weir::sym {
namespace {

constexpr std::string_view kTwo63 = "9223372036854775808";

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Whether a `-` at `pos` of `s` is unary: nothing but spaces before it, or an operator, an
/// opening bracket, a comma, or the keywords and/or/not/if/else before it.
bool unary_minus(const std::string& s, std::size_t pos) {
  std::size_t i = pos;
  while (i > 0 && s[i - 1] == ' ') --i;
  if (i == 0) return true;
  const char c = s[i - 1];
  if (std::string_view("([,=+-*/%<>~!:").find(c) != std::string_view::npos) return true;
  if (!name_char(c)) return false;
  std::size_t b = i;
  while (b > 0 && name_char(s[b - 1])) --b;
  const std::string_view word(s.data() + b, i - b);
  return word == "and" || word == "or" || word == "not" || word == "if" || word == "else";
}

/// `text` as pycode reads it (see the file comment); same length, same columns.
std::string rewritten(std::string_view text) {
  std::string s(text);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n' || c == '\r' || c == '\t') {
      s[i] = ' ';
    } else if (c == '#' || c == '\\') {
      // A comment or a line continuation would hide the rest of the text from pycode.
      throw SymbolicError(std::string("unexpected character '") + c + "'", text, i + 1);
    } else if (c == '$') {
      if (i + 1 >= s.size() || !name_start(s[i + 1]))
        throw SymbolicError("expected a symbol name after '$'", text, i + 1);
      if (i > 0 && name_char(s[i - 1]))
        throw SymbolicError("unexpected symbol '$' after a name", text, i + 1);
      s[i] = ' ';
    } else if (c == '-' && unary_minus(s, i)) {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] == ' ') ++j;
      const bool literal = s.compare(j, kTwo63.size(), kTwo63) == 0 &&
                           (j + kTwo63.size() == s.size() || !name_char(s[j + kTwo63.size()]));
      if (literal) {
        s[i] = '~';
        s[j + kTwo63.size() - 1] = '7';
      }
    }
  }
  return s;
}

// The column of `text` an error at `column` of the rewritten text names: a `$N` symbol's `$`.
std::size_t at_symbol(std::string_view text, std::size_t column) {
  return column >= 2 && column - 2 < text.size() && text[column - 2] == '$' ? column - 1 : column;
}

}  // namespace

Expr Expr::parse(std::string_view text) {
  const std::string source = rewritten(text);
  if (source.find_first_not_of(' ') == std::string::npos)
    throw SymbolicError("empty expression", text, text.size() + 1);
  pycode::ExprPtr tree;
  try {
    pycode::ParseOptions options;
    options.long_chains = true;  // sums of thousands of terms; from_tree walks chains with a loop
    tree = pycode::parse_expression(source, "<expression>", options);
  } catch (const pycode::SourceError& e) {
    const pycode::SourceLocation& at = e.location();
    throw SymbolicError(e.message(), text,
                        at_symbol(text, at.known() && at.line == 1 ? at.column : text.size() + 1));
  }
  try {
    return from_tree(*tree);
  } catch (const SymbolicError& e) {
    if (e.column() == 0) throw;
    throw SymbolicError(e.message(), text, at_symbol(text, e.column()));
  }
}

}  // namespace weir::sym
