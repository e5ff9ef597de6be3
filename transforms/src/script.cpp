// Optimization scripts, transformation history (DaCe's transformation_hist / orig_sdfg) and
// replay.
#include "weir/transforms/script.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "weir/sdfg/json_text.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/suggest.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/instrumentation.h"
#include "weir/transforms/map_tiling.h"
#include "weir/transforms/registry.h"

namespace weir::transforms {

using json = nlohmann::json;

ScriptError::ScriptError(const std::string& what, long step, std::string name)
    : TransformError(what), step_(step), name_(std::move(name)) {}

namespace {

constexpr const char* kHist = "transformation_hist";  // DaCe's entries: read, kept as they are
constexpr const char* kOrig = "orig_sdfg";

/// The entries of list attribute `key` (none if absent).
std::vector<std::string> history_list(const SDFG& sdfg, const char* key) {
  std::vector<std::string> out;
  const std::string* h = sdfg.extra.find(key);
  if (!h || *h == "null") return out;
  json list = json::parse(*h, nullptr, false);
  if (!list.is_array()) throw ScriptError(std::string("'") + key + "' is not a list");
  for (const auto& r : list) out.push_back(r.dump());
  return out;
}

/// JSON text in the form a load of the saved file gives back (sorted keys, compact).
std::string normalize(const std::string& text) { return json::parse(text).dump(); }

/// Collects the applications made while it lives and writes them into the SDFG's history.
class History {
 public:
  explicit History(SDFG& sdfg)
      : sdfg_(sdfg), recorder_([this](const std::string& r) { records_.push_back(normalize(r)); }) {
    records_ = transformation_history(sdfg);
    initial_ = records_.size();
    dace_ = history_list(sdfg, kHist).size();
    if (!has_history(sdfg)) {
      auto c = sdfg.clone_sdfg();
      c->extra.set(kHist, "[]");
      c->extra.set(kOrig, "null");
      c->extra.erase(kWeirHistoryAttribute);
      orig_ = normalize(sdfg_to_json_text(*c));
    }
  }
  void add(const std::string& record) { records_.push_back(normalize(record)); }
  /// Writes the history (only if something was applied).
  void commit() {
    if (records_.size() == initial_) return;
    if (!orig_.empty()) sdfg_.extra.set(kOrig, orig_);
    // DaCe's own entries stay in its list (an empty one where there was none, as DaCe writes);
    // weir's follow in kWeirHistoryAttribute.
    if (!sdfg_.extra.find(kHist)) sdfg_.extra.set(kHist, "[]");
    json list = json::array();
    for (std::size_t k = dace_; k < records_.size(); ++k) list.push_back(json::parse(records_[k]));
    sdfg_.extra.set(kWeirHistoryAttribute, list.dump());
  }

 private:
  SDFG& sdfg_;
  ApplicationRecorder recorder_;
  std::vector<std::string> records_;
  std::size_t initial_ = 0;
  std::size_t dace_ = 0;  // entries DaCe recorded (the first of records_)
  std::string orig_;
};

std::string pass_record(const std::string& text) {
  json j;
  j["type"] = "Pass";
  j["pass"] = text;
  return j.dump();
}

/// Records passes that are not made of transformations as one {"type": "Pass"} entry each;
/// their own applications (if any) are part of the pass and silenced, so that replay does not
/// apply them twice. Transformation passes need nothing: the history's recorder sees each
/// application.
class PassRecording final : public PassInstrumentation {
 public:
  explicit PassRecording(History& h) : h_(h) {}
  void before_pass(const Pass& p, const SDFG&) override {
    if (recorded(p)) silenced_.push_back(std::make_unique<ApplicationRecorder>([](const std::string&) {}));
  }
  void after_pass(const Pass& p, const SDFG&, std::size_t changes, double) override {
    if (!recorded(p)) return;
    silenced_.pop_back();
    if (changes) h_.add(pass_record(p.str()));
  }
  void after_failed_pass(const Pass& p) override {
    if (recorded(p)) silenced_.pop_back();
  }

