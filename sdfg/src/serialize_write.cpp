// Writing the IR as DaCe JSON: `type` on every object, inclusive range ends, `$`-prefixed
// symbols in symbolic properties, node and block indices as strings for edge endpoints, and
// the derived keys DaCe and SDFV read (scope_dict, src_subset/dst_subset, num_accesses).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/library_implementations.h"
#include "weir/sdfg/private_attributes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/written_by_weir.h"

namespace weir {
namespace {

using json = nlohmann::json;

/// `extra` into `attrs`, weir's own attributes under their file keys (private_attributes.h).
/// `skip`: a key the object's DaCe class has no property for and weir does not need in files.
void put_unknown(json& attrs, const UnknownAttributes& extra, const char* skip = nullptr) {
  for (const auto& [k, text] : extra.items()) {
    const std::string key = attribute_key_in_file(k);
    if (attrs.contains(key)) continue;           // modelled values win over stale copies
    if (k == kWrittenByWeirAttribute) continue;  // in memory only (written_by_weir.h)
    if (skip && k == skip) continue;
    attrs[key] = json::parse(text);
  }
}

json code_json(const CodeBlock& c) {
  return json{{"string_data", c.code}, {"language", std::string(to_string(c.language))}};
}

/// null for an empty statement (DaCe's CodeProperty with allow_none, default None).
json optional_code_json(const CodeBlock& c) { return is_blank(c) ? json(nullptr) : code_json(c); }

/// A map scope node's label as DaCe writes it (str(Map)): the name and each parameter's range
/// in Python slice notation, `name[i=0:N, j=0:M:2]`; SDFV sizes the node by it.
std::string map_node_label(const MapInfo& m) {
  std::string out = m.label + "[";
  for (std::size_t k = 0; k < m.params.size() && k < m.range.dims(); ++k)
    out += (k ? ", " : "") + m.params[k] + "=" + Subset({m.range[k]}).str();
  return out + "]";
}

json dtype_json(const DataType& t) {
  if (!t.raw_json.empty()) return json::parse(t.raw_json);
  json j = std::string(to_string(t.base));
  for (int i = 0; i < t.pointer_depth; ++i) j = json{{"type", "pointer"}, {"dtype", j}};
  return j;
}

json connectors_json(const ConnectorMap& m) {
  json j = json::object();
  for (const auto& [name, t] : m) j[name] = t ? dtype_json(*t) : json(nullptr);
  return j;
}

json exprs_json(const std::vector<sym::Expr>& v) {
  json j = json::array();
  for (const auto& e : v) j.push_back(e.dace_str());
  return j;
}

json subset_json(const Subset& s) {
  if (s.written_as_indices() && s.is_single_element()) {
    json idx = json::array();
    for (const auto& r : s.ranges()) idx.push_back(r.start.dace_str());
    return json{{"type", "Indices"}, {"indices", idx}};
  }
  json ranges = json::array();
  for (const auto& r : s.ranges())
    ranges.push_back(json{{"start", r.start.dace_str()},
                          {"end", r.end.dace_str()},
                          {"step", r.step.dace_str()},
                          {"tile", r.tile.dace_str()}});
  return json{{"type", "Range"}, {"ranges", ranges}};
}

json descriptor_json(const DataDescriptor& d) {
  json a = json::object();
  if (d.kind == DataKind::Unknown) {
    put_unknown(a, d.extra);
    return json{{"type", d.type_name}, {"attributes", a}};
  }
  a["dtype"] = dtype_json(d.dtype);
  a["shape"] = exprs_json(d.shape);
  if (d.kind != DataKind::Scalar) {
    a["strides"] = exprs_json(d.strides);
    a["offset"] = exprs_json(d.offset);
    a["total_size"] = d.total_size.dace_str();
    a["start_offset"] =
        d.start_offset.as_integer() ? json(*d.start_offset.as_integer()) : json(d.start_offset.dace_str());
    a["alignment"] = d.alignment;
    a["optional"] = d.optional ? json(*d.optional) : json(nullptr);
    a["may_alias"] = d.may_alias;
  }
  if (d.kind == DataKind::Stream) a["buffer_size"] = d.buffer_size.dace_str();
  a["transient"] = d.transient;
  a["storage"] = std::string(to_string(d.storage));
  a["lifetime"] = std::string(to_string(d.lifetime));
  put_unknown(a, d.extra);
  return json{{"type", d.type_name}, {"attributes", a}};
}

json memlet_json(const Memlet& m, bool data_is_src_end) {
  json a = json::object();
  if (m.is_empty()) {
    a["data"] = nullptr;
    a["subset"] = nullptr;
  } else {
    a["data"] = m.data;
    a["subset"] = subset_json(m.subset);
  }
  if (m.other_subset) a["other_subset"] = subset_json(*m.other_subset);
  a["volume"] = m.volume.dace_str();
  a["num_accesses"] = m.volume.dace_str();
  a["dynamic"] = m.dynamic;
  a["wcr"] = m.wcr.empty() ? json(nullptr) : json(m.wcr);
  a["wcr_nonatomic"] = m.wcr_nonatomic;
  a["allow_oob"] = m.allow_oob;
  // Which end `subset` describes: what the viewer shows as source and destination subsets.
  bool is_src = m.is_data_src.value_or(data_is_src_end);
  a["is_data_src"] = is_src;
  json sub = m.is_empty() ? json(nullptr) : subset_json(m.subset);
  json other = m.other_subset ? subset_json(*m.other_subset) : json(nullptr);
  a["src_subset"] = is_src ? sub : other;
  a["dst_subset"] = is_src ? other : sub;
  put_unknown(a, m.extra);
  return json{{"type", "Memlet"}, {"attributes", a}};
}

// The text viewers show on an interstate edge, as DaCe derives it: "cond; a=b,c=d".
std::string interstate_label(const InterstateEdge& e) {
  std::string assignments;
  for (const auto& [k, v] : e.assignments) assignments += (assignments.empty() ? "" : ",") + k + "=" + v.code;
  bool cond = !e.is_unconditional();
  if (!cond) return assignments;
  if (assignments.empty()) return e.condition.code;
  return e.condition.code + "; " + assignments;
}

class Writer {
 public:
  json sdfg_json(const SDFG& s, bool top) {
    json a = json::object();
    a["name"] = s.name;
    a["arg_names"] = s.arg_names;
    json arrays = json::object();
    for (const auto& [name, d] : s.arrays) arrays[name] = descriptor_json(d);
    a["_arrays"] = arrays;
    json syms = json::object();
    for (const auto& [name, t] : s.symbols) syms[name] = dtype_json(t);
    a["symbols"] = syms;
    a["global_code"] = json{{"frame", code_json(s.global_code)}};
    a["init_code"] = json{{"frame", code_json(s.init_code)}};
    a["exit_code"] = json{{"frame", code_json(s.exit_code)}};
    a["using_explicit_control_flow"] = s.using_explicit_control_flow || has_regions(s);
    put_unknown(a, s.extra);

    json j = json::object();
    j["type"] = "SDFG";
    j["attributes"] = a;
    int my_cfg = cfg_counter_++;
    region_into(j, s);
    j["collapsed"] = false;
    j["label"] = s.label;
    j["id"] = nullptr;
    j["cfg_list_id"] = my_cfg;
    if (top) j["dace_version"] = s.dace_version.empty() ? kDaceFormatVersion : s.dace_version;
    return j;
  }

