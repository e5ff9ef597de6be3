// The analysis cache: lazily computed per-state, per-SDFG and per-region analyses.
#include "weir/transforms/analysis.h"

#include <array>
#include <memory>

#include "control_flow_mentions.h"
#include "weir/pycode/code.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic_tree.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms {

struct AnalysisCache::StateInfo {
  std::optional<ScopeTree> scopes;
  std::map<NodeKind, std::vector<NodeId>> by_kind;
  bool indexed = false;
};

AnalysisCache::AnalysisCache() = default;
AnalysisCache::~AnalysisCache() = default;

AnalysisCache::StateInfo& AnalysisCache::info(const SDFGState& st) {
  auto& p = states_[&st];
  if (!p) p = std::make_unique<StateInfo>();
  return *p;
}

const ScopeTree& AnalysisCache::scope_tree(const SDFGState& st) {
  StateInfo& i = info(st);
  if (!i.scopes) {
    ++computations_;
    i.scopes = st.scope_tree();
  }
  return *i.scopes;
}

const std::vector<NodeId>& AnalysisCache::nodes_of_kind(const SDFGState& st, NodeKind kind) {
  StateInfo& i = info(st);
  if (!i.indexed) {
    ++computations_;
    for (Node* n : st.nodes()) i.by_kind[n->kind()].push_back(n->id());
    i.indexed = true;
  }
  return i.by_kind[kind];
}

namespace {

/// Names code mentions (read or written; attribute bases included, conservatively).
void identifiers(const CodeBlock& code, std::set<std::string>& out) { out.merge(code_names(code).data()); }

/// Names an interstate edge mentions.
std::set<std::string> edge_names(const InterstateEdge& e) {
  std::set<std::string> out;
  identifiers(e.condition, out);
  for (const auto& [k, v] : e.assignments) {
    out.insert(k);
    identifiers(v, out);
  }
  return out;
}

/// Adds `sign` per mention (edge, loop header, branch condition) of each name to `count`.
void control_flow_names(const ControlFlowRegion& r, std::map<std::string, int>& count) {
  for (const ControlFlowEdge* e : r.edges())
    for (const auto& n : edge_names(e->data)) ++count[n];
  for (ControlFlowBlock* b : r.blocks()) {
    std::set<std::string> out;
    if (auto* l = b->as<LoopRegion>()) {
      identifiers(l->init_statement, out);
      identifiers(l->loop_condition, out);
      identifiers(l->update_statement, out);
    }
    if (auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches()) {
        if (br.condition) identifiers(*br.condition, out);
        if (br.body) control_flow_names(*br.body, count);
      }
    } else if (auto* sub = b->as<ControlFlowRegion>()) {
      control_flow_names(*sub, count);
    }
    for (const auto& n : out) ++count[n];
  }
}

}  // namespace

std::map<std::string, int> control_flow_mentions(const ControlFlowRegion& r) {
  std::map<std::string, int> count;
  control_flow_names(r, count);
  return count;
}

/// What one state adds to its SDFG's container use.
struct AnalysisCache::Contribution {
  const SDFG* sdfg = nullptr;                        // whose UseInfo it is summed into
  std::map<std::string, std::array<int, 3>> counts;  // access, read, write nodes
  std::vector<std::string> named;                    // free symbols of nested symbol mappings
};

/// Container use of one SDFG, kept up to date in place: counts per name, and how often each
/// name is mentioned by a nested symbol mapping or the control flow.
struct AnalysisCache::UseInfo {
  std::map<std::string, DataUse> use;
  std::map<std::string, int> named, cf;
  /// Re-derives the flags of `name` and drops its entry if it is neither a container nor accessed.
  void settle(const SDFG& sdfg, const std::string& name) {
    auto it = use.find(name);
    if (!sdfg.arrays.count(name) && (it == use.end() || it->second.access_nodes == 0)) {
      if (it != use.end()) use.erase(it);
      return;
    }
    DataUse& u = use[name];
    auto n = named.find(name);
    u.by_name_elsewhere = n != named.end() && n->second > 0;
    auto c = cf.find(name);
    u.in_control_flow = c != cf.end() && c->second > 0;
  }
};

void AnalysisCache::add_contribution(UseInfo& u, const SDFGState& st, int sign) {
  if (sign < 0 && !contrib_.count(&st)) return;
  auto& slot = contrib_[&st];
  if (sign > 0) {
    slot = std::make_unique<Contribution>();
    slot->sdfg = st.sdfg();
    for (Node* n : st.nodes()) {
      if (auto* a = n->as<AccessNode>()) {
        auto& c = slot->counts[a->data];
        ++c[0];
        if (!st.out_edges(a->id()).empty()) ++c[1];
        if (!st.in_edges(a->id()).empty()) ++c[2];
      } else if (auto* ns = n->as<NestedSDFGNode>()) {
        for (const auto& [k, e] : ns->symbol_mapping)
          for (const auto& s : e.free_symbols()) slot->named.push_back(s);
      }
    }
  }
  if (!slot) return;
  for (const auto& [name, c] : slot->counts) {
    DataUse& d = u.use[name];
    d.access_nodes += sign * c[0];
    d.read_nodes += sign * c[1];
    d.write_nodes += sign * c[2];
  }
  for (const auto& s : slot->named) u.named[s] += sign;
  if (sign < 0) contrib_.erase(&st);
}

