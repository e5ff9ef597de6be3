// `weir info FILE`: a summary of an SDFG: control flow, nodes by type, maps, containers, symbols.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "targets.h"
#include "weir/sdfg/serialize.h"

namespace weir::cli {
namespace {

struct Summary {
  std::map<std::string, int> blocks;  // by DaCe class name
  std::map<std::string, int> nodes;
  std::vector<std::string> maps;  // "label[i=0:N, j=0:M] (schedule) in state 'x'"
  int edges = 0;
  int nested = 0;
};

void visit(const ControlFlowRegion& r, Summary& s, int depth);

void visit_block(const ControlFlowBlock& b, Summary& s, int depth) {
  s.blocks[std::string(to_string(b.kind()))]++;
  if (auto* st = b.as<SDFGState>()) {
    s.edges += static_cast<int>(st->num_edges());
    for (auto* n : st->nodes()) {
      // A library node by its class (DaCe writes every one as type "LibraryNode", weir too
      // since session 33; the class path's last name says what it is).
      std::string k = n->kind() == NodeKind::Library ? n->as<LibraryNode>()->class_name()
                                                     : std::string(to_string(n->kind()));
      s.nodes[k]++;
      if (auto* me = n->as<MapEntry>()) {
        std::string r;
        const auto& m = *me->map;
        for (std::size_t i = 0; i < m.params.size() && i < m.range.dims(); ++i) {
          if (i) r += ", ";
          const auto& rg = m.range[i];
          r += m.params[i] + "=" + rg.start.str() + ":" + (rg.end + sym::Expr(1)).str();
          if (rg.step != sym::Expr(1)) r += ":" + rg.step.str();
        }
        s.maps.push_back(m.label + "[" + r + "] (" + std::string(to_string(m.schedule)) + ") in state '" +
                         st->path() + "'");
      }
      if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) {
        s.nested++;
        visit(*ns->sdfg, s, depth + 1);
      }
    }
  } else if (auto* cb = b.as<ConditionalBlock>()) {
    for (const auto& br : cb->branches()) visit(*br.body, s, depth);
  } else if (auto* r = b.as<ControlFlowRegion>()) {
    visit(*r, s, depth);
  }
}

void visit(const ControlFlowRegion& r, Summary& s, int depth) {
  for (auto* b : r.blocks()) visit_block(*b, s, depth);
}

std::string shape_str(const DataDescriptor& d) {
  std::string out = "[";
  for (std::size_t i = 0; i < d.shape.size(); ++i) out += (i ? ", " : "") + d.shape[i].str();
  return out + "]";
}

}  // namespace

Action add_info_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("info", "Summarize an SDFG: states, nodes by type, maps, containers, symbols");
  auto file = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  cmd->add_option("file", *file, "SDFG file (.sdfg/.sdfgz)")->required();
  cmd->add_flag("--json", *as_json, "Print the summary as JSON");
  return [file, as_json]() {
    require_sdfg_file("info", *file);
    auto sdfg = load_sdfg(*file);
    Summary s;
    visit(*sdfg, s, 0);
    auto states = sdfg->all_states();
    if (*as_json) {
      nlohmann::json j;
      j["name"] = sdfg->name;
      j["states"] = states.size();
      j["blocks"] = s.blocks;
      j["nodes"] = s.nodes;
      j["edges"] = s.edges;
      j["maps"] = s.maps;
      j["nested_sdfgs"] = s.nested;
      nlohmann::json arrays = nlohmann::json::object();
      for (const auto& [name, d] : sdfg->arrays) {
        nlohmann::json shape = nlohmann::json::array();
        for (const auto& e : d.shape) shape.push_back(e.str());
        arrays[name] = {{"type", d.type_name},
                        {"dtype", d.dtype.str()},
                        {"shape", shape},
                        {"transient", d.transient},
                        {"storage", std::string(to_string(d.storage))}};
      }
      j["arrays"] = arrays;
      nlohmann::json syms = nlohmann::json::object();
      for (const auto& [name, t] : sdfg->symbols) syms[name] = t.str();
      j["symbols"] = syms;
      j["free_symbols"] = sdfg->free_symbols();
      j["arguments"] = sdfg->arglist();
      std::cout << j.dump(2) << "\n";
      return kExitOk;
    }
    std::cout << "SDFG '" << sdfg->name << "' (" << *file << ")\n";
    std::cout << "  control flow: " << states.size() << " state" << (states.size() == 1 ? "" : "s");
    for (const auto& [k, n] : s.blocks)
      if (k != "SDFGState") std::cout << ", " << n << " " << k;
    std::cout << "\n  dataflow: " << s.edges << " edges;";
    for (const auto& [k, n] : s.nodes) std::cout << " " << k << " " << n << ";";
    std::cout << "\n  maps (" << s.maps.size() << "):\n";
    for (const auto& m : s.maps) std::cout << "    " << m << "\n";
    std::cout << "  containers (" << sdfg->arrays.size() << "):\n";
    for (const auto& [name, d] : sdfg->arrays)
      std::cout << "    " << name << ": " << d.type_name << " " << d.dtype.str() << shape_str(d)
                << (d.transient ? " transient" : "") << " " << to_string(d.storage) << "\n";
    std::cout << "  symbols (" << sdfg->symbols.size() << "):";
    for (const auto& [name, t] : sdfg->symbols) std::cout << " " << name << ":" << t.str();
    std::cout << "\n  arguments:";
    for (const auto& a : sdfg->arglist()) std::cout << " " << a;
    std::cout << "\n";
    return kExitOk;
  };
}

}  // namespace weir::cli