 private:
  History& h_;
  std::vector<std::unique_ptr<ApplicationRecorder>> silenced_;
  static bool recorded(const Pass& p) {
    return !is_pipeline(p) && !dynamic_cast<const TransformationPass*>(&p);
  }
};

std::size_t run_tracked(SDFG& sdfg, Pass& p, AnalysisCache& cache, History& h) {
  PassRecording recording(h);
  return p.run(sdfg, cache);
}

// --- script parsing --------------------------------------------------------------------------

std::string step_prefix(const std::string& origin, std::size_t k, const std::string& name) {
  return origin + ": step " + std::to_string(k + 1) + (name.empty() ? std::string() : " (" + name + ")") +
         ": ";
}

// A transformation's message after the step's prefix, which names the transformation already:
// without the "MapTiling: " its own errors begin with ("step 1 (MapTiling): option ...").
std::string without_own_name(const std::string& name, const std::string& msg) {
  const std::string own = name + ": ";
  return !name.empty() && msg.rfind(own, 0) == 0 ? msg.substr(own.size()) : msg;
}

}  // namespace

std::vector<ScriptStep> parse_script(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = parse_json(text, origin);
  } catch (const InvalidJsonError& e) {
    throw ScriptError(e.what());
  }
  if (j.is_object() && j.contains("steps")) j = j["steps"];
  if (!j.is_array()) throw ScriptError(origin + ": a script is a JSON list of steps (or {\"steps\": [...]})");
  std::vector<ScriptStep> steps;
  for (std::size_t k = 0; k < j.size(); ++k) {
    const json& s = j[k];
    auto fail = [&](const std::string& name, const std::string& msg) {
      return ScriptError(step_prefix(origin, k, name) + without_own_name(name, msg), static_cast<long>(k + 1),
                         name);
    };
    if (!s.is_object()) throw fail("", "a step is a JSON object, not " + s.dump());
    ScriptStep step;
    static const std::set<std::string> keys{"transformation", "pass", "options", "where", "repeat"};
    for (const auto& [key, v] : s.items())
      if (!keys.count(key))
        throw fail("", "unknown key '" + key + "' (known: transformation, pass, options, where, repeat)");
    if (s.contains("transformation") == s.contains("pass"))
      throw fail("", "a step names either a \"transformation\" or a \"pass\"");
    const json& name = s.contains("pass") ? s["pass"] : s["transformation"];
    if (!name.is_string()) throw fail("", "the name must be a string, not " + name.dump());
    step.name = name.get<std::string>();
    step.is_pass = s.contains("pass");
    if (step.is_pass) {
      for (const char* key : {"options", "where", "repeat"})
        if (s.contains(key))
          throw fail(step.name, std::string("a pass step takes no \"") + key +
                                    "\" (options go in braces: \"map-tiling{tile_sizes=32,8}\")");
      try {
        parse_pipeline(step.name);
      } catch (const TransformError& e) {
        throw fail(step.name, e.what());
      }
      steps.push_back(std::move(step));
      continue;
    }
    auto t = make_transformation(step.name);
    if (!t) {
      std::vector<std::string> known = transformation_names();  // class or pass names
      for (const auto& n : transformation_names()) known.push_back(pass_name_of(n));
      throw fail(step.name, "unknown transformation '" + step.name + "'" + did_you_mean(step.name, known) +
                                " (see `weir transforms list`)");
    }
    if (s.contains("options")) {
      if (!s["options"].is_object()) throw fail(step.name, "\"options\" must be an object");
      MatchRecord rec;
      for (const auto& [key, v] : s["options"].items()) {
        if (!t->options().has(key)) {
          std::string known;
          for (const auto& spec : t->options().specs()) known += (known.empty() ? "" : ", ") + spec.name;
          throw fail(step.name,
                     "unknown option '" + key + "'" +
                         (known.empty() ? std::string(" (it has no options)") : " (known: " + known + ")"));
        }
        rec.options_json[key] = v.dump();
        step.options.emplace_back(key, v.dump());
      }
      try {
        set_options_from_record(*t, rec);
      } catch (const TransformError& e) {
        throw fail(step.name, e.what());
      }
    }
    if (s.contains("repeat")) {
      if (!s["repeat"].is_boolean()) throw fail(step.name, "\"repeat\" must be true or false");
      step.repeat = s["repeat"].get<bool>();
    }
    if (s.contains("where")) {
      const json& w = s["where"];
      if (w.is_string() && w.get<std::string>() == "all") {
        step.where = StepWhere::All;
      } else if (w.is_string()) {
        step.where = StepWhere::MatchId;
        step.match_id = w.get<std::string>();
      } else if (w.is_object() && w.contains("labels") && w["labels"].is_array() && w.size() == 1) {
        step.where = StepWhere::Labels;
        for (const auto& l : w["labels"]) {
          if (!l.is_string()) throw fail(step.name, "labels must be strings");
          step.labels.push_back(l.get<std::string>());
        }
        if (step.labels.empty()) throw fail(step.name, "\"labels\" is empty");
      } else {
        throw fail(
            step.name,
            "\"where\" is \"all\", a match id such as \"0.1.3,7\", or {\"labels\": [...]}; not " + w.dump());
      }
    }
    if (step.repeat && step.where != StepWhere::All)
      throw fail(step.name, "\"repeat\" needs \"where\": \"all\"");
    steps.push_back(std::move(step));
  }
  return steps;
}

