// walk_names: every Name of statements or an expression, with its role.
#include "name_walk.h"

namespace weir::pycode::detail {

namespace {

class Walker {
 public:
  explicit Walker(const NameVisitor& v) : visit_(v) {}

  void stmts(StmtList& body) {
    for (StmtPtr& s : body) stmt(*s);
  }

  void expr(ExprPtr& slot, NameSite site = {}) {
    if (slot) node(*slot, &slot, site);
  }

  void node(Expr& e, ExprPtr* slot, NameSite site = {}) {
    switch (e.kind) {
      case ExprKind::Name:
        if (!bound_.count(static_cast<Name&>(e).id)) visit_(static_cast<Name&>(e), slot, site);
        return;
      case ExprKind::Constant: return;
      case ExprKind::Attribute: {
        NameSite base;
        base.attribute_base = true;
        base.store = site.store;
        return expr(static_cast<Attribute&>(e).value, base);
      }
      case ExprKind::Subscript: {
        auto& s = static_cast<Subscript&>(e);
        NameSite base;
        base.subscripted = true;
        base.store = site.store;
        base.augmented = site.augmented;
        expr(s.index);
        return expr(s.value, base);
      }
      case ExprKind::Slice: {
        auto& s = static_cast<Slice&>(e);
        expr(s.lower), expr(s.upper), expr(s.step);
        return;
      }
      case ExprKind::Call: {
        auto& c = static_cast<Call&>(e);
        NameSite fn;
        fn.callee = true;
        expr(c.func, fn);
        all(c.args);
        for (Keyword& k : c.keywords) expr(k.value);
        return;
      }
      case ExprKind::UnaryOp: return expr(static_cast<UnaryOp&>(e).operand);
      case ExprKind::BinOp: {
        auto& b = static_cast<BinOp&>(e);
        expr(b.left), expr(b.right);
        return;
      }
      case ExprKind::BoolOp: return all(static_cast<BoolOp&>(e).values);
      case ExprKind::Compare: {
        auto& c = static_cast<Compare&>(e);
        expr(c.left);
        return all(c.comparators);
      }
      case ExprKind::IfExp: {
        auto& i = static_cast<IfExp&>(e);
        expr(i.test), expr(i.body), expr(i.orelse);
        return;
      }
      // Targets spread their role over their elements (`a, b = ...`).
      case ExprKind::Tuple: return all(static_cast<Tuple&>(e).elts, site);
      case ExprKind::List: return all(static_cast<List&>(e).elts, site);
      case ExprKind::Set: return all(static_cast<Set&>(e).elts);
      case ExprKind::Dict: {
        auto& d = static_cast<Dict&>(e);
        all(d.keys);
        return all(d.values);
      }
      case ExprKind::Starred: return expr(static_cast<Starred&>(e).value, site);
      case ExprKind::Lambda: {
        auto& l = static_cast<Lambda&>(e);
        for (Parameter& p : l.params) expr(p.default_value);
        return scoped(l.params, [&] { expr(l.body); });
      }
    }
  }

 private:
  void all(ExprList& list, NameSite site = {}) {
    for (ExprPtr& e : list) expr(e, site);
  }

  template <class F>
  void scoped(const std::vector<Parameter>& params, F body) {
    std::set<std::string> saved = bound_;
    for (const Parameter& p : params) bound_.insert(p.name);
    body();
    bound_ = std::move(saved);
  }

  void stmt(Stmt& st) {
    NameSite store;
    store.store = true;
    switch (st.kind) {
      case StmtKind::Assign: {
        auto& s = static_cast<Assign&>(st);
        expr(s.value);
        return all(s.targets, store);
      }
      case StmtKind::AnnAssign: {
        auto& s = static_cast<AnnAssign&>(st);
        expr(s.value);
        expr(s.annotation);
        return expr(s.target, store);
      }
      case StmtKind::AugAssign: {
        auto& s = static_cast<AugAssign&>(st);
        expr(s.value);
        store.augmented = true;
        return expr(s.target, store);
      }
      case StmtKind::Return: return expr(static_cast<Return&>(st).value);
      case StmtKind::Expr: return expr(static_cast<ExprStmt&>(st).value);
      case StmtKind::If: {
        auto& s = static_cast<If&>(st);
        expr(s.test);
        stmts(s.body);
        return stmts(s.orelse);
      }
      case StmtKind::FunctionDef: {
        auto& f = static_cast<FunctionDef&>(st);
        all(f.decorators);
        for (Parameter& p : f.params) expr(p.annotation), expr(p.default_value);
        expr(f.returns);
        return scoped(f.params, [&] { stmts(f.body); });
      }
      case StmtKind::ClassDef: {
        auto& c = static_cast<ClassDef&>(st);
        all(c.decorators);
        all(c.bases);
        for (Keyword& k : c.keywords) expr(k.value);
        return stmts(c.body);
      }
      case StmtKind::For: {
        auto& f = static_cast<For&>(st);
        expr(f.iter);
        expr(f.target, store);
        stmts(f.body);
        return stmts(f.orelse);
      }
      case StmtKind::While: {
        auto& w = static_cast<While&>(st);
        expr(w.test);
        stmts(w.body);
        return stmts(w.orelse);
      }
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Pass:
      case StmtKind::Import:
      case StmtKind::ImportFrom:
      case StmtKind::Unparsed: return;
    }
  }

  const NameVisitor& visit_;
  std::set<std::string> bound_;
};

}  // namespace

void walk_names(StmtList& body, const NameVisitor& visit) { Walker(visit).stmts(body); }
void walk_names(Expr& root, const NameVisitor& visit) { Walker(visit).node(root, nullptr); }

}  // namespace weir::pycode::detail
