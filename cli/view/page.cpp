#include "view/page.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "targets.h"
#include "view/bundle.h"
#include "view/overlays.h"
#include "weir/codegen/validate_code.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/private_attributes.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/source_files.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/library_expansion.h"
#include "weir/transforms/script.h"

namespace weir::cli::view {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxSourceBytes = 4u << 20;

std::unique_ptr<SDFG> load_target(const std::string& ref, const std::vector<std::string>& includes) {
  if (!runtime::is_field_view_reference(ref)) return load_sdfg(ref);
  runtime::FieldViewProgram p = runtime::load_field_view_reference(ref, includes);
  // An orchestration function has no single definition: its SDFG is the whole function's.
  if (p.orchestration) return frontend::lower_orchestration(*p.orchestration);
  return frontend::lower_to_sdfg(*p.definition);
}

std::string file_of(const std::string& ref) {
  auto sep = ref.rfind("::");
  return sep == std::string::npos ? ref : ref.substr(0, sep);
}

// The SDFG's JSON without its history (sent separately, step by step).
json document(const SDFG& sdfg) {
  json j = json::parse(sdfg_to_json_text(sdfg));
  for (json* o : {&j, j.contains("attributes") ? &j["attributes"] : nullptr})
    if (o && o->is_object()) {
      o->erase("transformation_hist");
      o->erase(attribute_key_in_file(transforms::kWeirHistoryAttribute));
      o->erase("orig_sdfg");
    }
  return j;
}

// The text of `name` (as the SDFG wrote it: relative to the working directory or to the SDFG
// file's directory), or nothing when it is not a readable .py file of reasonable size. Only
// Python sources: an SDFG is untrusted input (docs/security.md), and its debuginfo must not
// copy other files of the user's into a page they share. What the name leads to counts, not the
// name: a link `x.py` to another file is followed only to a regular `.py` file.
std::optional<std::string> read_source(const std::string& name, const std::string& beside) {
  if (fs::path(name).extension() != ".py") return std::nullopt;
  for (const fs::path& p : {fs::path(name), fs::path(beside).parent_path() / name}) {
    std::error_code ec;
    const fs::path real = fs::canonical(p, ec);
    if (ec || real.extension() != ".py" || !fs::is_regular_file(fs::symlink_status(real, ec)) || ec ||
        fs::file_size(real, ec) > kMaxSourceBytes || ec)
      continue;
    std::ifstream in(real, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) continue;
    protect_input_file(real);  // shown in the page: an input no output of `weir view` replaces
    return text.str();
  }
  return std::nullopt;
}

json diagnostics_of(const SDFG& sdfg) {
  json out = json::array();
  for (const Diagnostic& d : codegen::validate_for_codegen(sdfg))
    out.push_back({{"sdfg", d.where.sdfg},
                   {"block_path", d.where.block_path},
                   {"node", d.where.node},
                   {"edge", d.where.edge},
                   {"message", d.message},
                   {"code", d.code},
                   {"text", d.str()}});
  return out;
}

// The SDFG after each recorded step: step k is entry k replayed on step k - 1 (as the whole
// replay does, entry by entry), so n entries cost n applications.
json history_of(const SDFG& sdfg, std::vector<std::string>& notes) {
  if (!transforms::has_history(sdfg)) return nullptr;
  std::vector<std::string> entries = transforms::transformation_history(sdfg);
  json h = {{"entries", json::array()}, {"snapshots", json::array()}};
  for (const std::string& e : entries) h["entries"].push_back(json::parse(e));
  std::string cur = *sdfg.extra.find("orig_sdfg");
  try {
    h["snapshots"].push_back(document(*sdfg_from_json_text(cur, "orig_sdfg")));
    for (std::size_t k = 0; k < entries.size(); ++k) {
      SDFG step("step");
      step.extra.set("orig_sdfg", cur);
      step.extra.set("transformation_hist", "[" + entries[k] + "]");
      std::unique_ptr<SDFG> next;
      try {
        next = transforms::replay_history(step);
      } catch (const transforms::ScriptError& e) {
        // The one-entry replay numbers the entry 1: say which it is.
        std::string msg = e.what();
        const std::string one = "history entry 1 ";
        if (msg.rfind(one, 0) == 0)
          msg = "history entry " + std::to_string(k + 1) + " " + msg.substr(one.size());
        throw Error(msg);
      }
      next->extra.erase("orig_sdfg");
      next->extra.erase("transformation_hist");
      next->extra.erase(transforms::kWeirHistoryAttribute);
      cur = sdfg_to_json_text(*next);
      h["snapshots"].push_back(json::parse(cur));
    }
    notes.push_back("history: " + std::to_string(entries.size()) + " step" +
                    (entries.size() == 1 ? "" : "s") + " replayed for the stepper");
  } catch (const Error& e) {
    std::size_t done = h["snapshots"].empty() ? 0 : h["snapshots"].size() - 1;
    h["error"] = std::string(e.what());
    notes.push_back("history: the stepper shows " + std::to_string(done) + " of " +
                    std::to_string(entries.size()) + " steps; replay stopped: " + e.what());
  }
  return h;
}

/// The program's arguments: arg_names and the other non-transient containers, sorted.
std::set<std::string> arguments_of(const SDFG& sdfg) {
  std::set<std::string> names(sdfg.arg_names.begin(), sdfg.arg_names.end());
  for (const auto& [name, desc] : sdfg.arrays)
    if (!desc.transient) names.insert(name);
  return names;
}

std::string listed(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

}  // namespace

Page build_page(const PageOptions& o) {
  for (const std::string* ref : {&o.target, &o.compare}) {
    if (ref->empty()) continue;
    if (runtime::is_field_view_reference(*ref))
      require_definition_reference("view", *ref);
    else
      require_sdfg_file("view", *ref);
  }
  const char* bundle = viewer_html();
  if (!bundle)
    throw Error(std::string("this weir was built without the viewer bundle: ") + viewer_missing_reason());
  Page page;
  std::optional<ProfileReport> report;
  if (!o.report.empty()) report = read_profile_report(o.report);
  std::unique_ptr<SDFG> sdfg = o.target.empty() ? std::move(report->sdfg) : load_target(o.target, o.includes);
  if (report && !o.target.empty()) {
    // The report names the elements of the SDFG as compiled: library nodes (a reduction's
    // Reduce) expanded into nested SDFG calls. The page shows that form, where it differs.
    const bool expands = transforms::has_expandable_library_nodes(*sdfg);
    sdfg = as_profiled(*sdfg);
    if (expands)
      page.notes.push_back("profile: " + o.target +
                           " has library nodes the compile expands; the page shows the SDFG as profiled "
                           "(them expanded into nested SDFGs, as `weir optimize --passes library-expansion` "
                           "writes it)");
  }
  const std::string title = o.target.empty() ? fs::path(o.report).filename().string() + " (the profiled SDFG)"
                                             : fs::path(o.target).filename().string();
  json data = {{"title", title}, {"sdfg", document(*sdfg)}};
  // Static costs with the report's symbol values, --set's winning.
  std::map<std::string, long long> symbols;
  if (report) {
    const json& given = (*report->json)["weir_profile"].value("symbols", json::object());
    for (const auto& [k, v] : given.items())
      if (v.is_number_integer()) symbols[k] = v.get<long long>();
  }
  if (o.symbols)
    for (const auto& [k, v] : o.symbols(*sdfg)) symbols[k] = v;
  data["overlays"] = {{"static", static_overlay(*sdfg, symbols)}};
  if (report) {
    data["overlays"]["profile"] = profile_overlay(*sdfg, *report->json, o.report);
    page.notes.push_back("profile: " + std::to_string(data["overlays"]["profile"]["elements"].size()) +
                         " timed elements of " + o.report + " (choose an overlay in the page)");
  }
  data["history"] = history_of(*sdfg, page.notes);
  data["diagnostics"] = diagnostics_of(*sdfg);
  if (!data["diagnostics"].empty())
    page.notes.push_back("validation: " + std::to_string(data["diagnostics"].size()) +
                         " problem(s), marked in the graph");
  std::set<std::string> files = source_files_named(data["sdfg"].dump());
  if (!o.compare.empty()) {
    std::unique_ptr<SDFG> b = load_target(o.compare, o.includes);
    data["compare"] = document(*b);
    data["compareTitle"] = fs::path(o.compare).filename().string();
    // Two versions of one program have the same arguments; say so when they do not (the page's
    // Changes tab says it too, and when the two have no element in common).
    if (auto aa = arguments_of(*sdfg), ab = arguments_of(*b); aa != ab)
      page.notes.push_back("compare: A and B look like different programs: different arguments (A: " +
                           listed(aa) + "; B: " + listed(ab) + ")");
  }
  if (runtime::is_field_view_reference(o.target)) files.insert(file_of(o.target));
  json sources = json::object();
  for (const std::string& f : files)
    if (auto text = read_source(f, file_of(o.target))) sources[f] = *text;
  data["sources"] = sources;
  if (!sources.empty()) {
    std::string names;
    for (const auto& [f, text] : sources.items()) names += (names.empty() ? "" : ", ") + f;
    page.notes.push_back("source: " + names);
  }

  // No '<' at all inside the script element: '</script' would end it early and '<!--' followed
  // by '<script' switches the HTML parser into its double-escaped state, where the real end tag
  // is not seen and the page loses its data. '<' only occurs inside JSON strings, which spell it
  // \u003c equally; '>' and '&' too, so that no context of the text can misread them.
  std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string escaped;
  escaped.reserve(text.size() + 64);
  for (char c : text) {
    if (c == '<')
      escaped += "\\u003c";
    else if (c == '>')
      escaped += "\\u003e";
    else if (c == '&')
      escaped += "\\u0026";
    else
      escaped += c;
  }
  std::string html = bundle;
  const std::string marker = "<!--WEIR_DATA-->";
  auto at = html.find(marker);
  if (at == std::string::npos)
    throw Error("the embedded viewer page has no data marker (a broken build of viewer/)");
  html.replace(at, marker.size(),
               "<script id=\"weir-data\" type=\"application/json\">" + escaped + "</script>");
  page.html = std::move(html);
  return page;
}

}  // namespace weir::cli::view
