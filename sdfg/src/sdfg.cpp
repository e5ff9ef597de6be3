// SDFG: data containers, symbols, free symbols / call signature, nested-SDFG links and deep copy.
#include "weir/sdfg/sdfg.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/names.h"

namespace weir {

namespace {

// Names Python code reads and assigns, from its syntax tree (called functions and attribute
// bases such as `math` are not symbols). Invalid Python contributes nothing here: validate()
// reports it with its element.
void code_symbols(const CodeBlock& code, std::set<std::string>& used, std::set<std::string>& defined) {
  if (code.language != Language::Python) return;
  try {
    pycode::NameUse u = code_names(code);
    used.merge(u.reads);
    defined.merge(u.writes);
  } catch (const pycode::SourceError&) {
  }
}

void state_symbols(const SDFGState& st, std::set<std::string>& used, std::set<std::string>& defined) {
  for (const Node* n : st.nodes()) {
    if (auto* e = n->as<MapEntry>()) {
      defined.insert(e->map->params.begin(), e->map->params.end());
      // Dynamic map inputs (in-connectors without the IN_ prefix) are symbols defined inside
      // the scope, as in DaCe's MapEntry: the range may read them, they are not free.
      for (const auto& [conn, type] : e->in_connectors)
        if (conn.rfind("IN_", 0) != 0) defined.insert(conn);
      used.merge(e->map->range.free_symbols());
      // The accesses a fusion removed are still checked before the map runs.
      used.merge(checked_access_symbols(*e->map));
    } else if (auto* ns = n->as<NestedSDFGNode>()) {
      for (const auto& [inner, outer] : ns->symbol_mapping) used.merge(outer.free_symbols());
    } else if (auto* t = n->as<Tasklet>(); t && t->code.language == Language::Python) {
      // As DaCe's Tasklet.free_symbols: names the code reads that are not connectors and not
      // assigned inside the tasklet, nor `inf` and `nan` (DaCe's TaskletFreeSymbolVisitor skips
      // them: its cppunparse writes C's INFINITY and NAN; Python has no NaN literal).
      std::set<std::string> reads, locals;
      code_symbols(t->code, reads, locals);
      for (const auto& s : reads)
        if (!t->in_connectors.count(s) && !t->out_connectors.count(s) && !locals.count(s) && s != "inf" &&
            s != "nan")
          used.insert(s);
    }
  }
  for (const DataflowEdge* e : st.edges()) {
    const Memlet& m = e->memlet;
    used.merge(m.subset.free_symbols());
    if (m.other_subset) used.merge(m.other_subset->free_symbols());
    used.merge(m.volume.free_symbols());
  }
}

void region_symbols(const ControlFlowRegion& r, std::set<std::string>& used, std::set<std::string>& defined) {
  for (const ControlFlowEdge* e : r.edges()) {
    code_symbols(e->data.condition, used, defined);
    for (const auto& [target, value] : e->data.assignments) {
      defined.insert(target);
      code_symbols(value, used, defined);
    }
  }
  for (const ControlFlowBlock* b : r.blocks()) {
    if (auto* st = b->as<SDFGState>()) {
      state_symbols(*st, used, defined);
      continue;
    }
    if (auto* loop = b->as<LoopRegion>()) {
      if (!loop->loop_variable.empty()) defined.insert(loop->loop_variable);
      for (const auto* c : {&loop->init_statement, &loop->loop_condition, &loop->update_statement})
        code_symbols(*c, used, defined);
    }
    if (auto* sub = b->as<ControlFlowRegion>()) {
      region_symbols(*sub, used, defined);
    } else if (auto* cond = b->as<ConditionalBlock>()) {
      for (const auto& br : cond->branches()) {
        if (br.condition) code_symbols(*br.condition, used, defined);
        if (br.body) region_symbols(*br.body, used, defined);
      }
    }
  }
}

}  // namespace

SDFG::SDFG(std::string n) : ControlFlowRegion(BlockKind::SDFG, n), name(std::move(n)) {}
SDFG::~SDFG() = default;

DataDescriptor& SDFG::add_data(const std::string& n, DataDescriptor desc) {
  if (!is_identifier(n))
    throw IRError(ElementRef{name, {}, -1, -1, {}},
                  "data container name '" + n + "' is not a valid identifier");
  if (arrays.count(n))
    throw IRError(ElementRef{name, {}, -1, -1, {}}, "data container '" + n + "' already exists");
  if (symbols.count(n))
    throw IRError(ElementRef{name, {}, -1, -1, {}}, "data container name '" + n + "' is already a symbol");
  return arrays.emplace(n, std::move(desc)).first->second;
}

DataDescriptor& SDFG::add_array(const std::string& n, ScalarType t, std::vector<sym::Expr> shape,
                                bool transient) {
  return add_data(n, DataDescriptor::make_array(t, std::move(shape), transient));
}

DataDescriptor& SDFG::add_scalar(const std::string& n, ScalarType t, bool transient) {
  return add_data(n, DataDescriptor::make_scalar(t, transient));
}

void SDFG::add_symbol(const std::string& n, ScalarType t) {
  ElementRef where{name, {}, -1, -1, {}};
  if (!is_identifier(n)) throw IRError(where, "symbol name '" + n + "' is not a valid identifier");
  if (arrays.count(n)) throw IRError(where, "symbol name '" + n + "' is already a data container");
  auto it = symbols.find(n);
  if (it == symbols.end()) {
    symbols.emplace(n, DataType::scalar(t));
  } else if (!(it->second == DataType::scalar(t))) {
    throw IRError(where, "symbol '" + n + "' already exists with type " + it->second.str());
  }
}

std::string SDFG::unique_data_name(const std::string& base) const {
  auto taken = [this](const std::string& s) { return arrays.count(s) || symbols.count(s); };
  if (!taken(base)) return base;
  for (std::size_t i = 0;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!taken(candidate)) return candidate;
  }
}

