// Name analyses and rewrites of SDFG code blocks through pycode.
#include "weir/sdfg/code_rewrite.h"

#include <memory>
#include <vector>

#include "weir/pycode/parser.h"
#include "weir/pycode/rewrite.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/cpp_identifiers.h"

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

}  // namespace

bool is_blank(const CodeBlock& code) {
  return code.code.find_first_not_of(" \t\r\n\f\v") == std::string::npos;
}

pycode::NameUse code_names(const CodeBlock& code) {
  if (code.language == Language::CPP) {
    pycode::NameUse use;
    for (std::string& id : cpp_identifiers(code.code)) use.reads.insert(std::move(id));
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
