// with_output_domain (output_domain.h): the @program call that computes a @field_operator on
// part of its output, built as the type checker builds a checked @program's call.
#include "weir/runtime/output_domain.h"

#include <algorithm>
#include <memory>

#include "weir/frontend/typed_ir.h"
#include "weir/runtime/errors.h"

namespace weir::runtime {

using namespace weir::frontend;

namespace {

// The program, and the operator whose typed IR its call points into.
struct DomainProgram {
  FieldViewProgram op;
  TypedDefinition def;
};

TExprPtr name_of(const TParam& p) {
  auto e = std::make_shared<TExpr>();
  e->kind = TExprKind::Name;
  e->type = p.type;
  e->loc = p.loc;
  e->name = p.name;
  return e;
}

}  // namespace

std::string domain_start_argument(const std::string& dim) { return "__domain_" + dim + "_start"; }
std::string domain_stop_argument(const std::string& dim) { return "__domain_" + dim + "_stop"; }

FieldViewProgram with_output_domain(const FieldViewProgram& program, const std::vector<std::string>& dims) {
  if (program.orchestration)
    throw BackendError("'" + program.name() +
                       "' is an orchestration function: the programs it calls set their own domains");
  if (!program.definition) throw BackendError("an empty FieldViewProgram has no output domain");
  const TypedDefinition& op = *program.definition;
  if (op.kind != DefinitionKind::FieldOperator)
    throw BackendError("'" + op.name +
                       "' is a @program: it sets the domain of each call inside it (domain= or a sliced "
                       "out= on its calls), so it takes no domain");
  const std::vector<std::pair<std::string, Type>> outputs = result_outputs(op);
  auto holder = std::make_shared<DomainProgram>();
  holder->op = program;
  TypedDefinition& d = holder->def;
  d.kind = DefinitionKind::Program;
  d.name = op.name;
  d.source = op.source;
  d.loc = op.loc;
  d.call_depth = op.call_depth + 1;
  d.params = op.params;
  ProgramCall call;
  call.callee = &op;
  call.loc = op.loc;
  for (const TParam& p : op.params) call.args.push_back(name_of(p));
  for (const auto& [name, type] : outputs) {
    d.params.push_back(TParam{name, type, op.loc});
    ProgramCall::Out o;
    o.name = name;
    o.type = type;
    call.outs.push_back(std::move(o));
  }
  const std::vector<Dimension> result_dims =
      outputs.empty() ? std::vector<Dimension>{} : outputs[0].second.dims;
  std::string all;
  for (const Dimension& x : result_dims) all += (all.empty() ? "" : ", ") + x.name;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    auto dim = std::find_if(result_dims.begin(), result_dims.end(),
                            [&](const Dimension& x) { return x.name == dims[i]; });
    if (dim == result_dims.end())
      throw ArgumentError("the domain of '" + op.name + "' gives " + dims[i] +
                          ", but it returns a field over (" + all + ")");
    if (std::find(dims.begin(), dims.begin() + static_cast<long>(i), dims[i]) !=
        dims.begin() + static_cast<long>(i))
      throw ArgumentError("the domain of '" + op.name + "' gives " + dims[i] + " twice");
    TParam lo{domain_start_argument(dims[i]), Type::scalar(ScalarKind::Int64), op.loc};
    TParam hi{domain_stop_argument(dims[i]), Type::scalar(ScalarKind::Int64), op.loc};
    d.params.push_back(lo);
    d.params.push_back(hi);
    call.domain.push_back({*dim, name_of(lo), name_of(hi)});
  }
  d.calls.push_back(std::move(call));
  FieldViewProgram r = program;
  r.definition = std::shared_ptr<const TypedDefinition>(holder, &holder->def);
  return r;
}

}  // namespace weir::runtime
