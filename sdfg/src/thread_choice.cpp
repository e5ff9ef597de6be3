// One thread or many for a parallel map (see the header). Points are a guess at work: a
// min-reduction point costs a quarter of a nanosecond, a nested SDFG with loops or a library
// node an unknown amount, so only flat bodies are counted, and where the count is not a
// constant the generated code measures both ways (codegen/src/parallel_threshold.cpp).
#include "weir/sdfg/thread_choice.h"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "weir/sdfg/sdfg.h"

namespace weir {

namespace {

/// True when one call of `r` does a bounded amount of work, independent of symbols and data:
/// acyclic control flow without loops, states of tasklets, access nodes and nested SDFGs of
/// bounded work only.
bool bounded_work(const ControlFlowRegion& r) {
  if (r.kind() == BlockKind::Loop) return false;
  // A back edge in reverse post-order closes a cycle of blocks (a loop of states).
  std::vector<BlockId> order = r.reverse_post_order();
  std::map<BlockId, std::size_t> pos;
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
  for (const ControlFlowEdge* e : r.edges())
    if (pos[e->dst] <= pos[e->src]) return false;
  for (const ControlFlowBlock* b : r.blocks()) {
    if (const auto* st = b->as<SDFGState>()) {
      for (const Node* n : st->nodes()) {
        if (n->as<MapEntry>() || n->as<MapExit>() || n->as<LibraryNode>()) return false;
        if (const auto* ns = n->as<NestedSDFGNode>(); ns && !(ns->sdfg && bounded_work(*ns->sdfg)))
          return false;
      }
    } else if (const auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches())
        if (!br.body || !bounded_work(*br.body)) return false;
    } else if (const auto* sub = b->as<ControlFlowRegion>()) {
      if (!bounded_work(*sub)) return false;
    }
  }
  return true;
}

/// The size of `r`, an inner map's dimension, with the tile parameters of the maps around it
/// (`tiles`: parameter -> the start of its range) replaced by their starts, where `r` is a tile's
/// span: it starts at the tile parameter itself (MapTiling's `p:Min(E, p + s - 1) + 1` inside a
/// range of step s). The first tile is a whole one unless the domain is smaller, so this is the
/// size of every tile but the last: tiles x it counts the untiled domain's points (a tiled 3-D
/// stencil counted its 8 tiles as 8 points and chose one thread or many from its first calls'
/// noise; docs/adr/0056-weir-tune.md, session 30). `r.size()` unchanged otherwise.
sym::Expr tile_span_size(const Range& r, const std::map<std::string, sym::Expr>& tiles) {
  sym::Expr size = r.size();
  if (!r.start.is_symbol()) return size;
  auto it = tiles.find(r.start.symbol_name());
  if (it == tiles.end()) return size;
  return size.subs({{it->first, it->second}});
}

/// Multiplies `count` by the points of the maps nested in `scope`; false where the body is not
/// flat (a nested SDFG of unbounded work, a library node) or an inner map's size depends on the
/// parameters of the maps around it (`params`) or on dynamic range inputs, so that its work is
/// not known before the loop. A tile's span (tile_span_size) counts as the first tile's size.
bool count_inner_points(const SDFGState& st, const ScopeTree& tree, NodeId scope,
                        std::set<std::string>& params, const std::map<std::string, sym::Expr>& tiles,
                        sym::Expr& count) {
  for (NodeId c : tree.children(scope)) {
    const Node& n = st.node(c);
    if (n.as<LibraryNode>()) return false;
    if (const auto* ns = n.as<NestedSDFGNode>()) {
      if (!ns->sdfg || !bounded_work(*ns->sdfg)) return false;
      continue;
    }
    const auto* inner = n.as<MapEntry>();
    if (!inner) continue;
    // Dynamic range inputs (connectors other than IN_*) are read inside the outer map.
    for (const auto& [conn, type] : inner->in_connectors)
      if (conn.rfind("IN_", 0) != 0) return false;
    const MapInfo& m = *inner->map;
    for (std::size_t d = 0; d < m.range.dims(); ++d) {
      sym::Expr size = tile_span_size(m.range[d], tiles);
      for (const std::string& s : size.free_symbols())
        if (params.count(s)) return false;
      count = count * size;
    }
    params.insert(m.params.begin(), m.params.end());
    if (!count_inner_points(st, tree, c, params, tiles, count)) return false;
  }
  return true;
}

const char* choice_name(ThreadChoice c) {
  switch (c) {
    case ThreadChoice::Many: return "many";
    case ThreadChoice::One: return "one";
    case ThreadChoice::Measured: return "measured";
    case ThreadChoice::MeasuredUnknownWork: return "measured_unknown_work";
  }
  return "many";
}

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }

