// The library-expansion pass on DaCe's BLAS nodes Dot, Ger and Transpose (ADR 0040): the nested
// SDFG each becomes (maps, the accumulator), values worked by hand, NumPy's results with
// strided and transposed operands in both implementations, the Dot as one CBLAS call, and the
// errors naming the node.
#include <algorithm>

#include <catch2/catch.hpp>

#include "library_case.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/library_expansion.h"

using namespace weir;
using test::check_library_case;
using test::LibraryCase;

namespace {

/// The nested SDFG node that replaced the library node of `sdfg`'s only state.
const NestedSDFGNode& expansion_of(const SDFG& sdfg) {
  const NestedSDFGNode* nest = nullptr;
  for (const Node* n : sdfg.all_states()[0]->nodes())
    if (const auto* ns = n->as<NestedSDFGNode>()) nest = ns;
  REQUIRE(nest);
  REQUIRE(nest->sdfg);
  return *nest;
}

/// "label[params] (schedule)" of each map of the nested SDFG's only state, sorted.
std::vector<std::string> maps_of(const NestedSDFGNode& nest) {
  std::vector<std::string> out;
  for (const Node* n : nest.sdfg->all_states()[0]->nodes())
    if (const auto* e = n->as<MapEntry>()) {
      std::string p;
      for (const auto& x : e->map->params) p += (p.empty() ? "" : ",") + x;
      out.push_back(e->label + "[" + p + "] " + std::string(to_string(e->map->schedule)));
    }
  std::sort(out.begin(), out.end());
  return out;
}

/// Runs `sdfg` (float64 arrays, symbols) on the cpu backend; the arrays after the run.
std::map<std::string, std::vector<double>> run(const SDFG& sdfg, const test::Float64Arrays& arrays,
                                               const std::map<std::string, std::int64_t>& symbols) {
  return test::run_float64(sdfg, arrays, symbols, "blas-expansion");
}

std::size_t expand(SDFG& sdfg) {
  transforms::AnalysisCache cache;
  return transforms::LibraryExpansion().run(sdfg, cache);
}

const LibraryCase kDot{"dot",
                       "dot.Dot",
                       {{"x", {"2 * K"}}, {"y", {"K"}}, {"r", {"1"}}},
                       {{"_x", "x", "0:2 * K:2"}, {"_y", "y", "0:K"}},
                       {{"_result", "r", "0"}},
                       {},
                       "expected['r'] = np.array([inputs['x'][0::2] @ inputs['y']])"};

const LibraryCase kGer{"ger",
                       "ger.Ger",
                       {{"A", {"M", "N"}}, {"x", {"2 * M"}}, {"y", {"N"}}, {"R", {"M", "N"}}},
                       {{"_A", "A", "0:M, 0:N"}, {"_x", "x", "1:2 * M:2"}, {"_y", "y", "0:N"}},
                       {{"_res", "R", "0:M, 0:N"}},
                       {{"alpha", "0.5"}},
                       "expected['R'] = inputs['A'] + 0.5 * np.outer(inputs['x'][1::2], inputs['y'])"};

const LibraryCase kTranspose{"transpose",
                             "transpose.Transpose",
                             {{"A", {"M + 1", "K + 2"}}, {"B", {"K", "M"}}},
                             {{"_inp", "A", "1:M + 1, 2:K + 2"}},
                             {{"_out", "B", "0:K, 0:M"}},
                             {},
                             "expected['B'] = inputs['A'][1:, 2:].T"};

}  // namespace

TEST_CASE("blas expansion: a Dot becomes a sequential sum into an accumulator", "[blas][library-expansion]") {
  auto s = test::build_library_case(kDot, "");
  REQUIRE(expand(*s) == 1);
  const NestedSDFGNode& nest = expansion_of(*s);
  // No map over a scalar output: one Sequential map over k adding into the Register __acc.
  CHECK(maps_of(nest) == std::vector<std::string>{"dot_sum[__bk] Sequential"});
  REQUIRE(nest.sdfg->has_data("__acc"));
  CHECK(nest.sdfg->data("__acc").storage == StorageType::Register);
  // The strided operand is the subset with the outer stride times its step: no copy.
  CHECK(nest.sdfg->data("_x").strides[0] == sym::Expr(2));
  // x[0::2] = [1, 3, 5] . y = [2, 4, 6]: 2 + 12 + 30 = 44.
  auto got =
      run(*s, {{"x", {{6}, {1, 2, 3, 4, 5, 6}}}, {"y", {{3}, {2, 4, 6}}}, {"r", {{1}, {-1}}}}, {{"K", 3}});
  CHECK(got.at("r") == std::vector<double>{44});
}

TEST_CASE("blas expansion: a Dot that CBLAS calls is one call, an integer one a sequential sum",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kDot, "OpenBLAS");
  CHECK(transforms::has_expandable_library_nodes(*s));
  CHECK(expand(*s) == 1);
  CHECK(maps_of(expansion_of(*s)).empty());  // one tasklet (test_cblas_expansion.cpp)
  CHECK(codegen::generate_cpu(*s).source.find("cblas_ddot(") != std::string::npos);
  // An int64 Dot CBLAS does not take: the sum as maps whatever its implementation.
  LibraryCase ints = kDot;
  ints.dtype = ScalarType::Int64;
  auto i = test::build_library_case(ints, "OpenBLAS");
  CHECK(expand(*i) == 1);
  CHECK(maps_of(expansion_of(*i)) == std::vector<std::string>{"dot_sum[__bk] Sequential"});
  // Pure: expanded; the code generator refuses a pure Dot it is given unexpanded.
  auto p = test::build_library_case(kDot, "pure");
  CHECK_THROWS_WITH(codegen::generate_cpu(*p),
                    Catch::Contains("a Dot library node reaches code generation unexpanded: run the "
                                    "library-expansion pass first"));
}