const std::map<std::string, DataUse>& AnalysisCache::data_use(const SDFG& sdfg) {
  auto it = data_use_.find(&sdfg);
  if (it != data_use_.end()) return it->second->use;
  ++computations_;
  auto u = std::make_unique<UseInfo>();
  for (const auto& [name, d] : sdfg.arrays) u->use[name];
  for (SDFGState* st : sdfg.all_states()) add_contribution(*u, *st, +1);
  control_flow_names(sdfg, u->cf);
  for (const auto& [name, d] : u->use) {
    auto n = u->named.find(name);
    if (n != u->named.end() && n->second > 0) u->use[name].by_name_elsewhere = true;
    auto c = u->cf.find(name);
    if (c != u->cf.end() && c->second > 0) u->use[name].in_control_flow = true;
  }
  return (data_use_[&sdfg] = std::move(u))->use;
}

const std::set<BlockId>& AnalysisCache::reachable_blocks(const ControlFlowRegion& r) {
  auto it = reachable_.find(&r);
  if (it != reachable_.end()) return it->second;
  ++computations_;
  std::set<BlockId> seen;
  BlockId start = start_block(r);
  std::vector<BlockId> work;
  if (start != kNoBlock) work.push_back(start);
  while (!work.empty()) {
    BlockId b = work.back();
    work.pop_back();
    if (!seen.insert(b).second) continue;
    for (const ControlFlowEdge* e : r.out_edges(b))
      if (!is_constant_false(e->data.condition)) work.push_back(e->dst);
  }
  return reachable_[&r] = std::move(seen);
}

const std::vector<ControlFlowRegion*>& AnalysisCache::cfg_list(const SDFG& root) {
  auto it = cfg_lists_.find(&root);
  if (it != cfg_lists_.end()) return it->second;
  ++computations_;
  return cfg_lists_[&root] = transforms::cfg_list(root);
}

BlockId AnalysisCache::start_block(const ControlFlowRegion& r) {
  auto it = start_.find(&r);
  if (it != start_.end()) return it->second;
  return start_[&r] = r.start_block();
}

void AnalysisCache::invalidate_states(const SDFG& sdfg, const std::vector<const SDFGState*>& before,
                                      const std::vector<const SDFGState*>& after,
                                      const std::vector<std::string>& containers) {
  auto it = data_use_.find(&sdfg);
  UseInfo* u = it == data_use_.end() ? nullptr : it->second.get();
  std::set<std::string> touched(containers.begin(), containers.end());
  auto note = [&](const SDFGState* st) {
    if (auto c = contrib_.find(st); c != contrib_.end())
      for (const auto& [name, n] : c->second->counts) touched.insert(name);
  };
  for (const SDFGState* st : before) {
    states_.erase(st);
    note(st);
    if (u) add_contribution(*u, *st, -1);  // uses only the stored contribution
  }
  for (const SDFGState* st : after) {
    states_.erase(st);
    if (!u) continue;
    add_contribution(*u, *st, +1);
    note(st);
  }
  if (u)
    for (const auto& name : touched) u->settle(sdfg, name);
  // A state that gained a nested SDFG adds regions to the cfg list.
  for (const SDFGState* st : after)
    if (!nodes_of_kind(*st, NodeKind::NestedSDFG).empty()) {
      cfg_lists_.clear();
      break;
    }
}

void AnalysisCache::update_control_flow(const SDFG& sdfg, const ControlFlowRegion& r,
                                        const std::vector<const InterstateEdge*>& removed,
                                        const std::vector<const InterstateEdge*>& added) {
  reachable_.erase(&r);
  start_.erase(&r);
  auto it = data_use_.find(&sdfg);
  if (it == data_use_.end()) return;
  UseInfo& u = *it->second;
  std::set<std::string> touched;
  for (const auto* e : removed)
    for (const auto& n : edge_names(*e)) --u.cf[n], touched.insert(n);
  for (const auto* e : added)
    for (const auto& n : edge_names(*e)) ++u.cf[n], touched.insert(n);
  for (const auto& n : touched) u.settle(sdfg, n);
}

void AnalysisCache::invalidate_all() {
  states_.clear();
  data_use_.clear();
  contrib_.clear();
  reachable_.clear();
  start_.clear();
  cfg_lists_.clear();
}

bool is_constant_false(const CodeBlock& condition) {
  if (condition.language != Language::Python) return false;
  std::shared_ptr<const pycode::Code> tree;
  try {
    tree = condition.parsed();
  } catch (const pycode::SourceError&) {
    return false;
  }
  const pycode::Expr* e = tree->expression();
  if (!e) return false;  // empty: always true
  if (const auto* k = pycode::dyn_cast<pycode::Constant>(e))
    return (k->value_kind == pycode::ConstantKind::Bool && !k->bool_value) ||
           (k->value_kind == pycode::ConstantKind::Int && k->int_value == 0);
  // Otherwise what the symbolic layer simplifies to 0 (`1 > 2`, `N - N`) reading the tree.
  try {
    sym::Expr v = sym::from_tree(*e);
    if ((v.is_boolean() || v.is_integer()) && v.value() == 0) return true;
  } catch (const weir::Error&) {
  }
  return false;
}

}  // namespace weir::transforms
