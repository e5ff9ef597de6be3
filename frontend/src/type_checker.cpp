// Type deduction of field operators, scan operators and programs.
#include "type_checker_internal.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>

namespace weir::frontend {

std::vector<std::pair<std::string, Type>> flat_parameter_names(const std::string& name, const Type& type) {
  if (!type.is_tuple()) return {{name, type}};
  std::vector<std::pair<std::string, Type>> out;
  for (std::size_t i = 0; i < type.elements.size(); ++i)
    for (auto& leaf : flat_parameter_names(name + "_" + std::to_string(i), type.elements[i]))
      out.push_back(std::move(leaf));
  return out;
}

std::string signature(const TypedDefinition& def) {
  std::string s = std::string(to_string(def.kind)) + " " + def.name;
  if (def.kind == DefinitionKind::ScanOperator)
    s += "[axis=" + def.axis.name + ", forward=" + (def.forward ? "True" : "False") + "]";
  s += "(";
  const std::vector<TParam>& params = def.declared_params.empty() ? def.params : def.declared_params;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) s += ", ";
    s += params[i].name + ": " + to_string(params[i].type);
  }
  s += ")";
  if (def.kind != DefinitionKind::Program) s += " -> " + to_string(def.returns);
  return s;
}

}  // namespace weir::frontend

