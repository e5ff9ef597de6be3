// The library-expansion pass on BLAS nodes of DaCe's CBLAS implementations (OpenBLAS, MKL,
// cBLAS): a nested SDFG of one CBLAS call that weir wrote (ADR 0040, 2026-12-06): its exact
// code, the addend copied first where it is another container, values worked by hand, the
// cases CBLAS cannot take (left to the code generator's loops), and the trust rule: the call
// compiles without --trust-code, the same code read from a file does not, and a file written
// after the expansion reads back as the library node.

#include <catch2/catch.hpp>

#include "library_case.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/written_by_weir.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/dace_blas_calls.h"
#include "weir/transforms/library_expansion.h"

using namespace weir;
using test::LibraryCase;

namespace {

std::size_t expand(SDFG& sdfg) {
  transforms::AnalysisCache cache;
  return transforms::LibraryExpansion().run(sdfg, cache);
}

/// The nested SDFG that replaced the library node of `sdfg`'s only state.
const SDFG& expansion_of(const SDFG& sdfg) {
  const NestedSDFGNode* nest = nullptr;
  for (const Node* n : sdfg.all_states()[0]->nodes())
    if (const auto* ns = n->as<NestedSDFGNode>()) nest = ns;
  REQUIRE(nest);
  REQUIRE(nest->sdfg);
  return *nest->sdfg;
}

/// The tasklets of `sdfg` (all states), in state order.
std::vector<const Tasklet*> tasklets_of(const SDFG& sdfg) {
  std::vector<const Tasklet*> out;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes())
      if (const auto* t = n->as<Tasklet>()) out.push_back(t);
  return out;
}

/// The one CBLAS tasklet of the expansion of `sdfg`'s node.
const Tasklet& call_of(const SDFG& sdfg) {
  const Tasklet* call = nullptr;
  for (const Tasklet* t : tasklets_of(expansion_of(sdfg)))
    if (t->code.language == Language::CPP) {
      REQUIRE_FALSE(call);
      call = t;
    }
  REQUIRE(call);
  return *call;
}

/// Runs `sdfg` (float64 arrays, symbols) on the cpu backend; the arrays after the run.
std::map<std::string, std::vector<double>> run(const SDFG& sdfg, const test::Float64Arrays& arrays,
                                               const std::map<std::string, std::int64_t>& symbols) {
  return test::run_float64(sdfg, arrays, symbols, "cblas-expansion");
}

// r = x[1:K + 1] . y: the vector starts one element in.
const LibraryCase kDot{"dot_offset",
                       "dot.Dot",
                       {{"x", {"K + 1"}}, {"y", {"K"}}, {"r", {"1"}}},
                       {{"_x", "x", "1:K + 1"}, {"_y", "y", "0:K"}},
                       {{"_result", "r", "0"}},
                       {},
                       ""};

