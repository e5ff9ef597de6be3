// Checking orchestration functions (see orchestration.h): statements, calls, scalar expressions,
// field rebinding, local fields and inlining of nested orchestration functions.
#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "lowering_internal.h"
#include "orchestration_flow.h"
#include "out_hazards.h"
#include "type_checker_internal.h"
#include "weir/frontend/orchestration.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/promotion.h"

namespace weir::frontend {
namespace {

using typecheck::mk;

TExprPtr literal(const ConstantValue& c, const SourceLocation& loc) {
  ScalarKind k = c.kind == ConstantValue::Kind::Float  ? ScalarKind::Float64
                 : c.kind == ConstantValue::Kind::Bool ? ScalarKind::Bool
                                                       : ScalarKind::Int64;
  auto e = mk(TExprKind::Literal, Type::scalar(k), loc);
  e->literal = c;
  return e;
}

TExprPtr int_literal(std::int64_t v, const SourceLocation& loc) {
  ConstantValue c;
  c.kind = ConstantValue::Kind::Int;
  c.int_value = v;
  return literal(c, loc);
}

// The type of arithmetic on two scalars: weir's one promotion table (weir/sdfg/promotion.h),
// the same as tasklet code computes in.
ScalarKind arith(ScalarKind a, ScalarKind b) {
  return lowering::from_sdfg_type(
      arithmetic_result_type(lowering::to_sdfg_type(a), lowering::to_sdfg_type(b)));
}

// What a name stands for while checking one (possibly inlined) function body.
struct Frame {
  const LoadedModule* module = nullptr;
  std::string prefix;            // "" for the top function, "__g1_" when inlined
  std::set<std::string> locals;  // source names bound in this body
  std::vector<const FunctionDef*>* stack = nullptr;
  std::string var(const std::string& n) const { return prefix + n; }
};

class Checker {
 public:
  Checker(TypeChecker& tc, Orchestration& out) : tc_(tc), out_(out) {}

  void top(const FunctionDef& f, const LoadedModule& m) {
    std::vector<const FunctionDef*> stack{&f};
    Frame fr{&m, "", {}, &stack};
    for (const Parameter& p : f.params) {
      param_kind(p, f);
      fr.locals.insert(p.name);
      TParam tp{p.name, Type{}, p.loc};
      if (p.annotation) {
        tp.type = annotation(*p.annotation, m);
        declare(p.name, tp.type, p.loc);
      } else {
        pending_.insert(p.name);
      }
      out_.params.push_back(tp);
    }
    collect_locals(f.body, fr.locals);
    out_.body = block(f.body, fr, 0, true);
    for (TParam& p : out_.params) {
      if (pending_.count(p.name))
        throw FrontendError(p.loc,
                            "cannot infer the type of parameter '" + p.name +
                                "' from its uses: annotate it (e.g. 'gtx.Field[[IDim], float64]' or 'int')");
      p.type = out_.fields.count(p.name) ? out_.fields.at(p.name) : out_.scalars.at(p.name);
    }
  }

 private:
  TypeChecker& tc_;
  Orchestration& out_;
  std::set<std::string> pending_;  // unannotated parameters of the top function, type unknown yet
  int inlined_ = 0, wrapped_ = 0;
  std::vector<OStmt> reductions_;  // the Reduce statements the statement being checked needs
  int reduced_ = 0;                // Reduce statements so far (their scalars: __reduce<n>)

  [[noreturn]] static void unsupported(const SourceLocation& loc, const std::string& what) {
    throw FrontendError(loc, what + " is not supported in an orchestrated function");
  }

  static void param_kind(const Parameter& p, const FunctionDef& f) {
    if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::VarKeywords)
      unsupported(p.loc, std::string(p.kind == ParamKind::VarArgs ? "'*" : "'**") + p.name + "'");
    if (p.default_value)
      unsupported(p.default_value->loc,
                  "a default value (of parameter '" + p.name + "' of '" + f.name + "')");
  }

  static Type annotation(const Expr& a, const LoadedModule& m) {
    Value v = evaluate(a, m);
    Type t = value_to_type(v, a.loc);
    if (!t.is_field() && !t.is_scalar())
      throw FrontendError(
          a.loc, "parameters of an orchestrated function are fields or scalars, got " + to_string(t));
    return t;
  }

  static void collect_locals(const StmtList& body, std::set<std::string>& out) {
    std::function<void(const Expr&)> target = [&](const Expr& e) {
      if (auto* n = dyn_cast<Name>(&e)) out.insert(n->id);
      if (auto* t = dyn_cast<Tuple>(&e))
        for (const ExprPtr& x : t->elts) target(*x);
    };
    for (const StmtPtr& s : body) {
      if (auto* a = dyn_cast<Assign>(s.get()))
        for (const ExprPtr& t : a->targets) target(*t);
      if (auto* a = dyn_cast<AnnAssign>(s.get())) target(*a->target);
      if (auto* a = dyn_cast<AugAssign>(s.get())) target(*a->target);
      if (auto* f = dyn_cast<For>(s.get())) {
        target(*f->target);
        collect_locals(f->body, out);
      }
      if (auto* w = dyn_cast<While>(s.get())) collect_locals(w->body, out);
      if (auto* i = dyn_cast<If>(s.get())) {
        collect_locals(i->body, out);
        collect_locals(i->orelse, out);
      }
    }
  }

  void declare(const std::string& var, const Type& t, const SourceLocation& loc) {
    if (t.is_field()) {
      if (out_.scalars.count(var))
        throw FrontendError(loc, "'" + var + "' is a scalar here; it cannot name a field too");
      auto [it, fresh] = out_.fields.emplace(var, t);
      if (!fresh && !(it->second == t))
        throw FrontendError(loc, "'" + var + "' names a " + to_string(it->second) + "; it cannot name a " +
                                     to_string(t) + " too (rebinding keeps a field variable's type)");
    } else {
      if (out_.fields.count(var))
        throw FrontendError(loc, "'" + var + "' is a field here; it cannot hold a scalar too");
      auto [it, fresh] = out_.scalars.emplace(var, t);
      if (!fresh && it->second.dtype != t.dtype) {
        // A scalar variable keeps its first dtype; numbers assigned later convert to it, as
        // long as no float goes into an integer.
        if (is_floating(t.dtype) && !is_floating(it->second.dtype))
          throw FrontendError(loc, "'" + var + "' holds " + to_string(it->second) + "; assigning " +
                                       to_string(t) + " would change its type");
      }
    }
  }

  // ------------------------------------------------------------------------- statements

  std::vector<OStmt> block(const StmtList& body, Frame& fr, int loops, bool top_level) {
    std::vector<OStmt> out;
    for (std::size_t i = 0; i < body.size(); ++i) {
      const Stmt& s = *body[i];
      bool last = top_level && i + 1 == body.size();
      statement(s, fr, loops, last, out);
    }
    return out;
  }

  // One statement, after the Reduce statements its expressions need (computed first, in order).
  void statement(const Stmt& s, Frame& fr, int loops, bool last, std::vector<OStmt>& out) {
    std::vector<OStmt> outer = std::exchange(reductions_, {});
    const std::size_t at = out.size();
    statement_kind(s, fr, loops, last, out);
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(reductions_.begin()),
               std::make_move_iterator(reductions_.end()));
    reductions_ = std::move(outer);
  }

