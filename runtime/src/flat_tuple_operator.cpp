// with_flat_tuple_parameters (flat_tuple_operator.h): a field operator run directly takes its
// tuple parameters leaf by leaf, as a @program does (docs/adr/0008, session 29).
#include "flat_tuple_operator.h"

#include <map>
#include <string>
#include <utility>

#include "weir/frontend/python_syntax.h"

namespace weir::runtime {

using namespace weir::frontend;

namespace {

// The wrapper and the operator its call points into.
struct FlatOperator {
  std::shared_ptr<const TypedDefinition> op;
  TypedDefinition def;
};

// The value of parameter part `name` of type `t`: a leaf parameter's name, or the tuple of the
// parts below it (a named collection keeps its type, so `s.u` in the operator still names `u`).
TExprPtr rebuilt(const std::string& name, const Type& t, const SourceLocation& loc) {
  auto e = std::make_shared<TExpr>();
  e->type = t;
  e->loc = loc;
  if (!t.is_tuple()) {
    e->kind = TExprKind::Name;
    e->name = name;
    return e;
  }
  e->kind = TExprKind::Tuple;
  for (std::size_t i = 0; i < t.elements.size(); ++i)
    e->args.push_back(rebuilt(name + "_" + std::to_string(i), t.elements[i], loc));
  return e;
}

}  // namespace

std::shared_ptr<const TypedDefinition> with_flat_tuple_parameters(
    const std::shared_ptr<const TypedDefinition>& op) {
  if (op->kind != DefinitionKind::FieldOperator) return op;
  bool any_tuple = false;
  for (const TParam& p : op->params) any_tuple = any_tuple || p.type.is_tuple();
  if (!any_tuple) return op;
  auto holder = std::make_shared<FlatOperator>();
  holder->op = op;
  TypedDefinition& d = holder->def;
  d.kind = DefinitionKind::FieldOperator;
  d.name = op->name;
  d.source = op->source;
  d.loc = op->loc;
  d.returns = op->returns;
  d.call_depth = op->call_depth + 1;
  d.declared_params = op->params;
  auto call = std::make_shared<TExpr>();
  call->kind = TExprKind::Call;
  call->type = op->returns;
  call->loc = op->loc;
  call->callee = op.get();
  for (const TParam& p : op->params) {
    for (const auto& [leaf, type] : flat_parameter_names(p.name, p.type))
      d.params.push_back(TParam{leaf, type, p.loc});
    call->args.push_back(rebuilt(p.name, p.type, p.loc));
  }
  // A leaf name that is also a parameter (`x` beside `x_0`) would be two arguments in one.
  std::map<std::string, std::string> owner;
  for (const TParam& p : op->params)
    if (!p.type.is_tuple()) owner[p.name] = p.name;
  for (const TParam& p : op->params) {
    if (!p.type.is_tuple()) continue;
    for (const auto& [leaf, type] : flat_parameter_names(p.name, p.type))
      if (auto [it, fresh] = owner.emplace(leaf, p.name); !fresh)
        throw FrontendError(
            p.loc,
            "tuple parameter '" + p.name + "' is passed as one argument per element (" + leaf +
                " is one), but '" + leaf + "' is also " +
                (it->second == leaf ? "a parameter" : "an element of tuple parameter '" + it->second + "'") +
                ": rename one of them");
  }
  TStmt ret;
  ret.kind = TStmt::Kind::Return;
  ret.loc = op->loc;
  ret.value = std::move(call);
  d.body.push_back(std::move(ret));
  return {holder, &holder->def};
}

}  // namespace weir::runtime