// D = -1.5 * A @ B.T + 3 * C: the addend C is another container than the output D.
const LibraryCase kGemmOut{"gemm_out",
                           "gemm.Gemm",
                           {{"A", {"M", "K"}}, {"B", {"N", "K"}}, {"C", {"M", "N"}}, {"D", {"M", "N"}}},
                           {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:N, 0:K"}, {"_cin", "C", "0:M, 0:N"}},
                           {{"_c", "D", "0:M, 0:N"}},
                           {{"transB", "true"}, {"alpha", "-1.5"}, {"beta", "3"}},
                           ""};

// y = 2 * A @ x + 0.5 * y, in place.
const LibraryCase kGemvInPlace{"gemv_rows",
                               "gemv.Gemv",
                               {{"A", {"M", "K"}}, {"x", {"K"}}, {"y", {"M"}}},
                               {{"_A", "A", "0:M, 0:K"}, {"_x", "x", "0:K"}, {"_y", "y", "0:M"}},
                               {{"_y", "y", "0:M"}},
                               {{"alpha", "2.0"}, {"beta", "0.5"}},
                               ""};

// y = x @ B: a vector times a matrix, CBLAS's gemv of B transposed.
const LibraryCase kVecMat{"vecmat",
                          "matmul.MatMul",
                          {{"x", {"K"}}, {"B", {"K", "N"}}, {"y", {"N"}}},
                          {{"_a", "x", "0:K"}, {"_b", "B", "0:K, 0:N"}},
                          {{"_c", "y", "0:N"}},
                          {},
                          ""};

// C = A[1:M+1, 2:K+2] @ B: a sub-block whose leading dimension (K + 3) is wider than its K columns.
const LibraryCase kMatMulBlock{"matmul_block",
                               "matmul.MatMul",
                               {{"A", {"M + 2", "K + 3"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
                               {{"_a", "A", "1:M + 1, 2:K + 2"}, {"_b", "B", "0:K, 0:N"}},
                               {{"_c", "C", "0:M, 0:N"}},
                               {},
                               ""};

}  // namespace

TEST_CASE("cblas expansion: an OpenBLAS Dot is one cblas_ddot call weir wrote, run untrusted",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kDot, "OpenBLAS");
  REQUIRE(transforms::has_expandable_library_nodes(*s));
  REQUIRE(expand(*s) == 1);
  const Tasklet& t = call_of(*s);
  CHECK(t.code.code == "__result = cblas_ddot(K, __x, 1, __y, 1);");
  CHECK(written_by_weir(t));
  CHECK(written_by_weir(*t.clone()->as<Tasklet>()));
  CHECK(expansion_of(*s).all_states().size() == 1);
  // The code generator needs no trust for it (CodegenOptions::trust_code is false).
  const std::string code = codegen::generate_cpu(*s).source;
  CHECK(code.find("cblas_ddot(K, __x, 1, __y, 1);") != std::string::npos);
  // Below OpenBLAS's split size (weir_blas_split_min) the call runs as it is: no choice of
  // OpenBLAS's threads, whose setting cost npbench cholesky's 5,050 small dots 7x their time
  // (ADR 0053, session 35); and nothing of the choice on that path but the test of the size:
  // larger calls choose in the prelude's out-of-line weir_blas_chosen (session 36: the choice's
  // code inline beside the small calls cost cholesky 7%, though it never ran).
  const std::string small =
      "if (!weir_blas_splits((K))) {  // below OpenBLAS's split size: the call as it is\n";
  const auto test = code.find(small);
  REQUIRE(test != std::string::npos);
  const auto other = code.find("} else {", test);
  REQUIRE(other != std::string::npos);
  const std::string path = code.substr(test + small.size(), other - test - small.size());
  CHECK(path.find("__result = cblas_ddot(K, __x, 1, __y, 1);") != std::string::npos);
  CHECK(path.find("weir_blas_times") == std::string::npos);
  CHECK(path.find("weir_blas_before") == std::string::npos);
  const auto chosen = code.find("weir_blas_chosen(__weir_blas_times, [&] {", other);
  REQUIRE(chosen != std::string::npos);
  CHECK(code.find("__result = cblas_ddot(K, __x, 1, __y, 1);", chosen) != std::string::npos);
  // The site's times: a static before the test (constant-initialized, no code in either path).
  CHECK(code.rfind("static weir_blas_times __weir_blas_times;\n", test) != std::string::npos);
  // x[1:4] = [1, 3, 5] . y = [2, 4, 6]: 2 + 12 + 30 = 44.
  auto got = run(*s, {{"x", {{4}, {9, 1, 3, 5}}}, {"y", {{3}, {2, 4, 6}}}, {"r", {{1}, {-1}}}}, {{"K", 3}});
  CHECK(got.at("r") == std::vector<double>{44});
  // A dot of 10,001 elements takes the other path (OpenBLAS's split size is 9,216): x[1 + q] =
  // q + 1, y[q] = 2, so r = 2 (1 + ... + 10,001) = 10,001 * 10,002 = 100,030,002, exact in
  // doubles in every order of the sums; twice, so that the call site has measured once.
  const std::int64_t n = 10001;
  std::vector<double> x(n + 1), y(n, 2.0);
  for (std::int64_t q = 0; q < n; ++q) x[q + 1] = static_cast<double>(q + 1);
  for (int pass = 0; pass < 2; ++pass) {
    auto big = run(*s, {{"x", {{n + 1}, x}}, {"y", {{n}, y}}, {"r", {{1}, {-1}}}}, {{"K", n}});
    CHECK(big.at("r") == std::vector<double>{100030002.0});
  }
}

TEST_CASE("cblas expansion: a Gemm into another container copies its addend first",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kGemmOut, "MKL");
  REQUIRE(expand(*s) == 1);
  const SDFG& inner = expansion_of(*s);
  // Two states: the addend C copied into D (a map of one tasklet per element), then the call
  // updating D in place with beta 3.
  REQUIRE(inner.all_states().size() == 2);
  CHECK(inner.block(inner.start_block()).label == "gemm_addend");
  CHECK(call_of(*s).code.code ==
        "cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, double(-1.5), __a, K, __b, K, "
        "double(3), "
        "__c, N);");
  // A = [[1, 2], [3, 4]], B = [[1, 0], [2, 1]] (B.T = [[1, 2], [0, 1]]), C = [[1, 1], [1, 1]]:
  // A @ B.T = [[1, 4], [3, 10]]; D = -1.5 * that + 3 = [[1.5, -3], [-1.5, -12]].
  auto got = run(*s,
                 {{"A", {{2, 2}, {1, 2, 3, 4}}},
                  {"B", {{2, 2}, {1, 0, 2, 1}}},
                  {"C", {{2, 2}, {1, 1, 1, 1}}},
                  {"D", {{2, 2}, {9, 9, 9, 9}}}},
                 {{"M", 2}, {"K", 2}, {"N", 2}});
  CHECK(got.at("D") == std::vector<double>{1.5, -3, -1.5, -12});
  CHECK(got.at("C") == std::vector<double>{1, 1, 1, 1});
}

TEST_CASE("cblas expansion: a Gemv in place is one call with beta, a vector times a matrix a transposed gemv",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kGemvInPlace, "OpenBLAS");
  REQUIRE(expand(*s) == 1);
  CHECK(expansion_of(*s).all_states().size() == 1);  // y is its own addend: no copy
  CHECK(call_of(*s).code.code ==
        "cblas_dgemv(CblasRowMajor, CblasNoTrans, M, K, double(2.0), __A, K, __x, 1, double(0.5), __y, 1);");
  // The call between the prelude's choice of OpenBLAS threads and the record of its time
  // (codegen/prelude/weir_blas_threads.h; tests/codegen/test_parallel_choice.cpp).
  const std::string code = codegen::generate_cpu(*s).source;
  // Below the split size the call as it is, else in weir_blas_chosen, which chooses before the
  // call and records after it.
  const auto test = code.find("if (!weir_blas_splits((M) * (K))) {");
  const auto call = code.find("cblas_dgemv(CblasRowMajor, CblasNoTrans, M, K,", test);
  const auto chosen = code.find("weir_blas_chosen(__weir_blas_times, [&] {", call);
  const auto again = code.find("cblas_dgemv(CblasRowMajor, CblasNoTrans, M, K,", chosen);
  const auto prelude = code.find("static void weir_blas_chosen(weir_blas_times& times,");
  CHECK(code.find("static inline int weir_blas_before(") < prelude);
  CHECK(prelude < test);
  CHECK(test < call);
  CHECK(call < chosen);
  CHECK(chosen < again);
  CHECK(again != std::string::npos);
  const std::string body = code.substr(prelude, code.find("\n}\n", prelude) - prelude);
  CHECK(body.find("const int how = weir_blas_before(times);") < body.find("call();"));
  CHECK(body.find("call();") < body.find("weir_blas_after(times, how, t0);"));
  // A = [[1, 2], [3, 4], [5, 6]], x = [1, -1], y = [2, 4, 6]: A @ x = [-1, -1, -1];
  // y = 2 * (A @ x) + 0.5 * y = [-1, 0, 1].
  auto got = run(*s, {{"A", {{3, 2}, {1, 2, 3, 4, 5, 6}}}, {"x", {{2}, {1, -1}}}, {"y", {{3}, {2, 4, 6}}}},
                 {{"M", 3}, {"K", 2}});
  CHECK(got.at("y") == std::vector<double>{-1, 0, 1});

  auto v = test::build_library_case(kVecMat, "cBLAS");
  REQUIRE(expand(*v) == 1);
  CHECK(call_of(*v).code.code ==
        "cblas_dgemv(CblasRowMajor, CblasTrans, K, N, double(1), __b, N, __a, 1, double(0), __c, 1);");
  // x = [1, 2], B = [[1, 2, 3], [4, 5, 6]]: x @ B = [9, 12, 15].
  auto gv = run(*v, {{"x", {{2}, {1, 2}}}, {"B", {{2, 3}, {1, 2, 3, 4, 5, 6}}}, {"y", {{3}, {0, 0, 0}}}},
                {{"K", 2}, {"N", 3}});
  CHECK(gv.at("y") == std::vector<double>{9, 12, 15});
}