 private:
  int cfg_counter_ = 0;

  static bool has_regions(const ControlFlowRegion& r) {
    for (auto* b : r.blocks())
      if (b->kind() != BlockKind::State) return true;
    return false;
  }

  // nodes / edges / start_block of a region, blocks renumbered densely in id order.
  void region_into(json& j, const ControlFlowRegion& r) {
    auto blocks = r.blocks();
    std::vector<long> index(blocks.empty() ? 0 : blocks.back()->id() + 1, -1);
    json nodes = json::array();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      index[blocks[i]->id()] = static_cast<long>(i);
      nodes.push_back(block_json(*blocks[i], static_cast<long>(i)));
    }
    json edges = json::array();
    for (const auto* e : r.edges()) {
      json ea = json::object();
      json assignments = json::object();
      for (const auto& [k, v] : e->data.assignments) assignments[k] = v.code;
      ea["assignments"] = assignments;
      ea["condition"] = code_json(e->data.condition);
      put_unknown(ea, e->data.extra);
      edges.push_back(
          json{{"type", "Edge"},
               {"attributes",
                {{"data",
                  {{"type", "InterstateEdge"}, {"attributes", ea}, {"label", interstate_label(e->data)}}}}},
               {"src", std::to_string(index[e->src])},
               {"dst", std::to_string(index[e->dst])}});
    }
    j["nodes"] = nodes;
    j["edges"] = edges;
    // Only an explicit start is written: null tells DaCe to use the region's unique source.
    BlockId start = r.explicit_start();
    j["start_block"] = start == kNoBlock || !r.has_block(start) ? json(nullptr) : json(index[start]);
  }

