// The outputs `weir run` allocates (run_allocated_outputs.h).
#include "run_allocated_outputs.h"

#include <functional>

#include "run_sizes.h"
#include "weir/frontend/typed_ir.h"

namespace weir::cli {

using namespace weir::runtime;

std::set<std::string> output_only_parameters(const FieldViewProgram& program) {
  std::set<std::string> out;
  if (program.orchestration || !program.definition) return out;
  const frontend::TypedDefinition& def = *program.definition;
  if (def.kind != frontend::DefinitionKind::Program) {
    for (const auto& p : field_view_signature(def).params)
      if (p.name == "__out" || p.name.rfind("__out_", 0) == 0) out.insert(p.name);
    return out;
  }
  std::set<std::string> read;
  std::function<void(const frontend::TExprPtr&)> names = [&](const frontend::TExprPtr& e) {
    if (!e) return;
    if (e->kind == frontend::TExprKind::Name) read.insert(e->name);
    for (const auto& a : e->args) names(a);
  };
  for (const auto& c : def.calls) {
    for (const auto& a : c.args) names(a);
    for (std::size_t i = 0; i < c.outs.size(); ++i)
      for (const auto& r : c.domain_of(i)) names(r.lo), names(r.hi);
  }
  for (const auto& c : def.calls)
    for (const auto& o : c.outs)
      if (!read.count(o.name)) out.insert(o.name);
  return out;
}

std::vector<std::string> allocate_outputs(const RunTarget& t, const Backend& backend, Arguments& args,
                                          const std::set<std::string>& hints) {
  std::vector<std::string> made;
  if (t.outputs_only.empty()) return made;
  std::map<std::string, long long> symbols = shape_symbols(t, args, hints);
  for (const auto& p : t.sig.params) {
    if (p.kind != Parameter::Kind::Array || !t.outputs_only.count(p.name) || args.arrays.count(p.name))
      continue;
    std::vector<std::int64_t> shape;
    for (const auto& e : p.shape)
      if (auto v = e.try_evaluate(symbols)) shape.push_back(*v);
    if (shape.size() != p.shape.size()) continue;
    args.arrays.insert_or_assign(p.name, backend.allocator().allocate(p.dtype, shape));  // zero-filled
    made.push_back(p.name);
  }
  return made;
}

}  // namespace weir::cli