  void statement_kind(const Stmt& s, Frame& fr, int loops, bool last, std::vector<OStmt>& out) {
    switch (s.kind) {
      case StmtKind::Pass: return;
      case StmtKind::Expr: {
        auto& e = static_cast<const ExprStmt&>(s);
        if (auto* c = dyn_cast<Constant>(e.value.get()); c && c->value_kind == ConstantKind::String) return;
        auto* c = dyn_cast<Call>(e.value.get());
        if (!c) unsupported(e.value->loc, "an expression statement ('" + unparse(*e.value) + "')");
        return call(*c, fr, out);
      }
      case StmtKind::Assign: {
        auto& a = static_cast<const Assign&>(s);
        if (a.targets.size() != 1) unsupported(a.targets[1]->loc, "chained assignment ('a = b = ...')");
        return assign(*a.targets[0], *a.value, fr, out, s.loc);
      }
      case StmtKind::AnnAssign: {
        auto& a = static_cast<const AnnAssign&>(s);
        if (!a.value) unsupported(s.loc, "an annotation without a value");
        return assign(*a.target, *a.value, fr, out, s.loc);
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssign&>(s);
        auto* n = dyn_cast<Name>(a.target.get());
        if (!n) unsupported(a.target->loc, "augmented assignment to '" + unparse(*a.target) + "'");
        if (out_.fields.count(fr.var(n->id)))
          unsupported(s.loc,
                      "augmented assignment to the field '" + n->id + "' (call a program to compute it)");
        TExprPtr cur = scalar(*a.target, fr, ScalarKind::Float64);
        TExprPtr v = scalar(*a.value, fr, cur->type.dtype);
        TExprPtr r = binary(a.op, cur, v, s.loc);
        OStmt o;
        o.kind = OStmt::Kind::Assign;
        o.loc = s.loc;
        declare(fr.var(n->id), r->type, s.loc);
        o.targets = {fr.var(n->id)};
        o.values = {r};
        out.push_back(std::move(o));
        return;
      }
      case StmtKind::If: {
        auto& i = static_cast<const If&>(s);
        OStmt o;
        o.kind = OStmt::Kind::If;
        o.loc = s.loc;
        o.values = {condition(*i.test, fr)};
        o.body = block(i.body, fr, loops, false);
        o.orelse = block(i.orelse, fr, loops, false);
        out.push_back(std::move(o));
        return;
      }
      case StmtKind::For: return for_loop(static_cast<const For&>(s), fr, loops, out);
      case StmtKind::While: {
        auto& w = static_cast<const While&>(s);
        if (!w.orelse.empty()) unsupported(w.orelse[0]->loc, "'while ... else'");
        OStmt o;
        o.kind = OStmt::Kind::While;
        o.loc = s.loc;
        const std::size_t before = reductions_.size();
        o.values = {condition(*w.test, fr)};
        // A Reduce statement runs once before the statement; the condition is tested again
        // after every iteration.
        if (reductions_.size() != before)
          unsupported(reductions_[before].loc,
                      "a reduction in a 'while' condition (assign it to a variable before the loop and "
                      "again at the end of its body)");
        o.body = block(w.body, fr, loops + 1, false);
        out.push_back(std::move(o));
        return;
      }
      case StmtKind::Break:
      case StmtKind::Continue: {
        bool brk = s.kind == StmtKind::Break;
        if (loops == 0)
          throw FrontendError(s.loc, std::string("'") + (brk ? "break" : "continue") + "' outside loop");
        OStmt o;
        o.kind = brk ? OStmt::Kind::Break : OStmt::Kind::Continue;
        o.loc = s.loc;
        out.push_back(std::move(o));
        return;
      }
      case StmtKind::Return: {
        auto& r = static_cast<const Return&>(s);
        if (r.value) unsupported(r.value->loc, "returning a value");
        if (!last) unsupported(s.loc, "'return' before the end of the function");
        return;
      }
      case StmtKind::FunctionDef:
        unsupported(s.loc,
                    "a nested function definition ('" + static_cast<const FunctionDef&>(s).name + "')");
      case StmtKind::ClassDef: unsupported(s.loc, "a class definition");
      case StmtKind::Import:
      case StmtKind::ImportFrom: unsupported(s.loc, "an import inside the function (import at module level)");
      case StmtKind::Unparsed: unsupported(s.loc, "'" + static_cast<const Unparsed&>(s).first_token + "'");
    }
    unsupported(s.loc, "this statement");
  }

  void for_loop(const For& f, Frame& fr, int loops, std::vector<OStmt>& out) {
    if (!f.orelse.empty()) unsupported(f.orelse[0]->loc, "'for ... else'");
    auto* var = dyn_cast<Name>(f.target.get());
    if (!var) unsupported(f.target->loc, "a loop target other than one name ('" + unparse(*f.target) + "')");
    auto* c = dyn_cast<Call>(f.iter.get());
    auto* fn = c ? dyn_cast<Name>(c->func.get()) : nullptr;
    if (!fn || fn->id != "range" || fr.locals.count("range"))
      unsupported(f.iter->loc, "iterating over '" + unparse(*f.iter) + "' (only 'for i in range(...)')");
    if (!c->keywords.empty()) unsupported(c->keywords[0].loc, "keyword arguments of range()");
    if (c->args.empty() || c->args.size() > 3)
      throw FrontendError(c->loc, "range() takes 1 to 3 arguments, got " + std::to_string(c->args.size()));
    std::vector<TExprPtr> b;
    for (const ExprPtr& a : c->args) {
      TExprPtr e = scalar(*a, fr, ScalarKind::Int64);
      if (!is_integral(e->type.dtype))
        throw FrontendError(a->loc, "range() bounds must be integers, got " + to_string(e->type));
      b.push_back(e);
    }
    OStmt o;
    o.kind = OStmt::Kind::For;
    o.loc = f.loc;
    if (b.size() == 1) b.insert(b.begin(), int_literal(0, c->loc));
    if (b.size() == 2) b.push_back(int_literal(1, c->loc));
    const TExpr& st = *b[2];
    bool lit =
        st.kind == TExprKind::Literal || (st.kind == TExprKind::Unary && st.unary_op == UnaryOperator::USub &&
                                          st.args[0]->kind == TExprKind::Literal);
    if (!lit)
      throw FrontendError(
          c->args[2]->loc,
          "the step of range() must be an integer literal (its sign decides the loop's direction)");
    o.step = st.kind == TExprKind::Literal ? st.literal.int_value : -st.args[0]->literal.int_value;
    if (o.step == 0) throw FrontendError(c->args[2]->loc, "range() arg 3 must not be zero");
    declare(fr.var(var->id), Type::scalar(ScalarKind::Int64), var->loc);
    o.targets = {fr.var(var->id)};
    o.values = std::move(b);
    o.body = block(f.body, fr, loops + 1, false);
    out.push_back(std::move(o));
  }