  json block_json(const ControlFlowBlock& b, long index) {
    json j = json::object();
    j["type"] = std::string(to_string(b.kind()));
    j["label"] = b.label;
    j["id"] = index;
    j["collapsed"] = false;
    json a = json::object();
    if (auto* st = b.as<SDFGState>()) {
      state_into(j, *st);
    } else if (auto* loop = b.as<LoopRegion>()) {
      // A while loop has no variable and no init/update statements: DaCe's defaults ('' and
      // None, left out as DaCe leaves out defaults); an empty statement would not compile there.
      if (!loop->loop_variable.empty()) a["loop_variable"] = loop->loop_variable;
      a["init_statement"] = optional_code_json(loop->init_statement);
      a["loop_condition"] = code_json(loop->loop_condition);
      a["update_statement"] = optional_code_json(loop->update_statement);
      a["inverted"] = loop->inverted;
      a["update_before_condition"] = loop->update_before_condition;
      j["cfg_list_id"] = cfg_counter_++;
      region_into(j, *loop);
    } else if (auto* cond = b.as<ConditionalBlock>()) {
      j["cfg_list_id"] = cfg_counter_++;
      json branches = json::array();
      for (const auto& br : cond->branches()) {
        json body = json::object();
        body["type"] = "ControlFlowRegion";
        body["label"] = br.body->label;
        body["id"] = nullptr;
        body["collapsed"] = false;
        body["cfg_list_id"] = cfg_counter_++;
        json ba = json::object();
        put_unknown(ba, br.body->extra);
        body["attributes"] = ba;
        region_into(body, *br.body);
        branches.push_back(json::array({br.condition ? code_json(*br.condition) : json(nullptr), body}));
      }
      j["branches"] = branches;
    } else if (auto* region = b.as<ControlFlowRegion>()) {
      if (!region->dace_class.empty()) j["type"] = region->dace_class;
      j["cfg_list_id"] = cfg_counter_++;
      region_into(j, *region);
    }
    put_unknown(a, b.extra);
    j["attributes"] = a;
    return j;
  }

