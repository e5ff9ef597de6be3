// The indented text dump of the AST.
#include "weir/pycode/ast_dump.h"

#include "weir/pycode/unparse.h"

namespace weir::pycode {

namespace {

class Dumper {
 public:
  explicit Dumper(const DumpOptions& options) : options_(options) {}
  std::string out;

  void expr(const Expr& e, int indent, const std::string& label = {}) {
    line(indent, label, describe(e), e.loc);
    int c = indent + 1;
    switch (e.kind) {
      case ExprKind::Name:
      case ExprKind::Constant: return;
      case ExprKind::Attribute: expr(*static_cast<const Attribute&>(e).value, c); return;
      case ExprKind::Subscript: {
        auto& s = static_cast<const Subscript&>(e);
        expr(*s.value, c, "value");
        expr(*s.index, c, "index");
        return;
      }
      case ExprKind::Slice: {
        auto& s = static_cast<const Slice&>(e);
        if (s.lower) expr(*s.lower, c, "lower");
        if (s.upper) expr(*s.upper, c, "upper");
        if (s.step) expr(*s.step, c, "step");
        return;
      }
      case ExprKind::Call: {
        auto& call = static_cast<const Call&>(e);
        expr(*call.func, c, "func");
        for (const ExprPtr& a : call.args) expr(*a, c, "arg");
        keywords(call.keywords, c);
        return;
      }
      case ExprKind::UnaryOp: expr(*static_cast<const UnaryOp&>(e).operand, c); return;
      case ExprKind::BinOp: {
        auto& b = static_cast<const BinOp&>(e);
        expr(*b.left, c);
        expr(*b.right, c);
        return;
      }
      case ExprKind::BoolOp:
        for (const ExprPtr& v : static_cast<const BoolOp&>(e).values) expr(*v, c);
        return;
      case ExprKind::Compare: {
        auto& cmp = static_cast<const Compare&>(e);
        expr(*cmp.left, c);
        for (const ExprPtr& v : cmp.comparators) expr(*v, c);
        return;
      }
      case ExprKind::IfExp: {
        auto& i = static_cast<const IfExp&>(e);
        expr(*i.body, c, "body");
        expr(*i.test, c, "test");
        expr(*i.orelse, c, "orelse");
        return;
      }
      case ExprKind::Tuple:
        for (const ExprPtr& v : static_cast<const Tuple&>(e).elts) expr(*v, c);
        return;
      case ExprKind::List:
        for (const ExprPtr& v : static_cast<const List&>(e).elts) expr(*v, c);
        return;
      case ExprKind::Set:
        for (const ExprPtr& v : static_cast<const Set&>(e).elts) expr(*v, c);
        return;
      case ExprKind::Dict: {
        auto& d = static_cast<const Dict&>(e);
        for (std::size_t i = 0; i < d.values.size(); ++i) {
          if (d.keys[i]) {
            expr(*d.keys[i], c, "key");
            expr(*d.values[i], c, "value");
          } else {
            expr(*d.values[i], c, "**");
          }
        }
        return;
      }
      case ExprKind::Lambda: {
        auto& l = static_cast<const Lambda&>(e);
        params(l.params, c);
        expr(*l.body, c, "body");
        return;
      }
      case ExprKind::Starred: expr(*static_cast<const Starred&>(e).value, c); return;
    }
  }

  void stmt(const Stmt& s, int indent) {
    int c = indent + 1;
    switch (s.kind) {
      case StmtKind::Assign: {
        auto& a = static_cast<const Assign&>(s);
        line(indent, {}, "Assign", s.loc);
        for (const ExprPtr& t : a.targets) expr(*t, c, "target");
        expr(*a.value, c, "value");
        return;
      }
      case StmtKind::AnnAssign: {
        auto& a = static_cast<const AnnAssign&>(s);
        line(indent, {}, "AnnAssign", s.loc);
        expr(*a.target, c, "target");
        expr(*a.annotation, c, "annotation");
        if (a.value) expr(*a.value, c, "value");
        return;
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssign&>(s);
        line(indent, {}, "AugAssign " + std::string(to_string(a.op)) + "=", s.loc);
        expr(*a.target, c, "target");
        expr(*a.value, c, "value");
        return;
      }
      case StmtKind::Return: {
        auto& r = static_cast<const Return&>(s);
        line(indent, {}, "Return", s.loc);
        if (r.value) expr(*r.value, c);
        return;
      }
      case StmtKind::Pass: line(indent, {}, "Pass", s.loc); return;
      case StmtKind::Expr:
        line(indent, {}, "Expr", s.loc);
        expr(*static_cast<const ExprStmt&>(s).value, c);
        return;
      case StmtKind::If: {
        auto& i = static_cast<const If&>(s);
        line(indent, {}, i.is_elif ? "If (elif)" : "If", s.loc);
        expr(*i.test, c, "test");
        body("body", i.body, c);
        if (!i.orelse.empty()) body("orelse", i.orelse, c);
        return;
      }
      case StmtKind::FunctionDef: {
        auto& f = static_cast<const FunctionDef&>(s);
        line(indent, {}, "FunctionDef " + f.name, s.loc);
        for (const ExprPtr& d : f.decorators) expr(*d, c, "decorator");
        params(f.params, c);
        if (f.returns) expr(*f.returns, c, "returns");
        body(f.body_skipped ? "body (skipped)" : "body", f.body, c);
        return;
      }
      case StmtKind::ClassDef: {
        auto& k = static_cast<const ClassDef&>(s);
        line(indent, {}, "ClassDef " + k.name, s.loc);
        for (const ExprPtr& d : k.decorators) expr(*d, c, "decorator");
        for (const ExprPtr& b : k.bases) expr(*b, c, "base");
        keywords(k.keywords, c);
        body("body", k.body, c);
        return;
      }
      case StmtKind::Import: {
        auto& i = static_cast<const Import&>(s);
        line(indent, {}, "Import " + aliases(i.names), s.loc);
        return;
      }
      case StmtKind::ImportFrom: {
        auto& i = static_cast<const ImportFrom&>(s);
        std::string from = std::string(static_cast<std::size_t>(i.level), '.') + i.module;
        line(indent, {}, "ImportFrom " + from + ": " + aliases(i.names), s.loc);
        return;
      }
      case StmtKind::For: {
        auto& f = static_cast<const For&>(s);
        line(indent, {}, "For", s.loc);
        expr(*f.target, c, "target");
        expr(*f.iter, c, "iter");
        body("body", f.body, c);
        if (!f.orelse.empty()) body("orelse", f.orelse, c);
        return;
      }
      case StmtKind::While: {
        auto& w = static_cast<const While&>(s);
        line(indent, {}, "While", s.loc);
        expr(*w.test, c, "test");
        body("body", w.body, c);
        if (!w.orelse.empty()) body("orelse", w.orelse, c);
        return;
      }
      case StmtKind::Break: line(indent, {}, "Break", s.loc); return;
      case StmtKind::Continue: line(indent, {}, "Continue", s.loc); return;
      case StmtKind::Unparsed: {
        auto& u = static_cast<const Unparsed&>(s);
        std::string head = "Unparsed '" + u.first_token + "' lines " + std::to_string(s.loc.line) + "-" +
                           std::to_string(u.end_line);
        line(indent, {}, head, s.loc);
        if (!u.reason.empty()) line(c, "reason", u.reason, {});
        return;
      }
    }
  }