// --- applying --------------------------------------------------------------------------------

namespace {

Match parse_match_id(const std::string& id, const Transformation& t) {
  // "<cfg>.<state|->.<id>,<id>..."
  auto p1 = id.find('.');
  auto p2 = p1 == std::string::npos ? p1 : id.find('.', p1 + 1);
  if (p2 == std::string::npos)
    throw TransformError("match id '" + id +
                         "' is not '<cfg>.<state>.<ids>' (as `weir transforms match` prints)");
  auto number = [&](const std::string& s) -> std::uint32_t {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
      throw TransformError("match id '" + id + "': '" + s + "' is not a number");
    std::uint64_t v = 0;
    for (char c : s) {
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
      if (v > 0xffffffffu)
        throw TransformError("match id '" + id + "': " + s + " is larger than any id (at most 4294967295)");
    }
    return static_cast<std::uint32_t>(v);
  };
  Match m;
  m.cfg_id = number(id.substr(0, p1));
  std::string state = id.substr(p1 + 1, p2 - p1 - 1);
  if (state == "-") {
    if (t.scope() == MatchScope::Dataflow)
      throw TransformError("match id '" + id + "' has no state, but " + t.name() + " matches in a state");
    m.state_id = kNoBlock;
  } else {
    if (t.scope() == MatchScope::ControlFlow)
      throw TransformError("match id '" + id + "' names a state, but " + t.name() +
                           " matches control flow ('-')");
    m.state_id = number(state);
  }
  std::string rest = id.substr(p2 + 1);
  std::size_t b = 0;
  while (b <= rest.size()) {
    auto e = rest.find(',', b);
    if (e == std::string::npos) e = rest.size();
    m.subgraph.push_back(number(rest.substr(b, e - b)));
    b = e + 1;
  }
  return m;
}

/// Whether the match's elements carry `labels` in pattern order: a node's or block's label, or
/// for map entries and exits also the map's own label ("_Mult__map" for a map entry labelled
/// "_Mult__map[__i0=0:N]").
bool has_labels(SDFG& root, const Transformation& t, const Match& m, AnalysisCache& cache,
                const std::vector<std::string>& labels) {
  if (m.subgraph.size() != labels.size()) return false;
  ControlFlowRegion& r = *cache.cfg_list(root)[m.cfg_id];
  for (std::size_t k = 0; k < labels.size(); ++k) {
    if (t.scope() == MatchScope::ControlFlow) {
      if (r.block(m.subgraph[k]).label != labels[k]) return false;
      continue;
    }
    const Node& n = r.block(m.state_id).as<SDFGState>()->node(m.subgraph[k]);
    const MapInfo* info = n.as<MapEntry>()  ? n.as<MapEntry>()->map.get()
                          : n.as<MapExit>() ? n.as<MapExit>()->map.get()
                                            : nullptr;
    if (n.label != labels[k] && !(info && info->label == labels[k])) return false;
  }
  return true;
}

/// The labels has_labels compares, of each element of the match in pattern order (a map's own
/// label for map entries and exits).
std::vector<std::string> labels_of(SDFG& root, const Transformation& t, const Match& m,
                                   AnalysisCache& cache) {
  std::vector<std::string> out;
  ControlFlowRegion& r = *cache.cfg_list(root)[m.cfg_id];
  for (std::size_t k = 0; k < m.subgraph.size(); ++k) {
    if (t.scope() == MatchScope::ControlFlow) {
      out.push_back(r.block(m.subgraph[k]).label);
      continue;
    }
    const Node& n = r.block(m.state_id).as<SDFGState>()->node(m.subgraph[k]);
    const MapInfo* info = n.as<MapEntry>()  ? n.as<MapEntry>()->map.get()
                          : n.as<MapExit>() ? n.as<MapExit>()->map.get()
                                            : nullptr;
    out.push_back(info ? info->label : n.label);
  }
  return out;
}

std::string quoted(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", '" : "'") + v[k] + "'";
  return s;
}

