// The program the codegen tests of streaming stores and of the prefetch of gathered rows run
// (test_streaming_stores.cpp, test_gather_prefetch.cpp; docs/adr/0041): a column of F gathered
// through a table T, as unstructured stencils do: O[i, k] = 2 F[T[i], k] + k for i in 0:N
// (outer map), k in 0:K (inner sequential map), with variants of its shape for refusals.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
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

namespace weir::test {

using codegen::ArgInfo;
using codegen::CodegenOptions;
using codegen::generate_cpu;
using codegen::GeneratedCode;

/// How the gathering program differs from the plain one (refusal cases).
struct Shape {
  ScheduleType outer = ScheduleType::CPU_Multicore;
  std::string code = "o = f[t, k] * 2.0 + k";
  std::string written = "i, k";  ///< O's memlet (O is N x K, or K x N where written = "k, i")
  bool transposed = false;       ///< O is K x N
  bool transient = false;        ///< O is a transient (then copied to P after the map)
  std::string wcr;               ///< the write's conflict resolution
  bool reads_output = false;     ///< the tasklet also reads O[i, k] (connector q)
  /// O's last dimension is K + `pad` (written = "i, k + 1" with pad 2: a halo on both sides),
  /// so the K loop writes part of each row; not with transposed or reads_output.
  int pad = 0;
};

/// O[i, k] = `code` (reading t = T[i] and the whole of F (M x KF) as f) for i in 0:N on
/// `outer`, k in 0:K sequential.
inline std::unique_ptr<SDFG> gather_sdfg(const Shape& sh = {}) {
  using E = sym::Expr;
  auto s = std::make_unique<SDFG>("gather");
  for (const char* n : {"N", "K", "M", "KF"}) s->add_symbol(n);
  s->add_array("T", ScalarType::Int32, {E::symbol("N")});
  s->add_array("F", ScalarType::Float64, {E::symbol("M"), E::symbol("KF")});
  const std::vector<E> shape = sh.transposed ? std::vector<E>{E::symbol("K"), E::symbol("N")}
                                             : std::vector<E>{E::symbol("N"), E::symbol("K") + sh.pad};
  s->add_array("O", ScalarType::Float64, shape, sh.transient);
  if (sh.transient) s->add_array("P", ScalarType::Float64, shape);
  auto& st = s->add_state("main", true);
  auto& ta = st.add_access("T");
  auto& fa = st.add_access("F");
  auto& oa = st.add_access("O");
  auto& rows = st.add_map("rows", {"i"}, Subset::parse("0:N"), sh.outer);
  auto& levels = st.add_map("levels", {"k"}, Subset::parse("0:K"), ScheduleType::Sequential);
  std::vector<std::string> ins = {"t", "f"};
  if (sh.reads_output) ins.push_back("q");
  auto& t = st.add_tasklet("g", {sh.code, Language::Python}, ins, {"o"});
  auto tin = st.add_memlet_path({ta.id(), rows.id(), levels.id(), t.id()},
                                Memlet::simple("T", Subset::parse("i")), "", "t");
  st.edge(tin[0]).memlet.subset = Subset::parse("0:N");
  st.add_memlet_path({fa.id(), rows.id(), levels.id(), t.id()},
                     Memlet::simple("F", Subset::parse("0:M, 0:KF")), "", "f");
  const std::string padded = sh.pad == 0 ? "K" : "K + " + std::to_string(sh.pad);
  const std::string whole = sh.transposed ? "0:K, 0:N" : "0:N, 0:" + padded;
  if (sh.reads_output) {
    auto& oin = st.add_access("O");
    auto q = st.add_memlet_path({oin.id(), rows.id(), levels.id(), t.id()},
                                Memlet::simple("O", Subset::parse(sh.written)), "", "q");
    st.edge(q[0]).memlet.subset = Subset::parse(whole);
    st.edge(q[1]).memlet.subset = Subset::parse(sh.transposed ? "0:K, i" : "i, 0:K");
  }
  auto out = st.add_memlet_path({t.id(), levels.exit, rows.exit, oa.id()},
                                Memlet::simple("O", Subset::parse(sh.written), sh.wcr), "o", "");
  st.edge(out[1]).memlet.subset = Subset::parse(sh.transposed ? "0:K, i" : "i, 0:" + padded);
  st.edge(out[2]).memlet.subset = Subset::parse(whole);
  if (sh.transient) {
    auto& pa = st.add_access("P");
    st.add_edge(oa.id(), "", pa.id(), "", Memlet::simple("O", Subset::parse(whole)));
  }
  std::string problems;
  for (const Diagnostic& d : validate(*s)) problems += d.str() + "\n";
  CHECK(problems == "");
  return s;
}

/// What a run of the gathering program gives.
struct GatherRun {
  int rc = 0;
  std::string error;
  std::vector<double> O;
  /// O after each call where `calls` > 1 (O reset to -1 before each); the last is O.
  std::vector<std::vector<double>> each;
};

/// Runs `s` generated with `options` on N rows of K levels; T[i] = 7 i mod M unless `table` is
/// given, F (M x K) = 100 m + k; O starts at -1, `O_offset` bytes (a multiple of 8) past a
/// 64-byte boundary. `name` names the scratch folder. The loaded program is called `calls`
/// times (the first failing call ends them).
inline GatherRun run_gather(const SDFG& s, const std::string& name, std::int64_t N, std::int64_t K,
                            const CodegenOptions& options = {}, std::vector<std::int32_t> table = {},
                            std::int64_t M = 64, std::size_t O_offset = 0, int calls = 1) {
  GeneratedCode g = generate_cpu(s, options);
  std::int64_t KF = K;
  std::vector<double> F(static_cast<std::size_t>(M * KF));
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t k = 0; k < KF; ++k) F[static_cast<std::size_t>(m * KF + k)] = 100.0 * m + k;
  std::vector<std::int32_t> T = std::move(table);
  if (T.empty())
    for (std::int64_t i = 0; i < N; ++i) T.push_back(static_cast<std::int32_t>(7 * i % M));
  REQUIRE(static_cast<std::int64_t>(T.size()) == N);
  GatherRun r;
  // O inside a buffer with room to place it at O_offset from a 64-byte boundary.
  std::vector<double> storage(static_cast<std::size_t>(N * K) + 16, -1.0);
  auto* base = reinterpret_cast<unsigned char*>(storage.data());
  base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64 + O_offset;
  double* O = reinterpret_cast<double*>(base);
  std::map<std::string, void*> by_name = {{"F", F.data()}, {"O", O},  {"T", T.data()}, {"N", &N},
                                          {"K", &K},       {"M", &M}, {"KF", &KF}};
  std::vector<void*> args;
  for (const ArgInfo& a : g.args) args.push_back(by_name.at(a.name));
  auto so = test::compile_shared(g.source, test::scratch_dir(name));
  test::LoadedProgram p(so);
  void* h = p.init(args.data());
  REQUIRE(h != nullptr);
  for (int c = 0; c < calls && r.rc == 0; ++c) {
    std::fill(O, O + N * K, -1.0);
    r.rc = p.run(h, args.data());
    if (r.rc != 0) r.error = p.last_error();
    if (calls > 1) r.each.emplace_back(O, O + N * K);
  }
  REQUIRE(p.finalize(h) == 0);
  r.O.assign(O, O + N * K);
  return r;
}

/// O[i, k] = 2 F[T[i], k] + k worked out from the inputs' definitions (F[m, k] = 100 m + k).
inline std::vector<double> expected_gather(std::int64_t N, std::int64_t K, std::int64_t M = 64) {
  std::vector<double> O(static_cast<std::size_t>(N * K));
  for (std::int64_t i = 0; i < N; ++i)
    for (std::int64_t k = 0; k < K; ++k)
      O[static_cast<std::size_t>(i * K + k)] = 2.0 * (100.0 * static_cast<double>(7 * i % M) + k) + k;
  return O;
}

}  // namespace weir::test
