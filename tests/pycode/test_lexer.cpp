// The Python tokenizer: logical lines, indentation, continuation, literals, operators.
#include "pycode_test_util.h"

using namespace weir::pycode;
using weir::pycode::test::expect_error;
using weir::pycode::test::token_summary;

TEST_CASE("lexer: indentation produces INDENT/DEDENT", "[parser][lexer]") {
  CHECK(token_summary("if a:\n    b = 1\n    if c:\n        d\ne\n") ==
        "if a : NL INDENT b = 1 NL if c : NL INDENT d NL DEDENT DEDENT e NL EOF");
  // Blank lines and comment-only lines (at any indentation) are ignored.
  CHECK(token_summary("def f():\n\n  # comment\n        # deeper comment\n  return 1  # tail\n") ==
        "def f ( ) : NL INDENT return 1 NL DEDENT EOF");
  // Tabs advance to the next multiple of 8; consistent use is fine.
  CHECK(token_summary("if a:\n\tb\n\tc\n") == "if a : NL INDENT b NL c NL DEDENT EOF");
  // No final newline: NEWLINE and DEDENTs are still produced.
  CHECK(token_summary("if a:\n  b") == "if a : NL INDENT b NL DEDENT EOF");
  CHECK(token_summary("") == "EOF");
  CHECK(token_summary("\n\n  \n# only a comment") == "EOF");
}

TEST_CASE("lexer: implicit and explicit line joining", "[parser][lexer]") {
  CHECK(token_summary("x = (1 +\n      2)\ny = [\n  3,\n]\n") == "x = ( 1 + 2 ) NL y = [ 3 , ] NL EOF");
  CHECK(token_summary("x = 1 + \\\n    2\ny\n") == "x = 1 + 2 NL y NL EOF");
  // Indentation inside brackets does not matter.
  CHECK(token_summary("def f(a,\n        b):\n    pass\n") ==
        "def f ( a , b ) : NL INDENT pass NL DEDENT EOF");
}

TEST_CASE("lexer: token locations are 1-based lines and columns", "[parser][lexer]") {
  auto toks = tokenize(SourceFile("l.py", "a = 1\nif b:\n    c = 'x'\n"));
  REQUIRE(toks.size() >= 12);
  CHECK(toks[0].loc.line == 1);
  CHECK(toks[0].loc.column == 1);
  CHECK(toks[2].text == "1");
  CHECK(toks[2].loc.column == 5);
  CHECK(toks[3].kind == TokenKind::Newline);
  CHECK(toks[3].loc.column == 6);
  CHECK(toks[8].kind == TokenKind::Indent);
  CHECK(toks[9].text == "c");
  CHECK(toks[9].loc.line == 3);
  CHECK(toks[9].loc.column == 5);
  CHECK(toks[11].text == "'x'");
  CHECK(toks[11].kind == TokenKind::String);
  CHECK(toks[11].loc.column == 9);
}

TEST_CASE("lexer: string literal forms", "[parser][lexer]") {
  auto one = [](const std::string& text) {
    auto toks = tokenize(SourceFile("s.py", text));
    REQUIRE(toks.size() == 3);  // literal, NEWLINE, EOF
    CHECK(toks[0].text == text);
    return toks[0].kind;
  };
  CHECK(one("'a'") == TokenKind::String);
  CHECK(one("\"a 'b'\"") == TokenKind::String);
  CHECK(one("'it\\'s'") == TokenKind::String);
  CHECK(one("'''a\n\"b\"\n'c' '''") == TokenKind::String);
  CHECK(one("\"\"\"doc\nstring\"\"\"") == TokenKind::String);
  CHECK(one("r'\\d+\\''") == TokenKind::String);
  CHECK(one("b'\\x00'") == TokenKind::String);
  CHECK(one("Rb'x'") == TokenKind::String);
  CHECK(one("bR\"x\"") == TokenKind::String);
  CHECK(one("U'x'") == TokenKind::String);
  CHECK(one("'a\\\nb'") == TokenKind::String);  // backslash-newline inside a string
  CHECK(one("''") == TokenKind::String);
  CHECK(one("''''''") == TokenKind::String);
  // f-strings are opaque tokens, including 3.12 nesting of the same quotes.
  CHECK(one("f'{x}'") == TokenKind::FString);
  CHECK(one("F\"{x!r:>{width}} {{literal}}\"") == TokenKind::FString);
  CHECK(one("f\"{d[\"key\"]} {f'{y}'} {'a' if c else \"b\"}\"") == TokenKind::FString);
  CHECK(one("rf'\\d{x}'") == TokenKind::FString);
  CHECK(one("fR'{x}'") == TokenKind::FString);
  CHECK(one("f'''{\n  x  # comment\n}'''") == TokenKind::FString);
  CHECK(one("f'{ {\"a\": 1}[\"a\"] }'") == TokenKind::FString);
  CHECK(one("f'{x:{\"<\"}8}'") == TokenKind::FString);
  // A name that is not a prefix followed by a string is two tokens.
  CHECK(token_summary("ab'x'") == "ab 'x' NL EOF");
  CHECK(token_summary("print(f\"{a}\", 'b')") == "print ( f\"{a}\" , 'b' ) NL EOF");
}