/// Rounds of a repeated step at most (see StepWhere::All in apply_step).
constexpr std::size_t kMaxRepeatRounds = 100;
/// Map nesting a repeated step may add at most: expansion and tiling steps that converge add a
/// level per map dimension; one that tiles its own tiles adds one per round, and each level makes
/// the symbolic ranges below it longer: MapTiling repeated on a 2-D map ran 68 rounds in 5.9 s
/// (345 s under ASan) before the node bound stopped it, 17 rounds in 0.05 s with this one.
constexpr int kMaxRepeatDeepening = 16;

/// What a repeated step may not grow without bound: the nodes of every state of `sdfg` and its
/// nested SDFGs, and the deepest map nesting of any of those states.
struct SdfgExtent {
  std::size_t nodes = 0;
  int depth = 0;
};

SdfgExtent extent_of(const SDFG& sdfg) {
  SdfgExtent e;
  for (const SDFGState* st : sdfg.all_states()) {
    ScopeTree tree = st->scope_tree();
    for (const Node* node : st->nodes()) {
      ++e.nodes;
      e.depth = std::max(e.depth, tree.depth(node->id()));
      if (auto* nested = node->as<NestedSDFGNode>(); nested && nested->sdfg) {
        SdfgExtent inner = extent_of(*nested->sdfg);
        e.nodes += inner.nodes;
        e.depth = std::max(e.depth, inner.depth);
      }
    }
  }
  return e;
}

