// Type checking of statements: assignments, unpacking, if/else, return.
#include "type_checker_internal.h"

namespace weir::frontend::typecheck {

bool FunctionChecker::block(const StmtList& stmts, std::vector<TStmt>& out, Scope& scope) {
  bool returned = false;
  // Statements after a return (in both branches of an if, say) never run, as in Python: they
  // are checked, in a copy of the scope, and dropped.
  std::vector<TStmt> dead;
  std::optional<Scope> dead_scope;
  for (const StmtPtr& s : stmts) {
    if (returned) {
      if (!dead_scope) dead_scope = scope;
      stmt(*s, dead, *dead_scope);
      continue;
    }
    returned = stmt(*s, out, scope);
  }
  return returned;
}

namespace {

// A plain tuple returned where a named collection (NamedTuple, dataclass) is annotated: gt4py
// takes it when the elements' types match, in order.
bool fits_collection(const Type& t, const Type& declared) {
  if (!t.is_tuple() || !declared.is_tuple() || !t.collection.empty() ||
      t.elements.size() != declared.elements.size())
    return false;
  for (std::size_t i = 0; i < t.elements.size(); ++i)
    if (!(t.elements[i] == declared.elements[i]) && !fits_collection(t.elements[i], declared.elements[i]))
      return false;
  return true;
}

}  // namespace

void FunctionChecker::bind(const Expr& target, const TExprPtr& value, TStmt& st, Scope& scope) {
  if (auto* n = dyn_cast<Name>(&target)) {
    st.targets.push_back(n->id);
    st.target_types.push_back(value->type);
    scope[n->id] = value->type;
    return;
  }
  const ExprList* elts = nullptr;
  if (auto* t = dyn_cast<Tuple>(&target)) elts = &t->elts;
  if (auto* l = dyn_cast<List>(&target)) elts = &l->elts;
  if (!elts) throw FrontendError(target.loc, "cannot assign to '" + unparse(target) + "'");
  st.tuple_target = true;
  if (!value->type.is_tuple())
    throw FrontendError(value->loc, "cannot unpack " + to_string(value->type) + " (not a tuple) into " +
                                        std::to_string(elts->size()) + " targets");
  const auto& vt = value->type.elements;
  int star = -1;
  for (std::size_t i = 0; i < elts->size(); ++i) {
    if (isa<Starred>((*elts)[i].get())) {
      if (star >= 0) throw FrontendError((*elts)[i]->loc, "only one starred target is allowed");
      star = static_cast<int>(i);
    }
  }
  std::size_t n = elts->size();
  if ((star < 0 && vt.size() != n) || (star >= 0 && vt.size() < n - 1))
    throw FrontendError(target.loc, "cannot unpack a tuple of " + std::to_string(vt.size()) +
                                        " elements into " + std::to_string(n) + " targets");
  st.starred = star;
  std::size_t vi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Expr* e = (*elts)[i].get();
    Type t;
    if (static_cast<int>(i) == star) {
      e = static_cast<const Starred*>(e)->value.get();
      std::size_t count = vt.size() - (n - 1);
      t = Type::tuple(
          std::vector<Type>(vt.begin() + static_cast<long>(vi), vt.begin() + static_cast<long>(vi + count)));
      vi += count;
    } else {
      t = vt[vi++];
    }
    auto* nm = dyn_cast<Name>(e);
    if (!nm) throw FrontendError(e->loc, "nested targets are not supported; use names");
    st.targets.push_back(nm->id);
    st.target_types.push_back(t);
    scope[nm->id] = t;
  }
}

