// Type checking of programs: calls of field operators with out=, domain= and sliced outputs.
#include <algorithm>

#include "type_checker_internal.h"

#include "out_hazards.h"

namespace weir::frontend::typecheck {

void FunctionChecker::program_param(const Parameter& p, const Type& t) {
  out_.declared_params.push_back({p.name, t, p.loc});
  scope_[p.name] = t;
  if (!t.is_tuple()) {
    out_.params.push_back({p.name, t, p.loc});
    return;
  }
  tuple_params_[p.name] = t;
  for (auto& [name, leaf] : flat_parameter_names(p.name, t)) out_.params.push_back({name, leaf, p.loc});
}

TExprPtr FunctionChecker::flat_refs(const TExprPtr& e) {
  if (e->kind == TExprKind::Name) {
    auto it = tuple_params_.find(e->name);
    if (it == tuple_params_.end() || scope_.at(e->name).kind != Type::Kind::Tuple) return e;
    // The tuple of the leaves, nested as the type.
    std::function<TExprPtr(const std::string&, const Type&)> tree = [&](const std::string& name,
                                                                        const Type& t) {
      auto r = mk(t.is_tuple() ? TExprKind::Tuple : TExprKind::Name, t, e->loc);
      if (!t.is_tuple()) r->name = name;
      for (std::size_t i = 0; i < t.elements.size(); ++i)
        r->args.push_back(tree(name + "_" + std::to_string(i), t.elements[i]));
      return r;
    };
    return tree(e->name, it->second);
  }
  auto r = std::make_shared<TExpr>(*e);
  for (TExprPtr& a : r->args) a = flat_refs(a);
  if (r->kind == TExprKind::TupleGet && r->args[0]->kind == TExprKind::Tuple)
    return r->args[0]->args.at(r->index);
  return r;
}

std::optional<std::pair<std::string, Type>> FunctionChecker::param_part(const Expr& e) {
  if (auto* n = dyn_cast<Name>(&e)) {
    auto it = tuple_params_.find(n->id);
    if (it == tuple_params_.end()) return std::nullopt;
    return std::make_pair(n->id, it->second);
  }
  const Expr* inner = nullptr;
  if (auto* a = dyn_cast<Attribute>(&e)) inner = a->value.get();
  if (auto* s = dyn_cast<Subscript>(&e)) inner = s->value.get();
  std::optional<std::pair<std::string, Type>> part = inner ? param_part(*inner) : std::nullopt;
  if (!part || !part->second.is_tuple()) return std::nullopt;
  const Type& t = part->second;
  std::size_t i = 0;
  if (auto* a = dyn_cast<Attribute>(&e)) {
    auto it = std::find(t.names.begin(), t.names.end(), a->attr);
    if (it == t.names.end())
      throw FrontendError(e.loc, "'" + unparse(*inner) + "' has type " + to_string(t) +
                                     ", which has no element '" + a->attr + "'");
    i = static_cast<std::size_t>(it - t.names.begin());
  } else {
    TExprPtr k = expr(*static_cast<const Subscript&>(e).index, scope_);
    if (!is_int_literal(k) || k->literal.int_value < 0 ||
        k->literal.int_value >= static_cast<std::int64_t>(t.elements.size()))
      throw FrontendError(static_cast<const Subscript&>(e).index->loc,
                          "an element of '" + unparse(*inner) + "' (" + to_string(t) +
                              ") is picked with an integer literal from 0 to " +
                              std::to_string(t.elements.size() - 1));
    i = static_cast<std::size_t>(k->literal.int_value);
  }
  return std::make_pair(part->first + "_" + std::to_string(i), t.elements[i]);
}

// A program argument: a parameter, a literal, a tuple of arguments, or a scalar expression
// of parameters and literals (`vertical_end - 1`), computed where the program runs.
TExprPtr FunctionChecker::program_arg(const Expr& e) {
  if (auto* t = dyn_cast<Tuple>(&e)) {
    auto r = mk(TExprKind::Tuple, Type{}, e.loc);
    std::vector<Type> types;
    for (const ExprPtr& x : t->elts) {
      r->args.push_back(program_arg(*x));
      types.push_back(r->args.back()->type);
    }
    r->type = Type::tuple(types);
    return r;
  }
  if (auto* c = dyn_cast<Call>(&e);
      c && (isa<Name>(c->func.get()) || isa<Attribute>(c->func.get())) && !is_local(*c->func)) {
    Value f = global(*c->func);
    if (f.kind == ValueKind::Type && !f.type.collection.empty())
      return collection(*c, f.type, [&](const Expr& x) { return program_arg(x); });
  }
  TExprPtr r = flat_refs(expr(e, scope_));
  if (r->kind == TExprKind::Name || r->kind == TExprKind::Literal) return r;
  // A tuple parameter, or a tuple element of one: the tuple of its leaves.
  std::function<bool(const TExpr&)> leaves = [&](const TExpr& x) {
    if (x.kind != TExprKind::Tuple) return x.kind == TExprKind::Name;
    return std::all_of(x.args.begin(), x.args.end(), [&](const TExprPtr& a) { return leaves(*a); });
  };
  if (r->kind == TExprKind::Tuple && leaves(*r)) return r;
  std::function<void(const TExpr&)> scalar_only = [&](const TExpr& x) {
    bool ok = x.type.is_scalar() &&
              (x.kind == TExprKind::Name || x.kind == TExprKind::Literal || x.kind == TExprKind::Unary ||
               x.kind == TExprKind::Binary || x.kind == TExprKind::Compare || x.kind == TExprKind::Ternary ||
               x.kind == TExprKind::Builtin);
    if (!ok)
      throw FrontendError(e.loc,
                          "program arguments must be parameters, literals or scalar "
                          "expressions of them, got '" +
                              unparse(e) + "' (" + to_string(x.type) + ")");
    for (const TExprPtr& a : x.args) scalar_only(*a);
  };
  scalar_only(*r);
  return r;
}

std::optional<std::int64_t> FunctionChecker::slice_bound(const Expr* e) {
  if (!e) return std::nullopt;
  TExprPtr t = expr(*e, scope_);
  if (!is_int_literal(t)) throw FrontendError(e->loc, "slice bounds of out= must be integer literals");
  return t->literal.int_value;
}

Type FunctionChecker::out_target(const Expr& e, ProgramCall& pc) {
  // A tuple keeps its nesting (`out=((a, b), c)` for a result of type ((A, B), C)); pc.outs
  // lists the fields flat, in the order the lowering flattens the result.
  if (auto* t = dyn_cast<Tuple>(&e)) {
    std::vector<Type> elts;
    for (const ExprPtr& x : t->elts) elts.push_back(out_target(*x, pc));
    return Type::tuple(std::move(elts));
  }
  // A tuple parameter, or a tuple element of one (`out`, `out.a`, `out[1]`): its fields, flat.
  if (auto part = param_part(e); part && part->second.is_tuple()) {
    for (const auto& [name, t] : flat_parameter_names(part->first, part->second))
      out_field(name, t, e, nullptr, pc);
    return unnamed(part->second);
  }
  const Expr* base = &e;
  const Expr* index = nullptr;
  if (auto* s = dyn_cast<Subscript>(&e); s && !param_part(e)) {
    base = s->value.get();
    index = s->index.get();
  }
  // A field element of a tuple parameter (`out.a`, `out[0]`, sliced: `out.a[1:-1]`).
  if (auto part = param_part(*base)) {
    out_field(part->first, part->second, *base, index, pc);
    return part->second;
  }
  auto* n = dyn_cast<Name>(base);
  if (!n || !scope_.count(n->id))
    throw FrontendError(base->loc,
                        "out= must be a field parameter of the program (or a tuple "
                        "of them), got '" +
                            unparse(*base) + "'");
  const Type& t = scope_.at(n->id);
  out_field(n->id, t, *base, index, pc);
  return t;
}

void FunctionChecker::out_field(const std::string& name, const Type& t, const Expr& base, const Expr* index,
                                ProgramCall& pc) {
  // A 0-d field (`Field[Dims[()], T]`) is written as a whole: an array of one element.
  const bool zero_dim = t.is_scalar() && t.zero_dim;
  if (!t.is_field() && !zero_dim)
    throw FrontendError(base.loc, "out= must be a field, '" + unparse(base) + "' has type " + to_string(t) +
                                      (t.is_scalar() ? " (a scalar parameter is passed by value; declare it "
                                                       "Field[Dims[()], " +
                                                           to_string(t) + "] to write it as a 0-d field)"
                                                     : ""));
  if (zero_dim && index)
    throw FrontendError(index->loc, "'" + unparse(base) + "' is a 0-d field (Field[Dims[()], " +
                                        to_string(t) + "]): it has no dimension to slice");
  ProgramCall::Out o;
  o.name = name;
  o.type = t;
  if (index) {
    std::vector<const Expr*> parts;
    if (auto* tu = dyn_cast<Tuple>(index)) {
      for (const ExprPtr& x : tu->elts) parts.push_back(x.get());
    } else {
      parts.push_back(index);
    }
    if (parts.size() > t.dims.size()) throw FrontendError(index->loc, "too many slices for " + to_string(t));
    for (const Expr* p : parts) {
      auto* sl = dyn_cast<Slice>(p);
      if (!sl) throw FrontendError(p->loc, "out= may only be sliced with ranges such as 1:-1");
      if (sl->step) throw FrontendError(sl->step->loc, "slice steps are not supported in out=");
      o.slices.emplace_back(slice_bound(sl->lower.get()), slice_bound(sl->upper.get()));
    }
  }
  pc.outs.push_back(std::move(o));
}

TExprPtr FunctionChecker::bound(const Expr& e) {
  TExprPtr t = flat_refs(expr(e, scope_));
  if (!t->type.is_scalar() || !is_integral(t->type.dtype))
    throw FrontendError(e.loc, "a domain bound must be a scalar integer, got " + to_string(t->type));
  return t;
}

// `{D: (lo, hi), ...}` for outputs of `types` (what `what` names in messages).
std::vector<ProgramCall::Range> FunctionChecker::domain_ranges(const Expr& domain,
                                                               const std::vector<Type>& types,
                                                               const std::string& what) {
  auto* d = dyn_cast<Dict>(&domain);
  if (!d)
    throw FrontendError(domain.loc,
                        "domain= must be a dict {Dim: (lo, hi)} (or a tuple of them, one per output)");
  std::vector<ProgramCall::Range> out;
  for (std::size_t i = 0; i < d->keys.size(); ++i) {
    if (!d->keys[i]) throw FrontendError(d->values[i]->loc, "domain= must be a dict {Dim: (lo, hi)}");
    Value dv = global(*d->keys[i]);
    if (dv.kind != ValueKind::Dimension)
      throw FrontendError(d->keys[i]->loc, "domain keys must be dimensions, got " + dv.describe());
    bool found = false;
    for (const Type& t : types) found = found || t.has_dim(dv.dim);
    if (!found) throw FrontendError(d->keys[i]->loc, "'" + dv.dim.name + "' is not a dimension of " + what);
    auto* range = dyn_cast<Tuple>(d->values[i].get());
    if (!range || range->elts.size() != 2)
      throw FrontendError(d->values[i]->loc, "a domain range must be a pair (lo, hi)");
    out.push_back({dv.dim, bound(*range->elts[0]), bound(*range->elts[1])});
  }
  return out;
}

void FunctionChecker::check_program(const FunctionDef& f) {
  for (const StmtPtr& s : f.body) {
    if (s->kind == StmtKind::Pass) continue;
    auto* es = dyn_cast<ExprStmt>(s.get());
    if (es) {
      if (auto* c = dyn_cast<Constant>(es->value.get()); c && c->value_kind == ConstantKind::String) continue;
    }
    auto* c = es ? dyn_cast<Call>(es->value.get()) : nullptr;
    if (!c) throw FrontendError(s->loc, "a program may only call field operators and scan operators");
    Value fv = global(*c->func);
    if (fv.kind != ValueKind::Definition || fv.definition->kind == DefinitionKind::Program)
      throw FrontendError(c->func->loc, "'" + unparse(*c->func) + "' (" + fv.describe() +
                                            ") is not a field_operator or scan_operator");
    const TypedDefinition& callee = callee_of(*fv.definition, c->func->loc);
    ProgramCall pc;
    pc.callee = &callee;
    pc.loc = c->loc;
    std::vector<TExprPtr> positional;
    std::vector<std::pair<const Keyword*, TExprPtr>> keywords;
    const Expr* out = nullptr;
    const Expr* domain = nullptr;
    for (const ExprPtr& a : c->args) positional.push_back(program_arg(*a));
    for (const Keyword& k : c->keywords) {
      if (k.arg == "out")
        out = k.value.get();
      else if (k.arg == "domain")
        domain = k.value.get();
      else if (k.arg == "offset_provider")
        throw FrontendError(k.loc, "offset_provider is given when the program is run, not here");
      else
        keywords.emplace_back(&k, program_arg(*k.value));
    }
    if (!out) throw FrontendError(c->loc, "missing 'out=' in call to '" + callee.name + "'");
    Type result = match_call(*c, callee, pc.args, positional, keywords);
    Type out_type = out_target(*out, pc);
    // A named collection result goes to a tuple of fields, element by element.
    if (!(out_type == unnamed(result)))
      throw FrontendError(out->loc, "out= has type " + to_string(out_type) + " but '" + callee.name +
                                        "' returns " + to_string(result));
    if (domain) {
      for (const auto& o : pc.outs)
        if (!o.slices.empty())
          throw FrontendError(domain->loc, "give either domain= or a sliced out=, not both");
      if (auto* t = dyn_cast<Tuple>(domain)) {
        // One domain per output, in the order (and nesting) of out=.
        std::vector<const Expr*> doms;
        std::function<void(const Expr&)> flat = [&](const Expr& x) {
          if (auto* tt = dyn_cast<Tuple>(&x))
            for (const ExprPtr& y : tt->elts) flat(*y);
          else
            doms.push_back(&x);
        };
        flat(*t);
        if (doms.size() != pc.outs.size())
          throw FrontendError(domain->loc, "domain= gives " + std::to_string(doms.size()) + " domain" +
                                               (doms.size() == 1 ? "" : "s") + " for " +
                                               std::to_string(pc.outs.size()) + " output field" +
                                               (pc.outs.size() == 1 ? "" : "s"));
        for (std::size_t i = 0; i < doms.size(); ++i)
          pc.outs[i].domain =
              domain_ranges(*doms[i], {pc.outs[i].type}, "out= element '" + pc.outs[i].name + "'");
      } else {
        std::vector<Type> types;
        for (const auto& o : pc.outs) types.push_back(o.type);
        pc.domain = domain_ranges(*domain, types, "out=");
      }
    }
    check_out_hazards(pc);
    out_.calls.push_back(std::move(pc));
  }
}

}  // namespace weir::frontend::typecheck
