// Fixed cases with values worked out by NumPy (Debian's python3-numpy, the statement is in
// each test's name or comment), run on both executors of the differential tests: the reference
// interpreter and the cpu backend. They pin down DaCe's memlet rules (subset / other_subset /
// is_data_src, a copy reads all its source before writing) so that the interpreter is not only
// checked against the code generator it referees.
#include <catch2/catch.hpp>

#include "diff_driver.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/transformation.h"

using namespace weir;
using namespace weir::test::sdfgdiff;

namespace {

Subset S(const std::string& s) { return Subset::parse(s); }

std::vector<double> iota(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return v;
}

/// A one-state SDFG with array `p` of `shape` and one copy p -> p.
std::unique_ptr<SDFG> self_copy(const std::vector<sym::Expr>& shape, const std::string& subset,
                                const std::string& other, std::optional<bool> is_data_src) {
  auto sdfg = std::make_unique<SDFG>("self_copy");
  sdfg->add_array("p", ScalarType::Float64, shape);
  SDFGState& st = sdfg->add_state("s", true);
  auto& a = st.add_access("p");
  auto& b = st.add_access("p");
  Memlet m = Memlet::simple("p", S(subset));
  m.other_subset = S(other);
  m.is_data_src = is_data_src;
  st.add_edge(a.id(), "", b.id(), "", m);
  return sdfg;
}

/// Runs `sdfg` on both executors with `inputs` and requires `name` to end as `want` on both.
void both_give(const SDFG& sdfg, const Values& inputs, const std::string& name,
               const std::vector<double>& want) {
  std::string diags;
  for (const auto& d : validate(sdfg)) diags += d.str() + "\n";
  INFO(diags);
  REQUIRE(diags.empty());
  INFO("reference interpreter");
  CHECK(run_reference(sdfg, {}, inputs).at(name) == want);
  INFO("cpu backend");
  CHECK(run_cpu(sdfg, {}, inputs).at(name) == want);
}

}  // namespace

TEST_CASE("DaCe's in-array row copy p[0, :] = p[1, :] (is_data_src false: subset is the destination)",
          "[sdfgdiff][copy]") {
  // p = arange(12).reshape(3, 4); p[0, :] = p[1, :]
  std::vector<double> want{4, 5, 6, 7, 4, 5, 6, 7, 8, 9, 10, 11};
  auto dst_side = self_copy({3, 4}, "0, 0:4", "1, 0:4", false);
  both_give(*dst_side, {{"p", iota(12)}}, "p", want);
  // The same copy written with subset on the source side.
  auto src_side = self_copy({3, 4}, "1, 0:4", "0, 0:4", true);
  both_give(*src_side, {{"p", iota(12)}}, "p", want);
}

TEST_CASE("overlapping self copies read all of the source first (p[1:6] = p[0:5], p[0:5] = p[1:6])",
          "[sdfgdiff][copy]") {
  // p = arange(8); p[1:6] = p[0:5]  ->  [0, 0, 1, 2, 3, 4, 6, 7]
  auto fwd = self_copy({8}, "0:5", "1:6", true);
  both_give(*fwd, {{"p", iota(8)}}, "p", {0, 0, 1, 2, 3, 4, 6, 7});
  // p = arange(8); p[0:5] = p[1:6]  ->  [1, 2, 3, 4, 5, 5, 6, 7]
  auto bwd = self_copy({8}, "0:5", "1:6", false);
  both_give(*bwd, {{"p", iota(8)}}, "p", {1, 2, 3, 4, 5, 5, 6, 7});
  // p = arange(12).reshape(3, 4); p[1:3, 0:3] = p[0:2, 1:4]
  auto block = self_copy({3, 4}, "0:2, 1:4", "1:3, 0:3", true);
  both_give(*block, {{"p", iota(12)}}, "p", {0, 1, 2, 3, 1, 2, 3, 7, 5, 6, 7, 11});
}

