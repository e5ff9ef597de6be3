// Seeded chains of random applicable transformations from the registry, for the randomized
// soundness tests (tests/transforms/test_random_soundness.cpp) and the SDFG-level differential
// tests (tests/sdfgdiff/).
#pragma once

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/transformation.h"

namespace weir::test {

/// The number of parameters of the map whose entry is the first element of dataflow match `m`
/// (1 when it is not a map entry).
inline std::size_t map_parameters(const SDFG& sdfg, const transforms::Match& m) {
  auto* region = transforms::cfg_list(sdfg)[m.cfg_id];
  if (m.subgraph.empty() || !region->has_block(m.state_id)) return 1;
  const auto* st = region->block(m.state_id).as<SDFGState>();
  if (!st || !st->has_node(m.subgraph.front())) return 1;
  const auto* me = st->node(m.subgraph.front()).as<MapEntry>();
  return me ? std::max<std::size_t>(1, me->map->params.size()) : 1;
}

/// Applies up to `steps` random applicable matches (a registered transformation uniformly among
/// those that apply somewhere, then one of its matches; with `prefer` set, every other step
/// takes that transformation when it applies), validating after each. Returns the log of what
/// was applied, one replayable JSON record per line. Throws std::runtime_error with the log so
/// far when a step throws or leaves an invalid SDFG.
inline std::string random_chain(SDFG& sdfg, std::mt19937& rng, int steps, const std::string& prefer = {}) {
  using namespace transforms;
  std::string log;
  for (int s = 0; s < steps; ++s) {
    AnalysisCache cache;
    std::vector<std::pair<std::string, std::vector<Match>>> all;
    for (const auto& name : transformation_names()) {
      auto t = make_transformation(name);
      std::vector<Match> ms;
      for (const auto& c : find_matches(sdfg, *t, cache))
        if (c.result) ms.push_back(c.match);
      if (!ms.empty()) all.emplace_back(name, std::move(ms));
    }
    if (all.empty()) break;
    std::size_t pick = std::uniform_int_distribution<std::size_t>(0, all.size() - 1)(rng);
    if (!prefer.empty() && std::uniform_int_distribution<int>(0, 1)(rng) == 0)
      for (std::size_t k = 0; k < all.size(); ++k)
        if (all[k].first == prefer) pick = k;
    auto& [name, ms] = all[pick];
    Match m = ms[std::uniform_int_distribution<std::size_t>(0, ms.size() - 1)(rng)];
    auto t = make_transformation(name);
    if (name == "MapTiling") {
      // One size per parameter at most (MapTiling refuses longer lists): 2 and 3 shuffled, as
      // many as the matched map has parameters.
      std::vector<long long> sizes{2, 3};
      std::shuffle(sizes.begin(), sizes.end(), rng);
      sizes.resize(std::min(sizes.size(), map_parameters(sdfg, m)));
      t->options().set("tile_sizes", sizes);
    }
    log += "  " + match_to_json(sdfg, *t, m) + "\n";
    try {
      apply_transactional(sdfg, *t, m, cache);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("applying threw: ") + e.what() + "\napplied:\n" + log);
    }
    std::string bad;
    for (const auto& d : validate(sdfg)) bad += d.str() + "\n";
    if (!bad.empty()) throw std::runtime_error("invalid after the last step:\n" + bad + "applied:\n" + log);
  }
  return log;
}

}  // namespace weir::test
