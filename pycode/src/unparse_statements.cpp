// Statements -> Python source (expressions through unparse(const Expr&)).
#include "weir/pycode/unparse.h"
#include "weir/pycode/unparse_marked.h"

namespace weir::pycode {

namespace {

class StatementPrinter {
 public:
  std::string out;
  const std::set<const Expr*>* marked = nullptr;

  void block(const StmtList& body, int depth) {
    if (body.empty()) return line(depth, "pass");
    for (const StmtPtr& s : body) stmt(*s, depth);
  }

 private:
  void line(int depth, const std::string& text) {
    if (!out.empty()) out += '\n';
    out.append(static_cast<std::size_t>(depth) * 4, ' ');
    out += text;
  }

  std::string opt(const ExprPtr& e) const { return e ? ex(*e) : std::string(); }
  std::string ex(const Expr& e) const { return marked ? unparse_marked(e, *marked) : unparse(e); }

  std::string params(const std::vector<Parameter>& ps) const {
    std::string s;
    bool star = false;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const Parameter& p = ps[i];
      if (i) s += ", ";
      if (p.kind == ParamKind::KeywordOnly && !star) s += "*, ";
      if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::KeywordOnly) star = true;
      if (p.kind == ParamKind::VarArgs) s += "*";
      if (p.kind == ParamKind::VarKeywords) s += "**";
      s += p.name;
      if (p.annotation) s += ": " + ex(*p.annotation);
      if (p.default_value) s += (p.annotation ? " = " : "=") + ex(*p.default_value);
      if (p.kind == ParamKind::PositionalOnly &&
          (i + 1 == ps.size() || ps[i + 1].kind != ParamKind::PositionalOnly))
        s += ", /";
    }
    return s;
  }

  static std::string aliases(const std::vector<Alias>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i)
      s += (i ? ", " : "") + names[i].name + (names[i].asname.empty() ? "" : " as " + names[i].asname);
    return s;
  }

  void decorators(const ExprList& ds, int depth) {
    for (const ExprPtr& d : ds) line(depth, "@" + ex(*d));
  }

  void if_chain(const If& s, int depth, const char* keyword) {
    line(depth, std::string(keyword) + " " + ex(*s.test) + ":");
    block(s.body, depth + 1);
    if (s.orelse.empty()) return;
    if (s.orelse.size() == 1 && s.orelse[0]->kind == StmtKind::If &&
        static_cast<const If&>(*s.orelse[0]).is_elif)
      return if_chain(static_cast<const If&>(*s.orelse[0]), depth, "elif");
    line(depth, "else:");
    block(s.orelse, depth + 1);
  }

  void loop_rest(const StmtList& body, const StmtList& orelse, int depth) {
    block(body, depth + 1);
    if (orelse.empty()) return;
    line(depth, "else:");
    block(orelse, depth + 1);
  }

  void stmt(const Stmt& st, int depth) {
    switch (st.kind) {
      case StmtKind::Assign: {
        auto& s = static_cast<const Assign&>(st);
        std::string text;
        for (const ExprPtr& t : s.targets) text += ex(*t) + " = ";
        return line(depth, text + ex(*s.value));
      }
      case StmtKind::AnnAssign: {
        auto& s = static_cast<const AnnAssign&>(st);
        return line(depth, ex(*s.target) + ": " + ex(*s.annotation) + (s.value ? " = " + ex(*s.value) : ""));
      }
      case StmtKind::AugAssign: {
        auto& s = static_cast<const AugAssign&>(st);
        return line(depth, ex(*s.target) + " " + std::string(to_string(s.op)) + "= " + ex(*s.value));
      }
      case StmtKind::Return: {
        auto& s = static_cast<const Return&>(st);
        return line(depth, s.value ? "return " + ex(*s.value) : "return");
      }
      case StmtKind::Pass: return line(depth, "pass");
      case StmtKind::Expr: return line(depth, opt(static_cast<const ExprStmt&>(st).value));
      case StmtKind::If: return if_chain(static_cast<const If&>(st), depth, "if");
      case StmtKind::FunctionDef: {
        auto& s = static_cast<const FunctionDef&>(st);
        decorators(s.decorators, depth);
        line(depth, "def " + s.name + "(" + params(s.params) + ")" +
                        (s.returns ? " -> " + ex(*s.returns) : "") + ":");
        return block(s.body, depth + 1);
      }
      case StmtKind::ClassDef: {
        auto& s = static_cast<const ClassDef&>(st);
        decorators(s.decorators, depth);
        std::string args;
        for (const ExprPtr& b : s.bases) args += (args.empty() ? "" : ", ") + ex(*b);
        for (const Keyword& k : s.keywords)
          args += (args.empty() ? "" : ", ") + (k.arg.empty() ? "**" : k.arg + "=") + ex(*k.value);
        line(depth, "class " + s.name + (args.empty() ? "" : "(" + args + ")") + ":");
        return block(s.body, depth + 1);
      }
      case StmtKind::For: {
        auto& s = static_cast<const For&>(st);
        line(depth, "for " + ex(*s.target) + " in " + ex(*s.iter) + ":");
        return loop_rest(s.body, s.orelse, depth);
      }
      case StmtKind::While: {
        auto& s = static_cast<const While&>(st);
        line(depth, "while " + ex(*s.test) + ":");
        return loop_rest(s.body, s.orelse, depth);
      }
      case StmtKind::Break: return line(depth, "break");
      case StmtKind::Continue: return line(depth, "continue");
      case StmtKind::Import: return line(depth, "import " + aliases(static_cast<const Import&>(st).names));
      case StmtKind::ImportFrom: {
        auto& s = static_cast<const ImportFrom&>(st);
        return line(depth, "from " + std::string(static_cast<std::size_t>(s.level), '.') + s.module +
                               " import " + aliases(s.names));
      }
      case StmtKind::Unparsed: {
        // Kept as written: its lines re-indented to this block.
        const std::string& t = static_cast<const Unparsed&>(st).text;
        std::size_t b = 0;
        while (b <= t.size()) {
          std::size_t e = t.find('\n', b);
          if (e == std::string::npos) e = t.size();
          if (e > b) line(depth, t.substr(b, e - b));
          b = e + 1;
        }
        return;
      }
    }
  }
};

}  // namespace

std::string unparse(const StmtList& body) {
  StatementPrinter p;
  if (!body.empty()) p.block(body, 0);  // an empty top level prints nothing, not `pass`
  return p.out;
}

std::string unparse_marked(const StmtList& body, const std::set<const Expr*>& marked) {
  StatementPrinter p;
  p.marked = &marked;
  if (!body.empty()) p.block(body, 0);
  return p.out;
}

}  // namespace weir::pycode
