// `weir transforms list|match`: the registry and the optimizer console on corpus files.
#include <catch2/catch.hpp>

#include "cli_run.h"
#include "corpus.h"

namespace {

using weir::test::run_weir;

}  // namespace

TEST_CASE("weir transforms list names every transformation, pass and pipeline", "[cli][transforms]") {
  auto r = run_weir("transforms list");
  REQUIRE(r.code == 0);
  for (const char* n :
       {"MapFusion (map-fusion)", "MapTiling (map-tiling)", "tile_sizes = 128", "StateFusion",
        "simplify (pipeline)", "greedy-map-fusion (pass)", "max_points = 9", "symbol-propagation (pass)",
        "auto-optimize-cpu (pipeline)", "passes: inline-sdfgs,simplify,copy-elision,loop-to-map,"})
    CHECK_THAT(r.out, Catch::Contains(n));
}

TEST_CASE("weir transforms match lists matches and refusals with reasons", "[cli][transforms]") {
  auto f = weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg";
  auto r = run_weir("transforms match '" + f.string() + "' MapFusion");
  REQUIRE(r.code == 0);
  // Each of laplace2d's two sweeps is a chain add -> add -> add -> mult of maps joined by three
  // transients (3 fusible pairs per sweep, 6 in all); the mult map writes the non-transient B,
  // which the next sweep reads: those 3 candidates are refused.
  CHECK_THAT(r.out, Catch::Contains("6 applicable, 3 refused"));
  CHECK_THAT(r.out, Catch::Contains("refused: 'B' is not transient"));
  CHECK(run_weir("transforms match '" + f.string() + "' Bogus").code == 2);
  CHECK(run_weir("transforms match missing.sdfg").code == 1);
}
