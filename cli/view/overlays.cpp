#include "view/overlays.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "targets.h"
#include "weir/sdfg/cfg_list.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/instrument_timers.h"
#include "weir/transforms/library_expansion.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/static_costs.h"

namespace weir::cli::view {

using json = nlohmann::json;

namespace {

// An element a profile times, located for the viewer (as validation problems are).
struct Located {
  TimedElement element;
  long sdfg_id = 0;
  json where;
};

// The elements instrument-timers would time in `sdfg`, on a copy that `keep` holds (the pass
// only sets attributes: ids and paths are the original's).
std::vector<Located> timed_locations(const SDFG& sdfg, std::shared_ptr<SDFG>& keep) {
  keep = sdfg.clone_sdfg();
  transforms::AnalysisCache cache;
  transforms::InstrumentTimers().run(*keep, cache);
  std::map<const SDFG*, long> ids;  // DaCe's sdfg_id: position among the SDFGs of cfg_list
  for (ControlFlowRegion* r : cfg_list(*keep))
    if (auto* s = r->as<SDFG>()) ids.emplace(s, static_cast<long>(ids.size()));
  std::vector<Located> out;
  for (TimedElement& t : timed_elements(*keep)) {
    Located l;
    l.sdfg_id = ids.count(t.sdfg) ? ids.at(t.sdfg) : 0;
    l.where = {{"sdfg", t.sdfg->name},
               {"block_path", t.state ? t.state->path() : std::string()},
               {"node", t.node == kNoNode ? -1L : static_cast<long>(t.node)},
               {"edge", t.kind == TimedKind::Copy ? static_cast<long>(t.edge) : -1L}};
    l.element = std::move(t);
    out.push_back(std::move(l));
  }
  return out;
}

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// "line L, column C" of byte offset `at` in `text` (nlohmann counts bytes read, 1 past the error).
std::string line_column(const std::string& text, std::size_t at) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace

std::unique_ptr<SDFG> as_profiled(const SDFG& sdfg) {
  const std::string what = "the SDFG '" + sdfg.name + "'";
  std::unique_ptr<SDFG> copy = sdfg_from_json_text(sdfg_to_json_text(sdfg), what);
  if (!transforms::has_expandable_library_nodes(*copy)) return copy;
  // Timed before the expansion, as with_timers does: a timed library node's nested SDFG call
  // stays timed (the pass run on the expanded SDFG would time the nested SDFG's states instead).
  transforms::AnalysisCache cache;
  transforms::InstrumentTimers().run(*copy, cache);
  transforms::parse_pipeline("library-expansion")->run(*copy);
  return sdfg_from_json_text(sdfg_to_json_text(*copy), what);
}

ProfileReport read_profile_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--report " + path + ": cannot read the file: " + std::strerror(errno));
  protect_input_file(path);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  auto j = std::make_shared<json>();
  try {
    *j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw UsageError("--report " + path + ": not JSON (" + line_column(text, e.byte) + ")");
  }
  const std::string made_by =
      ": not a profile report of `weir run --profile=FILE` (a JSON object with 'weir_profile': {'elements', "
      "'sdfg'})";
  // DaCe's own instrumentation report (traceEvents alone) has timings but neither the SDFG it
  // measured nor per-element summaries: say so, rather than that it is no report (user31 G7).
  if (j->is_object() && j->contains("traceEvents") && !j->contains("weir_profile"))
    throw UsageError("--report " + path + made_by +
                     "; it is an instrumentation report of DaCe's (traceEvents only), which weir does not "
                     "read: run the SDFG with `weir run --profile=FILE` for a report weir can show");
  if (!j->is_object() || !j->contains("weir_profile") || !(*j)["weir_profile"].is_object())
    throw UsageError("--report " + path + made_by);
  const json& w = (*j)["weir_profile"];
  if (!w.contains("elements") || !w["elements"].is_array())
    throw UsageError("--report " + path + made_by + "; it has no 'weir_profile.elements' list");
  if (!w.contains("sdfg") || !w["sdfg"].is_object())
    throw UsageError("--report " + path + made_by +
                     "; it has no 'weir_profile.sdfg' (reports carry the SDFG they were made from since "
                     "weir view --report exists: profile the program again)");
  ProfileReport r;
  r.sdfg = sdfg_from_json_text(w["sdfg"].dump(), path + ": weir_profile.sdfg");
  r.json = std::move(j);
  return r;
}

json profile_overlay(const SDFG& sdfg, const json& report, const std::string& path) {
  std::shared_ptr<SDFG> keep;
  const std::vector<Located> here = timed_locations(sdfg, keep);
  const json& w = report.at("weir_profile");
  json elements = json::array();
  std::size_t k = 0;
  for (const json& e : w.at("elements")) {
    const std::string what = "--report " + path + ": element " + std::to_string(k++);
    auto field = [&](const char* name) -> const json& {
      if (!e.is_object() || !e.contains(name)) throw UsageError(what + " has no '" + name + "'");
      return e[name];
    };
    auto integer = [&](const char* name) {
      const json& v = field(name);
      if (!v.is_number_integer()) throw UsageError(what + ": '" + name + "' is not an integer");
      return v.get<long>();
    };
    const std::string kind = field("kind").is_string() ? field("kind").get<std::string>() : "";
    const std::string name = field("name").is_string() ? field("name").get<std::string>() : "";
    const long cfg = integer("cfg_id"), state = integer("state_id"), node = integer("id"),
               edge = integer("edge");
    const Located* match = nullptr;
    for (const Located& l : here) {
      const TimedElement& t = l.element;
      if (to_string(t.kind) == kind && static_cast<long>(t.cfg_id) == cfg &&
          static_cast<long>(t.state_id) == state && l.where["node"] == node && l.where["edge"] == edge)
        match = &l;
    }
    const std::string ids = "(" + kind + " '" + name + "': cfg_id " + std::to_string(cfg) + ", state " +
                            std::to_string(state) + ", node " + std::to_string(node) + ")";
    const std::string advice = ": the report was made from another SDFG; `weir view --report " + path +
                               "` without a file shows the SDFG it was made from";
    if (!match) throw UsageError(what + " " + ids + " is not an element of '" + sdfg.name + "'" + advice);
    if (match->element.label != name)
      throw UsageError(what + " " + ids + " is '" + match->element.label + "' in '" + sdfg.name + "'" +
                       advice);
    json o = match->where;
    o["kind"] = kind;
    o["label"] = name;
    // Each value a number (or null: not measured), the two flags true or false: a value of
    // another type (`"median_ms": "fast"`) was drawn as if measured (user31 G8).
    for (const char* key :
         {"calls", "executions_per_call", "min_ms", "median_ms", "share_of_call", "bytes", "flops", "GBps",
          "GFLOPps", "probe_share", "bytes_dynamic", "flops_partial", "map_level"}) {
      const json v = e.contains(key) ? e[key] : json(nullptr);
      const bool flag = std::string(key) == "bytes_dynamic" || std::string(key) == "flops_partial";
      if (!v.is_null() && (flag ? !v.is_boolean() : !v.is_number()))
        throw UsageError(what + ": '" + key + "' is " + v.dump() + ", not " +
                         (flag ? "true or false" : "a number") + " (or null)");
      o[key] = v;
    }
    const json &b = o["bytes"], &f = o["flops"];
    o["intensity"] = b.is_number() && f.is_number() && b.get<double>() > 0
                         ? json(f.get<double>() / b.get<double>())
                         : json(nullptr);
    elements.push_back(std::move(o));
  }
  json probe = w.contains("probe") ? w["probe"] : json(nullptr);
  return {{"file", path},
          {"program", w.value("program", std::string())},
          {"calls", w.contains("calls") ? w["calls"] : json(nullptr)},
          {"median_call_ms", w.contains("median_call_ms") ? w["median_call_ms"] : json(nullptr)},
          {"probe", probe},
          {"elements", elements}};
}

json static_overlay(const SDFG& sdfg, const std::map<std::string, long long>& symbols) {
  std::shared_ptr<SDFG> keep;
  json elements = json::array();
  json given = json::object();
  for (const auto& [k, v] : symbols) given[k] = v;
  std::vector<Located> located;
  try {
    located = timed_locations(sdfg, keep);
  } catch (const Error& e) {
    // The page shows SDFGs that do not validate (their problems marked): no static costs then.
    return {{"symbols", given}, {"elements", elements}, {"problem", e.what()}};
  }
  for (const Located& l : located) {
    const transforms::StaticCost cost = transforms::static_cost(l.element);
    const transforms::EvaluatedCost v = transforms::evaluate_per_execution(l.element, cost, symbols);
    json needs = json::array();
    std::set<std::string> missing;
    // A map parameter or loop variable around the element is no symbol to give: its values are
    // averaged over where known (evaluate_per_execution).
    if (!v.bytes || !v.flops)
      for (const sym::Expr* e : {&cost.bytes, &cost.flops, &cost.bytes_shared_by})
        for (const std::string& s : e->free_symbols())
          if (!symbols.count(s)) missing.insert(s);
    for (const std::string& s : missing) needs.push_back(s);
    json o = l.where;
    o["kind"] = to_string(l.element.kind);
    o["label"] = l.element.label;
    // Inside map scopes: the union over the executions, shared among them (static_costs.h).
    o["bytes_expr"] = cost.bytes_shared_by == sym::Expr(1)
                          ? cost.bytes.str()
                          : "(" + cost.bytes.str() + ") / (" + cost.bytes_shared_by.str() + ")";
    o["flops_expr"] = cost.flops.str();
    o["bytes"] = number_or_null(v.bytes);
    o["flops"] = number_or_null(v.flops);
    o["intensity"] = v.bytes && v.flops && *v.bytes > 0 ? json(*v.flops / *v.bytes) : json(nullptr);
    o["bytes_dynamic"] = cost.dynamic;
    o["flops_partial"] = cost.flops_partial;
    o["needs"] = needs;
    elements.push_back(std::move(o));
  }
  return {{"symbols", given}, {"elements", elements}};
}

}  // namespace weir::cli::view