std::size_t apply_step(SDFG& sdfg, const ScriptStep& step, AnalysisCache& cache, History& h) {
  if (step.is_pass) {
    auto pipeline = parse_pipeline(step.name);
    return run_tracked(sdfg, *pipeline, cache, h);
  }
  auto t = make_transformation(step.name);
  MatchRecord rec;
  for (const auto& [k, v] : step.options) rec.options_json[k] = v;
  set_options_from_record(*t, rec);
  switch (step.where) {
    case StepWhere::MatchId: {
      Match m = parse_match_id(step.match_id, *t);
      MatchResult r = check_match(sdfg, *t, m, cache);
      if (!r) throw TransformError("does not apply at " + step.match_id + ": " + r.reason());
      apply_transactional(sdfg, *t, m, cache);
      return 1;
    }
    case StepWhere::Labels: {
      std::vector<Match> hits;
      std::vector<std::string> refusals, applicable;
      for (const auto& c : find_matches(sdfg, *t, cache)) {
        if (c.result && applicable.size() < 10) {
          std::vector<std::string> l = labels_of(sdfg, *t, c.match, cache);
          applicable.push_back("[" + quoted(l) + "] @" + c.match.id());
        }
        if (!has_labels(sdfg, *t, c.match, cache, step.labels)) continue;
        if (c.result)
          hits.push_back(c.match);
        else
          refusals.push_back(c.match.id() + ": " + c.result.reason());
      }
      if (hits.empty()) {
        std::string why = "no applicable match has the labels " + quoted(step.labels);
        if (!refusals.empty()) why += " (refused: " + refusals.front() + ")";
        // A typo in a label: the labels there are.
        else if (!applicable.empty()) {
          why += "; applicable matches: ";
          for (std::size_t k = 0; k < applicable.size(); ++k) why += (k ? ", " : "") + applicable[k];
        } else {
          why += "; it applies nowhere";
        }
        throw TransformError(why);
      }
      if (hits.size() > 1) {
        std::vector<std::string> ids;
        for (const auto& m : hits) ids.push_back(m.id());
        throw TransformError("the labels " + quoted(step.labels) + " match " + std::to_string(hits.size()) +
                             " places (" + quoted(ids) + "); use a match id");
      }
      apply_transactional(sdfg, *t, hits.front(), cache);
      return 1;
    }
    case StepWhere::All: {
      std::size_t total = 0;
      // A repeated step ends when a round applies nothing. One that applies again to its own
      // result (MapTiling tiles its tiles, doubling the maps per round) never would: it stops
      // with an error once the rounds or the SDFG's growth pass what converging steps need
      // (fusion, collapse and expansion shrink the SDFG or end within a few rounds).
      const SdfgExtent start = extent_of(sdfg);
      std::size_t refused = 0;  // matches refused in the first round, and the first reason
      std::string first_refusal;
      for (std::size_t round = 0;; ++round) {
        const SdfgExtent now = extent_of(sdfg);
        if (round == kMaxRepeatRounds || now.nodes > 8 * start.nodes + 100 ||
            now.depth > start.depth + kMaxRepeatDeepening)
          throw TransformError("\"repeat\": still applies after " + std::to_string(round) + " rounds (" +
                               std::to_string(total) + " applications, " + std::to_string(start.nodes) +
                               " nodes and map nesting " + std::to_string(start.depth) + " before, " +
                               std::to_string(now.nodes) + " and " + std::to_string(now.depth) +
                               " now): it applies again to its own result; give it without \"repeat\"");
        std::size_t applied = 0;
        std::vector<Match> found;
        for (const auto& c : find_matches(sdfg, *t, cache))
          if (c.result)
            found.push_back(c.match);
          else if (round == 0 && ++refused == 1)
            first_refusal = c.match.id() + ": " + c.result.reason();
        for (const auto& m : found) {
          if (!check_match(sdfg, *t, m, cache)) continue;  // an earlier application changed it
          apply_transactional(sdfg, *t, m, cache);
          ++applied;
        }
        total += applied;
        if (!step.repeat || applied == 0) break;
      }
      // The first refusal says why (a tile_sizes list too long for every map, a vector_width
      // above every map's points), not only that nothing applied.
      if (total == 0)
        throw TransformError("applies nowhere (see `weir transforms match FILE " + step.name + "`)" +
                             (refused
                                  ? "; " + std::to_string(refused) + " match" + (refused == 1 ? "" : "es") +
                                        " refused, the first " + first_refusal
                                  : std::string()));
      return total;
    }
  }
  return 0;
}

/// Adds `step` ("tune.json: step 2") to the divides_evenly promises MapTiling recorded without
/// one (kTilesDivideAttribute): those the step just made. Nested SDFGs included.
void name_tiling_promises(SDFG& sdfg, const std::string& step) {
  for (SDFGState* st : sdfg.all_states())
    for (Node* n : st->nodes()) {
      if (auto* nested = n->as<NestedSDFGNode>(); nested && nested->sdfg)
        name_tiling_promises(*nested->sdfg, step);
      auto* e = n->as<MapEntry>();
      const std::string* text = e ? e->map->extra.find(kTilesDivideAttribute) : nullptr;
      if (!text) continue;
      json promises = json::parse(*text, nullptr, false);
      if (!promises.is_array()) continue;
      bool changed = false;
      for (json& p : promises)
        if (p.is_object() && !p.contains("step")) p["step"] = step, changed = true;
      if (changed) e->map->extra.set(kTilesDivideAttribute, promises.dump());
    }
}

}  // namespace

