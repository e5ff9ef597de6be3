// Type checking of statements: assignments, unpacking, if/else, return.
#include "type_checker_internal.h"

#include <algorithm>
#include <set>
#include <tuple>

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

bool has_dim(const Type& t, const Dimension& d) {
  return std::find(t.dims.begin(), t.dims.end(), d) != t.dims.end();
}

// The earliest expression of `e` (by source position, `best` so far) that combines a field
// lacking one of the dimensions `extra` with one that has it (`a + b` of a Cell and an Edge
// field is over both): where a result over too many dimensions comes from.
const TExpr* broadcast_site(const TExpr& e, const std::vector<Dimension>& extra, const TExpr* best) {
  for (const auto& a : e.args) best = broadcast_site(*a, extra, best);
  if (e.kind != TExprKind::Binary && e.kind != TExprKind::Builtin && e.kind != TExprKind::Compare)
    return best;
  for (const Dimension& d : extra) {
    bool lacks = false, has = false;
    for (const auto& a : e.args) {
      if (!a->type.is_field() || a->type.dims.empty()) continue;
      (has_dim(a->type, d) ? has : lacks) = true;
    }
    if (lacks && has &&
        (!best || std::tie(e.loc.line, e.loc.column) < std::tie(best->loc.line, best->loc.column)))
      return &e;
  }
  return best;
}

void names_in(const TExpr& e, std::set<std::string>& out) {
  if (e.kind == TExprKind::Name) out.insert(e.name);
  for (const auto& a : e.args) names_in(*a, out);
}

// The assignments of `stmts`, also those inside ifs.
void assignments(const std::vector<TStmt>& stmts, std::vector<const TStmt*>& out) {
  for (const TStmt& s : stmts) {
    if (s.kind == TStmt::Kind::Assign && s.value) out.push_back(&s);
    assignments(s.body, out);
    assignments(s.orelse, out);
  }
}

// broadcast_site of `value` and of the assignments of `stmts` it reads from, transitively.
const TExpr* broadcast_site(const TExpr& value, const std::vector<const std::vector<TStmt>*>& blocks,
                            const std::vector<Dimension>& extra) {
  std::vector<const TStmt*> all;
  for (const auto* b : blocks) assignments(*b, all);
  std::set<std::string> used;
  names_in(value, used);
  const TExpr* best = broadcast_site(value, extra, nullptr);
  std::set<const TStmt*> seen;
  for (bool grew = true; grew;) {
    grew = false;
    for (const TStmt* a : all)
      for (const std::string& t : a->targets)
        if (used.count(t) && seen.insert(a).second) {
          names_in(*a->value, used);
          best = broadcast_site(*a->value, extra, best);
          grew = true;
        }
  }
  return best;
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
      if (has_declared_return_ && !(t == declared_return_)) {
        // A field over dimensions the annotation lacks: located where they were combined in
        // (user32 H16: a Cell and an Edge field added lines before the return).
        std::vector<Dimension> extra;
        for (const Dimension& d :
             t.is_field() && declared_return_.is_field() ? t.dims : std::vector<Dimension>{})
          if (!has_dim(declared_return_, d)) extra.push_back(d);
        const TExpr* site = extra.empty() ? nullptr : broadcast_site(*st.value, {&out_.body, &out}, extra);
        if (site) {
          std::string over;
          for (const Dimension& d : extra)
            if (has_dim(site->type, d)) over += (over.empty() ? "" : ", ") + d.name;
          std::string operands;
          for (const auto& a : site->args)
            if (a->type.is_field()) operands += (operands.empty() ? "" : " and ") + to_string(a->type);
          throw FrontendError(
              site->loc, "this expression combines " + operands + " into " + to_string(site->type) +
                             ", over " + over + " as well; '" + def_.name + "' is annotated to return " +
                             to_string(declared_return_) + " (line " + std::to_string(r.value->loc.line) +
                             " returns " + to_string(t) + ")");
        }
        throw FrontendError(r.value->loc, "'" + def_.name + "' returns " + to_string(t) +
                                              " but is annotated to return " + to_string(declared_return_));
      }
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