TEST_CASE("lexer: number literals", "[parser][lexer]") {
  CHECK(token_summary("0 7 1_000 0x1F 0X_ff 0o17 0b1010 0B_1 00") ==
        "0 7 1_000 0x1F 0X_ff 0o17 0b1010 0B_1 00 NL EOF");
  CHECK(token_summary("1.5 1. .5 1e10 1E-3 1.5e+3 1_0.0_1 3j 1.5J 1e3j") ==
        "1.5 1. .5 1e10 1E-3 1.5e+3 1_0.0_1 3j 1.5J 1e3j NL EOF");
  CHECK(token_summary("x.y 1 .real") == "x . y 1 . real NL EOF");
  // Python accepts a keyword right after a number.
  CHECK(token_summary("1if x else 2") == "1 if x else 2 NL EOF");
}

TEST_CASE("lexer: operators and delimiters", "[parser][lexer]") {
  CHECK(token_summary("a **= b //= c >>= d <<= e ... f") == "a **= b //= c >>= d <<= e ... f NL EOF");
  CHECK(token_summary("a := b -> c != d == e <= f >= g @ h @= i ~j") ==
        "a := b -> c != d == e <= f >= g @ h @= i ~ j NL EOF");
  CHECK(token_summary("x[1:2, ::3]; y += 1") == "x [ 1 : 2 , : : 3 ] ; y += 1 NL EOF");
  CHECK(token_summary("a**-b//c%d|e&f^g<<h>>i") == "a ** - b // c % d | e & f ^ g << h >> i NL EOF");
}

TEST_CASE("lexer: errors are located", "[parser][lexer]") {
  auto lex = [](const std::string& text) { return [text] { tokenize(SourceFile("e.py", text)); }; };
  expect_error(lex("x = 'abc\ny = 1\n"), 1, 5, "unterminated string literal (detected at line 1)");
  expect_error(lex("x = 1\ns = \"\"\"abc\n\ndef\n"), 2, 5, "unterminated triple-quoted string literal");
  expect_error(lex("s = f'{x'\n"), 1, 9, "unterminated string literal");
  expect_error(lex("s = f'{x}\n"), 1, 5, "unterminated f-string literal");
  expect_error(lex("if a:\n        b\n    c\n"), 3, 5, "unindent does not match any outer indentation level");
  expect_error(lex("if a:\n\tb\n        c\n"), 3, 9, "inconsistent use of tabs and spaces in indentation");
  expect_error(lex("x = a $ b\n"), 1, 7, "invalid character '$' (U+0024)");
  expect_error(lex("x = a ? b\n"), 1, 7, "invalid character '?'");
  expect_error(lex("x = a ! b\n"), 1, 7, "invalid character '!'");
  expect_error(lex("x = 1__0\n"), 1, 5, "invalid decimal literal");
  expect_error(lex("x = 1abc\n"), 1, 5, "invalid decimal literal");
  expect_error(lex("x = 0x\n"), 1, 5, "invalid hexadecimal literal");
  expect_error(lex("x = 0b102\n"), 1, 9, "invalid digit '2' in binary literal");
  expect_error(lex("x = 012\n"), 1, 5, "leading zeros in decimal integer literals");
  expect_error(lex("x = (1,\n     2]\n"), 2, 7,
               "closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  expect_error(lex("x = a)\n"), 1, 6, "unmatched ')'");
  expect_error(lex("x = f(a,\n  b\ny = 2\n"), 1, 6, "'(' was never closed");
  expect_error(lex("x = 1 + \\ 2\n"), 1, 9, "unexpected character after line continuation character");
  expect_error(lex("x = 1 + \\"), 1, 9, "unexpected end of file after line continuation character");
}

TEST_CASE("lexer: source that is not UTF-8, and non-ASCII names, are located errors",
          "[parser][lexer][errors]") {
  auto lex = [](const std::string& text) { return [text] { tokenize(SourceFile("e.py", text)); }; };
  // A lone continuation byte in a name (fuzzer finding: `def la\x89(f: ...)` lowered to an SDFG
  // whose name is no identifier).
  expect_error(lex("x = 1\ndef la\x89(f):\n    return f\n"), 2, 7,
               "invalid UTF-8: byte 0x89 does not begin a valid character (Python source is UTF-8)");
  // Truncated, overlong and surrogate sequences, in a string or a comment as well.
  expect_error(lex("s = 'ab\xC3'\n"), 1, 8,
               "invalid UTF-8: byte 0xC3 does not begin a valid character (Python source is UTF-8)");
  expect_error(lex("# \xC0\xAF\n"), 1, 3,
               "invalid UTF-8: byte 0xC0 does not begin a valid character (Python source is UTF-8)");
  expect_error(lex("# \xED\xA0\x80 x\n"), 1, 3,
               "invalid UTF-8: byte 0xED does not begin a valid character (Python source is UTF-8)");
  // Columns count characters: the bad byte after "#é" (three bytes) is at column 3.
  expect_error(lex("#\xC3\xA9\xFF\n"), 1, 3,
               "invalid UTF-8: byte 0xFF does not begin a valid character (Python source is UTF-8)");
  // Valid UTF-8 in comments and strings is fine; a non-ASCII identifier is refused at the name.
  CHECK(token_summary("# températur\ns = 'π'\n") == "s = 'π' NL EOF");
  expect_error(
      lex("def f(x):\n    température = x\n"), 2, 5,
      "identifier 'température' is not ASCII: weir needs ASCII names (they become SDFG and C++ names)");
}
