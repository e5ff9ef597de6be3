// The transformation framework: options, match enumeration from anchors, transactional
// application and DaCe's JSON record of a match.
#include "weir/transforms/transformation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "weir/sdfg/cfg_list.h"
#include "weir/sdfg/json_text.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/transaction.h"

namespace weir::transforms {

using json = nlohmann::json;

Transformation::~Transformation() = default;

std::vector<BlockId> Transformation::footprint(const MatchContext& ctx,
                                               const std::vector<std::uint32_t>&) const {
  if (ctx.state) return {ctx.state->id()};
  std::vector<BlockId> all;
  for (ControlFlowBlock* b : ctx.region.blocks()) all.push_back(b->id());
  return all;
}

MatchResult Transformation::check_pattern(const MatchContext&, const std::vector<std::uint32_t>&) const {
  return MatchResult::success();
}

MatchResult judge(const Transformation& t, const MatchContext& ctx,
                  const std::vector<std::uint32_t>& subgraph) {
  MatchResult r = t.check_pattern(ctx, subgraph);
  return r ? t.can_apply(ctx, subgraph) : r;
}

std::optional<std::vector<std::string>> Transformation::data_footprint(
    const MatchContext&, const std::vector<std::uint32_t>&) const {
  return std::nullopt;
}

// --- options ---------------------------------------------------------------------------------

std::string option_value_text(const OptionValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<long long>(&v)) return std::to_string(*i);
  if (const auto* l = std::get_if<std::vector<long long>>(&v)) {
    std::string s;
    for (std::size_t k = 0; k < l->size(); ++k) s += (k ? "," : "") + std::to_string((*l)[k]);
    return s;
  }
  return std::get<std::string>(v);
}

