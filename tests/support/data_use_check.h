// Checks that container use an AnalysisCache kept up to date equals a fresh computation.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "weir/transforms/analysis.h"

namespace weir::test {

/// Every container of `want` (a fresh AnalysisCache::data_use) has the same use in `kept`.
inline void require_same_use(const std::map<std::string, transforms::DataUse>& kept,
                             const std::map<std::string, transforms::DataUse>& want) {
  REQUIRE(kept.size() == want.size());
  for (const auto& [name, u] : want) {
    INFO("container " << name);
    REQUIRE(kept.count(name));
    const transforms::DataUse& k = kept.at(name);
    CHECK(k.access_nodes == u.access_nodes);
    CHECK(k.read_nodes == u.read_nodes);
    CHECK(k.write_nodes == u.write_nodes);
    CHECK(k.in_control_flow == u.in_control_flow);
    CHECK(k.by_name_elsewhere == u.by_name_elsewhere);
  }
}

}  // namespace weir::test
