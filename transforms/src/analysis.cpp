// The analysis cache: lazily computed per-state, per-SDFG and per-region analyses.
#include "weir/transforms/analysis.h"

#include <cctype>

#include "weir/sdfg/state.h"
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

/// Identifier tokens of a Python text (conservative: attribute names and keywords included).
void identifiers(const std::string& s, std::set<std::string>& out) {
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isalpha(c) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.insert(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(c)) {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
}

void control_flow_names(const ControlFlowRegion& r, std::set<std::string>& out) {
  for (const ControlFlowEdge* e : r.edges()) {
    identifiers(e->data.condition.code, out);
    for (const auto& [k, v] : e->data.assignments) {
      out.insert(k);
      identifiers(v, out);
    }
  }
  for (ControlFlowBlock* b : r.blocks()) {
    if (auto* l = b->as<LoopRegion>()) {
      identifiers(l->init_statement.code, out);
      identifiers(l->loop_condition.code, out);
      identifiers(l->update_statement.code, out);
    }
    if (auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches()) {
        if (br.condition) identifiers(br.condition->code, out);
        if (br.body) control_flow_names(*br.body, out);
      }
    } else if (auto* sub = b->as<ControlFlowRegion>()) {
      control_flow_names(*sub, out);
    }
  }
}

}  // namespace

const std::map<std::string, DataUse>& AnalysisCache::data_use(const SDFG& sdfg) {
  auto it = data_use_.find(&sdfg);
  if (it != data_use_.end()) return it->second;
  ++computations_;
  std::map<std::string, DataUse> use;
  for (const auto& [name, d] : sdfg.arrays) use[name];
  for (SDFGState* st : sdfg.all_states()) {
    for (Node* n : st->nodes()) {
      if (auto* a = n->as<AccessNode>()) {
        DataUse& u = use[a->data];
        ++u.access_nodes;
        if (!st->out_edges(a->id()).empty()) ++u.read_nodes;
        if (!st->in_edges(a->id()).empty()) ++u.write_nodes;
      } else if (auto* ns = n->as<NestedSDFGNode>()) {
        for (const auto& [k, e] : ns->symbol_mapping)
          for (const auto& s : e.free_symbols())
            if (use.count(s)) use[s].by_name_elsewhere = true;
      }
    }
  }
  std::set<std::string> cf;
  control_flow_names(sdfg, cf);
  for (auto& [name, u] : use)
    if (cf.count(name)) u.in_control_flow = true;
  return data_use_[&sdfg] = std::move(use);
}

const std::set<BlockId>& AnalysisCache::reachable_blocks(const ControlFlowRegion& r) {
  auto it = reachable_.find(&r);
  if (it != reachable_.end()) return it->second;
  ++computations_;
  std::set<BlockId> seen;
  BlockId start = r.start_block();
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

void AnalysisCache::invalidate_state(const SDFGState& st) {
  states_.erase(&st);
  if (const SDFG* s = st.sdfg()) data_use_.erase(s);
  // A state may gain or lose nested SDFGs (their regions are in the cfg list).
  cfg_lists_.clear();
}

void AnalysisCache::invalidate_region(const ControlFlowRegion& r) {
  reachable_.erase(&r);
  for (SDFGState* st : r.all_states()) states_.erase(st);
  // Blocks moved in or out of the region may have been cached under other keys; states of
  // blocks removed from the region are gone, so drop entries that might dangle.
  states_.clear();
  reachable_.clear();
  if (const SDFG* s = r.sdfg()) data_use_.erase(s);
  data_use_.clear();
  cfg_lists_.clear();
}

void AnalysisCache::invalidate_all() {
  states_.clear();
  data_use_.clear();
  reachable_.clear();
  cfg_lists_.clear();
}

bool is_constant_false(const CodeBlock& condition) {
  if (condition.language != Language::Python) return false;
  std::string c = condition.code;
  c.erase(0, c.find_first_not_of(" \t\n"));
  c.erase(c.find_last_not_of(" \t\n") + 1);
  if (c == "False" || c == "0" || c == "(False)") return true;
  try {
    sym::Expr e = sym::Expr::parse(c);
    if ((e.is_boolean() || e.is_integer()) && e.value() == 0) return true;
  } catch (const weir::Error&) {
  }
  return false;
}

}  // namespace weir::transforms
