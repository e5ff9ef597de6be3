#include "dace_rules.h"

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "weir/pycode/source.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/dace_symbols.h"
#include "weir/sdfg/library_implementations.h"
#include "weir/sdfg/names.h"
#include "weir/sdfg/serialize.h"

namespace weir::test {

namespace {

using nlohmann::json;

/// The functions DaCe's runtime declares in namespace dace::math (dace/runtime/include/dace/
/// math.h of DaCe 2.0), where its code generator sends `math.f`.
const std::set<std::string>& dace_math_functions() {
  static const std::set<std::string> names = {
      "acos",   "acosh", "asin",  "asinh",  "atan",  "atan2",     "atanh", "cbrt",  "ceil",   "cos",
      "cosh",   "erf",   "erfc",  "exp",    "exp2",  "expm1",     "fmod",  "hypot", "ifloor", "ipow",
      "lgamma", "log",   "log10", "log1p",  "log2",  "nearbyint", "pow",   "round", "sin",    "sinh",
      "sqrt",   "tan",   "tanh",  "tgamma", "trunc", "pi",        "nan"};
  return names;
}

/// The node and control-flow block classes DaCe 2.0.0a6 has a serializer for after `import
/// dace` (dace.serialize's registry; its libraries' nodes are all written as "LibraryNode" and
/// found by their `classpath`). Any other `type` fails to load: DaCe warns and leaves a
/// placeholder, which the enclosing region refuses ("Expected ControlFlowBlock").
const std::set<std::string>& dace_node_types() {
  static const std::set<std::string> names = {"AccessNode",  "Tasklet",    "RTLTasklet",
                                              "MapEntry",    "MapExit",    "ConsumeEntry",
                                              "ConsumeExit", "NestedSDFG", "LibraryNode"};
  return names;
}
const std::set<std::string>& dace_block_types() {
  static const std::set<std::string> names = {
      "SDFGState",          "LoopRegion",  "ConditionalBlock",        "ControlFlowRegion",
      "FunctionCallRegion", "NamedRegion", "UnstructuredControlFlow", "BreakBlock",
      "ContinueBlock",      "ReturnBlock"};
  return names;
}

/// The types of the nodes or blocks of graph `j` (a state's nodes, a region's blocks).
void check_member_types(const json& j, const std::string& where, std::vector<std::string>& out) {
  const std::string type = j.value("type", "");
  auto it = j.find("nodes");
  if (it == j.end() || !it->is_array()) return;
  const bool state = type == "SDFGState";
  const auto& known = state ? dace_node_types() : dace_block_types();
  for (const json& n : *it) {
    const std::string t = n.is_object() ? n.value("type", "") : "";
    if (!known.count(t))
      out.push_back(
          where + ", " + type + " '" + j.value("label", "") + "': " + (state ? "node" : "block") + " '" +
          (n.is_object() ? n.value("label", "") : "") + "' has type '" + t +
          "', for which DaCe has no serializer" +
          (n.is_object() && n.contains("classpath") ? " (a library node's type is 'LibraryNode')" : ""));
  }
}

/// The object `o[key]`, or an empty object.
json object_at(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? *it : json::object();
}

/// Whether `o[key]` is a non-empty string.
bool has_text(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() && !it->get<std::string>().empty();
}

void check_tasklet(const std::string& where, const json& attrs, std::vector<std::string>& out) {
  const json code = object_at(attrs, "code");
  if (code.value("language", "Python") != "Python") return;
  std::string text = code.value("string_data", "");
  try {
    code_names(CodeBlock(text, Language::Python));
  } catch (const pycode::SourceError& e) {
    out.push_back(where + ": tasklet code is not valid Python: " + e.what());
    return;
  }
  static const std::regex numpy_name(R"((^|[^\w.])(np|numpy)\.\w+)");
  static const std::regex math_name(R"((^|[^\w.])math\.(\w+))");
  std::smatch m;
  if (std::regex_search(text, m, numpy_name))
    out.push_back(where + ": tasklet code names '" + m.str(0).substr(m[1].length()) +
                  "' (DaCe's C++ has no 'np' or 'numpy')");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), math_name); it != std::sregex_iterator();
       ++it)
    if (!dace_math_functions().count((*it)[2].str()))
      out.push_back(where + ": tasklet code calls 'math." + (*it)[2].str() + "', which dace::math lacks");
}