bool FunctionChecker::stmt(const Stmt& s, std::vector<TStmt>& out, Scope& scope) {
  switch (s.kind) {
    case StmtKind::Assign: {
      auto& a = static_cast<const Assign&>(s);
      if (a.targets.size() != 1)
        throw FrontendError(a.targets[1]->loc, "chained assignments are not supported");
      TStmt st;
      st.loc = s.loc;
      st.value = expr(*a.value, scope);
      bind(*a.targets[0], st.value, st, scope);
      out.push_back(std::move(st));
      return false;
    }
    case StmtKind::AnnAssign: {
      auto& a = static_cast<const AnnAssign&>(s);
      if (!a.value) throw FrontendError(s.loc, "an annotated declaration needs a value");
      auto* n = dyn_cast<Name>(a.target.get());
      if (!n) throw FrontendError(a.target->loc, "only a name can be annotated");
      Type t = annotation_type(*a.annotation);
      TStmt st;
      st.loc = s.loc;
      st.value = expr(*a.value, scope);
      if (!(st.value->type == t))
        throw FrontendError(a.value->loc, "'" + n->id + "' is annotated as " + to_string(t) +
                                              " but the value has type " + to_string(st.value->type));
      bind(*a.target, st.value, st, scope);
      out.push_back(std::move(st));
      return false;
    }
    case StmtKind::AugAssign: {
      auto& a = static_cast<const AugAssign&>(s);
      auto* n = dyn_cast<Name>(a.target.get());
      if (!n) throw FrontendError(a.target->loc, "cannot assign to '" + unparse(*a.target) + "'");
      TStmt st;
      st.loc = s.loc;
      st.value = binary(a.op, expr(*a.target, scope), expr(*a.value, scope), a.loc);
      bind(*a.target, st.value, st, scope);
      out.push_back(std::move(st));
      return false;
    }
    case StmtKind::Return: {
      auto& r = static_cast<const Return&>(s);
      if (!r.value) throw FrontendError(s.loc, "a return statement needs a value");
      TStmt st;
      st.kind = TStmt::Kind::Return;
      st.loc = s.loc;
      st.value = expr(*r.value, scope);
      if (has_declared_return_ && !(st.value->type == declared_return_) &&
          fits_collection(st.value->type, declared_return_))
        st.value->type = declared_return_;
      const Type& t = st.value->type;
      if (!t.is_value()) throw FrontendError(r.value->loc, "cannot return " + to_string(t));
      if (has_declared_return_ && !(t == declared_return_))
        throw FrontendError(r.value->loc, "'" + def_.name + "' returns " + to_string(t) +
                                              " but is annotated to return " + to_string(declared_return_));
      if (has_deduced_return_ && !(t == deduced_return_))
        throw FrontendError(r.value->loc, "'" + def_.name + "' returns " + to_string(t) + " here but " +
                                              to_string(deduced_return_) + " elsewhere");
      deduced_return_ = t;
      has_deduced_return_ = true;
      out.push_back(std::move(st));
      return true;
    }
    case StmtKind::If: {
      auto& i = static_cast<const If&>(s);
      TStmt st;
      st.kind = TStmt::Kind::If;
      st.loc = s.loc;
      st.value = expr(*i.test, scope);
      if (!(st.value->type == Type::scalar(ScalarKind::Bool)))
        throw FrontendError(i.test->loc,
                            "the condition of an if statement must be a scalar "
                            "bool, got " +
                                to_string(st.value->type));
      Scope then_scope = scope, else_scope = scope;
      bool r1 = block(i.body, st.body, then_scope);
      bool r2 = block(i.orelse, st.orelse, else_scope);
      out.push_back(std::move(st));
      if (r1 && r2) return true;
      if (r1) {
        scope = else_scope;
        return false;
      }
      if (r2) {
        scope = then_scope;
        return false;
      }
      Scope merged;
      for (const auto& [name, t] : then_scope) {
        auto it = else_scope.find(name);
        if (it == else_scope.end()) continue;
        if (!(it->second == t))
          throw FrontendError(s.loc, "'" + name + "' has type " + to_string(t) + " in the if branch but " +
                                         to_string(it->second) + " in the else branch");
        merged[name] = t;
      }
      scope = merged;
      return false;
    }
    case StmtKind::Pass: return false;
    case StmtKind::Expr: {
      auto& e = static_cast<const ExprStmt&>(s);
      if (auto* c = dyn_cast<Constant>(e.value.get()); c && c->value_kind == ConstantKind::String)
        return false;  // docstring
      throw FrontendError(s.loc,
                          "expression statements have no effect in a " + std::string(to_string(def_.kind)));
    }
    default: break;
  }
  throw FrontendError(s.loc, std::string(to_string(s.kind)) + " statements are not supported in a " +
                                 std::string(to_string(def_.kind)));
}

}  // namespace weir::frontend::typecheck
