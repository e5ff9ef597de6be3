// Prefetch of the next iteration's argument blocks of a nested SDFG called in a map (docs/adr/
// 0041, session 31; codegen/src/block_prefetch.cpp). The program has the shape of
// ScanColumnBlocking's vertical solver: a map over blocks of S rows (b = 0:N:S) calls a nested
// SDFG on B[b:b+S, 0:L] and A[b:b+S, 0:L] (the last block shorter) whose loop over the levels
// k runs a map over the block's rows: y[r, k] = 2 x[r, k]. Before the call of block b the
// generated code prefetches the blocks of b + S; values are those of the program without it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::codegen;
using E = sym::Expr;

namespace {

/// The program above with blocks of `S` rows; `loop`: the nested SDFG's levels in a loop region
/// (else one state for level 0 only: bounded work, no prefetch).
std::unique_ptr<SDFG> blocks_sdfg(int S, bool loop = true) {
  auto inner = std::make_unique<SDFG>("block");
  inner->add_symbol("R");
  inner->add_symbol("L");
  inner->add_array("x", ScalarType::Float64, {E::symbol("R"), E::symbol("L")});
  inner->add_array("y", ScalarType::Float64, {E::symbol("R"), E::symbol("L")});
  ControlFlowRegion* body = inner.get();
  if (loop) body = &inner->add_loop("levels", "k", "k = 0", "k < L", "k = k + 1");
  auto& st = body->add_state("level", true);
  const std::string at = loop ? "r, k" : "r, 0";
  auto& m = st.add_map("rows", {"r"}, Subset::parse("0:R"), ScheduleType::Sequential);
  auto& t = st.add_tasklet("t", {"o = v * 2.0", Language::Python}, {"v"}, {"o"});
  const Subset level = Subset::parse(loop ? "0:R, k" : "0:R, 0");
  auto in = st.add_memlet_path({st.add_access("x").id(), m.id(), t.id()},
                               Memlet::simple("x", Subset::parse(at)), "", "v");
  st.edge(in[0]).memlet.subset = level;
  auto out = st.add_memlet_path({t.id(), m.exit, st.add_access("y").id()},
                                Memlet::simple("y", Subset::parse(at)), "o", "");
  st.edge(out[1]).memlet.subset = level;

  auto s = std::make_unique<SDFG>(loop ? "blocks" : "blocks_bounded");
  s->add_symbol("N");
  s->add_symbol("L");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("L")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N"), E::symbol("L")});
  auto& st2 = s->add_state("main", true);
  const std::string step = std::to_string(S);
  auto& outer = st2.add_map("blocks", {"b"}, Subset::parse("0:N:" + step), ScheduleType::CPU_Multicore);
  auto& call = st2.add_nested_sdfg("call", std::move(inner), {"x"}, {"y"},
                                   {{"R", E::parse("Min(N - b, " + step + ")")}, {"L", E::symbol("L")}});
  const Subset block = Subset::parse("b:Min(b + " + step + ", N), 0:L");
  auto a = st2.add_memlet_path({st2.add_access("A").id(), outer.id(), call.id()}, Memlet::simple("A", block),
                               "", "x");
  st2.edge(a[0]).memlet.subset = Subset::parse("0:N, 0:L");
  auto b = st2.add_memlet_path({call.id(), outer.exit, st2.add_access("B").id()}, Memlet::simple("B", block),
                               "y", "");
  st2.edge(b[1]).memlet.subset = Subset::parse("0:N, 0:L");
  s->relink_nested();
  std::string problems;
  for (const Diagnostic& d : validate(*s)) problems += d.str() + "\n";
  CHECK(problems == "");
  return s;
}

/// B after running `code` on A[i, k] = 10 i + k (N x L), B starting at -1.
std::vector<double> run_blocks(const GeneratedCode& code, const std::string& name, std::int64_t N,
                               std::int64_t L) {
  std::vector<double> A(static_cast<std::size_t>(N * L)), B(A.size(), -1.0);
  for (std::int64_t i = 0; i < N; ++i)
    for (std::int64_t k = 0; k < L; ++k) A[static_cast<std::size_t>(i * L + k)] = 10.0 * i + k;
  std::map<std::string, void*> by_name = {{"A", A.data()}, {"B", B.data()}, {"N", &N}, {"L", &L}};
  std::vector<void*> args;
  for (const ArgInfo& a : code.args) args.push_back(by_name.at(a.name));
  test::LoadedProgram p(test::compile_shared(code.source, test::scratch_dir("block_prefetch_" + name)));
  p.call(args);
  return B;
}

}  // namespace

TEST_CASE("block prefetch: the call of a block prefetches the blocks of the next iteration",
          "[codegen][run][prefetch]") {
  auto s = blocks_sdfg(4);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK_THAT(g.source,
             Catch::Contains("// prefetch: the argument blocks of the iteration after this one on 'b'"));
  CHECK_THAT(g.source, Catch::Contains("if (b + (4) <= N - 1) {"));
  // Both arguments, from their first element at b + 4, each at most twice its elements, all
  // together at most 64 KiB.
  CHECK_THAT(g.source, Catch::Contains("weir_prefetch_row(&A[(b + 4)*L], __weir_span0[0]);"));
  CHECK_THAT(g.source, Catch::Contains("weir_prefetch_row(&B[(b + 4)*L], __weir_span0[1]);"));
  CHECK_THAT(g.source, Catch::Contains("<= 65536 && __weir_span"));
  // By hand: B[i, k] = 2 (10 i + k), the last block (rows 8, 9) shorter.
  std::vector<double> expected;
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k < 3; ++k) expected.push_back(2.0 * (10.0 * i + k));
  CHECK(run_blocks(g, "on", 10, 3) == expected);
  // Off by option (weir-bench's `weir(no prefetch)`): no prefetch, the same values.
  CodegenOptions off;
  off.gather_prefetch = false;
  GeneratedCode plain = generate_cpu(*s, off);
  CHECK(plain.source.find("weir_prefetch_row(") == std::string::npos);
  CHECK(run_blocks(plain, "off", 10, 3) == expected);
  // Blocks of 4 rows of 4096 levels (2 x 128 KiB): over the limit, not prefetched, same values.
  std::vector<double> big = run_blocks(g, "large", 5, 4096);
  CHECK(big[static_cast<std::size_t>(4 * 4096 + 4095)] == 2.0 * (40.0 + 4095.0));
  CHECK(big[0] == 0.0);
}

TEST_CASE("block prefetch: a nested SDFG without a loop is not prefetched for", "[codegen][run][prefetch]") {
  // One level per call: a few operations, which a prefetch per line would cost more than.
  auto s = blocks_sdfg(4, false);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(g.source.find("weir_prefetch_row(") == std::string::npos);
  std::vector<double> B = run_blocks(g, "bounded", 6, 2);
  CHECK(B == std::vector<double>{0, -1, 20, -1, 40, -1, 60, -1, 80, -1, 100, -1});
}