namespace {

const char* type_name(const OptionValue& v) {
  switch (v.index()) {
    case 0: return "a boolean (true/false)";
    case 1: return "an integer";
    case 2: return "a comma-separated list of integers";
    default: return "a string";
  }
}

std::optional<long long> parse_int(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (std::size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return std::nullopt;
  try {
    return std::stoll(s);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

Options::Options(std::vector<OptionSpec> specs) : specs_(std::move(specs)) {
  for (const auto& s : specs_) values_[s.name] = s.default_value;
}

bool Options::has(const std::string& name) const { return values_.count(name) != 0; }

const OptionSpec& Options::spec(const std::string& name) const {
  for (const auto& s : specs_)
    if (s.name == name) return s;
  std::string known;
  for (const auto& s : specs_) known += (known.empty() ? "" : ", ") + s.name;
  throw TransformError("unknown option '" + name + "'" +
                       (known.empty() ? std::string(" (it has no options)") : " (known: " + known + ")"));
}

void Options::set(const std::string& name, OptionValue value) {
  const OptionSpec& s = spec(name);
  if (value.index() != s.default_value.index())
    throw TransformError("option '" + name + "' must be " + type_name(s.default_value));
  if (s.minimum) {
    std::vector<long long> ints;
    if (auto* i = std::get_if<long long>(&value)) ints.push_back(*i);
    if (auto* l = std::get_if<std::vector<long long>>(&value)) ints = *l;
    for (long long i : ints)
      if (i < *s.minimum)
        throw TransformError("option '" + name + "' must be at least " + std::to_string(*s.minimum) +
                             ", not " + std::to_string(i));
  }
  values_[name] = std::move(value);
}

void Options::set_text(const std::string& name, const std::string& text) {
  const OptionSpec& s = spec(name);
  auto bad = [&]() {
    return TransformError("option '" + name + "' must be " + type_name(s.default_value) + ", not '" + text +
                          "'");
  };
  switch (s.default_value.index()) {
    case 0:
      if (text == "true" || text == "True" || text == "1")
        values_[name] = true;
      else if (text == "false" || text == "False" || text == "0")
        values_[name] = false;
      else
        throw bad();
      return;
    case 1: {
      auto v = parse_int(text);
      if (!v) throw bad();
      set(name, *v);
      return;
    }
    case 2: {
      std::vector<long long> out;
      std::string cur;
      std::stringstream ss(text);
      while (std::getline(ss, cur, ',')) {
        cur.erase(0, cur.find_first_not_of(' '));
        cur.erase(cur.find_last_not_of(' ') + 1);
        auto v = parse_int(cur);
        if (!v) throw bad();
        out.push_back(*v);
      }
      if (out.empty()) throw bad();
      set(name, std::move(out));
      return;
    }
    default: values_[name] = text;
  }
}

const OptionValue& Options::get(const std::string& name) const {
  spec(name);
  return values_.at(name);
}
bool Options::get_bool(const std::string& name) const { return std::get<bool>(get(name)); }
long long Options::get_int(const std::string& name) const { return std::get<long long>(get(name)); }
const std::vector<long long>& Options::get_int_list(const std::string& name) const {
  return std::get<std::vector<long long>>(get(name));
}
const std::string& Options::get_string(const std::string& name) const {
  return std::get<std::string>(get(name));
}

std::vector<std::pair<std::string, OptionValue>> Options::non_default() const {
  std::vector<std::pair<std::string, OptionValue>> out;
  for (const auto& s : specs_)
    if (!(values_.at(s.name) == s.default_value)) out.emplace_back(s.name, values_.at(s.name));
  return out;
}

// --- locations -------------------------------------------------------------------------------

std::string Match::id() const {
  std::string s = std::to_string(cfg_id) + "." +
                  (state_id == kNoBlock ? std::string("-") : std::to_string(state_id)) + ".";
  for (std::size_t k = 0; k < subgraph.size(); ++k) s += (k ? "," : "") + std::to_string(subgraph[k]);
  return s;
}

std::vector<ControlFlowRegion*> cfg_list(const SDFG& root) { return weir::cfg_list(root); }

namespace {

SDFG& sdfg_of(ControlFlowRegion& r) {
  SDFG* s = r.sdfg();
  if (!s) throw TransformError("region '" + r.label + "' is not inside an SDFG");
  return *s;
}

/// The context of a match; nullopt-like failure reported as a reason.
struct Located {
  ControlFlowRegion* region = nullptr;
  SDFGState* state = nullptr;
  std::string problem;
};

Located locate(const SDFG& root, const Transformation& t, const Match& m, AnalysisCache& cache) {
  Located l;
  const auto& cfgs = cache.cfg_list(root);
  if (m.cfg_id >= cfgs.size()) {
    l.problem = "no control-flow region with cfg_id " + std::to_string(m.cfg_id);
    return l;
  }
  l.region = cfgs[m.cfg_id];
  if (t.scope() == MatchScope::Dataflow) {
    if (m.state_id == kNoBlock || !l.region->has_block(m.state_id)) {
      l.problem = "no block " + (m.state_id == kNoBlock ? std::string("-1") : std::to_string(m.state_id)) +
                  " in region " + std::to_string(m.cfg_id);
      return l;
    }
    l.state = l.region->block(m.state_id).as<SDFGState>();
    if (!l.state) l.problem = "block " + std::to_string(m.state_id) + " is not a state";
  }
  return l;
}

}  // namespace

MatchResult check_match(SDFG& root, const Transformation& t, const Match& m, AnalysisCache& cache) {
  Located l = locate(root, t, m, cache);
  if (!l.problem.empty()) return refuse(l.problem);
  if (m.subgraph.empty()) return refuse("empty match");
  const bool dataflow = t.scope() == MatchScope::Dataflow;
  for (std::uint32_t id : m.subgraph) {
    if (dataflow ? l.state->has_node(id) : l.region->has_block(id)) continue;
    // An id past every id the container ever gave was never an element: a mistyped match, not
    // one an earlier transformation removed.
    const std::size_t given = dataflow ? l.state->node_capacity() : l.region->block_capacity();
    if (id >= given)
      return refuse(
          (dataflow ? "state " + std::to_string(m.cfg_id) + "." + std::to_string(m.state_id) + " has no node "
                    : "region " + std::to_string(m.cfg_id) + " has no block ") +
          std::to_string(id) + " (" +
          std::to_string(dataflow ? l.state->num_nodes() : l.region->num_blocks()) +
          (dataflow ? " nodes" : " blocks") + ", ids below " + std::to_string(given) + ")");
    return refuse("element " + std::to_string(id) + " of the match no longer exists (it was removed)");
  }
  MatchContext ctx{root, sdfg_of(*l.region), *l.region, l.state, cache};
  return judge(t, ctx, m.subgraph);
}

std::vector<Candidate> find_matches_in(SDFG& root, std::size_t cfg_id, BlockId state_id,
                                       const Transformation& t, AnalysisCache& cache) {
  std::vector<Candidate> out;
  const auto& cfgs = cache.cfg_list(root);
  if (cfg_id >= cfgs.size()) return out;
  ControlFlowRegion& r = *cfgs[cfg_id];
  SDFG& sdfg = sdfg_of(r);
  if (t.scope() == MatchScope::Dataflow) {
    if (!r.has_block(state_id)) return out;
    auto* st = r.block(state_id).as<SDFGState>();
    if (!st) return out;
    MatchContext ctx{root, sdfg, r, st, cache};
    std::vector<NodeId> anchors = cache.nodes_of_kind(*st, t.anchor_kind());  // copy: stable while we look
    for (NodeId a : anchors)
      for (auto& sub : t.expand(ctx, a)) {
        Candidate c{Match{cfg_id, state_id, sub}, MatchResult::success()};
        c.result = judge(t, ctx, c.match.subgraph);
        out.push_back(std::move(c));
      }
  } else {
    MatchContext ctx{root, sdfg, r, nullptr, cache};
    for (ControlFlowBlock* b : r.blocks())
      for (auto& sub : t.expand(ctx, b->id())) {
        Candidate c{Match{cfg_id, kNoBlock, sub}, MatchResult::success()};
        c.result = judge(t, ctx, c.match.subgraph);
        out.push_back(std::move(c));
      }
  }
  return out;
}

std::vector<Candidate> find_matches_at(SDFG& root, std::size_t cfg_id, BlockId state_id, std::uint32_t anchor,
                                       const Transformation& t, AnalysisCache& cache) {
  std::vector<Candidate> out;
  const auto& cfgs = cache.cfg_list(root);
  if (cfg_id >= cfgs.size()) return out;
  ControlFlowRegion& r = *cfgs[cfg_id];
  SDFGState* st = nullptr;
  if (t.scope() == MatchScope::Dataflow) {
    if (!r.has_block(state_id) || !(st = r.block(state_id).as<SDFGState>())) return out;
    if (!st->has_node(anchor) || st->node(anchor).kind() != t.anchor_kind()) return out;
  } else if (!r.has_block(anchor)) {
    return out;
  }
  MatchContext ctx{root, sdfg_of(r), r, st, cache};
  for (auto& sub : t.expand(ctx, anchor)) {
    Candidate c{Match{cfg_id, st ? state_id : kNoBlock, sub}, MatchResult::success()};
    c.result = judge(t, ctx, c.match.subgraph);
    out.push_back(std::move(c));
  }
  cache.count_candidates(out.size());
  return out;
}

std::vector<Candidate> find_matches(SDFG& root, const Transformation& t, AnalysisCache& cache) {
  std::vector<Candidate> out;
  std::size_t n = cache.cfg_list(root).size();
  for (std::size_t c = 0; c < n; ++c) {
    ControlFlowRegion& r = *cache.cfg_list(root)[c];
    std::vector<Candidate> part;
    if (t.scope() == MatchScope::ControlFlow) {
      part = find_matches_in(root, c, kNoBlock, t, cache);
    } else {
      for (ControlFlowBlock* b : r.blocks()) {
        if (!b->as<SDFGState>()) continue;
        auto p = find_matches_in(root, c, b->id(), t, cache);
        part.insert(part.end(), std::make_move_iterator(p.begin()), std::make_move_iterator(p.end()));
      }
    }
    out.insert(out.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  return out;
}

// --- transactional application ---------------------------------------------------------------

namespace {
thread_local ApplicationRecorder* current_recorder = nullptr;
}  // namespace

ApplicationRecorder::ApplicationRecorder(std::function<void(const std::string&)> sink)
    : sink_(std::move(sink)), previous_(current_recorder) {
  current_recorder = this;
}

ApplicationRecorder::~ApplicationRecorder() { current_recorder = previous_; }

void apply_transactional(SDFG& root, Transformation& t, const Match& m, AnalysisCache& cache) {
  MatchResult r = check_match(root, t, m, cache);
  if (!r) throw TransformError(t.name() + " does not apply at " + m.id() + ": " + r.reason());
  ApplicationRecorder* recorder = current_recorder;
  std::string record = recorder ? match_to_json(root, t, m) : std::string();
  Located l = locate(root, t, m, cache);
  SDFG& sdfg = sdfg_of(*l.region);
  MatchContext ctx{root, sdfg, *l.region, l.state, cache};
  Transaction tx(
      root, cache,
      Transaction::Footprint{sdfg, *l.region, t.footprint(ctx, m.subgraph), t.data_footprint(ctx, m.subgraph),
                             t.scope() == MatchScope::ControlFlow});
  t.apply(ctx, m.subgraph);
  tx.commit();
  if (recorder) recorder->sink_(record);
}

// --- JSON ------------------------------------------------------------------------------------

namespace {

/// Dense index of a block among the region's live blocks.
long dense_block(const ControlFlowRegion& r, BlockId id) {
  long k = 0;
  for (ControlFlowBlock* b : r.blocks()) {
    if (b->id() == id) return k;
    ++k;
  }
  throw TransformError("no block " + std::to_string(id) + " in region '" + r.label + "'");
}

BlockId block_of_dense(const ControlFlowRegion& r, long k) {
  auto bs = r.blocks();
  if (k < 0 || static_cast<std::size_t>(k) >= bs.size())
    throw TransformError("no block with index " + std::to_string(k) + " in region '" + r.label + "'");
  return bs[static_cast<std::size_t>(k)]->id();
}

long dense_node(const SDFGState& st, NodeId id) {
  long k = 0;
  for (Node* n : st.nodes()) {
    if (n->id() == id) return k;
    ++k;
  }
  throw TransformError("no node " + std::to_string(id) + " in state '" + st.label + "'");
}

NodeId node_of_dense(const SDFGState& st, long k) {
  auto ns = st.nodes();
  if (k < 0 || static_cast<std::size_t>(k) >= ns.size())
    throw TransformError("no node with index " + std::to_string(k) + " in state '" + st.label + "'");
  return ns[static_cast<std::size_t>(k)]->id();
}

json option_json(const OptionValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<long long>(&v)) return *i;
  if (const auto* l = std::get_if<std::vector<long long>>(&v)) return *l;
  return std::get<std::string>(v);
}

}  // namespace

std::string match_to_json(const SDFG& root, const Transformation& t, const Match& m) {
  auto cfgs = transforms::cfg_list(root);
  if (m.cfg_id >= cfgs.size())
    throw TransformError("no control-flow region with cfg_id " + std::to_string(m.cfg_id));
  const ControlFlowRegion& r = *cfgs[m.cfg_id];
  json j;
  j["type"] = "PatternTransformation";
  j["transformation"] = t.name();
  for (const auto& s : t.options().specs()) j[s.name] = option_json(t.options().get(s.name));
  j["cfg_id"] = m.cfg_id;
  json sub = json::object();
  if (t.scope() == MatchScope::Dataflow) {
    j["state_id"] = dense_block(r, m.state_id);
    const auto* st = r.block(m.state_id).as<SDFGState>();
    if (!st) throw TransformError("block " + std::to_string(m.state_id) + " is not a state");
    for (std::size_t k = 0; k < m.subgraph.size(); ++k)
      sub[std::to_string(k)] = dense_node(*st, m.subgraph[k]);
  } else {
    j["state_id"] = -1;
    for (std::size_t k = 0; k < m.subgraph.size(); ++k)
      sub[std::to_string(k)] = dense_block(r, m.subgraph[k]);
  }
  j["_subgraph"] = sub;
  return j.dump();
}

MatchRecord match_from_json(const SDFG& root, const std::string& json_text) {
  json j;
  try {
    j = parse_json(json_text, "transformation record");
  } catch (const InvalidJsonError& e) {
    throw TransformError(e.what());
  }
  auto need = [&](const char* k) -> const json& {
    if (!j.is_object() || !j.contains(k))
      throw TransformError(std::string("transformation record has no '") + k + "'");
    return j[k];
  };
  try {
    if (need("type") != "PatternTransformation" && need("type") != "MultiStateTransformation" &&
        need("type") != "SingleStateTransformation")
      throw TransformError("transformation record has type " + need("type").dump());
    MatchRecord rec;
    rec.transformation = need("transformation").get<std::string>();
    rec.match.cfg_id = need("cfg_id").get<std::size_t>();
    long state = need("state_id").get<long>();
    auto cfgs = transforms::cfg_list(root);
    if (rec.match.cfg_id >= cfgs.size())
      throw TransformError("no control-flow region with cfg_id " + std::to_string(rec.match.cfg_id));
    const ControlFlowRegion& r = *cfgs[rec.match.cfg_id];
    const json& sub = need("_subgraph");
    if (!sub.is_object()) throw TransformError("'_subgraph' must be an object");
    std::vector<long> dense(sub.size(), -1);
    for (const auto& [k, v] : sub.items()) {
      auto idx = parse_int(k);
      if (!idx || *idx < 0 || static_cast<std::size_t>(*idx) >= dense.size())
        throw TransformError("'_subgraph' keys must be 0..n-1, not '" + k + "'");
      dense[static_cast<std::size_t>(*idx)] = v.get<long>();
    }
    if (state >= 0) {
      rec.match.state_id = block_of_dense(r, state);
      const auto* st = r.block(rec.match.state_id).as<SDFGState>();
      if (!st) throw TransformError("state_id " + std::to_string(state) + " is not a state");
      for (long d : dense) rec.match.subgraph.push_back(node_of_dense(*st, d));
    } else {
      for (long d : dense) rec.match.subgraph.push_back(block_of_dense(r, d));
    }
    static const std::set<std::string> keys{"type",      "transformation", "cfg_id",    "state_id",
                                            "_subgraph", "sdfg_id",        "expr_index"};
    for (const auto& [k, v] : j.items())
      if (!keys.count(k)) rec.options_json[k] = v.dump();
    return rec;
  } catch (const json::exception& e) {
    throw TransformError("malformed transformation record: " + plain_json_words(e.what()));
  } catch (const std::invalid_argument&) {
    throw TransformError("malformed transformation record: '_subgraph' keys must be integers");
  }
}

namespace {

/// `v` as an option integer: a JSON integer in int64's range, never a float (1.5), a bool or a
/// string that nlohmann would convert.
std::optional<long long> option_integer(const json& v) {
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<long long>();
  if (v.is_number_unsigned() && v.get<unsigned long long>() <= 9223372036854775807ULL)
    return v.get<long long>();
  return std::nullopt;
}

// A whole number JSON cannot hold as an int64 (99999999999999999999 reads as the double 1e+20,
// 2**64 as an unsigned one): named as such, since its dump does not show the digits written.
bool integer_out_of_range(const json& v) {
  if (v.is_array())
    return std::any_of(v.begin(), v.end(), [](const json& e) { return integer_out_of_range(e); });
  if (v.is_number_unsigned()) return v.get<unsigned long long>() > 9223372036854775807ULL;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d && std::fabs(d) >= 9223372036854775808.0;
}

}  // namespace

void set_options_from_record(Transformation& t, const MatchRecord& rec) {
  // (Not a structured binding: clang 14's lambdas cannot capture those.)
  for (const auto& entry : rec.options_json) {
    const std::string& k = entry.first;
    const std::string& text = entry.second;
    json v = json::parse(text);
    if (!t.options().has(k)) throw TransformError(t.name() + ": unknown option '" + k + "' in record");
    const OptionValue& cur = t.options().get(k);
    // Each value must have the option's own JSON type: nlohmann's get<> would turn 1.5 and
    // true into the integer 1 (and a tile size of 1 "applies nowhere" instead of an error).
    auto wrong = [&]() {
      static const char* const json_names[] = {"true or false", "an integer", "a list of integers",
                                               "a string"};
      return TransformError(
          t.name() + ": option '" + k + "' must be " + json_names[cur.index()] + " (JSON), not " + text +
          (integer_out_of_range(v) ? " (an integer past int64's range, at most 9223372036854775807)" : ""));
    };
    switch (cur.index()) {
      case 0:
        if (!v.is_boolean()) throw wrong();
        t.options().set(k, v.get<bool>());
        break;
      case 1: {
        auto n = option_integer(v);
        if (!n) throw wrong();
        t.options().set(k, *n);
        break;
      }
      case 2: {
        if (!v.is_array()) throw wrong();
        std::vector<long long> list;
        for (const json& e : v) {
          auto n = option_integer(e);
          if (!n) throw wrong();
          list.push_back(*n);
        }
        t.options().set(k, list);
        break;
      }
      default:
        if (!v.is_string()) throw wrong();
        t.options().set(k, v.get<std::string>());
    }
  }
}

std::string describe_match(SDFG& root, const Transformation& t, const Match& m) {
  AnalysisCache cache;
  Located l = locate(root, t, m, cache);
  if (!l.problem.empty()) return l.problem;
  std::string s;
  for (std::size_t k = 0; k < m.subgraph.size(); ++k) {
    if (k) s += ", ";
    std::uint32_t id = m.subgraph[k];
    s += std::to_string(id) + " (";
    if (t.scope() == MatchScope::Dataflow) {
      if (l.state->has_node(id)) {
        const Node& n = l.state->node(id);
        s += std::string(to_string(n.kind())) + " '" + n.label + "'";
      } else {
        s += "removed";
      }
    } else if (l.region->has_block(id)) {
      const ControlFlowBlock& b = l.region->block(id);
      s += std::string(to_string(b.kind())) + " '" + b.label + "'";
    } else {
      s += "removed";
    }
    s += ")";
  }
  return s;
}

}  // namespace weir::transforms