 private:
  const DumpOptions& options_;

  void line(int indent, const std::string& label, const std::string& text, const SourceLocation& loc) {
    out.append(static_cast<std::size_t>(indent) * 2, ' ');
    if (!label.empty()) out += label + ": ";
    out += text;
    if (options_.locations && loc.known())
      out += " @" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
    out += '\n';
  }

  void body(const char* label, const StmtList& stmts, int indent) {
    line(indent, {}, std::string(label) + ":", {});
    for (const StmtPtr& s : stmts) stmt(*s, indent + 1);
  }

  void keywords(const std::vector<Keyword>& ks, int indent) {
    for (const Keyword& k : ks) expr(*k.value, indent, k.arg.empty() ? "**" : "keyword " + k.arg);
  }

  void params(const std::vector<Parameter>& ps, int indent) {
    for (const Parameter& p : ps) {
      line(indent, {}, "param " + p.name + " (" + std::string(to_string(p.kind)) + ")", p.loc);
      if (p.annotation) expr(*p.annotation, indent + 1, "annotation");
      if (p.default_value) expr(*p.default_value, indent + 1, "default");
    }
  }

  static std::string aliases(const std::vector<Alias>& names) {
    std::string out;
    for (const Alias& a : names) {
      if (!out.empty()) out += ", ";
      out += a.name;
      if (!a.asname.empty()) out += " as " + a.asname;
    }
    return out;
  }

  static std::string describe(const Expr& e) {
    std::string s(to_string(e.kind));
    switch (e.kind) {
      case ExprKind::Name: return s + " " + static_cast<const Name&>(e).id;
      case ExprKind::Constant: {
        auto& c = static_cast<const Constant&>(e);
        s += " " + std::string(to_string(c.value_kind));
        switch (c.value_kind) {
          case ConstantKind::Int:
          case ConstantKind::Float:
          case ConstantKind::Imaginary: return s + " " + c.text;
          case ConstantKind::String: return s + " " + python_repr(c.str_value, false);
          case ConstantKind::Bytes: return s + " " + python_repr(c.str_value, true);
          case ConstantKind::Bool: return s + (c.bool_value ? " True" : " False");
          default: return s;
        }
      }
      case ExprKind::Attribute: return s + " ." + static_cast<const Attribute&>(e).attr;
      case ExprKind::UnaryOp: return s + " " + std::string(to_string(static_cast<const UnaryOp&>(e).op));
      case ExprKind::BinOp: return s + " " + std::string(to_string(static_cast<const BinOp&>(e).op));
      case ExprKind::BoolOp: return s + " " + std::string(to_string(static_cast<const BoolOp&>(e).op));
      case ExprKind::Compare:
        for (CompareOperator op : static_cast<const Compare&>(e).ops) s += " " + std::string(to_string(op));
        return s;
      default: return s;
    }
  }
};

}  // namespace

std::string dump(const Module& module, const DumpOptions& options) {
  Dumper d(options);
  d.out = "Module " + module.file.path() + "\n";
  for (const StmtPtr& s : module.body) d.stmt(*s, 1);
  return d.out;
}

std::string dump(const Stmt& stmt, const DumpOptions& options) {
  Dumper d(options);
  d.stmt(stmt, 0);
  return d.out;
}

std::string dump(const Expr& expr, const DumpOptions& options) {
  Dumper d(options);
  d.expr(expr, 0);
  return d.out;
}

}  // namespace weir::pycode