  void state_into(json& j, const SDFGState& st) {
    auto nodes = st.nodes();
    std::vector<long> index(st.node_capacity(), -1);
    for (std::size_t i = 0; i < nodes.size(); ++i) index[nodes[i]->id()] = static_cast<long>(i);

    // scope_dict and per-node scope_entry/scope_exit, which SDFV uses for layout. A state
    // whose scopes cannot be computed (invalid) is written flat rather than not at all.
    std::vector<NodeId> parent(st.node_capacity(), kNoNode);
    try {
      parent = st.scope_tree().parent;
    } catch (const Error&) {
    }
    json scope_dict = json::object();
    scope_dict["-1"] = json::array();
    for (auto* n : nodes) {
      NodeId p = parent[n->id()];
      std::string key = p == kNoNode ? "-1" : std::to_string(index[p]);
      if (!scope_dict.contains(key)) scope_dict[key] = json::array();
      scope_dict[key].push_back(index[n->id()]);
    }

    json jn = json::array();
    for (auto* n : nodes) {
      json nj = node_json(*n);
      nj["id"] = index[n->id()];
      NodeId p = parent[n->id()];
      json scope_entry = nullptr, scope_exit = nullptr;
      if (auto* me = n->as<MapEntry>()) {
        if (me->exit != kNoNode && me->exit < index.size()) scope_exit = std::to_string(index[me->exit]);
        if (p != kNoNode) scope_entry = std::to_string(index[p]);
      } else if (auto* mx = n->as<MapExit>()) {
        if (mx->entry != kNoNode && mx->entry < index.size()) scope_entry = std::to_string(index[mx->entry]);
        scope_exit = std::to_string(index[n->id()]);
      } else if (p != kNoNode) {
        scope_entry = std::to_string(index[p]);
        if (auto* pe = st.node(p).as<MapEntry>(); pe && pe->exit != kNoNode)
          scope_exit = std::to_string(index[pe->exit]);
      }
      nj["scope_entry"] = scope_entry;
      nj["scope_exit"] = scope_exit;
      jn.push_back(std::move(nj));
    }
    json je = json::array();
    for (const auto* e : st.edges()) {
      // The memlet's subset describes the source end when its data is the source access node.
      bool data_is_src = false;
      if (auto* an = st.node(e->src).as<AccessNode>()) data_is_src = an->data == e->memlet.data;
      json ej = json::object();
      ej["type"] = "MultiConnectorEdge";
      ej["attributes"] = json{{"data", memlet_json(e->memlet, data_is_src)}};
      ej["src"] = std::to_string(index[e->src]);
      ej["dst"] = std::to_string(index[e->dst]);
      ej["src_connector"] = e->src_conn.empty() ? json(nullptr) : json(e->src_conn);
      ej["dst_connector"] = e->dst_conn.empty() ? json(nullptr) : json(e->dst_conn);
      je.push_back(std::move(ej));
    }
    j["scope_dict"] = scope_dict;
    j["nodes"] = jn;
    j["edges"] = je;
  }

