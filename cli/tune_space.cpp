// The search space of `weir tune` and its seed-determined order (tune_space.h).
#include "tune_space.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "weir/transforms/auto_optimize.h"

namespace weir::cli {
namespace {

// One choice: its name and values; the first value is what auto-optimize-cpu does.
struct Knob {
  std::string name;
  std::vector<std::string> values;
};

std::vector<Knob> knobs(unsigned hardware_threads) {
  std::vector<std::string> threads{"all"};
  if (hardware_threads >= 4) threads.push_back(std::to_string(hardware_threads / 2));
  if (hardware_threads >= 2) threads.emplace_back("1");
  return {
      // greedy-map-fusion: default; only producers read at the consumer's point; recomputing up
      // to 27 points; no sibling (horizontal) fusion; also recomputing producers read
      // independently of one consumer parameter (broadcast); no fusion at all.
      {"fusion", {"greedy", "pointwise", "wide", "vertical", "broadcast", "none"}},
      {"collapse", {"on", "off"}},
      // MapTiling before the schedules: tile sizes per dimension (1: not tiled; the last repeats).
      // 8,32,16 and 16,16,40 block K too (a 3-D stencil's columns in pieces that stay in L1).
      {"tiling", {"none", "8,1", "32,1", "8,32,1", "16,64,1", "32,128,1", "8,32,16", "16,16,40"}},
      {"split_innermost", {"on", "off"}},
      {"vectorize", {"on", "off"}},
      // MapVectorization after the schedules: the innermost sequential map strip-mined into SIMD
      // lanes of constant width (explicit lanes, not only omp simd hints) and a remainder map.
      {"simd_lanes", {"off", "8", "4"}},
      // cpu-schedules' OpenMP schedule of the parallel maps: OpenMP's static blocks; chunks of
      // 16 iterations handed out as threads finish (a thread delayed by other work on the machine
      // no longer holds back the team at the barrier); guided (large chunks first, then smaller).
      {"omp_schedule", {"default", "dynamic,16", "guided"}},
      // cpu-schedules' streaming-stores choice: the code generator decides per row (streaming
      // the rows an innermost loop writes once, docs/adr/0041); off: plain stores everywhere
      // (recorded on the top-level maps). Which pays depends on the rows' lengths and the
      // machine's write-allocate cost (docs/adr/0056-weir-tune.md, session 31).
      {"streaming_stores", {"on", "off"}},
      // scan-column-blocking's B: auto (from the L1 data cache, ADR 0044 session 37) or fixed.
      {"scan_block", {"auto", "8", "16", "32", "64"}},
      // scan-full-blocks after scan-column-blocking: full column blocks of constant width (ADR 0059).
      {"scan_full_blocks", {"off", "on"}},
      {"threads", threads},
  };
}

// The order in which a choice changed alone is tried: 0 first (measured or expected to pay on
// the bench's kernels: wider scan blocks, full blocks, large tiles, K blocking, SIMD lanes,
// plain stores where the code generator streams: nabla, session 31),
// 2 last (measured to lose there: no split innermost loop, no SIMD hints, no fusion, one
// thread), 1 between. Within a tier the seed orders them. With a short budget the search then
// spends it where gains are likelier (docs/adr/0056-weir-tune.md, 2026-12-06).
int expected_tier(const std::string& knob, const std::string& value) {
  static const std::set<std::pair<std::string, std::string>> first{
      {"scan_block", "32"},   {"scan_block", "16"},  {"scan_full_blocks", "on"},
      {"tiling", "32,128,1"}, {"tiling", "8,32,16"}, {"tiling", "16,16,40"},
      {"simd_lanes", "8"},    {"fusion", "wide"},    {"streaming_stores", "off"}};
  static const std::set<std::pair<std::string, std::string>> last{
      {"split_innermost", "off"}, {"vectorize", "off"}, {"fusion", "none"}, {"threads", "1"}};
  if (first.count({knob, value})) return 0;
  if (last.count({knob, value})) return 2;
  return 1;
}

// A uniform integer in [0, n) from the engine; mt19937_64's outputs are fixed by the standard
// (its distributions are not), so the same seed gives the same order with every library.
std::size_t below(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

template <class T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(rng, i)]);
}

