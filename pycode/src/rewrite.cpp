// rename / substitute: name rewrites of Python code on a copy of its syntax tree.
#include "weir/pycode/rewrite.h"

#include "name_walk.h"
#include "weir/pycode/unparse_marked.h"

namespace weir::pycode {

namespace {

// Runs `visit` on a copy of the statements; the copy becomes new Code when anything changed,
// printed with the nodes in `marked` (substituted values) in parentheses.
std::shared_ptr<const Code> rewritten(
    const Code& code, const std::function<bool(const Name&, ExprPtr&, const detail::NameSite&)>& visit,
    const std::set<const Expr*>& marked = {}) {
  StmtList body = clone(code.body());
  bool changed = false;
  detail::walk_names(body, [&](const Name& name, ExprPtr* slot, const detail::NameSite& site) {
    changed = visit(name, *slot, site) || changed;
  });
  if (!changed) return nullptr;
  std::string text = unparse_marked(body, marked);
  return std::make_shared<const Code>(std::move(text), std::move(body));
}

bool rename_at(const std::map<std::string, std::string>& names, const Name& name, ExprPtr& slot) {
  auto it = names.find(name.id);
  if (it == names.end() || it->second == name.id) return false;
  slot = std::make_unique<Name>(name.loc, it->second);
  return true;
}

bool substitute_at(const std::map<std::string, const Expr*>& values, const Name& name, ExprPtr& slot,
                   const detail::NameSite& site) {
  if (site.store) return false;
  auto it = values.find(name.id);
  if (it == values.end() || !it->second) return false;
  slot = clone(it->second);
  return true;
}

}  // namespace

std::shared_ptr<const Code> rename(const Code& code, const std::map<std::string, std::string>& names) {
  return rewritten(code, [&](const Name& name, ExprPtr& slot, const detail::NameSite& site) {
    return !site.callee && rename_at(names, name, slot);
  });
}

std::shared_ptr<const Code> substitute(const Code& code, const std::map<std::string, const Expr*>& values) {
  std::set<const Expr*> substituted;
  auto visit = [&](const Name& name, ExprPtr& slot, const detail::NameSite& site) {
    if (site.callee || !substitute_at(values, name, slot, site)) return false;
    substituted.insert(slot.get());
    return true;
  };
  return rewritten(code, visit, substituted);
}

ExprPtr substitute(const Expr& expr, const std::map<std::string, const Expr*>& values) {
  if (const auto* n = dyn_cast<Name>(&expr)) {
    auto it = values.find(n->id);
    return it != values.end() && it->second ? clone(it->second) : clone(&expr);
  }
  ExprPtr copy = clone(&expr);
  detail::walk_names(*copy, [&](const Name& name, ExprPtr* slot, const detail::NameSite& site) {
    if (slot && !site.callee) substitute_at(values, name, *slot, site);
  });
  return copy;
}

ExprPtr rename_calls(const Expr& expr, const std::map<std::string, std::string>& functions) {
  ExprPtr copy = clone(&expr);
  detail::walk_names(*copy, [&](const Name& name, ExprPtr* slot, const detail::NameSite& site) {
    if (slot && site.callee) rename_at(functions, name, *slot);
  });
  return copy;
}

}  // namespace weir::pycode