TEST_CASE("a copy into a column view writes the viewed array (A[1:4, 2] = B)", "[sdfgdiff][copy][view]") {
  // A = arange(20).reshape(4, 5); A[1:4, 2] = [10, 20, 30]
  auto sdfg = std::make_unique<SDFG>("into_view");
  sdfg->add_array("A", ScalarType::Float64, {4, 5});
  sdfg->add_array("B", ScalarType::Float64, {3});
  DataDescriptor v = DataDescriptor::make_array(ScalarType::Float64, {3}, true);
  v.kind = DataKind::View;
  v.type_name = "View";
  v.strides = {5};
  sdfg->add_data("V", v);
  SDFGState& st = sdfg->add_state("s", true);
  auto& b = st.add_access("B");
  auto& vn = st.add_access("V");
  auto& a = st.add_access("A");
  Memlet m = Memlet::simple("B", S("0:3"));
  m.other_subset = S("0:3");
  st.add_edge(b.id(), "", vn.id(), "", m);
  vn.out_connectors["views"] = std::nullopt;
  st.add_edge(vn.id(), "views", a.id(), "", Memlet::simple("A", S("1:4, 2")));
  both_give(*sdfg, {{"A", iota(20)}, {"B", {10, 20, 30}}}, "A",
            {0, 1, 2, 3, 4, 5, 6, 10, 8, 9, 10, 11, 20, 13, 14, 15, 16, 30, 18, 19});
}

TEST_CASE("MapFusion twice on a producer with two consumers reads tmp[i] in both (C0 = 2A + 1, C1 = 6A)",
          "[sdfgdiff][map-fusion]") {
  // tmp = 2 * A; C0 = tmp + 1; C1 = 3 * tmp, A = arange(6).
  auto sdfg = std::make_unique<SDFG>("fanout");
  sdfg->add_array("A", ScalarType::Float64, {6});
  sdfg->add_array("tmp", ScalarType::Float64, {6}, true);
  sdfg->add_array("C0", ScalarType::Float64, {6});
  sdfg->add_array("C1", ScalarType::Float64, {6});
  SDFGState& st = sdfg->add_state("s", true);
  auto& a = st.add_access("A");
  auto& t = st.add_access("tmp");
  auto map = [&](const std::string& label, NodeId src, const std::string& in, const std::string& code,
                 NodeId dst, const std::string& out) {
    auto& me = st.add_map(label, {"i"}, S("0:6"));
    auto& tk = st.add_tasklet(label + "_t", {code, Language::Python}, {"x"}, {"y"});
    auto ids = st.add_memlet_path({src, me.id(), tk.id()}, Memlet::simple(in, S("i")), "", "x");
    st.edge(ids[0]).memlet = Memlet::simple(in, S("0:6"));
    ids = st.add_memlet_path({tk.id(), me.exit, dst}, Memlet::simple(out, S("i")), "y", "");
    st.edge(ids[1]).memlet = Memlet::simple(out, S("0:6"));
  };
  map("prod", a.id(), "A", "y = 2 * x", t.id(), "tmp");
  auto& c0 = st.add_access("C0");
  auto& c1 = st.add_access("C1");
  map("cons0", t.id(), "tmp", "y = x + 1", c0.id(), "C0");
  map("cons1", t.id(), "tmp", "y = 3 * x", c1.id(), "C1");
  int applied = 0;
  for (int round = 0; round < 2; ++round) {
    transforms::AnalysisCache cache;
    auto mf = transforms::make_transformation("MapFusion");
    for (const auto& c : transforms::find_matches(*sdfg, *mf, cache))
      if (c.result) {
        transforms::apply_transactional(*sdfg, *mf, c.match, cache);
        ++applied;
        break;
      }
  }
  REQUIRE(applied == 2);
  Values in{{"A", iota(6)}};
  both_give(*sdfg, in, "C0", {1, 3, 5, 7, 9, 11});
  both_give(*sdfg, in, "C1", {0, 6, 12, 18, 24, 30});
}

TEST_CASE("a reversed range (negative step) copies backwards: B[0:4] = A[3::-1]", "[sdfgdiff][copy]") {
  // A = arange(6); B = A[3::-1]  ->  [3, 2, 1, 0]
  auto sdfg = std::make_unique<SDFG>("reversed");
  sdfg->add_array("A", ScalarType::Float64, {6});
  sdfg->add_array("B", ScalarType::Float64, {4});
  SDFGState& st = sdfg->add_state("s", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  Memlet m = Memlet::simple("A", Subset({Range(3, 0, -1)}));
  m.other_subset = S("0:4");
  st.add_edge(a.id(), "", b.id(), "", m);
  both_give(*sdfg, {{"A", iota(6)}}, "B", {3, 2, 1, 0});
}