namespace weir::frontend::typecheck {

TExprPtr mk(TExprKind k, Type t, SourceLocation loc) {
  auto e = std::make_shared<TExpr>();
  e->kind = k;
  e->type = std::move(t);
  e->loc = std::move(loc);
  return e;
}

std::string_view verb(BinaryOperator op) {
  switch (op) {
    case BinaryOperator::Add: return "add";
    case BinaryOperator::Sub: return "subtract";
    case BinaryOperator::Mult: return "multiply";
    case BinaryOperator::Div: return "divide";
    case BinaryOperator::FloorDiv: return "floor-divide";
    case BinaryOperator::Mod: return "take the remainder of";
    case BinaryOperator::Pow: return "raise to a power";
    case BinaryOperator::BitAnd: return "apply '&' to";
    case BinaryOperator::BitOr: return "apply '|' to";
    case BinaryOperator::BitXor: return "apply '^' to";
    default: return "combine";
  }
}

const std::set<std::string>& float_math() {
  static const std::set<std::string> s = {"sqrt",    "exp",    "log",  "sin",   "cos",  "tan",     "arcsin",
                                          "arccos",  "arctan", "sinh", "cosh",  "tanh", "arcsinh", "arccosh",
                                          "arctanh", "gamma",  "cbrt", "floor", "ceil", "trunc"};
  return s;
}

// The type with every named collection turned into a plain tuple.
Type unnamed(const Type& t) {
  if (!t.is_tuple()) return t;
  std::vector<Type> e;
  for (const Type& x : t.elements) e.push_back(unnamed(x));
  return Type::tuple(std::move(e));
}

Type map_leaves(const Type& t, ScalarKind dtype) {
  if (t.is_tuple()) {
    std::vector<Type> e;
    for (const Type& x : t.elements) e.push_back(map_leaves(x, dtype));
    return Type::tuple(std::move(e));
  }
  Type r = t;
  r.dtype = dtype;
  return r;
}

void FunctionChecker::run() {
  const FunctionDef& f = *def_.def;
  if (!def_.error.empty()) throw FrontendError(def_.error_loc, def_.error);
  out_.kind = def_.kind;
  out_.name = def_.name;
  out_.source = &def_;
  out_.loc = f.loc;
  for (const Parameter& p : f.params) {
    if (p.kind != ParamKind::Normal && p.kind != ParamKind::PositionalOnly &&
        p.kind != ParamKind::KeywordOnly)
      throw FrontendError(p.loc,
                          "variadic parameters are not supported in a " + std::string(to_string(def_.kind)));
    if (!p.annotation)
      throw FrontendError(p.loc, "parameter '" + p.name + "' of " + std::string(to_string(def_.kind)) + " '" +
                                     f.name + "' needs a type annotation");
    Type t = annotation_type(*p.annotation);
    if (!t.is_value())
      throw FrontendError(p.annotation->loc, "parameter '" + p.name + "' has type " + to_string(t) +
                                                 ", which is not a field, scalar or tuple");
    if (def_.kind == DefinitionKind::Program) {
      program_param(p, t);
      continue;
    }
    out_.params.push_back({p.name, t, p.loc});
    scope_[p.name] = t;
  }
  if (def_.kind == DefinitionKind::Program) {
    // A leaf name (`x_0`) that is also a parameter, or a leaf of another tuple parameter,
    // would be two arguments under one name.
    std::map<std::string, std::string> owner;  // argument name -> declared parameter
    for (const TParam& d : out_.declared_params)
      if (!tuple_params_.count(d.name)) owner[d.name] = d.name;
    for (const TParam& d : out_.declared_params) {
      if (!tuple_params_.count(d.name)) continue;
      for (const auto& [leaf, type] : flat_parameter_names(d.name, d.type))
        if (auto [it, fresh] = owner.emplace(leaf, d.name); !fresh)
          throw FrontendError(
              d.loc, "tuple parameter '" + d.name + "' is passed as one argument per element (" + leaf +
                         " is one), but '" + leaf + "' is also " +
                         (it->second == leaf ? "a parameter"
                                             : "an element of tuple parameter '" + it->second + "'") +
                         ": rename one of them");
    }
    if (f.returns && !(isa<Constant>(f.returns.get()) &&
                       static_cast<const Constant&>(*f.returns).value_kind == ConstantKind::None))
      throw FrontendError(f.returns->loc, "a program does not return a value (use out=)");
    out_.returns = Type::none();
    check_program(f);
    return;
  }
  if (f.returns) {
    declared_return_ = annotation_type(*f.returns);
    has_declared_return_ = true;
  }
  if (def_.kind == DefinitionKind::ScanOperator) check_scan_header(f);
  bool returns = block(f.body, out_.body, scope_);
  if (!returns)
    throw FrontendError(
        f.loc, std::string(to_string(def_.kind)) + " '" + f.name + "' must end with a return statement");
  out_.returns = has_declared_return_ ? declared_return_ : deduced_return_;
  if (def_.kind == DefinitionKind::ScanOperator) {
    const TParam& carry = out_.params[0];
    if (!(carry.type == out_.returns))
      throw FrontendError(carry.loc, "the carry '" + carry.name + "' of scan operator '" + f.name +
                                         "' has type " + to_string(carry.type) +
                                         " but the operator returns " + to_string(out_.returns));
  }
}

void FunctionChecker::check_scan_header(const FunctionDef& f) {
  if (out_.params.empty())
    throw FrontendError(f.loc, "scan operator '" + f.name + "' needs a carry as first parameter");
  out_.axis = *def_.axis;
  out_.forward = def_.forward;
  const TParam& carry = out_.params[0];
  auto scalar_leaves = [](const Type& t, auto& self) -> bool {
    if (t.is_tuple()) {
      for (const Type& e : t.elements)
        if (!self(e, self)) return false;
      return true;
    }
    return t.is_scalar();
  };
  for (const TParam& p : out_.params)
    if (!scalar_leaves(p.type, scalar_leaves))
      throw FrontendError(p.loc,
                          "parameters of a scan operator are values at one level "
                          "(scalars or tuples of scalars), '" +
                              p.name + "' has type " + to_string(p.type));
  Scope empty;
  out_.init = expr(*def_.init, empty);
  if (!(out_.init->type == carry.type)) adapt_literals(*out_.init, carry.type);
  if (!(out_.init->type == carry.type))
    throw FrontendError(def_.init->loc, "init of scan operator '" + f.name + "' has type " +
                                            to_string(out_.init->type) + " but the carry '" + carry.name +
                                            "' has type " + to_string(carry.type));
}

// `init=0.0` for a float32 carry, `init=(0.0, 0)` for a (float32, int64) one: Python literals
// (gt4py takes them as values of the carry's type) retyped to the carry's dtypes, leaf by
// leaf; anything else is left for the caller's type error.
void FunctionChecker::adapt_literals(TExpr& e, const Type& want) {
  if (e.kind == TExprKind::Tuple && want.is_tuple() && e.args.size() == want.elements.size()) {
    std::vector<Type> types;
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      adapt_literals(*e.args[i], want.elements[i]);
      types.push_back(e.args[i]->type);
    }
    e.type = Type::tuple(std::move(types));
    return;
  }
  if (e.kind != TExprKind::Literal || !want.is_scalar()) return;
  ConstantValue& c = e.literal;
  ScalarKind k = want.dtype;
  if (is_floating(k) && (c.kind == ConstantValue::Kind::Float || c.kind == ConstantValue::Kind::Int)) {
    double d = c.as_double();
    c.kind = ConstantValue::Kind::Float;
    c.float_value = k == ScalarKind::Float32 ? static_cast<double>(static_cast<float>(d)) : d;
    e.type = want;
  } else if (is_integral(k) && c.kind == ConstantValue::Kind::Int &&
             (k != ScalarKind::Int32 || (c.int_value >= std::numeric_limits<std::int32_t>::min() &&
                                         c.int_value <= std::numeric_limits<std::int32_t>::max()))) {
    e.type = want;
  }
}

