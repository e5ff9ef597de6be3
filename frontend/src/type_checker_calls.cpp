// Type checking of calls: keyword and positional arguments, calls of field operators and
// scan operators (argument order, broadcasting over the scan dimensions).
#include <algorithm>
#include <string>

#include "type_checker_internal.h"

namespace weir::frontend::typecheck {

const Expr* FunctionChecker::keyword(const Call& c, const std::string& name) {
  for (const Keyword& k : c.keywords)
    if (k.arg == name) return k.value.get();
  return nullptr;
}

void FunctionChecker::expect_args(const Call& c, const std::string& fn, std::size_t n,
                                  const std::set<std::string>& keywords) {
  if (c.args.size() != n)
    throw FrontendError(c.loc, "'" + fn + "' takes " + std::to_string(n) + " positional argument" +
                                   (n == 1 ? "" : "s") + ", got " + std::to_string(c.args.size()));
  for (const Keyword& k : c.keywords)
    if (!keywords.count(k.arg))
      throw FrontendError(k.loc, "'" + fn + "' has no keyword argument '" + k.arg + "'");
  for (const ExprPtr& a : c.args)
    if (isa<Starred>(a.get())) throw FrontendError(a->loc, "starred arguments are not supported");
}

TExprPtr FunctionChecker::call(const Call& c, Scope& scope) {
  // A local field, or any other expression yielding one (`a(E2C[0])(Koff[1])`,
  // `(a + b)(I + 1)`, `t[0](E2V[1])`, `state.u(E2V[1])`), is shifted; names of the module
  // are called.
  if (is_local(*c.func) || rooted_in(*c.func, scope) ||
      !(isa<Name>(c.func.get()) || isa<Attribute>(c.func.get())))
    return shift(c, expr(*c.func, scope), scope);
  Value f = global(*c.func);
  std::string fn = unparse(*c.func);
  if (f.kind == ValueKind::Definition) return operator_call(c, *f.definition, scope);
  if (f.kind == ValueKind::Builtin) {
    if (auto k = scalar_kind_from_name(f.name)) return constructor(c, *k, fn, scope);
    return builtin(c, f.name, fn, scope);
  }
  if (f.kind == ValueKind::Type && f.type.is_scalar()) return constructor(c, f.type.dtype, fn, scope);
  if (f.kind == ValueKind::Type && !f.type.collection.empty())
    return collection(c, f.type, [&](const Expr& x) { return expr(x, scope); });
  if (f.kind == ValueKind::External) throw FrontendError(c.func->loc, external_message(f));
  throw FrontendError(c.func->loc, "'" + fn + "' (" + f.describe() + ") is not callable here");
}

// Orders the call's arguments by the callee's parameters and checks their types.
// Returns the call's result type.
Type FunctionChecker::match_call(const Call& c, const TypedDefinition& callee, std::vector<TExprPtr>& args,
                                 const std::vector<TExprPtr>& positional,
                                 const std::vector<std::pair<const Keyword*, TExprPtr>>& keywords) {
  bool scan = callee.kind == DefinitionKind::ScanOperator;
  std::size_t first = scan ? 1 : 0;
  std::size_t n = callee.params.size() - first;
  args.assign(n, nullptr);
  if (positional.size() > n)
    throw FrontendError(c.loc, "'" + callee.name + "' takes " + std::to_string(n) + " argument" +
                                   (n == 1 ? "" : "s") + ", got " +
                                   std::to_string(positional.size() + keywords.size()));
  for (std::size_t i = 0; i < positional.size(); ++i) args[i] = positional[i];
  for (const auto& [k, v] : keywords) {
    std::size_t i = 0;
    while (i < n && callee.params[first + i].name != k->arg) ++i;
    if (i == n) throw FrontendError(k->loc, "'" + callee.name + "' has no parameter '" + k->arg + "'");
    if (args[i]) throw FrontendError(k->loc, "argument '" + k->arg + "' given twice");
    args[i] = v;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!args[i])
      throw FrontendError(
          c.loc, "missing argument '" + callee.params[first + i].name + "' in call to '" + callee.name + "'");
  std::vector<Dimension> dims;
  for (std::size_t i = 0; i < n; ++i) {
    const Type& want = callee.params[first + i].type;
    const Type& got = args[i]->type;
    bool ok = scan ? scan_compatible(got, want, dims) : got == want;
    if (!ok)
      throw FrontendError(args[i]->loc, "argument '" + callee.params[first + i].name + "' of '" +
                                            callee.name + "' must be " + to_string(want) +
                                            (scan ? " (or a field of it)" : "") + ", got " + to_string(got));
  }
  if (!scan) return callee.returns;
  dims = union_dims(dims, {callee.axis});
  return lift(callee.returns, dims);
}

bool FunctionChecker::scan_compatible(const Type& got, const Type& want, std::vector<Dimension>& dims) {
  if (want.is_tuple()) {
    if (!got.is_tuple() || got.elements.size() != want.elements.size()) return false;
    for (std::size_t i = 0; i < want.elements.size(); ++i)
      if (!scan_compatible(got.elements[i], want.elements[i], dims)) return false;
    return true;
  }
  if (!got.is_data() || !want.is_data() || got.dtype != want.dtype) return false;
  if (want.is_field()) return got == want;
  dims = union_dims(dims, got.dims);
  return true;
}

Type FunctionChecker::lift(const Type& t, const std::vector<Dimension>& dims) {
  if (t.is_tuple()) {
    std::vector<Type> e;
    for (const Type& x : t.elements) e.push_back(lift(x, dims));
    // A named collection stays one, of fields: `scan(x).value` names an element (gt4py's
    // implicit type of a scan's result, its scalars replaced by fields).
    Type r = Type::tuple(std::move(e));
    r.collection = t.collection;
    r.names = t.names;
    return r;
  }
  return Type::field(union_dims(t.dims, dims), t.dtype);
}

namespace {

// "calls nested more than 64 levels deep ('prog' -> 'op9' -> ... -> 'op1')": the chain of
// definitions in progress, its middle elided, then the callee.
std::string too_deep(const std::vector<const Definition*>& chain, const Definition& callee) {
  std::string s = "calls nested more than " + std::to_string(kMaxCallDepth) + " levels deep (";
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (i == 3 && chain.size() > 6) {
      s += "... -> ";
      i = chain.size() - 3;
    }
    s += "'" + chain[i]->name + "' -> ";
  }
  return s + "'" + callee.name + "'" +
         "): weir inlines every call and bounds the nesting; call fewer operators in a chain";
}

}  // namespace

