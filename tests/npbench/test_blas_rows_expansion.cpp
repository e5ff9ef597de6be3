// The default expansion of MatMul, Gemm and Gemv (expand_blas_rows.cpp, ADR 0040 session 29):
// a map over blocks of output rows, per block a nested SDFG summing into a transient row
// buffer with k outermost; values worked by hand (a transposed Gemm with alpha and beta, a
// Gemv of 8-row blocks with a short last block, a vector times a matrix in blocks of 256),
// results bit-identical to the pure expansion's dot products, the pure expansion in GPU code,
// and the code generator's refusal of an unexpanded node.
#include <algorithm>

#include <catch2/catch.hpp>

#include "library_case.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/library_expansion.h"

using namespace weir;
using test::LibraryCase;

namespace {

std::size_t expand(SDFG& sdfg) {
  transforms::AnalysisCache cache;
  return transforms::LibraryExpansion().run(sdfg, cache);
}

/// The only nested SDFG node of `st` whose SDFG's name ends in `suffix`.
const NestedSDFGNode& nested_in(const SDFGState& st, const std::string& suffix = "") {
  const NestedSDFGNode* nest = nullptr;
  for (const Node* n : st.nodes())
    if (const auto* ns = n->as<NestedSDFGNode>();
        ns && ns->sdfg && ns->sdfg->name.size() >= suffix.size() &&
        ns->sdfg->name.compare(ns->sdfg->name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      REQUIRE_FALSE(nest);
      nest = ns;
    }
  REQUIRE(nest);
  REQUIRE(nest->sdfg);
  return *nest;
}

/// "label[params] schedule <- enclosing map's label" of each map of `st`, sorted.
std::vector<std::string> maps_in(const SDFGState& st) {
  std::vector<std::string> out;
  const ScopeTree tree = st.scope_tree();
  for (const Node* n : st.nodes())
    if (const auto* e = n->as<MapEntry>()) {
      std::string p, parent;
      for (const auto& x : e->map->params) p += (p.empty() ? "" : ",") + x;
      if (NodeId up = tree.parent.at(e->id()); up != kNoNode) parent = " <- " + st.node(up).label;
      out.push_back(e->label + "[" + p + "] " + std::string(to_string(e->map->schedule)) + parent);
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::vector<double>> run(const SDFG& sdfg, const test::Float64Arrays& arrays,
                                               const std::map<std::string, std::int64_t>& symbols) {
  return test::run_float64(sdfg, arrays, symbols, "blas-rows-expansion");
}

// D = alpha * A^T @ B + beta * C, A stored K x M.
const LibraryCase kGemmTransA{"gemm_ta",
                              "gemm.Gemm",
                              {{"A", {"K", "M"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}, {"D", {"M", "N"}}},
                              {{"_a", "A", "0:K, 0:M"}, {"_b", "B", "0:K, 0:N"}, {"_cin", "C", "0:M, 0:N"}},
                              {{"_c", "D", "0:M, 0:N"}},
                              {{"transA", "true"}, {"alpha", "2"}, {"beta", "-1"}},
                              ""};

// y = alpha * A @ x + beta * y, A's rows along k (unit stride).
const LibraryCase kGemv{"gemv_groups",
                        "gemv.Gemv",
                        {{"A", {"M", "K"}}, {"x", {"K"}}, {"y", {"M"}}},
                        {{"_A", "A", "0:M, 0:K"}, {"_x", "x", "0:K"}, {"_y", "y", "0:M"}},
                        {{"_y", "y", "0:M"}},
                        {{"alpha", "2.0"}, {"beta", "0.5"}},
                        ""};

// y = x @ B: the matrix runs along the output with unit stride.
const LibraryCase kVecMat{"vecmat_blocks",
                          "matmul.MatMul",
                          {{"x", {"K"}}, {"B", {"K", "N"}}, {"y", {"N"}}},
                          {{"_a", "x", "0:K"}, {"_b", "B", "0:K, 0:N"}},
                          {{"_c", "y", "0:N"}},
                          {},
                          ""};

const LibraryCase kMatMul{"matmul_rows",
                          "matmul.MatMul",
                          {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
                          {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:K, 0:N"}},
                          {{"_c", "C", "0:M, 0:N"}},
                          {},
                          ""};

/// Values whose products and sums round: i * 0.1 + 1 / (j + 3).
std::vector<double> inexact(std::int64_t n, double scale) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = scale * (0.1 * double(i) + 1.0 / double(i % 7 + 3));
  return v;
}

}  // namespace

TEST_CASE("blas rows expansion: a default Gemm sums each row into a row buffer with k outermost",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kGemmTransA, "");
  CHECK(transforms::has_expandable_library_nodes(*s));
  REQUIRE(expand(*s) == 1);
  const NestedSDFGNode& nest = nested_in(*s->all_states()[0]);
  // Pairs of rows, then a map of the last row where M is odd.
  CHECK(maps_in(*nest.sdfg->all_states()[0]) ==
        std::vector<std::string>{"gemm_last_row[__bblk] Default", "gemm_rows[__bblk] Default"});
  const NestedSDFGNode& pair = nested_in(*nest.sdfg->all_states()[0], "_rows");
  const NestedSDFGNode& last = nested_in(*nest.sdfg->all_states()[0], "_last_row");
  for (const char* buf : {"__row", "__row1"}) {
    REQUIRE(pair.sdfg->has_data(buf));
    CHECK(pair.sdfg->data(buf).transient);
    CHECK(pair.sdfg->data(buf).shape == std::vector<sym::Expr>{sym::Expr::symbol("N")});
  }
  CHECK_FALSE(last.sdfg->has_data("__row1"));
  // The pair's part of A (stored K x M, transposed): two columns, K long.
  CHECK(pair.sdfg->data("_a").shape == std::vector<sym::Expr>{sym::Expr::symbol("K"), sym::Expr(2)});
  // k in steps of four, then the rest one at a time, each around the loop over the row.
  CHECK(maps_in(*pair.sdfg->all_states()[0]) ==
        std::vector<std::string>{"gemm_k4[__bq] Sequential", "gemm_k4_w[__bw] Sequential <- gemm_k4",
                                 "gemm_k[__bk] Sequential", "gemm_k_w[__bw] Sequential <- gemm_k",
                                 "gemm_write[__bw] Sequential", "gemm_zero[__bw] Sequential"});
  // A = [[1, 2, 0], [3, 4, 1], [5, 6, 2]] (K = 3, M = 3), so A^T = [[1, 3, 5], [2, 4, 6], [0, 1, 2]];
  // B = [[1, 0], [0, 1], [1, 1]]: A^T @ B = [[6, 8], [8, 10], [2, 3]]; times 2 minus C = 1:
  // [[11, 15], [15, 19], [3, 5]] (the third row by the last-row map).
  auto got = run(*s,
                 {{"A", {{3, 3}, {1, 2, 0, 3, 4, 1, 5, 6, 2}}},
                  {"B", {{3, 2}, {1, 0, 0, 1, 1, 1}}},
                  {"C", {{3, 2}, {1, 1, 1, 1, 1, 1}}},
                  {"D", {{3, 2}, {0, 0, 0, 0, 0, 0}}}},
                 {{"M", 3}, {"K", 3}, {"N", 2}});
  CHECK(got.at("D") == std::vector<double>{11, 15, 15, 19, 3, 5});
}

TEST_CASE("blas rows expansion: a Gemv along rows takes blocks of 8, the last one shorter",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kGemv, "");
  REQUIRE(expand(*s) == 1);
  const NestedSDFGNode& nest = nested_in(*s->all_states()[0]);
  const NestedSDFGNode& row = nested_in(*nest.sdfg->all_states()[0]);
  const sym::Expr first = sym::Expr(8) * sym::Expr::symbol("__bblk");
  CHECK(row.symbol_mapping.at("__bn") ==
        sym::Expr::min(first + sym::Expr(8), sym::Expr::symbol("M")) - first);
  CHECK(row.sdfg->data("__row").shape == std::vector<sym::Expr>{sym::Expr::symbol("__bn")});
  // A[i, k] = i + k (M = 10, K = 3), x = [1, 2, 3]: (A @ x)[i] = 6 i + 8; y = i:
  // 2 (6 i + 8) + 0.5 i = 12.5 i + 16, rows 8 and 9 in the second block.
  std::vector<double> a, y, want;
  for (int i = 0; i < 10; ++i) {
    for (int k = 0; k < 3; ++k) a.push_back(i + k);
    y.push_back(i);
    want.push_back(12.5 * i + 16);
  }
  auto got = run(*s, {{"A", {{10, 3}, a}}, {"x", {{3}, {1, 2, 3}}}, {"y", {{10}, y}}}, {{"M", 10}, {"K", 3}});
  CHECK(got.at("y") == want);
}

TEST_CASE("blas rows expansion: a vector times a matrix takes blocks of 256 outputs",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kVecMat, "");
  REQUIRE(expand(*s) == 1);
  const NestedSDFGNode& nest = nested_in(*s->all_states()[0]);
  const NestedSDFGNode& row = nested_in(*nest.sdfg->all_states()[0]);
  const sym::Expr first = sym::Expr(256) * sym::Expr::symbol("__bblk");
  CHECK(row.symbol_mapping.at("__bn") ==
        sym::Expr::min(first + sym::Expr(256), sym::Expr::symbol("N")) - first);
  // B[k, j] = j + k (K = 2, N = 300), x = [1, 3]: y[j] = j + 3 (j + 1) = 4 j + 3, two blocks.
  std::vector<double> b, want;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 300; ++j) b.push_back(j + k);
  for (int j = 0; j < 300; ++j) want.push_back(4.0 * j + 3);
  auto got =
      run(*s, {{"x", {{2}, {1, 3}}}, {"B", {{2, 300}, b}}, {"y", {{300}, std::vector<double>(300, -1)}}},
          {{"K", 2}, {"N", 300}});
  CHECK(got.at("y") == want);
}

TEST_CASE("blas rows expansion: rows and the pure expansion's dot products give bit-identical results",
          "[blas][library-expansion]") {
  // Sizes with a short last block of eight rows and values whose sums round: the same sums in the
  // same order (k from 0) give the same bits, in whatever loop order.
  const std::int64_t m = 13, k = 37, n = 11;
  const test::Float64Arrays mm{{"A", {{m, k}, inexact(m * k, 1.0)}},
                               {"B", {{k, n}, inexact(k * n, -0.7)}},
                               {"C", {{m, n}, std::vector<double>(m * n, 0)}}};
  const std::map<std::string, std::int64_t> sizes{{"M", m}, {"K", k}, {"N", n}};
  for (const LibraryCase* c : {&kMatMul, &kGemv}) {
    INFO(c->name);
    const test::Float64Arrays in = c == &kMatMul ? mm
                                                 : test::Float64Arrays{{"A", {{m, k}, inexact(m * k, 1.3)}},
                                                                       {"x", {{k}, inexact(k, 0.9)}},
                                                                       {"y", {{m}, inexact(m, 2.1)}}};
    auto rows = test::build_library_case(*c, "");
    auto pure = test::build_library_case(*c, "pure");
    REQUIRE(expand(*rows) == 1);
    REQUIRE(expand(*pure) == 1);
    const std::string out = c == &kMatMul ? "C" : "y";
    const auto a = run(*rows, in, sizes).at(out), b = run(*pure, in, sizes).at(out);
    CHECK(a == b);
    CHECK(a != in.at(out).second);  // computed
  }
}

TEST_CASE("blas rows expansion: a MatMul in GPU code is the pure expansion, unexpanded it is refused",
          "[blas][library-expansion]") {
  // The code generator has no loops of its own for MatMul, Gemm and Gemv any more.
  auto d = test::build_library_case(kMatMul, "");
  CHECK_THROWS_WITH(codegen::generate_cpu(*d),
                    Catch::Contains("a MatMul library node reaches code generation unexpanded: run the "
                                    "library-expansion pass first"));
  // Inside a GPU_Device map (what gpu-transform makes of a top-level node): no row buffers,
  // one dot product per output element.
  auto s = std::make_unique<SDFG>("matmul_in_kernel");
  for (const char* x : {"M", "K", "N"}) s->add_symbol(x);
  s->add_array("A", ScalarType::Float64, {sym::Expr::symbol("M"), sym::Expr::symbol("K")}).storage =
      StorageType::GPU_Global;
  s->add_array("B", ScalarType::Float64, {sym::Expr::symbol("K"), sym::Expr::symbol("N")}).storage =
      StorageType::GPU_Global;
  s->add_array("C", ScalarType::Float64, {sym::Expr::symbol("M"), sym::Expr::symbol("N")}).storage =
      StorageType::GPU_Global;
  SDFGState& st = s->add_state("main", true);
  MapEntry& m = st.add_map("kernel", {"i"}, Subset::parse("0:1"), ScheduleType::GPU_Device);
  auto lib = std::make_unique<LibraryNode>("blas", "LibraryNode");
  lib->classpath = "dace.libraries.blas.nodes.matmul.MatMul";
  lib->in_connectors = {{"_a", std::nullopt}, {"_b", std::nullopt}};
  lib->out_connectors = {{"_c", std::nullopt}};
  const NodeId mm = st.add_node(std::move(lib)).id();
  st.add_memlet_path({st.add_access("A").id(), m.id(), mm}, Memlet::simple("A", Subset::parse("0:M, 0:K")),
                     "", "_a");
  st.add_memlet_path({st.add_access("B").id(), m.id(), mm}, Memlet::simple("B", Subset::parse("0:K, 0:N")),
                     "", "_b");
  st.add_memlet_path({mm, m.exit, st.add_access("C").id()}, Memlet::simple("C", Subset::parse("0:M, 0:N")),
                     "_c", "");
  REQUIRE(expand(*s) == 1);
  const NestedSDFGNode& nest = nested_in(st);
  CHECK(maps_in(*nest.sdfg->all_states()[0]) ==
        std::vector<std::string>{"matmul[__bi,__bj] Default", "matmul_sum[__bk] Sequential <- matmul"});
  CHECK_FALSE(nest.sdfg->has_data("__row"));
}