bool FunctionChecker::is_local(const Expr& e) const {
  auto* n = dyn_cast<Name>(&e);
  return n && scope_.count(n->id);
}

TExprPtr FunctionChecker::literal(const ConstantValue& c, const SourceLocation& loc) {
  Type t;
  switch (c.kind) {
    case ConstantValue::Kind::Int:
      t = Type::scalar(c.int_value >= std::numeric_limits<std::int32_t>::min() &&
                               c.int_value <= std::numeric_limits<std::int32_t>::max()
                           ? ScalarKind::Int32
                           : ScalarKind::Int64);
      break;
    case ConstantValue::Kind::Float: t = Type::scalar(ScalarKind::Float64); break;
    case ConstantValue::Kind::Bool: t = Type::scalar(ScalarKind::Bool); break;
    case ConstantValue::Kind::String: throw FrontendError(loc, "a string cannot be used as a value here");
  }
  auto e = mk(TExprKind::Literal, t, loc);
  e->literal = c;
  return e;
}

TExprPtr FunctionChecker::value_expr(const Value& v, const Expr& e) {
  switch (v.kind) {
    case ValueKind::Constant: return literal(v.constant, e.loc);
    case ValueKind::Dimension: {
      auto r = mk(TExprKind::Name, Type::dimension(v.dim), e.loc);
      r->name = v.dim.name;
      return r;
    }
    case ValueKind::Offset: {
      auto r = mk(TExprKind::Name, Type::offset_type(v.offset), e.loc);
      r->name = v.offset.name;
      return r;
    }
    case ValueKind::External: throw FrontendError(e.loc, external_message(v));
    case ValueKind::Sequence: {
      // A module-level tuple of constants (`INIT = (0.0, (1.0, 0))`): a tuple value.
      auto r = mk(TExprKind::Tuple, Type{}, e.loc);
      std::vector<Type> types;
      for (const Value& x : v.elements) {
        if (x.kind != ValueKind::Constant && x.kind != ValueKind::Sequence) break;
        r->args.push_back(value_expr(x, e));
        types.push_back(r->args.back()->type);
      }
      if (r->args.size() != v.elements.size()) break;
      r->type = Type::tuple(std::move(types));
      return r;
    }
    default: break;
  }
  throw FrontendError(e.loc, "'" + name_of(e) + "' is a " + v.describe() + ", not a value");
}

bool FunctionChecker::is_int_literal(const TExprPtr& e) {
  return e->kind == TExprKind::Literal && e->literal.kind == ConstantValue::Kind::Int;
}