const TypedDefinition& FunctionChecker::callee_of(const Definition& d, const SourceLocation& loc) {
  // Checking `d` recurses once more (tc_ holds this definition and its callers), and so does
  // inlining the call: bounded, at the call that would go one level too deep.
  if (tc_.in_progress().size() >= static_cast<std::size_t>(kMaxCallDepth))
    throw FrontendError(loc, too_deep(tc_.in_progress(), d));
  const TypedDefinition* callee = nullptr;
  try {
    callee = &tc_.check(d);
  } catch (const FrontendError& e) {
    if (e.message().rfind("recursive", 0) == 0) throw FrontendError(loc, e.message());
    throw;
  }
  // A callee checked earlier (cached) does not show in in_progress(): its own depth counts.
  if (callee->call_depth + 1 > kMaxCallDepth)
    throw FrontendError(loc, "calls nested more than " + std::to_string(kMaxCallDepth) + " levels deep ('" +
                                 def_.name + "' -> '" + d.name + "', which calls operators " +
                                 std::to_string(callee->call_depth - 1) +
                                 " levels deep): weir inlines every call and bounds the nesting; call fewer "
                                 "operators in a chain");
  out_.call_depth = std::max(out_.call_depth, callee->call_depth + 1);
  return *callee;
}

TExprPtr FunctionChecker::operator_call(const Call& c, const Definition& d, Scope& scope) {
  if (d.kind == DefinitionKind::Program)
    throw FrontendError(c.func->loc, "a program ('" + d.name + "') cannot be called from a " +
                                         std::string(to_string(def_.kind)));
  const TypedDefinition& callee = callee_of(d, c.func->loc);
  std::vector<TExprPtr> positional;
  std::vector<std::pair<const Keyword*, TExprPtr>> keywords;
  for (const ExprPtr& a : c.args) {
    if (isa<Starred>(a.get())) throw FrontendError(a->loc, "starred arguments are not supported");
    positional.push_back(expr(*a, scope));
  }
  for (const Keyword& k : c.keywords) {
    if (k.arg.empty()) throw FrontendError(k.loc, "**arguments are not supported");
    keywords.emplace_back(&k, expr(*k.value, scope));
  }
  auto r = mk(TExprKind::Call, Type{}, c.loc);
  r->type = match_call(c, callee, r->args, positional, keywords);
  r->callee = &callee;
  r->name = callee.name;
  return r;
}

}  // namespace weir::frontend::typecheck
