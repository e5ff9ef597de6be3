// Decoding of number and string literal tokens.
#include "weir/pycode/literals.h"

#include <charconv>
#include <limits>

namespace weir::pycode {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

int digit_value(char c) {
  c = lower(c);
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return 99;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

NumberLiteral decode_number(const Token& token) {
  std::string text;
  for (char c : token.text)
    if (c != '_') text += c;
  NumberLiteral result;
  char last = text.empty() ? '\0' : lower(text.back());
  if (last == 'j') {
    result.kind = NumberLiteral::Kind::Imaginary;
    text.pop_back();
  }
  int base = 10;
  std::size_t start = 0;
  if (text.size() > 1 && text[0] == '0') {
    char p = lower(text[1]);
    if (p == 'x') base = 16;
    if (p == 'o') base = 8;
    if (p == 'b') base = 2;
    if (base != 10) start = 2;
  }
  bool is_float = base == 10 && text.find_first_of(".eE") != std::string::npos;
  if (is_float || result.kind == NumberLiteral::Kind::Imaginary) {
    if (result.kind != NumberLiteral::Kind::Imaginary) result.kind = NumberLiteral::Kind::Float;
    double value = 0.0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) {
      value = std::numeric_limits<double>::infinity();  // as Python: 1e999 == inf
    } else if (ec != std::errc() || ptr != text.data() + text.size()) {
      throw SourceError(token.loc, "invalid number literal '" + std::string(token.text) + "'");
    }
    result.float_value = value;
    return result;
  }
  std::uint64_t value = 0;
  const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = start; i < text.size(); ++i) {
    int d = digit_value(text[i]);
    if (d >= base) throw SourceError(token.loc, "invalid number literal '" + std::string(token.text) + "'");
    if (value > (limit - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base))
      throw SourceError(token.loc, "integer literal '" + std::string(token.text) +
                                       "' is too large (does not fit in int64)");
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  result.int_value = static_cast<std::int64_t>(value);
  return result;
}

StringLiteral decode_string(const Token& token) {
  std::string_view text = token.text;
  std::size_t q = text.find_first_of("'\"");
  std::string_view prefix = text.substr(0, q);
  bool raw = false;
  StringLiteral result;
  for (char c : prefix) {
    if (lower(c) == 'r') raw = true;
    if (lower(c) == 'b') result.bytes = true;
  }
  std::size_t quote_len = text.size() >= q + 6 && text[q + 1] == text[q] && text[q + 2] == text[q] ? 3 : 1;
  std::string_view body = text.substr(q + quote_len, text.size() - q - 2 * quote_len);
  std::string& out = result.value;
  auto fail = [&](const std::string& message) { throw SourceError(token.loc, message); };
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (result.bytes && static_cast<unsigned char>(c) >= 0x80)
      fail("bytes can only contain ASCII literal characters");
    if (c != '\\' || raw || i + 1 == body.size()) {
      out += c;
      // A raw string keeps the backslash and the escaped character (r"\"" is two chars).
      if (c == '\\' && raw && i + 1 < body.size()) out += body[++i];
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n': break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x': {
        if (i + 2 >= body.size() || digit_value(body[i + 1]) > 15 || digit_value(body[i + 2]) > 15)
          fail("invalid \\x escape in string literal");
        unsigned v = static_cast<unsigned>(digit_value(body[i + 1]) * 16 + digit_value(body[i + 2]));
        if (result.bytes)
          out += static_cast<char>(v);
        else
          append_utf8(out, v);
        i += 2;
        break;
      }
      case 'u':
      case 'U': {
        if (result.bytes) {
          out += '\\';
          out += e;
          break;
        }
        std::size_t n = e == 'u' ? 4 : 8;
        std::uint32_t v = 0;
        for (std::size_t k = 1; k <= n; ++k) {
          if (i + k >= body.size() || digit_value(body[i + k]) > 15)
            fail(std::string("invalid \\") + e + " escape in string literal");
          v = v * 16 + static_cast<std::uint32_t>(digit_value(body[i + k]));
        }
        if (v > 0x10FFFF) fail("invalid \\U escape in string literal");
        append_utf8(out, v);
        i += n;
        break;
      }
      case 'N':
        if (!result.bytes) fail("\\N{...} escapes are not supported");
        out += "\\N";
        break;
      default:
        if (e >= '0' && e <= '7') {
          unsigned v = static_cast<unsigned>(e - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
            v = v * 8 + static_cast<unsigned>(body[++i] - '0');
          if (result.bytes)
            out += static_cast<char>(v & 0xFF);
          else
            append_utf8(out, v);
        } else {
          out += '\\';  // unknown escapes are kept, as Python does
          out += e;
        }
    }
  }
  return result;
}

}  // namespace weir::pycode
