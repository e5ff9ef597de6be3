// Helpers shared by the pycode tests (lexer, parser, unparse, source files).
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "weir/pycode/ast_dump.h"
#include "weir/pycode/lexer.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/source.h"
#include "weir/pycode/unparse.h"

namespace weir::pycode::test {

/// A file of tests/pycode/data.
inline std::string data_path(const std::string& name) {
  return std::string(WEIR_SOURCE_DIR) + "/tests/pycode/data/" + name;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A module parsed from a string under the display name `name`.
inline Module parse_text(const std::string& text, const std::string& name = "test.py") {
  return parse_module(SourceFile(name, text));
}

/// The expression's dump without locations (compact form for assertions).
inline std::string dump_expr(const std::string& text) {
  return dump(*parse_expression(text), DumpOptions{false});
}

/// The tokens of `text` in one line: names, numbers, operators and strings as written;
/// NL, INDENT, DEDENT, EOF for the structural ones.
inline std::string token_summary(const std::string& text) {
  std::string out;
  for (const Token& t : tokenize(SourceFile("lex.py", text))) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokenKind::Newline: out += "NL"; break;
      case TokenKind::Indent: out += "INDENT"; break;
      case TokenKind::Dedent: out += "DEDENT"; break;
      case TokenKind::EndOfFile: out += "EOF"; break;
      default: out += std::string(t.text);
    }
  }
  return out;
}

/// Runs `fn`, which must throw a SourceError at line:column whose message contains `message`.
/// Returns the error's what().
inline std::string expect_error(const std::function<void()>& fn, std::uint32_t line, std::uint32_t column,
                                const std::string& message) {
  try {
    fn();
  } catch (const SourceError& e) {
    INFO(e.what());
    CHECK(e.location().line == line);
    CHECK(e.location().column == column);
    CHECK_THAT(e.message(), Catch::Matchers::Contains(message));
    return e.what();
  }
  FAIL("expected a SourceError containing: " << message);
  return {};
}

}  // namespace weir::pycode::test