// The pipeline of auto-optimize-cpu with the `choices` made, one pass step per pass.
nlohmann::json steps_for(const std::map<std::string, std::string>& choices) {
  auto choice = [&](const std::string& knob, const std::string& def) {
    auto it = choices.find(knob);
    return it == choices.end() ? def : it->second;
  };
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& pass : transforms::auto_optimize_pass_names(DeviceType::CPU)) {
    std::string text = pass;
    if (pass == "scan-column-blocking") {
      if (choice("scan_block", "auto") != "auto") text += "{block_size=" + choice("scan_block", "auto") + "}";
      steps.push_back({{"pass", text}});
      if (choice("scan_full_blocks", "off") == "on") steps.push_back({{"pass", "scan-full-blocks"}});
      continue;
    } else if (pass == "map-collapse" && choice("collapse", "on") == "off") {
      continue;
    } else if (pass == "greedy-map-fusion") {
      const std::string f = choice("fusion", "greedy");
      if (f == "none") continue;
      if (f == "pointwise") text += "{max_points=1}";
      if (f == "wide") text += "{max_points=27,max_tasklets=512}";
      if (f == "vertical") text += "{horizontal=false}";
      if (f == "broadcast") text += "{broadcast=true}";
    } else if (pass == "cpu-schedules") {
      if (const std::string t = choice("tiling", "none"); t != "none")
        steps.push_back({{"pass", "map-tiling{tile_sizes=" + t + "}"}});
      std::string opts;
      if (choice("split_innermost", "on") == "off") opts += "split_innermost=false";
      if (choice("vectorize", "on") == "off")
        opts += std::string(opts.empty() ? "" : ",") + "vectorize=false";
      if (const std::string sched = choice("omp_schedule", "default"); sched != "default")
        opts += std::string(opts.empty() ? "" : ",") + "omp_schedule=" + sched;
      if (choice("streaming_stores", "on") == "off")
        opts += std::string(opts.empty() ? "" : ",") + "streaming_stores=false";
      if (!opts.empty()) text += "{" + opts + "}";
      steps.push_back({{"pass", text}});
      if (const std::string lanes = choice("simd_lanes", "off"); lanes != "off")
        steps.push_back({{"transformation", "MapVectorization"},
                         {"options", {{"vector_width", std::stoi(lanes)}}},
                         {"where", "all"}});
      continue;
    }
    steps.push_back({{"pass", text}});
  }
  return steps;
}

}  // namespace

TuneCandidate tune_candidate(const std::vector<std::pair<std::string, std::string>>& changed) {
  TuneCandidate c;
  c.choices = changed;
  // In the space's knob order: a label and a choice list name the same candidate one way.
  const std::vector<Knob> ks = knobs(2);
  auto rank = [&](const std::string& knob) {
    return std::find_if(ks.begin(), ks.end(), [&](const Knob& k) { return k.name == knob; }) - ks.begin();
  };
  std::stable_sort(c.choices.begin(), c.choices.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  c.label = choices_text(c.choices);
  std::map<std::string, std::string> m(changed.begin(), changed.end());
  if (auto t = m.find("threads"); t != m.end() && t->second != "all")
    c.threads = static_cast<unsigned>(std::stoul(t->second));
  m.erase("threads");
  c.steps = m.empty() ? nlohmann::json::array({{{"pass", "auto-optimize-cpu"}}}) : steps_for(m);
  return c;
}

std::string choices_text(const std::vector<std::pair<std::string, std::string>>& choices) {
  if (choices.empty()) return "auto-optimize-cpu";
  std::string s;
  for (const auto& [k, v] : choices) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::vector<TuneCandidate> tune_candidates(std::uint64_t seed, unsigned hardware_threads,
                                           std::size_t combinations) {
  std::mt19937_64 rng(seed);
  const std::vector<Knob> ks = knobs(hardware_threads);
  std::vector<TuneCandidate> out{tune_candidate({})};
  out.front().phase = "baseline";
  std::set<std::vector<std::size_t>> seen{std::vector<std::size_t>(ks.size(), 0)};
  // One choice changed.
  std::vector<std::vector<std::size_t>> singles;
  for (std::size_t k = 0; k < ks.size(); ++k)
    for (std::size_t v = 1; v < ks[k].values.size(); ++v) {
      std::vector<std::size_t> pick(ks.size(), 0);
      pick[k] = v;
      singles.push_back(pick);
    }
  // By tier (expected_tier), each tier in the seed's order.
  shuffle(singles, rng);
  std::stable_sort(singles.begin(), singles.end(), [&](const auto& a, const auto& b) {
    auto tier = [&](const std::vector<std::size_t>& p) {
      for (std::size_t k = 0; k < ks.size(); ++k)
        if (p[k]) return expected_tier(ks[k].name, ks[k].values[p[k]]);
      return 1;
    };
    return tier(a) < tier(b);
  });
  // Several choices changed: each knob keeps its default with probability 1/2, else takes one
  // of its other values; drawn until `combinations` new ones (or a bounded number of draws).
  std::vector<std::vector<std::size_t>> picks = singles;
  for (const auto& p : singles) seen.insert(p);
  for (std::size_t draws = 0; picks.size() < singles.size() + combinations && draws < 64 * combinations + 64;
       ++draws) {
    std::vector<std::size_t> pick(ks.size(), 0);
    for (std::size_t k = 0; k < ks.size(); ++k)
      if (below(rng, 2)) pick[k] = 1 + below(rng, ks[k].values.size() - 1);
    if (seen.insert(pick).second) picks.push_back(pick);
  }
  for (const auto& pick : picks) {
    std::vector<std::pair<std::string, std::string>> changed;
    for (std::size_t k = 0; k < ks.size(); ++k)
      if (pick[k]) changed.emplace_back(ks[k].name, ks[k].values[pick[k]]);
    out.push_back(tune_candidate(changed));
    out.back().phase = changed.size() == 1 ? "single" : "drawn";
  }
  return out;
}

}  // namespace weir::cli
