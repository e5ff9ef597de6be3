// The domain= of each call of a compiled @program checked against its output fields before the
// program runs, with the embedded backend's message: the compiled code only sees the loops the
// domain becomes, and reported a domain past the output in SDFG terms ("writes o[-1 .. -1] in
// dimension 1", or K: [0, 9) for a domain K: [3, 9)). The scalar arguments the bounds read are
// checked in the types the program declares (the SDFG holds them as int64 symbols). docs/adr/0014.
#include <algorithm>
#include <memory>
#include <utility>

#include "embedded_eval.h"
#include "weir/frontend/typed_ir.h"
#include "weir/runtime/call_domain_check.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/scalar_argument.h"

namespace weir::runtime {
namespace {

using namespace embedded;
using frontend::DefinitionKind;
using frontend::TypedDefinition;

bool has_domain(const frontend::ProgramCall& call) {
  if (!call.domain.empty()) return true;
  return std::any_of(call.outs.begin(), call.outs.end(), [](const auto& o) { return !o.domain.empty(); });
}

/// The value of scalar argument `n` as the interpreter holds a parameter of kind `k`.
Num number_of(ScalarKind k, const Number& n) {
  if (const auto* i = std::get_if<std::int64_t>(&n)) return from_int(k, *i);
  if (const auto* b = std::get_if<bool>(&n)) return from_int(k, *b ? 1 : 0);
  return from_double(k, std::get<double>(n));
}

/// Throws the embedded backend's ProgramError when a bound of `call`'s domain= that the scalar
/// arguments determine lies outside its output field (the field argument's extent along that
/// dimension). A bound it cannot evaluate (an argument missing or of the wrong kind) is left to
/// argument binding.
void check_call(const frontend::ProgramCall& call, const TypedDefinition& def, const Arguments& args,
                std::map<std::string, Value>& env) {
  Context ctx;
  Evaluator ev(ctx);
  for (std::size_t i = 0; i < call.outs.size(); ++i) {
    const auto& out = call.outs[i];
    auto param =
        std::find_if(def.params.begin(), def.params.end(), [&](const auto& p) { return p.name == out.name; });
    auto arr = args.arrays.find(out.name);
    if (param == def.params.end() || !param->type.is_field() || arr == args.arrays.end() ||
        arr->second.ndim() != param->type.dims.size())
      continue;
    const std::vector<Dimension>& dims = param->type.dims;
    for (const auto& dr : call.domain_of(i)) {
      auto at =
          std::find_if(dims.begin(), dims.end(), [&](const Dimension& d) { return d.name == dr.dim.name; });
      if (at == dims.end()) continue;
      std::int64_t lo = 0, hi = 0;
      try {
        auto bound = [&](const frontend::TExpr& e) {
          FieldVal v = ev.eval(e, env).field;
          return static_cast<std::int64_t>(to_double(v.dtype, (*v.data)[static_cast<std::size_t>(v.base)]));
        };
        lo = bound(*dr.lo);
        hi = bound(*dr.hi);
      } catch (const std::exception&) {
        continue;
      }
      const Range whole{0, arr->second.shape()[static_cast<std::size_t>(at - dims.begin())]};
      if (lo < whole.lo || hi > whole.hi)
        fail(call.loc, "domain= gives " + dr.dim.name + ": [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "), outside the output field '" + out.name + "' (" +
                           dr.dim.name + ": " + whole.str() + ")");
    }
  }
}

class DomainChecked final : public Program {
 public:
  DomainChecked(std::shared_ptr<Program> compiled, const FieldViewProgram& program)
      : compiled_(std::move(compiled)), program_(program) {}
  const std::string& name() const override { return compiled_->name(); }
  const Signature& signature() const override { return compiled_->signature(); }
  void run(Arguments& args) override {
    const TypedDefinition& def = *program_.definition;
    std::map<std::string, Value> env;
    for (const auto& p : def.params) {
      auto v = args.values.find(p.name);
      if (!p.type.is_scalar() || v == args.values.end()) continue;
      // In the program's own type first: a bound the SDFG holds as an int64 symbol is still an
      // int32 argument (`n: gtx.int32` as 2**32 + 3 ran on repeated Python calls).
      Parameter declared;
      declared.name = p.name;
      declared.kind = Parameter::Kind::Scalar;
      declared.dtype = *scalar_type_from_string(frontend::to_string(p.type.dtype));
      check_scalar_argument(declared, v->second);
      env[p.name] = Value::of(FieldVal::scalar(p.type.dtype, number_of(p.type.dtype, v->second)));
    }
    for (const auto& call : def.calls)
      if (has_domain(call)) check_call(call, def, args, env);
    compiled_->run(args);
  }

 private:
  std::shared_ptr<Program> compiled_;
  FieldViewProgram program_;
};

}  // namespace

std::shared_ptr<Program> with_call_domain_checks(std::shared_ptr<Program> compiled,
                                                 const FieldViewProgram& program) {
  if (!program.definition || program.orchestration || program.definition->kind != DefinitionKind::Program)
    return compiled;
  for (const auto& call : program.definition->calls)
    if (has_domain(call)) return std::make_shared<DomainChecked>(std::move(compiled), program);
  return compiled;
}

}  // namespace weir::runtime