void check_json(const json& j, const std::string& sdfg_name, std::vector<std::string>& out) {
  if (j.is_array()) {
    for (const json& x : j) check_json(x, sdfg_name, out);
    return;
  }
  if (!j.is_object()) return;
  std::string name = sdfg_name;
  if (j.value("type", "") == "SDFG") {
    const json attrs = object_at(j, "attributes");
    name = attrs.value("name", sdfg_name);
    const json symbols = object_at(attrs, "symbols");
    for (const auto& [s, t] : symbols.items())
      if (!is_identifier(s))
        out.push_back("SDFG '" + name + "': symbol name '" + s + "' is not an identifier");
  }
  const std::string type = j.value("type", "");
  check_member_types(j, "SDFG '" + name + "'", out);
  if (j.contains("attributes") && j["attributes"].is_object() &&
      (type == "Tasklet" || type == "LibraryNode" || type == "NestedSDFG" || type == "MapEntry" ||
       type == "MapExit" || type == "AccessNode")) {
    const json& attrs = j["attributes"];
    std::string where = "SDFG '" + name + "', " + type + " '" + j.value("label", "") + "'";
    for (const char* side : {"in_connectors", "out_connectors"}) {
      const json connectors = object_at(attrs, side);
      for (const auto& [c, t] : connectors.items())
        if (!is_identifier(c)) out.push_back(where + ": connector '" + c + "' is not an identifier");
    }
    if (type == "Tasklet") check_tasklet(where, attrs, out);
    if (type == "LibraryNode") {
      if (!has_text(attrs, "name"))
        out.push_back(where +
                      ": library node without a name (DaCe expands it into a tasklet without a label, "
                      "whose code its code generator leaves out)");
      std::string classpath = j.value("classpath", "");
      std::string cls = classpath.substr(classpath.rfind('.') + 1);
      const json impl = attrs.contains("implementation") ? attrs["implementation"] : json();
      if (impl.is_string())
        if (const auto* known = dace_implementations(cls); known && !known->count(impl.get<std::string>()))
          out.push_back(where + ": implementation '" + impl.get<std::string>() +
                        "' is not one DaCe has for " + cls);
    }
  }
  // DaCe drops keys starting with `_meta` unread (weir's own attributes, ADR 0050).
  for (const auto& [k, v] : j.items())
    if (v.is_structured() && k.rfind("_meta", 0) != 0) check_json(v, name, out);
}

void check_nested_symbols(const SDFG& sdfg, std::vector<std::string>& out) {
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes()) {
      const auto* ns = n->as<NestedSDFGNode>();
      if (!ns || !ns->sdfg) continue;
      for (const std::string& s : dace_free_symbols(*ns->sdfg))
        if (!ns->symbol_mapping.count(s) && !ns->in_connectors.count(s) && !ns->out_connectors.count(s))
          out.push_back("SDFG '" + sdfg.name + "', nested SDFG '" + ns->label + "': free symbol '" + s +
                        "' is not in its symbol mapping (DaCe: Missing symbols on nested SDFG)");
      check_nested_symbols(*ns->sdfg, out);
    }
}

}  // namespace

std::vector<std::string> dace_rule_problems(const std::string& json_text) {
  std::vector<std::string> out;
  check_json(json::parse(json_text), "", out);
  check_nested_symbols(*sdfg_from_json_text(json_text), out);
  return out;
}

}  // namespace weir::test
