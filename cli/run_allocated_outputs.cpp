// The outputs `weir run` allocates (run_allocated_outputs.h).
#include "run_allocated_outputs.h"

#include <algorithm>
#include <cctype>
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

namespace {

// Every interstate condition, assignment and loop statement of `r` and the regions inside it.
void control_flow_code(const ControlFlowRegion& r, std::vector<const std::string*>& out) {
  for (const ControlFlowEdge* e : r.edges()) {
    out.push_back(&e->data.condition.code);
    for (const auto& [target, value] : e->data.assignments) out.push_back(&value.code);
  }
  for (const ControlFlowBlock* b : r.blocks()) {
    if (const auto* loop = b->as<LoopRegion>()) {
      out.push_back(&loop->init_statement.code);
      out.push_back(&loop->loop_condition.code);
      out.push_back(&loop->update_statement.code);
    }
    if (const auto* region = b->as<ControlFlowRegion>()) control_flow_code(*region, out);
    if (const auto* cond = b->as<ConditionalBlock>())
      for (const auto& branch : cond->branches()) {
        if (branch.condition) out.push_back(&branch.condition->code);
        if (branch.body) control_flow_code(*branch.body, out);
      }
  }
}

// Whether `name` occurs in `text` as a whole identifier.
bool mentions(const std::string& text, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    if ((at == 0 || !ident(text[at - 1])) &&
        (at + name.size() == text.size() || !ident(text[at + name.size()])))
      return true;
  return false;
}

}  // namespace

std::set<std::string> output_only_containers(const SDFG& sdfg) {
  std::set<std::string> written, read;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes()) {
      const auto* a = n->as<AccessNode>();
      if (!a) continue;
      if (!st->out_edges(a->id()).empty()) read.insert(a->data);
      for (EdgeId id : st->in_edges(a->id())) {
        written.insert(a->data);
        if (!st->edge(id).memlet.wcr.empty()) read.insert(a->data);  // a reduction onto it reads it
      }
    }
  std::vector<const std::string*> code;
  control_flow_code(sdfg, code);
  std::set<std::string> out;
  for (const auto& name : written) {
    auto it = sdfg.arrays.find(name);
    if (read.count(name) || it == sdfg.arrays.end() || it->second.transient || it->second.is_scalar() ||
        it->second.is_view() || name.rfind("__return", 0) == 0)
      continue;
    if (std::none_of(code.begin(), code.end(), [&](const std::string* c) { return mentions(*c, name); }))
      out.insert(name);
  }
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
    // A 0-d field of a field-view program (shape (1,) in its SDFG) is made as the 0-d array the
    // embedded backend makes and gt4py passes.
    const Parameter* fv = t.field_view_sig.find(p.name);
    if (!(fv && fv->kind == Parameter::Kind::Array && fv->has_shape && fv->shape.empty())) {
      for (const auto& e : p.shape)
        if (auto v = e.try_evaluate(symbols)) shape.push_back(*v);
      if (shape.size() != p.shape.size()) continue;
    }
    args.arrays.insert_or_assign(p.name, backend.allocator().allocate(p.dtype, shape));  // zero-filled
    made.push_back(p.name);
  }
  return made;
}

}  // namespace weir::cli