  // `x = ...` / `a, b = c, d`: fields rebind, scalars are computed, gtx.zeros/empty allocate.
  void assign(const Expr& target, const Expr& value, Frame& fr, std::vector<OStmt>& out,
              const SourceLocation& loc) {
    std::vector<const Expr*> ts, vs;
    if (auto* t = dyn_cast<Tuple>(&target)) {
      auto* v = dyn_cast<Tuple>(&value);
      if (!v) unsupported(value.loc, "unpacking '" + unparse(value) + "' (give a tuple of the same length)");
      if (v->elts.size() != t->elts.size())
        throw FrontendError(value.loc, "cannot unpack " + std::to_string(v->elts.size()) + " values into " +
                                           std::to_string(t->elts.size()) + " names");
      for (const ExprPtr& x : t->elts) ts.push_back(x.get());
      for (const ExprPtr& x : v->elts) vs.push_back(x.get());
    } else {
      ts.push_back(&target);
      vs.push_back(&value);
    }
    OStmt bind, sc;
    bind.kind = OStmt::Kind::Bind;
    sc.kind = OStmt::Kind::Assign;
    bind.loc = sc.loc = loc;
    std::vector<std::pair<std::string, Type>> decl;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      auto* n = dyn_cast<Name>(ts[i]);
      if (!n) unsupported(ts[i]->loc, "assignment to '" + unparse(*ts[i]) + "'");
      for (std::size_t j = 0; j < i; ++j)
        if (static_cast<const Name*>(ts[j])->id == n->id)
          throw FrontendError(n->loc, "'" + n->id + "' is assigned twice in one statement");
      std::string var = fr.var(n->id);
      const Expr& v = *vs[i];
      if (auto* c = dyn_cast<Call>(&v)) {
        std::string fn = callee_name(*c->func, fr);
        if (fn == "zeros" || fn == "empty") {
          if (ts.size() != 1) unsupported(c->loc, "allocating in a tuple assignment");
          return alloc(var, *c, fn == "zeros", fr, out);
        }
      }
      // An unannotated parameter renamed before any use shows its type (`u, w = w, u`): a
      // field or a scalar alike to Python, so the type cannot follow from later uses of `u`.
      if (auto* src = dyn_cast<Name>(&v); src && fr.prefix.empty() && pending_.count(src->id))
        throw FrontendError(src->loc, "cannot infer the type of parameter '" + src->id + "' (assigned to '" +
                                          n->id + "' before a use that shows it): annotate it");
      if (auto* src = dyn_cast<Name>(&v); src && is_field(src->id, fr)) {
        bind.targets.push_back(var);
        bind.sources.push_back(fr.var(src->id));
        decl.emplace_back(var, out_.fields.at(fr.var(src->id)));
        continue;
      }
      if (auto* c = dyn_cast<Call>(&v); c && !reduction_form(*c, fr) && !scalar_builtin(*c, fr))
        unsupported(c->loc, "assigning the result of '" + unparse(*c->func) +
                                "(...)' (programs write their out= fields and return nothing)");
      if (out_.fields.count(var))
        throw FrontendError(v.loc,
                            "'" + n->id + "' names a field; it can only be rebound to another field name");
      TExprPtr e = scalar(v, fr, out_.scalars.count(var) ? out_.scalars.at(var).dtype : ScalarKind::Float64);
      sc.targets.push_back(var);
      sc.values.push_back(e);
      decl.emplace_back(var, e->type);
    }
    for (auto& [var, t] : decl) declare(var, t, loc);
    if (!bind.targets.empty()) out.push_back(std::move(bind));
    if (!sc.targets.empty()) out.push_back(std::move(sc));
  }

  // `gtx.zeros({IDim: n, JDim: m}, dtype=gtx.float64)` (also `gtx.domain({...})`, `(lo, hi)`
  // ranges, whose extent is hi - lo).
  void alloc(const std::string& var, const Call& c, bool zero, Frame& fr, std::vector<OStmt>& out) {
    const Expr* dom = c.args.empty() ? nullptr : c.args[0].get();
    const Expr* dtype = c.args.size() > 1 ? c.args[1].get() : nullptr;
    for (const Keyword& k : c.keywords) {
      if (k.arg == "domain")
        dom = k.value.get();
      else if (k.arg == "dtype")
        dtype = k.value.get();
      else if (k.arg != "allocator")
        unsupported(k.loc, "the keyword '" + k.arg + "' of gtx.zeros/gtx.empty");
    }
    if (!dom) throw FrontendError(c.loc, "gtx.zeros/gtx.empty need a domain {Dim: size, ...}");
    if (auto* dc = dyn_cast<Call>(dom); dc && dc->args.size() == 1) dom = dc->args[0].get();
    auto* d = dyn_cast<Dict>(dom);
    if (!d || d->keys.empty())
      throw FrontendError(dom->loc, "the domain of a local field must be a dict {Dim: size, ...}");
    OStmt o;
    o.kind = OStmt::Kind::Alloc;
    o.loc = c.loc;
    o.zero = zero;
    o.targets = {var};
    ScalarKind k = ScalarKind::Float64;
    if (dtype) k = value_to_type(evaluate(*dtype, *fr.module), dtype->loc).dtype;
    std::vector<Dimension> dims;
    for (std::size_t i = 0; i < d->keys.size(); ++i) {
      if (!d->keys[i])
        throw FrontendError(d->values[i]->loc, "the domain of a local field must be a dict {Dim: size, ...}");
      Value dv = evaluate(*d->keys[i], *fr.module);
      if (dv.kind != ValueKind::Dimension)
        throw FrontendError(d->keys[i]->loc, "domain keys must be dimensions, got " + dv.describe());
      dims.push_back(dv.dim);
      TExprPtr ext;
      if (auto* r = dyn_cast<Tuple>(d->values[i].get()); r && r->elts.size() == 2) {
        TExprPtr lo = scalar(*r->elts[0], fr, ScalarKind::Int64),
                 hi = scalar(*r->elts[1], fr, ScalarKind::Int64);
        ext = binary(BinaryOperator::Sub, hi, lo, r->loc);
      } else {
        ext = scalar(*d->values[i], fr, ScalarKind::Int64);
      }
      if (!is_integral(ext->type.dtype))
        throw FrontendError(d->values[i]->loc,
                            "the size of a local field must be an integer, got " + to_string(ext->type));
      // The SDFG's array extent is integer arithmetic of int symbols, known before anything
      // runs: a float truncated by a cast is none (both backends refuse it alike).
      if (const TExpr* f = float_part(*ext))
        throw FrontendError(f->loc,
                            "the size of a local field must be integer arithmetic of int parameters, "
                            "got a float (" +
                                to_string(f->type) + ") truncated; pass the size as an int32");
      o.values.push_back(ext);
    }
    if (canonical_dims(dims) != dims)
      throw FrontendError(
          dom->loc, "give the dimensions of a local field in canonical order (horizontal, local, vertical)");
    o.type = Type::field(dims, k);
    if (out_.fields.count(var) && !(out_.fields.at(var) == o.type))
      throw FrontendError(c.loc, "'" + var + "' names a " + to_string(out_.fields.at(var)) +
                                     "; it cannot name a " + to_string(o.type) + " too");
    declare(var, o.type, c.loc);
    out.push_back(std::move(o));
  }

  // ------------------------------------------------------------------------- calls

  // The module-level value a callee expression names, with plain functions resolved (their
  // values are Failed for field-view code). Locals shadow module names.
  Value global(const Expr& e, const Frame& fr) {
    if (auto* n = dyn_cast<Name>(&e)) {
      if (fr.locals.count(n->id))
        throw FrontendError(e.loc,
                            "'" + n->id + "' is a variable of the function, not a program or function");
      auto it = fr.module->names.find(n->id);
      if (it != fr.module->names.end() && it->second.plain_function) return it->second;
    }
    if (auto* a = dyn_cast<Attribute>(&e)) {
      Value base = global(*a->value, fr);
      if (base.kind == ValueKind::Module) {
        auto it = base.module->names.find(a->attr);
        if (it != base.module->names.end() && it->second.plain_function) return it->second;
      }
    }
    return evaluate(e, *fr.module);
  }

  std::string callee_name(const Expr& func, const Frame& fr) {
    try {
      Value v = global(func, fr);
      if (v.kind == ValueKind::Builtin) return v.name;
    } catch (const FrontendError&) {
    }
    return "";
  }

  // The first float-valued part of a scalar expression, or null.
  static const TExpr* float_part(const TExpr& e) {
    if (is_floating(e.type.dtype)) return &e;
    for (const TExprPtr& a : e.args)
      if (const TExpr* f = a ? float_part(*a) : nullptr) return f;
    return nullptr;
  }

  bool is_field(const std::string& n, Frame& fr) {
    std::string var = fr.var(n);
    if (out_.fields.count(var)) return true;
    return false;
  }

  void call(const Call& c, Frame& fr, std::vector<OStmt>& out) {
    Value f;
    try {
      f = global(*c.func, fr);
    } catch (const FrontendError& e) {
      // `print(...)`, `np.save(...)`: names field-view code does not know.
      if (e.message().rfind("unknown name", 0) == 0 && isa<Name>(c.func.get()))
        unsupported(c.func->loc, "'" + unparse(*c.func) + "'");
      throw;
    }
    if (f.plain_function) return inline_call(c, *f.plain_function, *f.module, fr, out);
    if (f.kind == ValueKind::Definition) {
      const Definition& d = *f.definition;
      if (!d.error.empty()) throw FrontendError(d.error_loc, d.error);
      const TypedDefinition& callee = tc_.check(d);
      if (d.kind == DefinitionKind::Program) return program_call(c, callee, fr, out);
      return operator_call(c, callee, fr, out);
    }
    std::string what = f.kind == ValueKind::Builtin ? "'" + f.name + "'" : "calling " + f.describe();
    if (f.kind == ValueKind::External) what = "'" + f.name + "' (from a module not on the search path)";
    unsupported(c.func->loc, what);
  }

  // Positional and keyword arguments in `params` order; `offset_provider=` is gt4py's and
  // ignored; `skip` names keywords the caller handles (out=, domain=).
  std::vector<const Expr*> match(const Call& c, const std::vector<TParam>& params, const std::string& callee,
                                 const std::set<std::string>& skip) {
    std::vector<const Expr*> args(params.size(), nullptr);
    for (const ExprPtr& a : c.args) {
      if (isa<Starred>(a.get())) unsupported(a->loc, "'*' arguments");
    }
    if (c.args.size() > params.size())
      throw FrontendError(c.args[params.size()]->loc, "'" + callee + "' takes " +
                                                          std::to_string(params.size()) + " arguments, got " +
                                                          std::to_string(c.args.size()));
    for (std::size_t i = 0; i < c.args.size(); ++i) args[i] = c.args[i].get();
    for (const Keyword& k : c.keywords) {
      if (k.arg.empty()) unsupported(k.loc, "'**' arguments");
      if (k.arg == "offset_provider" || skip.count(k.arg)) continue;
      auto it = std::find_if(params.begin(), params.end(), [&](const TParam& p) { return p.name == k.arg; });
      if (it == params.end()) throw FrontendError(k.loc, "'" + callee + "' has no parameter '" + k.arg + "'");
      std::size_t i = static_cast<std::size_t>(it - params.begin());
      if (args[i])
        throw FrontendError(k.loc, "'" + callee + "' got two values for parameter '" + k.arg + "'");
      args[i] = k.value.get();
    }
    for (std::size_t i = 0; i < params.size(); ++i)
      if (!args[i])
        throw FrontendError(c.loc, "missing argument '" + params[i].name + "' in call to '" + callee + "'");
    return args;
  }

  // A field argument: a field variable of the callee parameter's type (an unannotated
  // parameter takes that type here).
  std::string field_arg(const Expr& a, const Type& want, const std::string& what, Frame& fr) {
    auto* n = dyn_cast<Name>(&a);
    if (!n) throw FrontendError(a.loc, what + " must be a field variable, got '" + unparse(a) + "'");
    std::string var = fr.var(n->id);
    if (fr.prefix.empty() && pending_.count(n->id)) {
      pending_.erase(n->id);
      declare(var, want, a.loc);
    }
    if (!out_.fields.count(var)) {
      if (out_.scalars.count(var))
        throw FrontendError(a.loc,
                            what + " must be a field, '" + n->id + "' is " + to_string(out_.scalars.at(var)));
      if (!fr.locals.count(n->id))
        throw FrontendError(a.loc,
                            what + " must be a field variable of the function, '" + n->id + "' is not one");
      throw FrontendError(a.loc, "'" + n->id + "' is used before it names a field");
    }
    const Type& have = out_.fields.at(var);
    if (!(have == want))
      throw FrontendError(
          a.loc, what + " has type " + to_string(want) + ", got '" + n->id + "' of type " + to_string(have));
    return var;
  }

  /// Whether a call of program `d` writes its parameter `name` (an out= target).
  static bool writes(const TypedDefinition& d, const std::string& name) {
    for (const ProgramCall& pc : d.calls)
      for (const auto& o : pc.outs)
        if (o.name == name) return true;
    return false;
  }

  /// `written`: the callee writes `p` (a program's out= target).
  OArg arg_for(const Expr& a, const TParam& p, const std::string& callee, Frame& fr, bool written = false) {
    OArg r;
    std::string what = "argument '" + p.name + "' of '" + callee + "'";
    if (p.type.is_field()) {
      r.field = field_arg(a, p.type, what, fr);
    } else if (p.type.is_scalar()) {
      if (p.type.zero_dim && written)
        unsupported(a.loc, what + " is a 0-d field '" + callee +
                               "' writes (out=); orchestration functions "
                               "do not pass 0-d outputs yet: call the program on its own");
      r.scalar = scalar(a, fr, p.type.dtype);
      if (is_floating(r.scalar->type.dtype) && !is_floating(p.type.dtype))
        throw FrontendError(a.loc, what + " is " + to_string(p.type) + ", got " + to_string(r.scalar->type));
    } else {
      unsupported(a.loc, what + " of type " + to_string(p.type));
    }
    return r;
  }

  void remember(const TypedDefinition* d) {
    if (std::find(out_.callees.begin(), out_.callees.end(), d) == out_.callees.end())
      out_.callees.push_back(d);
  }

  void program_call(const Call& c, const TypedDefinition& p, Frame& fr, std::vector<OStmt>& out) {
    for (const Keyword& k : c.keywords)
      if ((k.arg == "out" || k.arg == "domain") &&
          std::none_of(p.declared_params.begin(), p.declared_params.end(),
                       [&](const TParam& tp) { return tp.name == k.arg; }))
        throw FrontendError(k.loc, "'" + p.name + "' is a program: it writes its own out= fields (" + k.arg +
                                       "= is for field operators)");
    const std::vector<TParam>& declared = p.declared_params.empty() ? p.params : p.declared_params;
    std::vector<const Expr*> given = match(c, declared, p.name, {});
    // A tuple parameter takes a tuple written out, `(a, (b, c))`: one argument per element
    // (p.params holds them flat, in this order).
    std::vector<const Expr*> args;
    std::function<void(const Expr&, const Type&, const std::string&)> flat = [&](const Expr& a, const Type& t,
                                                                                 const std::string& name) {
      if (!t.is_tuple()) {
        args.push_back(&a);
        return;
      }
      auto* tu = dyn_cast<Tuple>(&a);
      if (!tu || tu->elts.size() != t.elements.size())
        throw FrontendError(a.loc, "argument '" + name + "' of '" + p.name + "' has type " + to_string(t) +
                                       ": pass a tuple of its " + std::to_string(t.elements.size()) +
                                       " elements written out, (a, b, ...), got '" + unparse(a) + "'");
      for (std::size_t i = 0; i < t.elements.size(); ++i)
        flat(*tu->elts[i], t.elements[i], name + "[" + std::to_string(i) + "]");
    };
    for (std::size_t i = 0; i < given.size(); ++i) flat(*given[i], declared[i].type, declared[i].name);
    OStmt o;
    o.kind = OStmt::Kind::Call;
    o.loc = c.loc;
    o.callee = &p;
    for (std::size_t i = 0; i < args.size(); ++i)
      o.args.push_back(arg_for(*args[i], p.params[i], p.name, fr, writes(p, p.params[i].name)));
    remember(&p);
    out.push_back(std::move(o));
  }

  // `op(a, b, out=c, domain={I: (0, n)})`: wrapped into a program with one call, whose
  // parameters are the fields passed (once each), the scalar arguments and the domain bounds.
  void operator_call(const Call& c, const TypedDefinition& op, Frame& fr, std::vector<OStmt>& out) {
    const Expr* out_e = nullptr;
    const Expr* dom = nullptr;
    for (const Keyword& k : c.keywords) {
      if (k.arg == "out") out_e = k.value.get();
      if (k.arg == "domain") dom = k.value.get();
    }
    if (!out_e) throw FrontendError(c.loc, "missing 'out=' in call to the field operator '" + op.name + "'");
    std::vector<const Expr*> args = match(c, op.params, op.name, {"out", "domain"});
    auto prog = std::make_unique<TypedDefinition>();
    prog->kind = DefinitionKind::Program;
    prog->name = "__" + op.name + "_call" + std::to_string(wrapped_++);
    prog->loc = c.loc;
    prog->returns = Type::none();
    OStmt o;
    o.kind = OStmt::Kind::Call;
    o.loc = c.loc;
    ProgramCall pc;
    pc.callee = &op;
    pc.loc = c.loc;
    std::map<std::string, std::string> field_param;  // variable -> program parameter
    auto taken = [&](const std::string& name) {
      return std::any_of(prog->params.begin(), prog->params.end(),
                         [&](const TParam& q) { return q.name == name; });
    };
    // A field parameter is named as the caller's variable (`e` is the argument: `acc` of
    // `add(tmp, acc, out=acc)`), so that errors of the call name what the user wrote (`acc_1`
    // for a second variable of that name); "f0", ... only for an argument that is no name.
    auto field_param_of = [&](const std::string& var, const Type& t, const SourceLocation& loc,
                              const Expr& e) {
      auto it = field_param.find(var);
      if (it != field_param.end()) return it->second;
      auto* n = dyn_cast<Name>(&e);
      const std::string written = n && n->id.rfind("__", 0) != 0 ? n->id : "";
      std::string name = written;
      // Two variables the user named alike (an inlined function's `u` and the caller's): `u_1`.
      for (std::size_t k = 1; !written.empty() && taken(name); ++k) name = written + "_" + std::to_string(k);
      for (std::size_t k = field_param.size(); name.empty() || taken(name); ++k)
        name = "f" + std::to_string(k);
      field_param[var] = name;
      prog->params.push_back({name, t, loc});
      OArg a;
      a.field = var;
      o.args.push_back(a);
      return name;
    };
    auto scalar_param = [&](TExprPtr e, ScalarKind k, const SourceLocation& loc) {
      std::string name = "s" + std::to_string(prog->params.size());
      while (taken(name)) name = "_" + name;
      prog->params.push_back({name, Type::scalar(k), loc});
      OArg a;
      a.scalar = std::move(e);
      o.args.push_back(a);
      auto n = mk(TExprKind::Name, Type::scalar(k), loc);
      n->name = name;
      return n;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
      const TParam& p = op.params[i];
      OArg a = arg_for(*args[i], p, op.name, fr);
      if (p.type.is_field()) {
        auto n = mk(TExprKind::Name, p.type, args[i]->loc);
        n->name = field_param_of(a.field, p.type, args[i]->loc, *args[i]);
        pc.args.push_back(n);
      } else {
        pc.args.push_back(scalar_param(a.scalar, p.type.dtype, args[i]->loc));
      }
    }
    std::vector<const Expr*> outs;
    if (auto* t = dyn_cast<Tuple>(out_e)) {
      for (const ExprPtr& x : t->elts) outs.push_back(x.get());
    } else {
      outs.push_back(out_e);
    }
    std::vector<Type> results = op.returns.is_tuple() ? op.returns.elements : std::vector<Type>{op.returns};
    if (results.size() != outs.size())
      throw FrontendError(out_e->loc, "'" + op.name + "' returns " + to_string(op.returns) + ", out= gives " +
                                          std::to_string(outs.size()) + " field" +
                                          (outs.size() == 1 ? "" : "s"));
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const Expr* base = outs[i];
      const Expr* index = nullptr;
      if (auto* s = dyn_cast<Subscript>(base)) {
        base = s->value.get();
        index = s->index.get();
      }
      if (!results[i].is_field())
        unsupported(outs[i]->loc, "a field operator returning " + to_string(results[i]));
      std::string var = field_arg(*base, results[i], "out= of '" + op.name + "'", fr);
      ProgramCall::Out po;
      po.name = field_param_of(var, results[i], base->loc, *base);
      po.type = results[i];
      if (index) {
        std::vector<const Expr*> parts;
        if (auto* tu = dyn_cast<Tuple>(index)) {
          for (const ExprPtr& x : tu->elts) parts.push_back(x.get());
        } else {
          parts.push_back(index);
        }
        if (parts.size() > results[i].dims.size())
          throw FrontendError(index->loc, "too many slices for " + to_string(results[i]));
        for (const Expr* part : parts) {
          auto* sl = dyn_cast<Slice>(part);
          if (!sl || sl->step)
            throw FrontendError(part->loc, "out= may only be sliced with ranges such as 1:-1");
          auto bound = [&](const Expr* b) -> std::optional<std::int64_t> {
            if (!b) return std::nullopt;
            TExprPtr t = scalar(*b, fr, ScalarKind::Int64);
            bool neg = t->kind == TExprKind::Unary && t->unary_op == UnaryOperator::USub &&
                       t->args[0]->kind == TExprKind::Literal;
            if (t->kind != TExprKind::Literal && !neg)
              throw FrontendError(b->loc, "slice bounds of out= must be integer literals");
            return neg ? -t->args[0]->literal.int_value : t->literal.int_value;
          };
          po.slices.emplace_back(bound(sl->lower.get()), bound(sl->upper.get()));
        }
      }
      pc.outs.push_back(std::move(po));
    }
    if (dom) {
      if (index_used(pc)) throw FrontendError(dom->loc, "give either domain= or a sliced out=, not both");
      auto* d = dyn_cast<Dict>(dom);
      if (!d) throw FrontendError(dom->loc, "domain= must be a dict {Dim: (lo, hi)}");
      for (std::size_t i = 0; i < d->keys.size(); ++i) {
        if (!d->keys[i]) throw FrontendError(d->values[i]->loc, "domain= must be a dict {Dim: (lo, hi)}");
        Value dv = evaluate(*d->keys[i], *fr.module);
        if (dv.kind != ValueKind::Dimension)
          throw FrontendError(d->keys[i]->loc, "domain keys must be dimensions, got " + dv.describe());
        auto* r = dyn_cast<Tuple>(d->values[i].get());
        if (!r || r->elts.size() != 2)
          throw FrontendError(d->values[i]->loc, "a domain range must be a pair (lo, hi)");
        ProgramCall::Range range;
        range.dim = dv.dim;
        TExprPtr b[2];
        for (int j = 0; j < 2; ++j) {
          TExprPtr e = scalar(*r->elts[static_cast<std::size_t>(j)], fr, ScalarKind::Int64);
          if (!is_integral(e->type.dtype))
            throw FrontendError(r->elts[static_cast<std::size_t>(j)]->loc,
                                "a domain bound must be a scalar integer, got " + to_string(e->type));
          b[j] = scalar_param(e, ScalarKind::Int64, r->elts[static_cast<std::size_t>(j)]->loc);
        }
        range.lo = b[0];
        range.hi = b[1];
        pc.domain.push_back(range);
      }
    }
    check_out_hazards(pc);
    prog->calls.push_back(std::move(pc));
    o.callee = prog.get();
    remember(prog.get());
    out_.owned.push_back(std::move(prog));
    out.push_back(std::move(o));
  }

  static bool index_used(const ProgramCall& pc) {
    for (const auto& o : pc.outs)
      if (!o.slices.empty()) return true;
    return false;
  }

  // A nested orchestration function: its parameters become renamed variables bound to the
  // arguments (fields by Bind, scalars by Assign), then its body is checked in place.
  void inline_call(const Call& c, const FunctionDef& g, const LoadedModule& gm, Frame& fr,
                   std::vector<OStmt>& out) {
    if (std::find(fr.stack->begin(), fr.stack->end(), &g) != fr.stack->end())
      throw FrontendError(c.loc,
                          "recursive call of '" + g.name + "': orchestrated functions cannot be recursive");
    // Inlined recursively, as operators are: the same bound (type_checker.h).
    if (fr.stack->size() >= static_cast<std::size_t>(kMaxCallDepth))
      throw FrontendError(c.loc,
                          "calls nested more than " + std::to_string(kMaxCallDepth) +
                              " levels deep (orchestrated function '" + g.name +
                              "'): weir inlines every call and bounds the nesting; call fewer functions "
                              "in a chain");
    std::unique_ptr<FunctionDef> parsed = parse_function_with_loops(gm.ast.file, g.loc.line);
    const FunctionDef& def = *parsed;
    Frame inner{&gm, "__" + g.name + std::to_string(inlined_++) + "_", {}, fr.stack};
    std::vector<TParam> params;
    for (const Parameter& p : def.params) {
      param_kind(p, def);
      inner.locals.insert(p.name);
      params.push_back({p.name, Type{}, p.loc});
    }
    collect_locals(def.body, inner.locals);
    // Argument types come from the caller; an annotation must agree.
    std::vector<const Expr*> args(params.size(), nullptr);
    if (c.args.size() > params.size())
      throw FrontendError(c.args[params.size()]->loc, "'" + g.name + "' takes " +
                                                          std::to_string(params.size()) + " arguments, got " +
                                                          std::to_string(c.args.size()));
    for (std::size_t i = 0; i < c.args.size(); ++i) args[i] = c.args[i].get();
    for (const Keyword& k : c.keywords) {
      auto it = std::find_if(params.begin(), params.end(), [&](const TParam& p) { return p.name == k.arg; });
      if (it == params.end()) throw FrontendError(k.loc, "'" + g.name + "' has no parameter '" + k.arg + "'");
      args[static_cast<std::size_t>(it - params.begin())] = k.value.get();
    }
    OStmt bind, sc;
    bind.kind = OStmt::Kind::Bind;
    sc.kind = OStmt::Kind::Assign;
    bind.loc = sc.loc = c.loc;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (!args[i])
        throw FrontendError(c.loc, "missing argument '" + params[i].name + "' in call to '" + g.name + "'");
      std::string var = inner.var(params[i].name);
      const Parameter& p = def.params[i];
      std::optional<Type> ann;
      if (p.annotation) ann = annotation(*p.annotation, gm);
      auto* n = dyn_cast<Name>(args[i]);
      if (n && fr.prefix.empty() && pending_.count(n->id) && !ann)
        throw FrontendError(n->loc, "cannot infer the type of parameter '" + n->id + "' (passed on to '" +
                                        g.name + "' before a use that shows it): annotate it");
      bool fld = (n && is_field(n->id, fr)) || (ann && ann->is_field());
      if (fld) {
        Type want = ann ? *ann : out_.fields.at(fr.var(n->id));
        bind.targets.push_back(var);
        bind.sources.push_back(
            field_arg(*args[i], want, "argument '" + p.name + "' of '" + g.name + "'", fr));
        declare(var, want, p.loc);
      } else {
        TExprPtr e = scalar(*args[i], fr, ann ? ann->dtype : ScalarKind::Float64);
        Type t = ann ? *ann : e->type;
        if (ann && is_floating(e->type.dtype) && !is_floating(ann->dtype))
          throw FrontendError(args[i]->loc, "argument '" + p.name + "' of '" + g.name + "' is " +
                                                to_string(*ann) + ", got " + to_string(e->type));
        declare(var, t, p.loc);
        sc.targets.push_back(var);
        sc.values.push_back(e);
      }
    }
    if (!bind.targets.empty()) out.push_back(std::move(bind));
    if (!sc.targets.empty()) out.push_back(std::move(sc));
    fr.stack->push_back(&g);
    std::vector<OStmt> body = block(def.body, inner, 0, true);
    fr.stack->pop_back();
    for (OStmt& s : body) out.push_back(std::move(s));
    // The callee's field names end with it: unbound, so that bindings of a call in one branch
    // and none in the other do not differ after the branch.
    OStmt unbind;
    unbind.kind = OStmt::Kind::Bind;
    unbind.loc = c.loc;
    for (const auto& [var, t] : out_.fields)
      if (var.rfind(inner.prefix, 0) == 0) {
        unbind.targets.push_back(var);
        unbind.sources.emplace_back();
      }
    if (!unbind.targets.empty()) out.push_back(std::move(unbind));
  }

  // ------------------------------------------------------------------------- scalars

  TExprPtr condition(const Expr& e, Frame& fr) {
    TExprPtr t = scalar(e, fr, ScalarKind::Bool);
    if (t->type.dtype == ScalarKind::Bool) return t;
    // Python's truth value of a number: != 0.
    auto z = int_literal(0, e.loc);
    auto r = mk(TExprKind::Compare, Type::scalar(ScalarKind::Bool), e.loc);
    r->compare_op = CompareOperator::NotEq;
    r->args = {t, z};
    return r;
  }

  TExprPtr binary(BinaryOperator op, TExprPtr a, TExprPtr b, const SourceLocation& loc) {
    ScalarKind k = arith(a->type.dtype, b->type.dtype);
    switch (op) {
      case BinaryOperator::Add:
      case BinaryOperator::Sub:
      case BinaryOperator::Mult:
      case BinaryOperator::Pow:
      case BinaryOperator::FloorDiv:
      case BinaryOperator::Mod: break;
      case BinaryOperator::Div: k = k == ScalarKind::Float32 ? k : ScalarKind::Float64; break;
      default: unsupported(loc, "the operator '" + std::string(to_string(op)) + "' on scalars");
    }
    auto r = mk(TExprKind::Binary, Type::scalar(k), loc);
    r->binary_op = op;
    r->args = {std::move(a), std::move(b)};
    return r;
  }

  // A scalar expression; `hint` is the dtype an unannotated parameter takes when it is first
  // used here.
  TExprPtr scalar(const Expr& e, Frame& fr, ScalarKind hint) {
    switch (e.kind) {
      case ExprKind::Constant: {
        auto& c = static_cast<const Constant&>(e);
        ConstantValue v;
        if (c.value_kind == ConstantKind::Int) {
          v.kind = ConstantValue::Kind::Int;
          v.int_value = c.int_value;
        } else if (c.value_kind == ConstantKind::Float) {
          v.kind = ConstantValue::Kind::Float;
          v.float_value = c.float_value;
        } else if (c.value_kind == ConstantKind::Bool) {
          v.kind = ConstantValue::Kind::Bool;
          v.bool_value = c.bool_value;
        } else
          unsupported(e.loc, "the literal " + c.text);
        return literal(v, e.loc);
      }
      case ExprKind::Name: {
        auto& n = static_cast<const Name&>(e);
        std::string var = fr.var(n.id);
        if (fr.prefix.empty() && pending_.count(n.id)) {
          pending_.erase(n.id);
          declare(var, Type::scalar(hint), e.loc);
        }
        if (out_.scalars.count(var)) {
          auto r = mk(TExprKind::Name, out_.scalars.at(var), e.loc);
          r->name = var;
          return r;
        }
        if (out_.fields.count(var))
          unsupported(e.loc, "using the field '" + n.id +
                                 "' as a value (fields are passed to programs; scalars only here)");
        if (fr.locals.count(n.id)) throw FrontendError(e.loc, "'" + n.id + "' is used before it is assigned");
        return module_value(e, fr);
      }
      case ExprKind::Attribute: return module_value(e, fr);
      case ExprKind::UnaryOp: {
        auto& u = static_cast<const UnaryOp&>(e);
        TExprPtr a = scalar(*u.operand, fr, hint);
        if (u.op == UnaryOperator::Invert) unsupported(e.loc, "'~' on scalars");
        if (u.op == UnaryOperator::Not) a = condition(*u.operand, fr);
        // A negative literal stays a literal (range steps, slices).
        if (u.op == UnaryOperator::USub && a->kind == TExprKind::Literal &&
            a->literal.kind != ConstantValue::Kind::Bool) {
          auto r = std::make_shared<TExpr>(*a);
          r->loc = e.loc;
          if (r->literal.kind == ConstantValue::Kind::Int)
            r->literal.int_value = -r->literal.int_value;
          else
            r->literal.float_value = -r->literal.float_value;
          return r;
        }
        auto r = mk(TExprKind::Unary, u.op == UnaryOperator::Not ? Type::scalar(ScalarKind::Bool) : a->type,
                    e.loc);
        if (r->type.dtype == ScalarKind::Bool && u.op != UnaryOperator::Not)
          r->type = Type::scalar(ScalarKind::Int64);
        r->unary_op = u.op;
        r->args = {a};
        return r;
      }
      case ExprKind::BinOp: {
        auto& b = static_cast<const BinOp&>(e);
        TExprPtr l = scalar(*b.left, fr, hint);
        TExprPtr r = scalar(*b.right, fr, l->type.dtype == ScalarKind::Bool ? hint : l->type.dtype);
        return binary(b.op, l, r, b.op_loc);
      }
      case ExprKind::BoolOp: {
        auto& b = static_cast<const BoolOp&>(e);
        TExprPtr acc = condition(*b.values[0], fr);
        for (std::size_t i = 1; i < b.values.size(); ++i) {
          auto r = mk(TExprKind::Binary, Type::scalar(ScalarKind::Bool), e.loc);
          r->binary_op = b.op == BoolOperator::And ? BinaryOperator::BitAnd : BinaryOperator::BitOr;
          r->args = {acc, condition(*b.values[i], fr)};
          acc = r;
        }
        return acc;
      }
      case ExprKind::Compare: {
        auto& c = static_cast<const Compare&>(e);
        TExprPtr left = scalar(*c.left, fr, hint);
        TExprPtr acc;
        for (std::size_t i = 0; i < c.ops.size(); ++i) {
          CompareOperator op = c.ops[i];
          if (op == CompareOperator::Is || op == CompareOperator::IsNot || op == CompareOperator::In ||
              op == CompareOperator::NotIn)
            unsupported(c.op_locs[i], "the comparison '" + std::string(to_string(op)) + "'");
          TExprPtr right = scalar(*c.comparators[i], fr, left->type.dtype);
          auto r = mk(TExprKind::Compare, Type::scalar(ScalarKind::Bool), c.op_locs[i]);
          r->compare_op = op;
          r->args = {left, right};
          if (!acc) {
            acc = r;
          } else {
            auto a = mk(TExprKind::Binary, Type::scalar(ScalarKind::Bool), e.loc);
            a->binary_op = BinaryOperator::BitAnd;
            a->args = {acc, r};
            acc = a;
          }
          left = right;
        }
        return acc;
      }
      case ExprKind::IfExp: {
        auto& i = static_cast<const IfExp&>(e);
        TExprPtr c = condition(*i.test, fr);
        TExprPtr a = scalar(*i.body, fr, hint), b = scalar(*i.orelse, fr, hint);
        auto r = mk(TExprKind::Ternary, Type::scalar(arith(a->type.dtype, b->type.dtype)), e.loc);
        if (a->type.dtype == ScalarKind::Bool && b->type.dtype == ScalarKind::Bool) r->type = a->type;
        r->args = {c, a, b};
        return r;
      }
      case ExprKind::Call: {
        auto& c = static_cast<const Call&>(e);
        std::string fn = callee_name(*c.func, fr);
        // Python's int/float/bool and gt4py's scalar types (`gtx.int32(nlev - 1)`) convert.
        std::optional<ScalarKind> to = fn == "int"     ? std::optional(ScalarKind::Int64)
                                       : fn == "float" ? std::optional(ScalarKind::Float64)
                                                       : scalar_kind_from_name(fn);
        if (TExprPtr r = reduction(c, fr)) return r;
        if ((fn == "min" || fn == "max") && c.args.size() >= 2 && c.keywords.empty())
          return min_max(c, fn == "min", fr, hint);
        if (to && c.args.size() == 1 && c.keywords.empty()) {
          TExprPtr a = scalar(*c.args[0], fr, hint);
          auto r = mk(TExprKind::Builtin, Type::scalar(*to), e.loc);
          r->name = "astype";
          r->args = {a};
          return r;
        }
        unsupported(e.loc, "calling '" + unparse(*c.func) + "' in an expression");
      }
      default: break;
    }
    unsupported(e.loc, "the expression '" + unparse(e) + "'");
  }

  // Whether `c` is a call of Python's scalar builtins that scalar() computes: int/float and
  // gt4py's scalar types of one argument, min/max of two or more.
  bool scalar_builtin(const Call& c, const Frame& fr) {
    const std::string fn = callee_name(*c.func, fr);
    if (!c.keywords.empty()) return false;
    if (fn == "min" || fn == "max") return c.args.size() >= 2;
    return c.args.size() == 1 && (fn == "int" || fn == "float" || scalar_kind_from_name(fn));
  }

  // Python's min/max of scalars, as Python computes them: the running result is replaced by the
  // next argument only where that is strictly less (greater), so ties and a NaN after the first
  // argument keep the earlier one. The type is the arithmetic promotion of the arguments'.
  TExprPtr min_max(const Call& c, bool is_min, Frame& fr, ScalarKind hint) {
    TExprPtr acc = scalar(*c.args[0], fr, hint);
    if (acc->type.dtype == ScalarKind::Bool)
      unsupported(c.args[0]->loc, std::string(is_min ? "min" : "max") + "() of booleans");
    for (std::size_t i = 1; i < c.args.size(); ++i) {
      TExprPtr x = scalar(*c.args[i], fr, acc->type.dtype);
      if (x->type.dtype == ScalarKind::Bool)
        unsupported(c.args[i]->loc, std::string(is_min ? "min" : "max") + "() of booleans");
      auto better = mk(TExprKind::Compare, Type::scalar(ScalarKind::Bool), c.loc);
      better->compare_op = is_min ? CompareOperator::Lt : CompareOperator::Gt;
      better->args = {x, acc};
      auto r = mk(TExprKind::Ternary, Type::scalar(arith(x->type.dtype, acc->type.dtype)), c.loc);
      r->args = {better, x, acc};
      acc = r;
    }
    return acc;
  }

  // ------------------------------------------------------------------------- reductions

  static bool reduction_name(const std::string& fn) {
    return fn == "max" || fn == "amax" || fn == "min" || fn == "amin" || fn == "sum";
  }

  // The field variable an array expression starts from: `f`, `f.asnumpy()`, `f.ndarray`, and
  // these subscripted (`f[1:-1, 1:-1]`, `f.asnumpy()[1:-1]`); null for anything else.
  const Name* array_root(const Expr& e, Frame& fr, bool* numpy = nullptr) {
    bool np = false;
    const Name* n = array_name(e, np);
    if (!n || !is_field(n->id, fr)) return nullptr;
    if (numpy) *numpy = np;
    return n;
  }

  // The name under subscripts, `.asnumpy()` and `.ndarray` (`np` tells whether one of the latter
  // two was seen); null when `e` is no such name.
  static const Name* array_name(const Expr& e, bool& np) {
    const Expr* x = &e;
    np = false;
    while (true) {
      if (auto* sub = dyn_cast<Subscript>(x)) {
        x = sub->value.get();
      } else if (auto* c = dyn_cast<Call>(x); c && c->args.empty() && c->keywords.empty() &&
                                              isa<Attribute>(c->func.get()) &&
                                              static_cast<const Attribute&>(*c->func).attr == "asnumpy") {
        x = static_cast<const Attribute&>(*c->func).value.get();
        np = true;
      } else if (auto* a = dyn_cast<Attribute>(x); a && a->attr == "ndarray") {
        x = a->value.get();
        np = true;
      } else {
        break;
      }
    }
    return dyn_cast<Name>(x);
  }

  // A reduction of an unannotated parameter of the top function that no call has typed yet (a
  // CFL check before the first call): its type is not known at this point of the one pass.
  void typed_before_reduction(const Expr& e, Frame& fr) {
    bool np = false;
    const Name* n = array_name(e, np);
    if (n && fr.prefix.empty() && pending_.count(n->id))
      throw FrontendError(n->loc, "the type of parameter '" + n->id +
                                      "' is not known here: an unannotated parameter takes its type from "
                                      "the first call it is passed to, and this reduction comes before "
                                      "one; annotate it (e.g. '" +
                                      n->id + ": gtx.Field[[Cell, K], float64]')");
  }

  // The slice of a reduced array expression into `o.lower`/`o.upper` (integer literals, one
  // subscript at most, no step).
  void reduce_slice(const Expr& e, const Type& t, Frame& fr, OStmt& o) {
    const Subscript* sub = nullptr;
    for (const Expr* x = &e; x;) {
      if (auto* s = dyn_cast<Subscript>(x)) {
        if (sub) unsupported(s->loc, "slicing a field twice in a reduction");
        sub = s;
        x = s->value.get();
      } else if (auto* c = dyn_cast<Call>(x)) {
        x = static_cast<const Attribute&>(*c->func).value.get();
      } else if (auto* a = dyn_cast<Attribute>(x)) {
        x = a->value.get();
      } else {
        x = nullptr;
      }
    }
    if (!sub) return;
    std::vector<const Expr*> parts;
    if (auto* tu = dyn_cast<Tuple>(sub->index.get())) {
      for (const ExprPtr& x : tu->elts) parts.push_back(x.get());
    } else {
      parts.push_back(sub->index.get());
    }
    if (parts.size() > t.dims.size())
      throw FrontendError(sub->index->loc, "too many slices for " + to_string(t));
    for (const Expr* part : parts) {
      auto* sl = dyn_cast<Slice>(part);
      if (!sl || sl->step)
        unsupported(part->loc, "reducing '" + unparse(*part) + "' of a field (slices such as 1:-1 only)");
      auto bound = [&](const Expr* b) -> std::optional<std::int64_t> {
        if (!b) return std::nullopt;
        TExprPtr v = scalar(*b, fr, ScalarKind::Int64);
        bool neg = v->kind == TExprKind::Unary && v->unary_op == UnaryOperator::USub &&
                   v->args[0]->kind == TExprKind::Literal;
        if ((v->kind != TExprKind::Literal && !neg) || !is_integral(v->type.dtype))
          throw FrontendError(b->loc, "slice bounds of a reduced field must be integer literals");
        return neg ? -v->args[0]->literal.int_value : v->literal.int_value;
      };
      o.lower.push_back(bound(sl->lower.get()).value_or(0));
      o.upper.push_back(bound(sl->upper.get()));
    }
  }

  // Whether `c` has the form of a reduction: a method of an array expression or a NumPy
  // (CuPy) function of a reduction's name.
  bool reduction_form(const Call& c, Frame& fr) {
    auto* method = dyn_cast<Attribute>(c.func.get());
    if (method && reduction_name(method->attr)) typed_before_reduction(*method->value, fr);
    if (method && array_root(*method->value, fr)) return true;
    try {
      Value v = global(*c.func, fr);
      const std::size_t dot = v.name.rfind('.');
      const std::string mod = v.name.substr(0, v.name.find('.'));
      return v.kind == ValueKind::External && (mod == "numpy" || mod == "cupy") && dot != std::string::npos &&
             reduction_name(v.name.substr(dot + 1));
    } catch (const FrontendError&) {
      return false;
    }
  }

  // Whether `e` is `np.abs(x)` (`np.absolute`, `np.fabs`; NumPy or CuPy) of one argument: a
  // reduction of the absolute values (`np.max(np.abs(u))`).
  bool absolute_of(const Expr& e, Frame& fr) {
    auto* c = dyn_cast<Call>(&e);
    if (!c || c->args.size() != 1 || !c->keywords.empty()) return false;
    try {
      Value v = global(*c->func, fr);
      const std::string mod = v.name.substr(0, v.name.find('.'));
      const std::string fn = v.name.substr(v.name.rfind('.') + 1);
      return v.kind == ValueKind::External && (mod == "numpy" || mod == "cupy") &&
             (fn == "abs" || fn == "absolute" || fn == "fabs");
    } catch (const FrontendError&) {
      return false;
    }
  }

  // `np.max(f)`, `np.min(f[1:-1, 1:-1])`, `np.sum(f.asnumpy())`, `f.asnumpy().max()` (also
  // `amax`/`amin`, `cupy`, `f.ndarray`, and of `np.abs(...)` of these): a Reduce statement into a new scalar,
  // run before the statement being checked; the expression is that scalar. Null when `c` is no reduction.
  TExprPtr reduction(const Call& c, Frame& fr) {
    std::string fn;
    const Expr* operand = nullptr;
    bool absolute = false;
    auto* method = dyn_cast<Attribute>(c.func.get());
    if (method && reduction_name(method->attr)) typed_before_reduction(*method->value, fr);
    bool numpy = false;
    if (method && array_root(*method->value, fr, &numpy)) {
      if (!reduction_name(method->attr) || !numpy)
        unsupported(method->attr_loc,
                    "'." + method->attr + "()' of " +
                        (numpy ? "an array" : "a field (reduce f.asnumpy() or call np.max(f))"));
      fn = method->attr;
      operand = method->value.get();
      if (!c.args.empty() || !c.keywords.empty())
        unsupported(c.loc, "arguments of '." + fn + "()' (a reduction over the whole field or a slice only)");
    } else {
      if (!reduction_form(c, fr)) return nullptr;
      const std::string name = global(*c.func, fr).name;
      fn = name.substr(name.rfind('.') + 1);
      if (c.args.size() != 1 || !c.keywords.empty())
        unsupported(c.loc, "'" + unparse(*c.func) +
                               "' with other arguments than one field (a reduction over the whole field or a "
                               "slice only)");
      operand = c.args[0].get();
      absolute = absolute_of(*operand, fr);
      if (absolute) operand = static_cast<const Call&>(*operand).args[0].get();
      typed_before_reduction(*operand, fr);
      if (!array_root(*operand, fr))
        unsupported(operand->loc, "reducing '" + unparse(*operand) +
                                      "' (a field variable, f.asnumpy() or a slice f[1:-1, 1:-1] of one)");
    }
    const Name* root = array_root(*operand, fr);
    OStmt o;
    o.kind = OStmt::Kind::Reduce;
    o.loc = c.loc;
    o.reduction = fn == "amax" ? "max" : fn == "amin" ? "min" : fn;
    o.absolute = absolute;
    o.sources = {fr.var(root->id)};
    const Type& t = out_.fields.at(o.sources[0]);
    reduce_slice(*operand, t, fr, o);
    ScalarKind k = t.dtype;
    if (o.reduction == "sum" && !is_floating(k)) k = ScalarKind::Int64;  // as NumPy sums integers
    if (!is_floating(t.dtype) && t.dtype != ScalarKind::Int32 && t.dtype != ScalarKind::Int64)
      unsupported(c.loc, "reducing a field of " + std::string(to_string(t.dtype)) +
                             " (float32, float64, int32 and int64 fields only)");
    std::string var = "__reduce" + std::to_string(reduced_++);
    declare(var, Type::scalar(k), c.loc);
    o.targets = {var};
    reductions_.push_back(std::move(o));
    auto r = mk(TExprKind::Name, Type::scalar(k), c.loc);
    r->name = var;
    return r;
  }

  // A constant of the module (or an enum member, a class attribute): a literal.
  TExprPtr module_value(const Expr& e, Frame& fr) {
    Value v = evaluate(e, *fr.module);
    if (v.kind == ValueKind::Constant && v.constant.kind != ConstantValue::Kind::String)
      return literal(v.constant, e.loc);
    throw FrontendError(e.loc, "'" + unparse(e) + "' is " + v.describe() + ", not a scalar value");
  }
};

}  // namespace