TEST_CASE("cblas expansion: a MatMul of a sub-block passes its leading dimension",
          "[blas][library-expansion]") {
  auto s = test::build_library_case(kMatMulBlock, "OpenBLAS");
  REQUIRE(expand(*s) == 1);
  CHECK(call_of(*s).code.code ==
        "cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, double(1), __a, K + 3, __b, N, "
        "double(0), "
        "__c, N);");
  // M = K = N = 1: A is 3 x 4 (0..11), its block A[1:2, 2:3] is A[1, 2] = 6; B = [[2]]: C = [[12]].
  auto got = run(
      *s,
      {{"A", {{3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}}, {"B", {{1, 1}, {2}}}, {"C", {{1, 1}, {0}}}},
      {{"M", 1}, {"K", 1}, {"N", 1}});
  CHECK(got.at("C") == std::vector<double>{12});
}

TEST_CASE("cblas expansion: nodes CBLAS cannot take are the default rows", "[blas][library-expansion]") {
  // The maps of the default expansion (test_blas_rows_expansion.cpp), no CBLAS call.
  auto rows_only = [](SDFG& s) {
    REQUIRE(expand(s) == 1);
    const SDFG* inner = nullptr;
    for (const Node* n : s.all_states()[0]->nodes())
      if (const auto* ns = n->as<NestedSDFGNode>()) inner = ns->sdfg.get();
    REQUIRE(inner);
    CHECK(tasklets_of(*inner).empty());  // the block map's nested SDFG only
    CHECK(codegen::generate_cpu(s).source.find("cblas_") == std::string::npos);
  };
  // int64 operands: no CBLAS routine.
  LibraryCase ints = kMatMulBlock;
  ints.dtype = ScalarType::Int64;
  auto i = test::build_library_case(ints, "OpenBLAS");
  rows_only(*i);
  // The default implementation (none).
  auto d = test::build_library_case(kMatMulBlock, "");
  rows_only(*d);
  // A column step of 2 is no unit stride.
  LibraryCase steps = kMatMulBlock;
  steps.arrays["A"] = {"M", "2 * K"};
  steps.ins[0].subset = "0:M, 0:2 * K:2";
  auto st = test::build_library_case(steps, "OpenBLAS");
  rows_only(*st);
}

TEST_CASE("cblas expansion: inside a Sequential map a call, inside a parallel one loops",
          "[blas][library-expansion]") {
  auto build = [](ScheduleType schedule) {
    auto s = std::make_unique<SDFG>("dot_in_map");
    s->add_symbol("K");
    s->add_array("x", ScalarType::Float64, {sym::Expr::parse("K")});
    s->add_array("y", ScalarType::Float64, {sym::Expr::parse("K")});
    s->add_array("r", ScalarType::Float64, {sym::Expr(1)});
    SDFGState& st = s->add_state("main", true);
    MapEntry& m = st.add_map("outer", {"i"}, Subset::parse("0:1"), schedule);
    auto lib = std::make_unique<LibraryNode>("blas", "LibraryNode");
    lib->classpath = "dace.libraries.blas.nodes.dot.Dot";
    lib->implementation = "OpenBLAS";
    lib->in_connectors = {{"_x", std::nullopt}, {"_y", std::nullopt}};
    lib->out_connectors = {{"_result", std::nullopt}};
    const NodeId dot = st.add_node(std::move(lib)).id();
    st.add_memlet_path({st.add_access("x").id(), m.id(), dot}, Memlet::simple("x", Subset::parse("0:K")), "",
                       "_x");
    st.add_memlet_path({st.add_access("y").id(), m.id(), dot}, Memlet::simple("y", Subset::parse("0:K")), "",
                       "_y");
    st.add_memlet_path({dot, m.exit, st.add_access("r").id()}, Memlet::simple("r", Subset::parse("0")),
                       "_result", "");
    return s;
  };
  for (ScheduleType schedule : {ScheduleType::Sequential, ScheduleType::CPU_Multicore}) {
    INFO(to_string(schedule));
    auto s = build(schedule);
    REQUIRE(expand(*s) == 1);
    const SDFG* inner = nullptr;
    for (const Node* n : s->all_states()[0]->nodes())
      if (const auto* ns = n->as<NestedSDFGNode>()) inner = ns->sdfg.get();
    REQUIRE(inner);
    bool call = false;
    for (const Tasklet* t : tasklets_of(*inner))
      call = call || t->code.code.find("cblas_ddot(") != std::string::npos;
    CHECK(call == (schedule == ScheduleType::Sequential));
    // [1, 2, 3] . [4, 5, 6] = 32 either way.
    auto got = run(*s, {{"x", {{3}, {1, 2, 3}}}, {"y", {{3}, {4, 5, 6}}}, {"r", {{1}, {0}}}}, {{"K", 3}});
    CHECK(got.at("r") == std::vector<double>{32});
  }
}

TEST_CASE("cblas expansion: the call read from a file needs trust, and reads back as the library node",
          "[blas][library-expansion]") {
  LibraryCase no_beta = kGemmOut;
  no_beta.ins.pop_back();  // no _cin: beta's term has nothing to read
  auto g = test::build_library_case(no_beta, "OpenBLAS");
  REQUIRE(expand(*g) == 1);
  // Written and read back: the mark is not in the file, so the tasklet is C++ like any other
  // (refused without trust) until the loader's recognizer makes it weir's Gemm again.
  const std::string text = sdfg_to_json_text(*g);
  CHECK(text.find(kWrittenByWeirAttribute) == std::string::npos);
  auto loaded = sdfg_from_json_text(text);
  CHECK_FALSE(written_by_weir(call_of(*loaded)));
  CHECK_THROWS_WITH(codegen::generate_cpu(*loaded),
                    Catch::Contains("is C++ written into the SDFG") && Catch::Contains("--trust-code"));
  // A file that sets the mark itself is refused where it does.
  std::string claimed = text;
  const std::string code_key = "\"code\":{\"language\":\"CPP\"";
  REQUIRE(claimed.find(code_key) != std::string::npos);
  claimed.replace(claimed.find(code_key), code_key.size(), "\"weir_written_by_weir\":true," + code_key);
  CHECK_THROWS_WITH(sdfg_from_json_text(claimed),
                    Catch::Contains("weir_written_by_weir") && Catch::Contains("a file cannot set it"));
  auto found = transforms::recognize_dace_blas_calls(*loaded);
  REQUIRE(found.recognized.size() == 1);
  CHECK(found.recognized[0].library_node == "Gemm");
  CHECK(found.recognized[0].attributes == "transB, alpha -1.5");
}
