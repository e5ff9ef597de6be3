// Plain module-level functions called at module level (`KHalf = staggered(KDim)`, `C =
// saturation(273.15)`): the body runs as Python runs it, statement by statement, in a namespace
// of its parameters over the globals of the module that defines it.
#include "module_loader_internal.h"

#include <algorithm>

#include "weir/pycode/unparse.h"

namespace weir::frontend {

namespace {

/// Calls nested deeper than this are refused (a recursive helper without a base case): each
/// level recurses through the evaluator on the C++ stack.
constexpr int kMaxCallDepth = 64;
thread_local int call_depth = 0;

// The keyword that starts a statement of `kind`, for messages.
std::string keyword(StmtKind kind) {
  switch (kind) {
    case StmtKind::For: return "for";
    case StmtKind::While: return "while";
    case StmtKind::Break: return "break";
    case StmtKind::Continue: return "continue";
    case StmtKind::FunctionDef: return "def";
    case StmtKind::ClassDef: return "class";
    case StmtKind::Import: return "import";
    case StmtKind::ImportFrom: return "from";
    default: return std::string(to_string(kind));
  }
}

class FunctionRun {
 public:
  FunctionRun(const FunctionDef& f, const LoadedModule& m) : f_(f), module_(m) {}

  std::map<std::string, Value>& locals() { return locals_; }

  /// Runs `body`; true when it returned (`result` set).
  bool run(const StmtList& body, Value& result) {
    for (const StmtPtr& s : body) {
      switch (s->kind) {
        case StmtKind::Assign: {
          auto& a = static_cast<const Assign&>(*s);
          Value v = eval(*a.value);
          for (const ExprPtr& t : a.targets) bind(*t, v);
          break;
        }
        case StmtKind::AnnAssign: {
          auto& a = static_cast<const AnnAssign&>(*s);
          if (a.value) bind(*a.target, eval(*a.value));
          break;
        }
        case StmtKind::AugAssign: {
          auto& a = static_cast<const AugAssign&>(*s);
          if (!isa<Name>(a.target.get()))
            refuse(*s, "an augmented assignment to '" + unparse(*a.target) + "'");
          BinOp b(a.target->loc);
          b.op = a.op;
          b.left = clone(a.target.get());
          b.right = clone(a.value.get());
          b.op_loc = a.loc;
          bind(*a.target, eval(b));
          break;
        }
        case StmtKind::Return: {
          auto& r = static_cast<const Return&>(*s);
          if (!r.value) refuse(*s, "'return' without a value (None)");
          result = eval(*r.value);
          return true;
        }
        case StmtKind::If: {
          auto& i = static_cast<const If&>(*s);
          if (run(truthy(eval(*i.test), i.test->loc) ? i.body : i.orelse, result)) return true;
          break;
        }
        case StmtKind::Pass: break;
        case StmtKind::Expr: {
          // A docstring; any other expression is evaluated (it may raise) and dropped.
          auto& e = static_cast<const ExprStmt&>(*s);
          if (!isa<Constant>(e.value.get())) eval(*e.value);
          break;
        }
        case StmtKind::Unparsed: {
          // A statement (or the whole body) the parser skipped: named by its first word.
          auto& u = static_cast<const Unparsed&>(*s);
          refuse(*s, u.reason.empty() ? "a '" + u.first_token + "' statement"
                                      : "its body is not parsed: " + u.reason);
        }
        default: refuse(*s, "a '" + keyword(s->kind) + "' statement");
      }
    }
    return false;
  }

 private:
  Value eval(const Expr& e) { return evaluate(e, module_, &locals_); }

  [[noreturn]] void refuse(const Stmt& s, const std::string& what) {
    throw FrontendError(s.loc, "cannot evaluate the plain function '" + f_.name + "' at module level: " +
                                   what + " (weir runs assignments, if statements and returns)");
  }

  void bind(const Expr& target, const Value& v) {
    if (auto* n = dyn_cast<Name>(&target)) {
      locals_[n->id] = v;
      return;
    }
    const ExprList* elts = nullptr;
    if (auto* t = dyn_cast<Tuple>(&target)) elts = &t->elts;
    if (auto* l = dyn_cast<List>(&target)) elts = &l->elts;
    if (!elts)
      throw FrontendError(target.loc, "cannot evaluate the plain function '" + f_.name +
                                          "' at module level: an assignment to '" + unparse(target) + "'");
    if (v.kind != ValueKind::Sequence || v.elements.size() != elts->size())
      throw FrontendError(
          target.loc, "cannot unpack " + v.describe() + " into " + std::to_string(elts->size()) + " names");
    for (std::size_t i = 0; i < elts->size(); ++i) bind(*(*elts)[i], v.elements[i]);
  }

  const FunctionDef& f_;
  const LoadedModule& module_;
  std::map<std::string, Value> locals_;
};

}  // namespace

Value call_plain_function(const Value& fn, const std::vector<Value>& args,
                          const std::vector<std::pair<std::string, Value>>& keywords, const Call& call) {
  const FunctionDef& f = *fn.plain_function;
  const LoadedModule& m = *fn.module;
  std::string what = "cannot call '" + unparse(call) + "' at module level: ";
  if (!f.decorators.empty())
    throw FrontendError(call.loc, what + "'" + f.name + "' is decorated (weir calls undecorated functions)");
  if (call_depth >= kMaxCallDepth)
    throw FrontendError(call.loc, what + "calls nested more than " + std::to_string(kMaxCallDepth) + " deep");
  FunctionRun run(f, m);
  std::map<std::string, Value>& locals = run.locals();
  std::size_t next = 0;
  for (const Parameter& p : f.params) {
    if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::VarKeywords)
      throw FrontendError(p.loc, what + "'" + f.name + "' takes *args or **kwargs");
    if (p.kind != ParamKind::KeywordOnly && next < args.size()) locals[p.name] = args[next++];
  }
  if (next < args.size())
    throw FrontendError(call.loc, what + "'" + f.name + "' takes " + std::to_string(next) +
                                      " positional argument(s), " + std::to_string(args.size()) + " given");
  for (const auto& kw : keywords) {
    const std::string& name = kw.first;
    const Value& v = kw.second;
    auto it = std::find_if(f.params.begin(), f.params.end(), [&](const Parameter& p) {
      return p.name == name && p.kind != ParamKind::PositionalOnly;
    });
    if (it == f.params.end())
      throw FrontendError(call.loc, what + "'" + f.name + "' has no parameter '" + name + "'");
    if (!locals.emplace(name, v).second)
      throw FrontendError(call.loc, what + "'" + name + "' is given twice");
  }
  for (const Parameter& p : f.params) {
    if (locals.count(p.name)) continue;
    // Python evaluates defaults once, where the function is defined; weir at the call, which
    // gives the same value for the constant expressions defaults are.
    if (!p.default_value) throw FrontendError(call.loc, what + "no value for parameter '" + p.name + "'");
    locals[p.name] = evaluate(*p.default_value, m);
  }
  ++call_depth;
  struct Leave {
    ~Leave() { --call_depth; }
  } leave;
  Value result;
  if (!run.run(f.body, result))
    throw FrontendError(call.loc, what + "'" + f.name + "' ends without returning a value (it returns None)");
  return result;
}

}  // namespace weir::frontend
