// CodeBlock: text, language and the cached syntax tree of Python code.
#include "weir/pycode/code.h"
#include "weir/sdfg/types.h"

namespace weir {

CodeBlock::CodeBlock(std::string code_text, Language lang) : code(std::move(code_text)), language(lang) {}

// `CodeBlock{{}, lang}` picks this overload with a null pointer.
CodeBlock::CodeBlock(const char* code_text, Language lang)
    : code(code_text ? code_text : ""), language(lang) {}

CodeBlock::CodeBlock(const CodeBlock& other)
    : code(other.code), language(other.language), parsed_(other.parsed_.load()) {}

CodeBlock::CodeBlock(CodeBlock&& other) noexcept
    : code(std::move(other.code)), language(other.language), parsed_(other.parsed_.exchange(nullptr)) {}

CodeBlock& CodeBlock::operator=(const CodeBlock& other) {
  if (this == &other) return *this;
  code = other.code;
  language = other.language;
  parsed_.store(other.parsed_.load());
  return *this;
}

CodeBlock& CodeBlock::operator=(CodeBlock&& other) noexcept {
  if (this == &other) return *this;
  code = std::move(other.code);
  language = other.language;
  parsed_.store(other.parsed_.exchange(nullptr));
  return *this;
}

CodeBlock::~CodeBlock() = default;

std::shared_ptr<const pycode::Code> CodeBlock::parsed() const {
  if (language != Language::Python) return nullptr;
  auto tree = parsed_.load();
  // `code` is a public field: a tree parsed from other text is stale.
  if (tree && tree->text() == code) return tree;
  tree = pycode::Code::parse(code);
  parsed_.store(tree);
  return tree;
}

void CodeBlock::set_parsed(std::shared_ptr<const pycode::Code> tree) {
  language = Language::Python;
  code = tree ? tree->text() : std::string();
  parsed_.store(std::move(tree));
}

}  // namespace weir