const FunctionDef* find_plain_function(const LoadedModule& module, const std::string& name) {
  auto it = module.names.find(name);
  if (it == module.names.end() || !it->second.plain_function || it->second.module != &module) return nullptr;
  return it->second.plain_function;
}

std::unique_ptr<Orchestration> check_orchestration(const FunctionDef& def, const LoadedModule& module,
                                                   TypeChecker& checker) {
  auto out = std::make_unique<Orchestration>();
  std::unique_ptr<FunctionDef> parsed = parse_function_with_loops(module.ast.file, def.loc.line);
  out->name = def.name;
  out->loc = def.loc;
  Checker(checker, *out).top(*parsed, module);
  // A local field allocated again (in a loop) while another name still holds the array the
  // previous allocation made would need a new array per iteration; one transient per Alloc
  // statement cannot give that.
  detail::BindingTable t;
  detail::BindingFlow flow(*out, t);
  flow.run(out->body, {flow.initial()}, nullptr, nullptr, [&](const OStmt& s, const std::set<int>& cur) {
    if (s.kind != OStmt::Kind::Alloc) return;
    const std::string& slot = flow.allocs().at(&s);
    for (int id : cur)
      for (const auto& [var, sl] : t.all[static_cast<std::size_t>(id)])
        if (sl == slot && var != s.targets[0])
          throw FrontendError(s.loc,
                              "'" + var +
                                  "' may still name the field this statement allocated before (in an earlier "
                                  "iteration): allocate it before the loop instead");
  });
  return out;
}

std::vector<std::string> written_parameters(const Orchestration& o) { return detail::written_slots(o); }

std::pair<std::int64_t, std::int64_t> reduce_range(const OStmt& s, std::size_t d, std::int64_t size) {
  auto clamp = [size](std::int64_t v) { return std::clamp(v < 0 ? v + size : v, std::int64_t{0}, size); };
  std::int64_t lo = d < s.lower.size() ? clamp(s.lower[d]) : 0;
  std::int64_t hi = d < s.upper.size() && s.upper[d] ? clamp(*s.upper[d]) : size;
  return {lo, std::max(lo, hi)};
}

std::string size_symbol(const std::string& field, const std::string& dim) {
  return (field.rfind("__", 0) == 0 ? field : "__" + field) + "_" + dim + "_size";
}

}  // namespace weir::frontend
