// The `weir` command line on the corpus: validate, info and convert (round trips, gzip, flattening).
// (Usage errors, bad input and `weir info`'s summary of hdiff: tests/lit/cli/ and tests/lit/sdfg/.)
#include <catch2/catch.hpp>
#include <filesystem>

#include "cli_run.h"
#include "corpus.h"
#include "weir/sdfg/serialize.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("weir validate accepts every corpus file but reference.sdfg", "[cli]") {
  for (const auto& f : weir::test::dace_corpus_files()) {
    INFO(f.string());
    auto r = run_weir(std::string("validate ") + q(f));
    if (f.filename() == "reference.sdfg") {
      CHECK(r.code == 1);
      CHECK_THAT(r.out, Catch::Contains("invalid") && Catch::Contains("Reference"));
    } else {
      CHECK(r.code == 0);
      CHECK_THAT(r.out, Catch::Contains("valid (SDFG '"));
    }
  }
}

TEST_CASE("weir convert round-trips, compresses and flattens", "[cli]") {
  auto dir = weir::test::scratch_dir("cli-convert");
  auto in = weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg";

  auto gz = dir / "lap.sdfgz";
  auto r = run_weir("convert " + q(in) + " -o " + q(gz));
  REQUIRE(r.code == 0);
  auto head = weir::test::read_text(gz).substr(0, 2);
  CHECK(static_cast<unsigned char>(head[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(head[1]) == 0x8b);
  auto a = weir::load_sdfg(in.string());
  auto b = weir::load_sdfg(gz.string());
  CHECK(weir::sdfg_difference(*a, *b).empty());

  auto flat = dir / "flat.sdfg";
  r = run_weir("convert --flatten " + q(in) + " -o " + q(flat));
  REQUIRE(r.code == 0);
  auto f = weir::load_sdfg(flat.string());
  for (auto* blk : f->blocks()) CHECK(blk->kind() == weir::BlockKind::State);
  CHECK(run_weir("validate " + q(flat)).code == 0);
}

TEST_CASE("weir info and convert work on every corpus file", "[cli][corpus]") {
  auto dir = weir::test::scratch_dir("cli-corpus");
  for (const auto& f : weir::test::dace_corpus_files()) {
    INFO(f.string());
    auto info = run_weir("info " + q(f));
    CHECK(info.code == 0);
    CHECK_THAT(info.out, Catch::Contains("control flow:") && Catch::Contains("containers ("));
    auto out = dir / (f.stem().string() + ".sdfgz");
    CHECK(run_weir("convert " + q(f) + " -o " + q(out)).code == 0);
    CHECK(weir::sdfg_difference(*weir::load_sdfg(f.string()), *weir::load_sdfg(out.string())).empty());
    auto flat = dir / (f.stem().string() + ".flat.sdfg");
    CHECK(run_weir("convert --flatten " + q(f) + " -o " + q(flat)).code == 0);
    // Flattening keeps validity: every file but the one with an unknown descriptor validates.
    CHECK(run_weir("validate " + q(flat)).code == (f.filename() == "reference.sdfg" ? 1 : 0));
  }
}
