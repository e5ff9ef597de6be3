#include "weir/sdfg/json_text.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "weir/sdfg/json_limits.h"

namespace weir {

namespace {

// The bytes a parser message quotes, printable: "'<0x93>'" rather than a raw byte of a binary
// file on the terminal.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char ch : s) {
    if (ch >= 0x20 && ch < 0x7f) {
      out += static_cast<char>(ch);
    } else {
      static const char* hex = "0123456789abcdef";
      out += std::string("<0x") + hex[ch >> 4] + hex[ch & 15] + ">";
    }
  }
  return out;
}

// nlohmann's parse error in plain words. Its text reads "[json.exception.parse_error.101]
// parse error at line 1, column 2: syntax error while parsing object key - invalid literal;
// last read: '{a'; expected string literal"; this gives "invalid literal '{a' in an object key;
// expected string literal".
std::string plain_words_of(const std::string& what) {
  std::string m = what;
  if (auto p = m.find("] "); m.rfind("[json.exception.", 0) == 0 && p != std::string::npos) m.erase(0, p + 2);
  if (m.rfind("parse error", 0) == 0) {
    auto colon = m.find(": ");
    m = colon == std::string::npos ? std::string() : m.substr(colon + 2);
  }
  if (m.rfind("attempting to parse an empty input", 0) == 0) return "the text is empty";
  std::string where;
  const std::string syntax = "syntax error while parsing ";
  if (m.rfind(syntax, 0) == 0) {
    auto dash = m.find(" - ");
    if (dash != std::string::npos) {
      std::string what_parsed = m.substr(syntax.size(), dash - syntax.size());
      m.erase(0, dash + 3);
      if (what_parsed != "value")
        where = " in " +
                std::string(std::string("aeiou").find(what_parsed[0]) != std::string::npos ? "an " : "a ") +
                what_parsed;
    }
  }
  std::string read;
  if (auto lr = m.find("; last read: "); lr != std::string::npos) {
    auto end = m.find("; ", lr + 2);
    read = m.substr(lr + 13, end == std::string::npos ? std::string::npos : end - lr - 13);
    m.erase(lr, end == std::string::npos ? std::string::npos : end - lr);
  }
  auto semi = m.find("; ");
  std::string head = m.substr(0, semi), tail = semi == std::string::npos ? "" : m.substr(semi);
  return printable(head + (read.empty() ? "" : " " + read) + where + tail);
}

// Line and column (1-based, columns in bytes, as nlohmann counts) of byte `offset`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

std::string plain_json_words(const std::string& library_message) { return plain_words_of(library_message); }

// Declared in json_limits.h; defined here, beside the line and column count it shares.
std::string json_text_position(std::string_view text, std::size_t offset) {
  auto [line, column] = line_column(text, offset);
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

InvalidJsonError::InvalidJsonError(std::string origin, std::size_t line, std::size_t column, std::string what)
    : Error(origin + ":" + std::to_string(line) + ":" + std::to_string(column) + ": invalid JSON: " + what),
      origin_(std::move(origin)),
      line_(line),
      column_(column),
      problem_(std::move(what)) {}

namespace {

// parse_json and parse_ordered_json: Json is nlohmann::json or nlohmann::ordered_json.
template <class Json>
Json parse_checked(std::string_view text, const std::string& origin) {
  if (auto problem = json_limit_problem_at(text)) {
    auto [line, column] = line_column(text, problem->offset);
    throw InvalidJsonError(origin, line, column, problem->what);
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw InvalidJsonError(origin, 1, 1, "the text is empty");
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte: the 1-based index of the last byte read, where the text went wrong.
    auto [line, column] = line_column(text, e.byte > 0 ? e.byte - 1 : 0);
    throw InvalidJsonError(origin, line, column, plain_words_of(e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw InvalidJsonError(origin, 1, 1, plain_words_of(e.what()));
  }
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& origin) {
  return parse_checked<nlohmann::json>(text, origin);
}

nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& origin) {
  return parse_checked<nlohmann::ordered_json>(text, origin);
}

}  // namespace weir
