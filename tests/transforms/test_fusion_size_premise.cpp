// Tests of fusion across size symbols with the bounds checks kept (ADR 0052, 2026-12-06): a
// consumer over a size symbol of its own (0:M) reading a transient that the producer writes whole
// (0:N) fuses by the premise that its reads lie inside T, and the fused map carries the accesses
// the fusion removed (the consumer's read of T, the producer's outer memlets) as CheckedAccess
// records, which the cpu backend checks before the map runs: a call whose sizes made the unfused
// program fail fails the same way after the fusion. Values: the reference interpreter before and
// after, and the fused result against the formula worked out by hand; errors: the cpu backend on
// the SDFG before and after.
#include <catch2/catch.hpp>

#include <cstring>

#include "../runtime/runtime_test_util.h"
#include "support/builders.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/transforms/greedy_map_fusion.h"
#include "weir/transforms/otf_map_fusion.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

/// One state: T[i] = 2 * A[i] + 1 over `producer` (T of N elements, A of K); C[i] = T[i] - 1
/// over `consumer` (C of M elements). Outer memlets are the ranges the maps run over.
std::unique_ptr<SDFG> make_pair(const std::string& producer, const std::string& consumer) {
  auto sdfg = std::make_unique<SDFG>("premise");
  for (const char* s : {"K", "N", "M"}) sdfg->add_symbol(s);
  sdfg->add_array("A", ScalarType::Float64, {E("K")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  sdfg->add_array("C", ScalarType::Float64, {E("M")});
  SDFGState& st = sdfg->add_state("main", true);
  NodeId a = st.add_access("A").id(), c = st.add_access("C").id(), t = st.add_access("T").id();
  auto& p = st.add_map("producer", {"i"}, S(producer));
  auto& pt = st.add_tasklet("producer", {"y = 2 * x + 1", Language::Python}, {"x"}, {"y"});
  path_in(st, a, {p.id()}, pt.id(), "x", {M("A", producer), M("A", "i")});
  path_out(st, pt.id(), "y", {p.exit}, t, {M("T", "i"), M("T", producer)});
  auto& q = st.add_map("consumer", {"i"}, S(consumer));
  auto& qt = st.add_tasklet("consumer", {"y = x - 1", Language::Python}, {"x"}, {"y"});
  path_in(st, t, {q.id()}, qt.id(), "x", {M("T", consumer), M("T", "i")});
  path_out(st, qt.id(), "y", {q.exit}, c, {M("C", "i"), M("C", consumer)});
  return sdfg;
}

/// K = N >= M: every read in bounds.
const std::vector<Symbols> kSizes{
    {{"K", 5}, {"N", 5}, {"M", 3}}, {{"K", 1}, {"N", 1}, {"M", 1}}, {{"K", 9}, {"N", 9}, {"M", 9}}};

MapEntry& only_map(SDFG& sdfg) {
  auto maps = maps_of(only_state(sdfg));
  REQUIRE(maps.size() == 1);
  return *maps[0];
}

/// Runs `sdfg` on the cpu backend with A = 0, 1, ... (K elements) and C = -7 (M elements);
/// returns C, or the error's text in `error`.
std::vector<double> run_cpu(const SDFG& sdfg, std::int64_t k, std::int64_t n, std::int64_t m,
                            std::string& error) {
  runtime::Arguments args;
  runtime::Field a = runtime::Allocator::cpu().allocate(ScalarType::Float64, {k});
  runtime::Field c = runtime::Allocator::cpu().allocate(ScalarType::Float64, {m});
  for (std::int64_t i = 0; i < k; ++i) static_cast<double*>(a.data())[i] = static_cast<double>(i);
  for (std::int64_t i = 0; i < m; ++i) static_cast<double*>(c.data())[i] = -7.0;
  args.arrays.emplace("A", std::move(a));
  args.arrays.emplace("C", std::move(c));
  args.values["K"] = k;
  args.values["N"] = n;
  args.values["M"] = m;
  runtime::CompilableProgram prog;
  prog.sdfg = sdfg.clone_sdfg();
  prog.origin = sdfg.name;
  error.clear();
  try {
    runtime::run(*runtime::make_cpu_backend(), prog, args);
  } catch (const runtime::RuntimeError& e) {
    error = e.what();
  }
  const auto* out = static_cast<const double*>(args.arrays.at("C").data());
  return std::vector<double>(out, out + m);
}

}  // namespace

TEST_CASE(
    "OTFMapFusion: a consumer over a size symbol of its own fuses into a whole write and keeps its checks",
    "[transforms][otf-fusion][fusion-size-premise]") {
  auto sdfg = make_pair("0:N", "0:M");
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(!sdfg->has_data("T"));
  // The accesses the fusion removed, each with the container's shape at the time.
  std::vector<CheckedAccess> rec = checked_accesses(*only_map(*sdfg).map);
  REQUIRE(rec.size() == 3);
  CHECK(rec[0] == CheckedAccess{"T", S("0:M"), {E("N")}, {}, false, "map 'consumer'", "", {}});
  CHECK(rec[1] == CheckedAccess{"A", S("0:N"), {E("K")}, {}, false, "map 'producer'", "", {}});
  CHECK(rec[2] == CheckedAccess{"T", S("0:N"), {E("N")}, {}, true, "map 'producer'", "", {}});
  // By hand: C[i] = (2 * A[i] + 1) - 1 = 2 * A[i] for i < M.
  for (const auto& syms : kSizes) {
    Interpreter in(*sdfg, syms);
    in.randomize(11);
    const std::vector<double> a = in.mem.at("A");
    in.run();
    for (long long i = 0; i < syms.at("M"); ++i)
      CHECK(in.mem.at("C")[static_cast<std::size_t>(i)] == 2 * a[static_cast<std::size_t>(i)]);
  }
}

TEST_CASE("OTFMapFusion: the size premise needs the producer to write the end of T the consumer may reach",
          "[transforms][otf-fusion][fusion-size-premise]") {
  // T[1:N] written, T[0] read when M > 0: a read inside T may miss the writes.
  auto low = make_pair("1:N", "0:M");
  OTFMapFusion t;
  CHECK_THAT(refusal(*low, t),
             Contains("cannot prove that map 'consumer' reads T[i] only where map 'producer' writes it"));
  // T[0:N-1] written, T[N-1] in bounds but never written.
  auto high = make_pair("0:N-1", "0:M");
  CHECK_THAT(refusal(*high, t),
             Contains("cannot prove that map 'consumer' reads T[i] only where map 'producer' writes it"));
  // A strided write leaves gaps.
  auto strided = make_pair("0:N:2", "0:M");
  CHECK_THAT(refusal(*strided, t),
             Contains("cannot prove that map 'consumer' reads T[i] only where map 'producer' writes it"));
}

TEST_CASE("greedy-map-fusion: a fused consumer fails where the unfused program failed, on the cpu backend",
          "[transforms][greedy-fusion][fusion-size-premise][run]") {
  auto before = make_pair("0:N", "0:M");
  auto after = before->clone_sdfg();
  AnalysisCache cache;
  GreedyMapFusion pass;
  REQUIRE(pass.run(*after, cache) == 1);
  require_valid(*after);
  REQUIRE(maps_of(only_state(*after)).size() == 1);
  fresh_cache("fusion-size-premise");
  std::string e0, e1;
  // In bounds: C = 2 * A where computed, both ways.
  CHECK(run_cpu(*before, 5, 5, 3, e0) == std::vector<double>{0, 2, 4});
  CHECK(run_cpu(*after, 5, 5, 3, e1) == std::vector<double>{0, 2, 4});
  CHECK(e0.empty());
  CHECK(e1.empty());
  // M > N: the consumer reads T past its end. The fused map has no T, its record still checks
  // the read, and C stays untouched.
  CHECK(run_cpu(*before, 5, 3, 4, e0) == std::vector<double>(4, -7.0));
  CHECK(run_cpu(*after, 5, 3, 4, e1) == std::vector<double>(4, -7.0));
  CHECK_THAT(e0, Contains("map 'consumer': reads T[0 .. 3] in dimension 0 of T with shape 3"));
  CHECK_THAT(e1, Contains("map 'consumer' (fused into map 'consumer'): reads T[0 .. 3] in dimension 0 of T "
                          "with shape 3"));
  // K < N: the producer read A past its end over its whole range, though the consumer needs
  // only A[0:M]; the fused map checks the producer's read as the producer did.
  CHECK(run_cpu(*before, 2, 3, 2, e0) == std::vector<double>(2, -7.0));
  CHECK(run_cpu(*after, 2, 3, 2, e1) == std::vector<double>(2, -7.0));
  CHECK_THAT(e0, Contains("map 'producer': reads A[0 .. 2] in dimension 0 of A with shape 2"));
  CHECK_THAT(e1, Contains("map 'producer' (fused into map 'consumer'): reads A[0 .. 2] in dimension 0 of A "
                          "with shape 2"));
}