  json node_json(const Node& n) {
    json j = json::object();
    json a = json::object();
    std::string type;
    switch (n.kind()) {
      case NodeKind::Access: {
        auto& an = *n.as<AccessNode>();
        type = "AccessNode";
        a["data"] = an.data;
        a["setzero"] = an.setzero;
        break;
      }
      case NodeKind::Tasklet: {
        auto& t = *n.as<Tasklet>();
        type = "Tasklet";
        a["code"] = code_json(t.code);
        a["code_global"] = code_json(t.code_global);
        a["code_init"] = code_json(t.code_init);
        a["code_exit"] = code_json(t.code_exit);
        a["side_effects"] = t.side_effects ? json(*t.side_effects) : json(nullptr);
        a["label"] = t.label;
        break;
      }
      case NodeKind::MapEntry: {
        auto& me = *n.as<MapEntry>();
        type = "MapEntry";
        const MapInfo& m = *me.map;
        a["label"] = m.label;
        a["params"] = m.params;
        a["range"] = subset_json(m.range);
        a["schedule"] = std::string(to_string(m.schedule));
        a["unroll"] = m.unroll;
        a["collapse"] = m.collapse;
        if (!m.gpu_block_size.empty()) a["gpu_block_size"] = m.gpu_block_size;
        put_unknown(a, m.extra);
        break;
      }
      case NodeKind::MapExit: type = "MapExit"; break;
      case NodeKind::NestedSDFG: {
        auto& ns = *n.as<NestedSDFGNode>();
        type = "NestedSDFG";
        a["label"] = ns.label;
        a["sdfg"] = ns.sdfg ? sdfg_json(*ns.sdfg, false) : json(nullptr);
        json sm = json::object();
        for (const auto& [k, v] : ns.symbol_mapping) sm[k] = v.dace_str();
        a["symbol_mapping"] = sm;
        a["schedule"] = std::string(to_string(ns.schedule));
        break;
      }
      case NodeKind::Library: {
        auto& ln = *n.as<LibraryNode>();
        // DaCe writes `type` "LibraryNode" for every library node and finds the class by its
        // `classpath`: it has no serializer under a class's own name until that library is
        // imported (a "Reduce" in a loop of an orchestration SDFG failed to load: "Expected
        // ControlFlowBlock"). Only a node without a classpath keeps its class as type.
        type = ln.classpath.empty() ? ln.type_name : "LibraryNode";
        if (!ln.extra.find("label")) a["label"] = ln.label;  // else the name as read
        // DaCe names the tasklet a library node expands into after `name`, and its code
        // generator emits a tasklet with an empty name without its code: a node weir made
        // (dace_blas_calls) is written with its label as its name.
        if (!ln.extra.find("name")) a["name"] = ln.label;
        a["schedule"] = std::string(to_string(ln.schedule));
        if (!ln.implementation.empty()) {
          // DaCe's name for the node type; weir's own, where it differs, beside it (under a key
          // DaCe skips silently, private_attributes.h; weir reads it back).
          std::optional<std::string> dace = dace_implementation_name(ln.class_name(), ln.implementation);
          a["implementation"] = dace ? json(*dace) : json(nullptr);
          if (dace != ln.implementation) a[attribute_key_in_file("weir_implementation")] = ln.implementation;
        }
        if (ln.is_reduce()) {
          a["wcr"] = ln.wcr;
          a["axes"] = ln.axes ? json(*ln.axes) : json(nullptr);
          a["identity"] = ln.identity.empty() ? json(nullptr) : json::parse(ln.identity);
        }
        if (!ln.classpath.empty()) j["classpath"] = ln.classpath;
        break;
      }
    }
    a["in_connectors"] = connectors_json(n.in_connectors);
    a["out_connectors"] = connectors_json(n.out_connectors);
    // DaCe's MapExit has no debuginfo property ("Unused properties: debuginfo"): a map exit's
    // line is its entry's (the viewer shows it so).
    put_unknown(a, n.extra, n.kind() == NodeKind::MapExit ? "debuginfo" : nullptr);
    j["type"] = type;
    j["label"] = n.label;
    if (const MapEntry* me = n.as<MapEntry>(); me && me->map) j["label"] = map_node_label(*me->map);
    if (const MapExit* mx = n.as<MapExit>(); mx && mx->map) j["label"] = map_node_label(*mx->map);
    j["attributes"] = a;
    return j;
  }
};

}  // namespace

std::string sdfg_to_json_text(const SDFG& sdfg, int indent) {
  Writer w;
  json j = w.sdfg_json(sdfg, /*top=*/true);
  // What weir writes it must read back (kMaxJsonDepth); the walk keeps its own stack, since
  // deep nesting is what it looks for.
  std::size_t deepest = 0;
  std::vector<std::pair<const json*, std::size_t>> todo{{&j, 1}};
  while (!todo.empty()) {
    auto [v, depth] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    deepest = std::max(deepest, depth);
    for (const auto& child : *v) todo.emplace_back(&child, depth + 1);
  }
  if (deepest > kMaxJsonDepth)
    throw Error("SDFG '" + sdfg.name + "' nests " + std::to_string(deepest) +
                " levels deep in JSON; weir reads at most " + std::to_string(kMaxJsonDepth) +
                " levels, so it is not written (fewer nested control-flow blocks or nested SDFGs)");
  return j.dump(indent);
}

}  // namespace weir