std::size_t apply_script(SDFG& sdfg, const std::vector<ScriptStep>& steps, const std::string& origin) {
  History h(sdfg);
  AnalysisCache cache;
  std::size_t n = 0;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    try {
      n += apply_step(sdfg, steps[k], cache, h);
      name_tiling_promises(sdfg, origin + ": step " + std::to_string(k + 1) + " (" + steps[k].name + ")");
    } catch (const ScriptError&) {
      throw;
    } catch (const Error& e) {
      throw ScriptError(step_prefix(origin, k, steps[k].name) + without_own_name(steps[k].name, e.what()),
                        static_cast<long>(k + 1), steps[k].name);
    }
  }
  h.commit();
  return n;
}

std::size_t run_recorded(SDFG& sdfg, Pass& pass) {
  History h(sdfg);
  AnalysisCache cache;
  std::size_t n = run_tracked(sdfg, pass, cache, h);
  h.commit();
  return n;
}

// --- history ---------------------------------------------------------------------------------

std::vector<std::string> transformation_history(const SDFG& sdfg) {
  std::vector<std::string> out = history_list(sdfg, kHist);
  for (auto& r : history_list(sdfg, kWeirHistoryAttribute)) out.push_back(std::move(r));
  return out;
}

bool has_history(const SDFG& sdfg) {
  const std::string* o = sdfg.extra.find(kOrig);
  return o && *o != "null";
}

std::unique_ptr<SDFG> replay_history(const SDFG& transformed) {
  if (!has_history(transformed))
    throw ScriptError(
        "the SDFG has no recorded history to replay (no 'orig_sdfg'; it was not made by `weir optimize`)");
  std::string orig = normalize(*transformed.extra.find(kOrig));
  std::vector<std::string> records = transformation_history(transformed);
  std::unique_ptr<SDFG> cur;
  try {
    cur = sdfg_from_json_text(orig, "orig_sdfg");
  } catch (const Error& e) {
    throw ScriptError(std::string("the recorded original SDFG does not load: ") + e.what());
  }
  AnalysisCache cache;
  std::vector<std::string> replayed;
  for (std::size_t k = 0; k < records.size(); ++k) {
    json j = json::parse(records[k]);
    std::string name = j.value("transformation", j.value("pass", std::string("?")));
    auto fail = [&](const std::string& msg) {
      return ScriptError("history entry " + std::to_string(k + 1) + " (" + name + "): " + msg,
                         static_cast<long>(k + 1), name);
    };
    try {
      if (j.value("type", std::string()) == "Pass") {
        auto pipeline = parse_pipeline(j.value("pass", std::string()));
        pipeline->run(*cur, cache);
        replayed.push_back(normalize(records[k]));
        continue;
      }
      MatchRecord rec = match_from_json(*cur, records[k]);
      auto t = make_transformation(rec.transformation);
      if (!t) throw fail("unknown transformation '" + rec.transformation + "'");
      set_options_from_record(*t, rec);
      MatchResult r = check_match(*cur, *t, rec.match, cache);
      if (!r) throw fail("no longer applies at " + rec.match.id() + ": " + r.reason());
      std::string again = normalize(match_to_json(*cur, *t, rec.match));
      apply_transactional(*cur, *t, rec.match, cache);
      replayed.push_back(again);
    } catch (const ScriptError&) {
      throw;
    } catch (const Error& e) {
      throw fail(e.what());
    } catch (const json::exception& e) {
      throw fail("malformed entry: " + plain_json_words(e.what()));
    }
  }
  cur->extra.set(kOrig, orig);
  // The same split as the input: DaCe's entries first, in its list, then weir's.
  std::size_t dace = history_list(transformed, kHist).size();
  json dace_list = json::array(), weir_list = json::array();
  for (std::size_t k = 0; k < replayed.size(); ++k)
    (k < dace ? dace_list : weir_list).push_back(json::parse(replayed[k]));
  cur->extra.set(kHist, dace_list.dump());
  if (transformed.extra.find(kWeirHistoryAttribute)) cur->extra.set(kWeirHistoryAttribute, weir_list.dump());
  return cur;
}

}  // namespace weir::transforms
