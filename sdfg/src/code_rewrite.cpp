// Name analyses and rewrites of SDFG code blocks through pycode.
#include "weir/sdfg/code_rewrite.h"

#include <cctype>
#include <memory>
#include <vector>

#include "weir/pycode/parser.h"
#include "weir/pycode/rewrite.h"
#include "weir/pycode/unparse.h"

namespace weir {

namespace {

// Parsed replacement expressions, owned here, viewed as pycode::substitute takes them.
struct Values {
  std::vector<pycode::ExprPtr> owned;
  std::map<std::string, const pycode::Expr*> view;
  explicit Values(const std::map<std::string, std::string>& text) {
    for (const auto& [name, value] : text) {
      owned.push_back(pycode::parse_expression(value, "<substitution>"));
      view[name] = owned.back().get();
    }
  }
};

// The identifiers of C++ code outside comments and string/character literals. C++ is not
// parsed: every identifier may be read (an over-approximation, keywords and types included).
std::set<std::string> cpp_identifiers(const std::string& text) {
  std::set<std::string> out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (c == '"' || c == '\'') {
      for (++i; i < n && text[i] != c; ++i)
        if (text[i] == '\\') ++i;
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < n && (word(text[i]) || text[i] == '.')) ++i;  // 1e5, 0x1F, 2.0f: no names
    } else if (word(c)) {
      std::size_t b = i;
      while (i < n && word(text[i])) ++i;
      out.insert(text.substr(b, i - b));
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

bool is_blank(const CodeBlock& code) {
  return code.code.find_first_not_of(" \t\r\n\f\v") == std::string::npos;
}

pycode::NameUse code_names(const CodeBlock& code) {
  if (code.language == Language::CPP) {
    pycode::NameUse use;
    use.reads = cpp_identifiers(code.code);
    return use;
  }
  auto tree = code.parsed();
  return tree ? pycode::names_used(*tree) : pycode::NameUse{};
}

bool rename_in_code(CodeBlock& code, const std::map<std::string, std::string>& names) {
  auto tree = code.parsed();
  if (!tree || names.empty()) return false;
  auto out = pycode::rename(*tree, names);
  if (!out) return false;
  code.set_parsed(std::move(out));
  return true;
}

bool substitute_in_code(CodeBlock& code, const std::map<std::string, std::string>& values) {
  auto tree = code.parsed();
  if (!tree || values.empty()) return false;
  Values v(values);
  auto out = pycode::substitute(*tree, v.view);
  if (!out) return false;
  code.set_parsed(std::move(out));
  return true;
}

}  // namespace weir
