// Code: parsed Python code of an SDFG element, shared and immutable.
#include "weir/pycode/code.h"

#include "weir/pycode/parser.h"
#include "weir/pycode/unparse.h"

namespace weir::pycode {

std::shared_ptr<const Code> Code::parse(std::string text, std::string name) {
  StmtList body = parse_statements(text, std::move(name));
  return std::make_shared<const Code>(std::move(text), std::move(body));
}

std::shared_ptr<const Code> Code::from_statements(StmtList body) {
  std::string text = unparse(body);
  return std::make_shared<const Code>(std::move(text), std::move(body));
}

const Expr* Code::expression() const {
  if (body_.size() != 1) return nullptr;
  const auto* s = dyn_cast<ExprStmt>(body_[0].get());
  return s ? s->value.get() : nullptr;
}

}  // namespace weir::pycode
