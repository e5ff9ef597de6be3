// names_used: read/write sets of Python code from its syntax tree.
#include "weir/pycode/names.h"

#include "name_walk.h"

namespace weir::pycode {

namespace {

detail::NameVisitor collector(NameUse& use) {
  return [&use](const Name& name, ExprPtr*, const detail::NameSite& site) {
    const std::string& id = name.id;
    if (site.callee) {
      use.called.insert(id);
      return;
    }
    if (site.attribute_base) use.attribute_bases.insert(id);
    if (site.subscripted) {
      use.subscripted.insert(id);
      ++use.subscript_count[id];
    }
    if (site.store) use.writes.insert(id);
    if ((!site.store || site.augmented) && !site.attribute_base) use.reads.insert(id);
  };
}

}  // namespace

std::set<std::string> NameUse::data() const {
  std::set<std::string> out = reads;
  out.insert(writes.begin(), writes.end());
  out.insert(subscripted.begin(), subscripted.end());
  out.insert(attribute_bases.begin(), attribute_bases.end());
  return out;
}

// The walk takes mutable slots (rewrites share it); collecting changes nothing.
NameUse names_used(const StmtList& body) {
  NameUse use;
  detail::walk_names(const_cast<StmtList&>(body), collector(use));
  return use;
}

NameUse names_used(const Code& code) { return names_used(code.body()); }

NameUse names_used(const Expr& expr) {
  NameUse use;
  detail::walk_names(const_cast<Expr&>(expr), collector(use));
  return use;
}

}  // namespace weir::pycode