/// The string a JSON text holds, or nullopt when it is no JSON string.
std::optional<std::string> json_string_value(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_string()) return std::nullopt;
  return j.get<std::string>();
}

}  // namespace

sym::Expr leading_points(const MapInfo& m) {
  sym::Expr count(1);
  for (std::size_t d = 0; d < m.range.dims(); ++d) {
    sym::Expr size = m.range[d].size();
    bool dep = false;
    for (std::size_t k = 0; k < d && k < m.params.size(); ++k)
      dep = dep || size.free_symbols().count(m.params[k]);
    if (dep) break;
    count = count * size;
  }
  return count;
}

ThreadsVerdict choose_threads(const SDFGState& st, const ScopeTree& tree, const MapEntry& e) {
  const MapInfo& m = *e.map;
  ThreadsVerdict v;
  // The work of the region: every point of the map, not only the distributed (collapsed)
  // dimensions, and the points of the maps nested in it.
  sym::Expr count = leading_points(m);
  std::set<std::string> params(m.params.begin(), m.params.end());
  // The map's tiled dimensions (a constant step above 1): their parameters start tile spans.
  std::map<std::string, sym::Expr> tiles;
  for (std::size_t d = 0; d < m.range.dims() && d < m.params.size(); ++d)
    if (m.range[d].step.is_integer() && m.range[d].step.value() > 1)
      tiles.emplace(m.params[d], m.range[d].start);
  if (!count_inner_points(st, tree, e.id(), params, tiles, count)) {
    v.choice = ThreadChoice::MeasuredUnknownWork;
    v.points = leading_points(m);
  } else if (count.is_integer()) {
    v.choice = count.value() >= kMinParallelIterations ? ThreadChoice::Many : ThreadChoice::One;
  } else {
    v.choice = ThreadChoice::Measured;
    v.points = count;
  }
  return v;
}

void record_threads(MapInfo& m, const ThreadsVerdict& v) {
  m.extra.set(kThreadsAttribute, json_string(choice_name(v.choice)));
  if (v.choice == ThreadChoice::Measured || v.choice == ThreadChoice::MeasuredUnknownWork)
    m.extra.set(kPointsAttribute, json_string(v.points.str()));
  else
    m.extra.erase(kPointsAttribute);
}

bool clear_threads(MapInfo& m) {
  bool a = m.extra.erase(kThreadsAttribute);
  bool b = m.extra.erase(kPointsAttribute);
  return a || b;
}

std::optional<ThreadsVerdict> recorded_threads(const MapInfo& m) {
  const std::string* text = m.extra.find(kThreadsAttribute);
  if (!text) return std::nullopt;
  std::optional<std::string> name = json_string_value(*text);
  ThreadsVerdict v;
  if (name == "many") {
    v.choice = ThreadChoice::Many;
  } else if (name == "one") {
    v.choice = ThreadChoice::One;
  } else if (name == "measured") {
    v.choice = ThreadChoice::Measured;
  } else if (name == "measured_unknown_work") {
    v.choice = ThreadChoice::MeasuredUnknownWork;
  } else {
    throw std::invalid_argument(std::string(kThreadsAttribute) + " is " + *text +
                                ", expected \"many\", \"one\", \"measured\" or \"measured_unknown_work\"");
  }
  if (v.choice != ThreadChoice::Measured && v.choice != ThreadChoice::MeasuredUnknownWork) return v;
  const std::string* points = m.extra.find(kPointsAttribute);
  std::optional<std::string> expr = points ? json_string_value(*points) : std::nullopt;
  if (!expr)
    throw std::invalid_argument(std::string(kThreadsAttribute) + " " + *text + " needs " + kPointsAttribute +
                                ", a string holding the points of one run" +
                                (points ? " (it is " + *points + ")" : std::string()));
  try {
    v.points = sym::Expr::parse(*expr);
  } catch (const std::exception& ex) {
    throw std::invalid_argument(std::string(kPointsAttribute) + " \"" + *expr +
                                "\" is no expression: " + ex.what());
  }
  return v;
}

}  // namespace weir