// Element-wise result of two data types, or an error "cannot add float64 and float32".
Type FunctionChecker::promote(const Type& a, const Type& b, std::string_view what,
                              const SourceLocation& loc) {
  if (!a.is_data() || !b.is_data() || a.dtype != b.dtype)
    throw FrontendError(loc, "cannot " + std::string(what) + " " + to_string(a) + " and " + to_string(b));
  std::vector<Dimension> dims = union_dims(a.dims, b.dims);
  if (std::string clash = clashing_dimension_names(dims); !clash.empty())
    throw FrontendError(loc, "cannot " + std::string(what) + " " + to_string(a) + " and " + to_string(b) +
                                 ": " + clash + " (dimensions need distinct names)");
  return Type::field(dims, a.dtype);
}

}  // namespace weir::frontend::typecheck

namespace weir::frontend {

TypeChecker::TypeChecker() = default;
TypeChecker::~TypeChecker() = default;

const TypedDefinition& TypeChecker::check(const Definition& def) {
  auto it = done_.find(&def);
  if (it != done_.end()) return *it->second;
  if (auto f = failed_.find(&def); f != failed_.end()) throw f->second;
  if (std::find(in_progress_.begin(), in_progress_.end(), &def) != in_progress_.end())
    throw FrontendError(def.def->loc,
                        "recursive call of '" + def.name + "': field operators cannot be recursive");
  in_progress_.push_back(&def);
  auto typed = std::make_unique<TypedDefinition>();
  try {
    typecheck::FunctionChecker(*this, def, *typed).run();
  } catch (const FrontendError& e) {
    in_progress_.pop_back();
    // A recursion error belongs to where the cycle closes, which depends on the caller.
    if (e.message().rfind("recursive", 0) != 0) failed_.emplace(&def, e);
    throw;
  } catch (...) {
    in_progress_.pop_back();
    throw;
  }
  in_progress_.pop_back();
  return *done_.emplace(&def, std::move(typed)).first->second;
}

std::vector<const TypedDefinition*> TypeChecker::check_module(const LoadedModule& module) {
  std::vector<const TypedDefinition*> out;
  for (const auto& d : module.definitions) out.push_back(&check(*d));
  return out;
}

ModuleCheck TypeChecker::check_all(const LoadedModule& module, std::size_t max_errors) {
  ModuleCheck r;
  std::set<std::string> seen;  // location + message of the errors reported
  // The definition of this module whose source holds `loc` (the last one starting at or
  // before it), or nullptr: the error is then in another module.
  auto owner = [&](const SourceLocation& loc) -> const Definition* {
    const Definition* best = nullptr;
    std::uint32_t best_line = 0;
    auto consider = [&](const Definition& d) {
      std::uint32_t line = d.def->loc.line;  // its first decorator's line, if earlier
      for (const auto& dec : d.def->decorators) line = std::min(line, dec->loc.line);
      if (d.def->loc.file.path() == loc.file.path() && line <= loc.line && (!best || line > best_line)) {
        best = &d;
        best_line = line;
      }
    };
    for (const auto& d : module.definitions) consider(*d);
    for (const auto& d : module.nested_definitions) consider(*d);
    return best;
  };
  auto report = [&](const FrontendError& e) {
    if (!seen.insert(e.location().str() + "\n" + e.message()).second) return;
    if (r.errors.size() == max_errors) {
      r.truncated = true;
      return;
    }
    r.errors.push_back(e);
  };
  auto one = [&](const Definition& d) {
    if (r.truncated) return;
    ++r.definitions;
    try {
      r.checked.push_back(&check(d));
    } catch (const FrontendError& e) {
      ++r.failed;
      report(e);
      // An error in a callee stops the check of the caller: say so at the caller, so that
      // each definition counted with errors has its line (its own errors show once the
      // callee checks).
      const Definition* at = owner(e.location());
      if (at != &d && !r.truncated)
        report(FrontendError(d.def->loc, "'" + d.name + "' is not checked: it calls " +
                                             (at ? "'" + at->name + "'" : std::string("a definition")) +
                                             ", which has errors (" + e.location().str() + ")"));
    }
  };
  for (const auto& d : module.definitions) one(*d);
  for (const auto& d : module.nested_definitions) {
    ++r.nested;
    one(*d);
  }
  return r;
}

}  // namespace weir::frontend