TEST_CASE("blas expansion: an OpenBLAS Dot inside a map is expanded (CBLAS runs its own threads)",
          "[blas][library-expansion]") {
  auto s = std::make_unique<SDFG>("dot_in_map");
  s->add_symbol("K");
  s->add_array("x", ScalarType::Float64, {sym::Expr::parse("2 * K")});
  s->add_array("y", ScalarType::Float64, {sym::Expr::parse("K")});
  s->add_array("r", ScalarType::Float64, {sym::Expr(1)});
  SDFGState& st = s->add_state("main", true);
  MapEntry& m = st.add_map("outer", {"i"}, Subset::parse("0:1"));
  auto lib = std::make_unique<LibraryNode>("blas", "LibraryNode");
  lib->classpath = "dace.libraries.blas.nodes.dot.Dot";
  lib->implementation = "OpenBLAS";
  lib->in_connectors = {{"_x", std::nullopt}, {"_y", std::nullopt}};
  lib->out_connectors = {{"_result", std::nullopt}};
  const NodeId dot = st.add_node(std::move(lib)).id();
  st.add_memlet_path({st.add_access("x").id(), m.id(), dot}, Memlet::simple("x", Subset::parse("0:2 * K:2")),
                     "", "_x");
  st.add_memlet_path({st.add_access("y").id(), m.id(), dot}, Memlet::simple("y", Subset::parse("0:K")), "",
                     "_y");
  st.add_memlet_path({dot, m.exit, st.add_access("r").id()}, Memlet::simple("r", Subset::parse("0")),
                     "_result", "");
  REQUIRE(transforms::has_expandable_library_nodes(*s));
  REQUIRE(expand(*s) == 1);
  // x[0::2] = [1, 3, 5] . y = [2, 4, 6] = 44, as at the top level.
  auto got =
      run(*s, {{"x", {{6}, {1, 2, 3, 4, 5, 6}}}, {"y", {{3}, {2, 4, 6}}}, {"r", {{1}, {-1}}}}, {{"K", 3}});
  CHECK(got.at("r") == std::vector<double>{44});
}

TEST_CASE("blas expansion: Ger is a map over the output adding alpha times the outer product",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kGer, "");
  REQUIRE(expand(*s) == 1);
  const NestedSDFGNode& nest = expansion_of(*s);
  CHECK(maps_of(nest) == std::vector<std::string>{"ger[__bi,__bj] Default"});
  CHECK_FALSE(nest.sdfg->has_data("__acc"));
  // x[1::2] = [2, 4], y = [3, 5], A = [[1, 1], [1, 1]], alpha 0.5:
  // 1 + 0.5 * [[6, 10], [12, 20]] = [[4, 6], [7, 11]].
  auto got = run(*s,
                 {{"A", {{2, 2}, {1, 1, 1, 1}}},
                  {"x", {{4}, {1, 2, 3, 4}}},
                  {"y", {{2}, {3, 5}}},
                  {"R", {{2, 2}, {0, 0, 0, 0}}}},
                 {{"M", 2}, {"N", 2}});
  CHECK(got.at("R") == std::vector<double>{4, 6, 7, 11});
}

TEST_CASE("blas expansion: Transpose of a sub-block is one tasklet per element",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kTranspose, "");
  REQUIRE(expand(*s) == 1);
  CHECK(maps_of(expansion_of(*s)) == std::vector<std::string>{"transpose[__bi,__bj] Default"});
  // A (3 x 4) = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], A[1:, 2:] = [[6, 7], [10, 11]],
  // transposed [[6, 10], [7, 11]].
  std::vector<double> a(12);
  for (int k = 0; k < 12; ++k) a[k] = k;
  auto got = run(*s, {{"A", {{3, 4}, a}}, {"B", {{2, 2}, {0, 0, 0, 0}}}}, {{"M", 2}, {"K", 2}});
  CHECK(got.at("B") == std::vector<double>{6, 10, 7, 11});
}

TEST_CASE("blas expansion: Ger, Transpose and Dot with strided operands match NumPy", "[blas][npbench]") {
  check_library_case(kGer, "");
  check_library_case(kTranspose, "");
  check_library_case(kDot, "cblas_ddot");
}

TEST_CASE("blas expansion: a BLAS node it cannot express is an error naming the node",
          "[blas][library-expansion]") {
  LibraryCase no_a = kGer;
  no_a.ins.erase(no_a.ins.begin());
  auto s = test::build_library_case(no_a, "");
  CHECK_THROWS_WITH(expand(*s), Catch::Contains("node 0 ('blas')") &&
                                    Catch::Contains("Ger needs an input edge on connector '_A'"));
  LibraryCase flat = kTranspose;
  flat.ins = {{"_inp", "A", "0, 0:K"}};
  auto t = test::build_library_case(flat, "");
  CHECK_THROWS_WITH(expand(*t),
                    Catch::Contains("Transpose operand '_inp' has 1 non-unit dimensions, which this "
                                    "library node does not take"));
  LibraryCase vec = kDot;
  vec.outs = {{"_result", "x", "0:K"}};
  auto d = test::build_library_case(vec, "");
  CHECK_THROWS_WITH(expand(*d), Catch::Contains("Dot output has 1 non-unit dimensions, expected 0"));
  // The code generator refuses Ger and Transpose it is given unexpanded.
  auto g = test::build_library_case(kGer, "");
  CHECK_THROWS_WITH(codegen::generate_cpu(*g),
                    Catch::Contains("a Ger library node reaches code generation unexpanded"));
}