void SDFG::remove_data(const std::string& n) {
  if (!arrays.count(n)) throw IRError(ElementRef{name, {}, -1, -1, {}}, "no data container '" + n + "'");
  // Removing a container that access nodes still use would leave dangling references.
  for (SDFGState* st : all_states())
    for (AccessNode* a : st->access_nodes(n))
      throw IRError(ElementRef{name, st->path(), static_cast<long>(a->id()), -1, a->label},
                    "cannot remove data container '" + n + "': still accessed here");
  arrays.erase(n);
}

DataDescriptor& SDFG::data(const std::string& n) {
  return const_cast<DataDescriptor&>(static_cast<const SDFG&>(*this).data(n));
}

const DataDescriptor& SDFG::data(const std::string& n) const {
  auto it = arrays.find(n);
  if (it == arrays.end()) throw IRError(ElementRef{name, {}, -1, -1, {}}, "no data container '" + n + "'");
  return it->second;
}

std::set<std::string> SDFG::free_symbols() const {
  std::set<std::string> used, defined;
  for (const auto& [n, desc] : arrays) used.merge(desc.free_symbols());
  region_symbols(*this, used, defined);
  // Like DaCe, a symbol defined anywhere (map parameter, loop variable, interstate assignment)
  // counts as defined everywhere; container names read in conditions are data, not symbols.
  std::set<std::string> out;
  for (const auto& s : used)
    if (!defined.count(s) && !arrays.count(s)) out.insert(s);
  return out;
}

std::vector<std::string> SDFG::arglist() const {
  std::vector<std::string> out;
  std::set<std::string> listed;
  auto add = [&](const std::string& s) {
    if (listed.insert(s).second) out.push_back(s);
  };
  for (const auto& a : arg_names) add(a);
  for (const auto& [n, desc] : arrays)
    if (!desc.transient) add(n);
  for (const auto& s : free_symbols()) add(s);
  return out;
}

SDFG* SDFG::parent_sdfg() const { return parent_state_ ? parent_state_->sdfg() : nullptr; }

void SDFG::relink_nested() {
  for (SDFGState* st : all_states()) {
    for (Node* n : st->nodes()) {
      auto* ns = n->as<NestedSDFGNode>();
      if (!ns || !ns->sdfg) continue;
      ns->sdfg->parent_node_ = ns;
      ns->sdfg->parent_state_ = st;
      ns->sdfg->relink_nested();
    }
  }
}

std::unique_ptr<SDFG> SDFG::clone_sdfg() const {
  auto c = std::make_unique<SDFG>(name);
  copy_region_to(*c);
  c->arrays = arrays;
  c->symbols = symbols;
  c->arg_names = arg_names;
  c->dace_version = dace_version;
  c->using_explicit_control_flow = using_explicit_control_flow;
  c->global_code = global_code;
  c->init_code = init_code;
  c->exit_code = exit_code;
  c->relink_nested();
  return c;
}

std::unique_ptr<ControlFlowBlock> SDFG::clone() const { return clone_sdfg(); }

}  // namespace weir
