// The generator and driver of the differential tests: deterministic by seed, a part cut out of
// its batch is the same part (what shrinking relies on), every part validates, and a
// difference names the part it belongs to.
#include <catch2/catch.hpp>

#include <cmath>

#include "diff_driver.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::test::sdfgdiff;

TEST_CASE("random batches are deterministic by seed and a part alone is the same part",
          "[sdfgdiff][generator]") {
  for (unsigned seed : {1u, 2u, 77u}) {
    INFO("seed " << seed);
    Batch a = make_batch(seed, 8), b = make_batch(seed, 8);
    CHECK(sdfg_to_json_text(*a.sdfg) == sdfg_to_json_text(*b.sdfg));
    REQUIRE(a.parts.size() == 8);
    CHECK(validate(*a.sdfg).empty());
    for (int k : {0, 5}) {
      Batch one = make_batch(seed, 8, {k});
      REQUIRE(one.parts.size() == 1);
      CHECK(one.parts.front() == a.parts[static_cast<std::size_t>(k)]);
      CHECK(one.symbols == a.symbols);
      for (const auto& [name, d] : one.sdfg->arrays) {
        CHECK(part_of(name) == k);
        CHECK(a.sdfg->arrays.count(name) == 1);
      }
    }
  }
}

TEST_CASE("every part kind is generated and validates", "[sdfgdiff][generator]") {
  for (int k = 0; k < kNumPartKinds; ++k) {
    GenOptions opts;
    opts.kinds = {static_cast<PartKind>(k)};
    Batch b = make_batch(3, 4, opts);
    INFO(to_string(static_cast<PartKind>(k)));
    for (const auto& p : b.parts) CHECK(p.find(to_string(static_cast<PartKind>(k))) != std::string::npos);
    std::string diags;
    for (const auto& d : validate(*b.sdfg)) diags += d.str() + "\n";
    INFO(diags);
    CHECK(diags.empty());
  }
}

TEST_CASE("differences lists unequal elements (NaN never equal) and part_of reads the prefix",
          "[sdfgdiff][generator]") {
  double nan = std::nan("");
  Values want{{"g3_A", {1, 2, nan}}, {"g10_B", {4}}};
  Values got{{"g3_A", {1, 5, nan}}, {"g10_B", {4}}};
  auto d = differences(want, got);
  REQUIRE(d.size() == 2);
  CHECK(d[0] == "g3_A[1] = 5, want 2");
  CHECK(d[1] == "g3_A[2] = nan, want nan");
  CHECK(differences(want, Values{{"g3_A", {1, 2}}, {"g10_B", {4}}}).front() == "g3_A: 2 elements, want 3");
  CHECK(part_of("g3_A") == 3);
  CHECK(part_of("g10_tmp_1") == 10);
  CHECK(part_of("A") == -1);
  CHECK(part_of("gx_A") == -1);
}
