// LoopToMap over a loop whose iterations promote transient scalars to symbols, as DaCe's frontend
// writes a CSR row loop (npbench spmv): `start = A_row[i]; stop = A_row[i + 1]` in the body's
// first state, then interstate edges `s_start = start`, `s_stop = stop` before the row's map. The
// scalars are private to an iteration (written first in every pass through the body, read by no
// control flow outside it), so they move into the nested SDFG with the edges that read them.
// Values by hand on the cpu backend; refusals where an iteration could read another's value.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/transforms/loop_to_map.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

/// for i in [0, M):
///   start = A_row[i]; stop = A_row[i + 1]           (state "bounds", the body's first)
///   -> s_start = start -> s_stop = stop              (interstate edges)
///   for k in [s_start, s_stop): Y[i] += V[k]          (state "row", a map with a sum)
/// `head_first`: an empty state "head" comes first, with an edge `s_prev = start` out of it: an
/// iteration then reads the value the previous one wrote.
std::unique_ptr<SDFG> make_csr_rows(bool head_first) {
  auto sdfg = std::make_unique<SDFG>("csr_rows");
  for (const char* s : {"M", "nnz", "i", "s_start", "s_stop", "s_prev"}) sdfg->add_symbol(s);
  sdfg->add_array("A_row", ScalarType::Int32, {E("M + 1")});
  sdfg->add_array("V", ScalarType::Float64, {E("nnz")});
  sdfg->add_array("Y", ScalarType::Float64, {E("M")});
  sdfg->add_scalar("start", ScalarType::Int32, true);
  sdfg->add_scalar("stop", ScalarType::Int32, true);
  auto& L = sdfg->add_loop("for_i", "i", "i = 0", "i < M", "i = i + 1");

  SDFGState& bounds = L.add_state("bounds", !head_first);
  for (const auto& [target, index] : {std::pair{"start", "i"}, std::pair{"stop", "i + 1"}}) {
    auto& row = bounds.add_access("A_row");
    auto& t = bounds.add_tasklet(std::string("read_") + target, {"o = r", Language::Python}, {"r"}, {"o"});
    bounds.add_edge(row.id(), "", t.id(), "r", M("A_row", index));
    bounds.add_edge(t.id(), "o", bounds.add_access(target).id(), "", M(target, "0"));
  }
  SDFGState& promote = L.add_state("promote");
  SDFGState& row = L.add_state("row");
  L.add_edge(bounds.id(), promote.id(),
             InterstateEdge{{"1", Language::Python}, {{"s_start", {"start", Language::Python}}}, {}});
  L.add_edge(promote.id(), row.id(),
             InterstateEdge{{"1", Language::Python}, {{"s_stop", {"stop", Language::Python}}}, {}});
  if (head_first) {
    SDFGState& head = L.add_state("head", true);
    L.add_edge(head.id(), bounds.id(),
               InterstateEdge{{"1", Language::Python}, {{"s_prev", {"start", Language::Python}}}, {}});
  }
  auto& v = row.add_access("V");
  auto& y = row.add_access("Y");
  auto& m = row.add_map("row_sum", {"k"}, S("s_start:s_stop"));
  auto& t = row.add_tasklet("add", {"o = v", Language::Python}, {"v"}, {"o"});
  path_in(row, v.id(), {m.id()}, t.id(), "v", {M("V", "s_start:s_stop"), M("V", "k")});
  Memlet sum = M("Y", "i");
  sum.wcr = "lambda a, b: a + b";
  path_out(row, t.id(), "o", {m.exit}, y.id(), {sum, sum});
  return sdfg;
}

/// Rows {0, 2}, {}, {2, 5}, {5, 6} of V = 1..6 summed into Y = 0: Y = 3, 0, 12, 6 by hand.
std::vector<double> run_rows(const SDFG& sdfg) {
  auto field = [](ScalarType t, std::int64_t n, const std::vector<double>& v) {
    runtime::Field f = runtime::Allocator::cpu().allocate(t, {n});
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (t == ScalarType::Int32)
        static_cast<std::int32_t*>(f.data())[k] = static_cast<std::int32_t>(v[k]);
      else
        static_cast<double*>(f.data())[k] = v[k];
    }
    return f;
  };
  runtime::Arguments args;
  args.arrays.emplace("A_row", field(ScalarType::Int32, 5, {0, 2, 2, 5, 6}));
  args.arrays.emplace("V", field(ScalarType::Float64, 6, {1, 2, 3, 4, 5, 6}));
  args.arrays.emplace("Y", field(ScalarType::Float64, 4, {0, 0, 0, 0}));
  args.values["M"] = std::int64_t{4};
  args.values["nnz"] = std::int64_t{6};
  return run_arguments_on_cpu(sdfg, args).at("Y");
}

const std::vector<double> kRowSums{3, 0, 12, 6};

LoopToMap& loop_to_map() {
  static LoopToMap t;
  return t;
}

}  // namespace

TEST_CASE("LoopToMap: scalars a CSR row loop writes first and promotes to symbols become the iteration's own",
          "[transforms][loop-to-map]") {
  auto sdfg = make_csr_rows(false);
  require_valid(*sdfg);
  REQUIRE(run_rows(*sdfg) == kRowSums);

  AnalysisCache cache;
  auto cs = find_matches(*sdfg, loop_to_map(), cache);
  REQUIRE(cs.size() == 1);
  INFO(cs[0].result.reason());
  REQUIRE(cs[0].result.ok());
  apply_transactional(*sdfg, loop_to_map(), cs[0].match, cache);
  require_valid(*sdfg);
  // The loop is a map over i around a nested SDFG that holds the scalars and the edges.
  REQUIRE(sdfg->num_blocks() == 1);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i"});
  CHECK(!sdfg->has_data("start"));
  CHECK(!sdfg->has_data("stop"));
  NestedSDFGNode* ns = nullptr;
  for (Node* n : only_state(*sdfg).nodes())
    if (auto* x = n->as<NestedSDFGNode>()) ns = x;
  REQUIRE(ns);
  CHECK(ns->sdfg->has_data("start"));
  CHECK(ns->sdfg->has_data("stop"));
  CHECK(run_rows(*sdfg) == kRowSums);
}

TEST_CASE("LoopToMap: a promoted scalar read before the iteration writes it is refused",
          "[transforms][loop-to-map]") {
  // `s_prev = start` on the edge out of the body's first state reads the previous iteration's
  // value: the iterations depend on each other.
  auto sdfg = make_csr_rows(true);
  require_valid(*sdfg);
  REQUIRE(run_rows(*sdfg) == kRowSums);
  CHECK_THAT(refusal(*sdfg, loop_to_map()),
             Contains("container 'start' is read by control flow; iterations may depend on it"));
}

TEST_CASE("LoopToMap: a promoted scalar that control flow after the loop reads is refused",
          "[transforms][loop-to-map]") {
  // `last = stop` after the loop reads the last iteration's value: the scalar cannot move into
  // the body.
  auto sdfg = make_csr_rows(false);
  sdfg->add_symbol("last");
  auto& after = sdfg->add_state("after");
  sdfg->add_edge(sdfg->blocks()[0]->id(), after.id(),
                 InterstateEdge{{"1", Language::Python}, {{"last", {"stop", Language::Python}}}, {}});
  require_valid(*sdfg);
  CHECK_THAT(refusal(*sdfg, loop_to_map()),
             Contains("container 'stop' is read by control flow; iterations may depend on it"));
}
