// Passes, the worklist driver of transformation passes, pipelines and their textual form.
#include "weir/transforms/pipeline.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <set>

#include "weir/sdfg/state.h"
#include "weir/sdfg/suggest.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/instrumentation.h"
#include "weir/transforms/registry.h"

namespace weir::transforms {

PipelineParseError::PipelineParseError(const std::string& message, const std::string& text,
                                       std::size_t column)
    : TransformError(message + " at column " + std::to_string(column) + " in '" + text + "'"),
      message_(message),
      column_(column) {}

Pass::Pass(std::string name, std::string description, std::vector<OptionSpec> options)
    : name_(std::move(name)), description_(std::move(description)), options_(std::move(options)) {}

Pass::~Pass() = default;

PassVerificationError::PassVerificationError(const std::string& pass, const std::string& problems)
    : TransformError("the SDFG is invalid after pass '" + pass + "': " + problems), pass_(pass) {}

namespace {
std::atomic<int> verify_setting{-1};  // -1: not set, use the environment or the build type
}  // namespace

bool verify_each() {
  int v = verify_setting.load();
  if (v >= 0) return v != 0;
  if (const char* env = std::getenv("WEIR_VERIFY_EACH"); env && *env) return std::string(env) != "0";
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

void set_verify_each(bool on) { verify_setting = on ? 1 : 0; }

std::size_t Pass::run(SDFG& sdfg, AnalysisCache& cache) {
  Transaction tx(sdfg, cache);
  const auto& hooks = PassInstrumentation::installed();
  for (auto* h : std::vector<PassInstrumentation*>(hooks)) h->before_pass(*this, sdfg);
  auto t0 = std::chrono::steady_clock::now();
  std::size_t changes = 0;
  try {
    changes = run_pass(sdfg, tx);
  } catch (...) {
    for (auto* h : std::vector<PassInstrumentation*>(hooks)) h->after_failed_pass(*this);
    throw;  // tx rolls back
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (auto* h : std::vector<PassInstrumentation*>(hooks)) h->after_pass(*this, sdfg, changes, ms);
  if (!is_pipeline(*this) && verify_each()) {
    auto problems = validate(sdfg);
    if (!problems.empty()) {
      std::string text = problems.front().str();
      if (problems.size() > 1) text += " (and " + std::to_string(problems.size() - 1) + " more)";
      throw PassVerificationError(name(), text);
    }
  }
  tx.commit();
  return changes;
}

std::string Pass::str() const {
  std::string s = name();
  auto nd = options().non_default();
  if (nd.empty()) return s;
  s += "{";
  for (std::size_t k = 0; k < nd.size(); ++k)
    s += (k ? " " : "") + nd[k].first + "=" + option_value_text(nd[k].second);
  return s + "}";
}

// --- transformation passes -------------------------------------------------------------------

TransformationPass::TransformationPass(std::unique_ptr<Transformation> t)
    : Pass(pass_name_of(t->name()), t->description()), t_(std::move(t)) {}

namespace {

std::size_t index_of(const std::vector<ControlFlowRegion*>& cfgs, const ControlFlowRegion* r) {
  for (std::size_t i = 0; i < cfgs.size(); ++i)
    if (cfgs[i] == r) return i;
  return cfgs.size();
}

}  // namespace

std::size_t TransformationPass::run_pass(SDFG& sdfg, Transaction& tx) {
  AnalysisCache& cache = tx.cache();
  Transformation& t = *t_;
  std::size_t applied = 0;
  if (!t.converges()) {
    // Once per match found up front; ids are stable, so later matches survive earlier
    // applications elsewhere, and check_match refuses those whose elements are gone. A match
    // names its region by position in the pre-order list of regions, which an application that
    // adds or removes a nested SDFG or a loop shifts after its own region: regions are visited
    // last first (in found order within one), so every position still to come stays valid.
    std::vector<Candidate> found = find_matches(sdfg, t, cache);
    std::stable_sort(found.begin(), found.end(),
                     [](const Candidate& a, const Candidate& b) { return a.match.cfg_id > b.match.cfg_id; });
    for (const Candidate& c : found) {
      if (!c.result || applied >= max_applications) continue;
      if (!check_match(sdfg, t, c.match, cache)) continue;
      apply_transactional(sdfg, t, c.match, cache);
      ++applied;
    }
    return applied;
  }
  // Fixed point with a worklist per state (dataflow) or region (control flow): anchors are
  // tried in id order; after an application only what it touched is queued again (the matched
  // elements still alive, their neighbours and whatever it added), so an application costs
  // what it touches, not a re-match of the state or region. Sweeps repeat while anything
  // changed, because a cleanup in one place can enable one elsewhere (a container's last
  // reader disappears); the last sweep finds nothing anywhere, which is the fixed point.
  bool changed = true;
  while (changed && applied < max_applications) {
    changed = false;
    for (std::size_t c = 0; c < cache.cfg_list(sdfg).size(); ++c) {
      ControlFlowRegion* region = cache.cfg_list(sdfg)[c];
      std::vector<BlockId> units;
      if (t.scope() == MatchScope::Dataflow) {
        for (ControlFlowBlock* b : region->blocks())
          if (b->as<SDFGState>()) units.push_back(b->id());
      } else {
        units.push_back(kNoBlock);
      }
      for (BlockId unit : units) {
        std::size_t cfg = index_of(cache.cfg_list(sdfg), region);
        if (cfg == cache.cfg_list(sdfg).size()) break;
        SDFGState* st = nullptr;
        std::set<std::uint32_t> work;
        if (unit != kNoBlock) {
          if (!region->has_block(unit) || !(st = region->block(unit).as<SDFGState>())) continue;
          const auto& anchors = cache.nodes_of_kind(*st, t.anchor_kind());
          work.insert(anchors.begin(), anchors.end());
        } else {
          for (ControlFlowBlock* b : region->blocks()) work.insert(b->id());
        }
        while (!work.empty() && applied < max_applications) {
          std::uint32_t anchor = *work.begin();
          work.erase(work.begin());
          auto cands = find_matches_at(sdfg, cfg, unit, anchor, t, cache);
          const Candidate* first = nullptr;
          for (const Candidate& cand : cands)
            if (cand.result) {
              first = &cand;
              break;
            }
          if (!first) continue;
          const std::size_t cap = st ? st->node_capacity() : region->block_capacity();
          apply_transactional(sdfg, t, first->match, cache);
          ++applied;
          changed = true;
          cfg = index_of(cache.cfg_list(sdfg), region);  // nested SDFGs may come and go
          if (cfg == cache.cfg_list(sdfg).size()) break;
          // Requeue: the match's elements still alive, their neighbours, and new elements.
          if (st) {
            if (!region->has_block(unit) || region->block(unit).as<SDFGState>() != st) break;
            auto queue = [&](NodeId n) {
              if (st->has_node(n) && st->node(n).kind() == t.anchor_kind()) work.insert(n);
            };
            for (std::uint32_t n : first->match.subgraph) {
              if (!st->has_node(n)) continue;
              queue(n);
              for (EdgeId e : st->in_edges(n)) queue(st->edge(e).src);
              for (EdgeId e : st->out_edges(n)) queue(st->edge(e).dst);
            }
            for (NodeId n = static_cast<NodeId>(cap); n < st->node_capacity(); ++n) queue(n);
          } else {
            for (std::uint32_t b : first->match.subgraph) {
              if (!region->has_block(b)) continue;
              work.insert(b);
              for (const ControlFlowEdge* e : region->in_edges(b)) work.insert(e->src);
              for (const ControlFlowEdge* e : region->out_edges(b)) work.insert(e->dst);
            }
            for (std::size_t b = cap; b < region->block_capacity(); ++b)
              if (region->has_block(static_cast<BlockId>(b))) work.insert(static_cast<BlockId>(b));
          }
        }
      }
    }
  }
  return applied;
}

// --- pipelines -------------------------------------------------------------------------------

Pipeline::Pipeline(std::string name, std::vector<std::unique_ptr<Pass>> passes, bool fixed_point,
                   std::string description)
    : Pass(std::move(name), std::move(description)), passes_(std::move(passes)), fixed_point_(fixed_point) {}

std::size_t Pipeline::run_pass(SDFG& sdfg, Transaction& tx) {
  AnalysisCache& cache = tx.cache();
  std::size_t total = 0;
  rounds_ = 0;
  while (rounds_ < max_rounds) {
    ++rounds_;
    std::size_t round = 0;
    for (auto& p : passes_) round += p->run(sdfg, cache);
    total += round;
    if (!fixed_point_ || round == 0) break;
  }
  return total;
}

std::size_t Pipeline::run(SDFG& sdfg) {
  AnalysisCache cache;
  return run(sdfg, cache);
}

std::string Pipeline::str_passes() const {
  std::string s;
  for (std::size_t k = 0; k < passes_.size(); ++k) s += (k ? "," : "") + passes_[k]->str();
  return s;
}

// --- parsing ---------------------------------------------------------------------------------

namespace {

class PipelineParser {
 public:
  explicit PipelineParser(const std::string& text) : text_(text) {}

  std::unique_ptr<Pipeline> parse() {
    std::vector<std::unique_ptr<Pass>> passes;
    skip_space();
    if (at_end()) fail("empty pipeline: expected a pass name", i_);
    while (true) {
      skip_space();
      passes.push_back(parse_pass());
      skip_space();
      if (at_end()) break;
      if (text_[i_] != ',') fail(std::string("expected ',' between passes, found '") + text_[i_] + "'", i_);
      ++i_;
    }
    return std::make_unique<Pipeline>("pipeline", std::move(passes));
  }

 private:
  const std::string& text_;
  std::size_t i_ = 0;

  bool at_end() const { return i_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[i_]))) ++i_;
  }
  [[noreturn]] void fail(const std::string& msg, std::size_t pos) const {
    throw PipelineParseError(msg, text_, pos + 1);
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  }

  std::string read_name() {
    std::size_t b = i_;
    while (!at_end() && name_char(text_[i_])) ++i_;
    return text_.substr(b, i_ - b);
  }

  std::unique_ptr<Pass> parse_pass() {
    std::size_t at = i_;
    std::string name = read_name();
    if (name.empty())
      fail(at_end() ? "expected a pass name at the end"
                    : std::string("expected a pass name, found '") + text_[i_] + "'",
           at);
    auto pass = make_pass(name);
    if (!pass) {
      std::string known;
      for (const auto& n : pass_names()) known += (known.empty() ? "" : ", ") + n;
      fail("unknown pass '" + name + "'" + did_you_mean(name, pass_names()) + " (known: " + known + ")", at);
    }
    skip_space();
    if (!at_end() && text_[i_] == '{') parse_options(*pass);
    return pass;
  }

  void parse_options(Pass& pass) {
    std::size_t open = i_++;
    std::set<std::string> seen;
    while (true) {
      while (!at_end() && (std::isspace(static_cast<unsigned char>(text_[i_])) || text_[i_] == ',')) ++i_;
      if (at_end()) fail("missing '}' to close the options of '" + pass.name() + "'", open);
      if (text_[i_] == '}') {
        ++i_;
        return;
      }
      std::size_t key_at = i_;
      std::string key = read_name();
      if (key.empty()) fail(std::string("expected an option name, found '") + text_[i_] + "'", i_);
      if (at_end() || text_[i_] != '=') fail("expected '=' after option '" + key + "'", i_);
      ++i_;
      std::size_t value_at = i_;
      std::string value = read_segment();
      // A list value continues over commas while the next segment is not "name=...".
      while (!at_end() && text_[i_] == ',') {
        std::size_t save = i_;
        ++i_;
        std::size_t seg_at = i_;
        std::string seg = read_segment();
        if (seg.empty() || seg.find('=') != std::string::npos) {
          i_ = save;
          break;
        }
        (void)seg_at;
        value += "," + seg;
      }
      if (value.empty()) fail("option '" + key + "' has no value", value_at);
      if (!seen.insert(key).second) fail("option '" + key + "' given twice", key_at);
      try {
        pass.options().set_text(key, value);
      } catch (const PipelineParseError&) {
        throw;
      } catch (const TransformError& e) {
        bool unknown = !pass.options().has(key);
        fail(std::string(e.what()) + " for pass '" + pass.name() + "'", unknown ? key_at : value_at);
      }
    }
  }

  std::string read_segment() {
    std::size_t b = i_;
    while (!at_end() && text_[i_] != ',' && text_[i_] != '}' &&
           !std::isspace(static_cast<unsigned char>(text_[i_])))
      ++i_;
    return text_.substr(b, i_ - b);
  }
};

}  // namespace

std::unique_ptr<Pipeline> parse_pipeline(const std::string& text) { return PipelineParser(text).parse(); }

}  // namespace weir::transforms
