// Scatter reductions in parallel maps (parallel_privatization.cpp): a map adding into a small
// container at indices read from data (a histogram) gives each thread a copy of its own and
// combines the copies after the loop, with no atomics; a container larger than the map keeps
// the atomic updates; a map that reads the container, or writes only its own elements, gets no
// copies; the small-map branch runs a body without atomics. Every result is checked against the
// same histogram computed by a plain loop here (integer-valued weights: sums exact in any order).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/reduction_choice.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::codegen;
using test::codegen_error;
using E = sym::Expr;

namespace {

/// H[B[i]] (op)= W[i] over i < N, H of M elements (`h_type`), B int64, W of `h_type`; with
/// `reads_h`, the tasklet also reads H[0] (then no copies are allowed).
std::unique_ptr<SDFG> histogram(const std::string& wcr, ScalarType h_type, bool reads_h = false,
                                const std::string& target = "") {
  auto s = std::make_unique<SDFG>("histogram");
  s->add_symbol("M");
  s->add_symbol("N");
  s->add_array("B", ScalarType::Int64, {E::symbol("N")});
  s->add_array("H", h_type, {E::symbol("M")});
  s->add_array("W", h_type, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& m = st.add_map("points", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  std::vector<std::string> ins = {"b", "w"};
  if (reads_h) ins.push_back("h0");
  std::string code = target.empty() ? (reads_h ? "h[b] = w + h0 * 0" : "h[b] = w") : "h = w";
  auto& t = st.add_tasklet("add", {code, Language::Python}, ins, {"h"});
  auto& b = st.add_access("B");
  auto& w = st.add_access("W");
  st.add_memlet_path({b.id(), m.id(), t.id()}, Memlet::simple("B", Subset::parse("i")), "", "b");
  st.add_memlet_path({w.id(), m.id(), t.id()}, Memlet::simple("W", Subset::parse("i")), "", "w");
  for (EdgeId id : st.in_edges(m.id())) {
    DataflowEdge& ed = st.edge(id);
    ed.memlet = Memlet::simple(ed.memlet.data, Subset::parse("0:N"));
  }
  if (reads_h) {
    auto& h0 = st.add_access("H");
    auto in =
        st.add_memlet_path({h0.id(), m.id(), t.id()}, Memlet::simple("H", Subset::parse("0")), "", "h0");
    st.edge(in[0]).memlet = Memlet::simple("H", Subset::parse("0"));
  }
  Memlet inner = Memlet::simple("H", Subset::parse(target.empty() ? "0:M" : target), wcr);
  inner.dynamic = target.empty();
  auto out = st.add_memlet_path({t.id(), m.exit, st.add_access("H").id()}, inner, "h", "");
  st.edge(out[1]).memlet = Memlet::simple("H", Subset::parse("0:M"), wcr);
  return s;
}

/// Bins B[i] = (i * 7919) % M, weights W[i] = 1 + i % 3 (or -0.0 with `negative_zeros`).
template <class T>
struct Case {
  std::int64_t n, m;
  std::vector<std::int64_t> bins;
  std::vector<T> weights;
  Case(std::int64_t n_, std::int64_t m_, bool negative_zeros = false) : n(n_), m(m_) {
    for (std::int64_t i = 0; i < n; ++i) {
      bins.push_back((i * 7919) % m);
      weights.push_back(negative_zeros ? static_cast<T>(-0.0) : static_cast<T>(1 + i % 3));
    }
  }
};

template <class T>
std::vector<T> run(const SDFG& s, Case<T>& c, std::vector<T> h, const std::string& name) {
  GeneratedCode g = generate_cpu(s);
  test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen-scatter-" + name)));
  p.call({c.bins.data(), h.data(), c.weights.data(), &c.m, &c.n});
  return h;
}

template <class T>
std::vector<T> reference(const Case<T>& c, std::vector<T> h, bool product = false) {
  for (std::int64_t i = 0; i < c.n; ++i) {
    T& x = h[static_cast<std::size_t>(c.bins[static_cast<std::size_t>(i)])];
    x = product ? x * c.weights[static_cast<std::size_t>(i)] : x + c.weights[static_cast<std::size_t>(i)];
  }
  return h;
}

bool has_copies(const std::string& source) { return source.find("__weir_copies_H") != std::string::npos; }

std::size_t count(const std::string& source, const std::string& what) {
  std::size_t k = 0;
  for (std::size_t at = source.find(what, source.find("// --- SDFG")); at != std::string::npos;
       at = source.find(what, at + 1))
    ++k;
  return k;
}

/// Sets map attribute `key` of `s`'s one map to the JSON text `value`.
void record(SDFG& s, const char* key, const std::string& value) {
  for (Node* n : s.all_states().front()->nodes())
    if (auto* e = n->as<MapEntry>()) e->map->extra.set(key, value);
}

}  // namespace

TEST_CASE("a histogram of a parallel map adds into per-thread copies", "[codegen][wcr][scatter]") {
  auto s = histogram("lambda a, b: a + b", ScalarType::Float64);
  validate_or_throw(*s);
  std::string code = generate_cpu(*s).source;
  INFO(code);
  CHECK(has_copies(code));
  // Three bodies: copies (no atomics), atomics for a container larger than the map, one thread.
  CHECK(count(code, "#pragma omp atomic") == 1);
  CHECK(code.find("weir_le(M, N)") != std::string::npos);
  // Above the small-map threshold (copies), below it (one thread), and M > N (atomics).
  for (auto [n, m] : {std::pair<std::int64_t, std::int64_t>{100000, 97}, {1000, 13}, {40000, 50000}}) {
    INFO("N = " << n << ", M = " << m);
    Case<double> c(n, m);
    std::vector<double> h0(static_cast<std::size_t>(m), 0.5);
    CHECK(run(*s, c, h0, "sum") == reference(c, h0));
  }
  // Integers too.
  auto si = histogram("lambda a, b: a + b", ScalarType::Int64);
  Case<std::int64_t> ci(100000, 64);
  std::vector<std::int64_t> hi(64, 3);
  CHECK(run(*si, ci, hi, "int") == reference(ci, hi));
}

TEST_CASE("per-thread copies start from the operator's identity", "[codegen][wcr][scatter]") {
  // Sums: -0.0, the identity of IEEE addition (+0.0 would turn -0.0 + -0.0 into +0.0).
  auto s = histogram("lambda a, b: a + b", ScalarType::Float64);
  Case<double> c(100000, 8, true);
  std::vector<double> h0(8, -0.0);
  auto h = run(*s, c, h0, "zeros");
  for (double x : h) CHECK((x == 0.0 && std::signbit(x)));
  // Products: 1.
  auto sp = histogram("lambda a, b: a * b", ScalarType::Float64);
  Case<double> cp(100000, 50000);
  for (std::size_t i = 0; i < cp.weights.size(); ++i) cp.weights[i] = i % 50001 == 0 ? 2.0 : 1.0;
  std::vector<double> hp(50000, 3.0);
  std::string code = generate_cpu(*sp).source;
  CHECK(has_copies(code));
  CHECK(run(*sp, cp, hp, "product") == reference(cp, hp, true));
}

TEST_CASE("no per-thread copies where the map reads the container or writes its own elements",
          "[codegen][wcr][scatter]") {
  // Reading H inside the map would read a copy.
  auto reads = histogram("lambda a, b: a + b", ScalarType::Float64, true);
  std::string code = generate_cpu(*reads).source;
  INFO(code);
  CHECK_FALSE(has_copies(code));
  CHECK(count(code, "#pragma omp atomic") >= 1);
  // H[i] += W[i]: each iteration its own element, no atomics, nothing to copy (M = N).
  auto own = histogram("lambda a, b: a + b", ScalarType::Float64, false, "i");
  std::string code2 = generate_cpu(*own).source;
  INFO(code2);
  CHECK_FALSE(has_copies(code2));
  CHECK(count(code2, "#pragma omp atomic") == 0);
  // Min has no compound operator: atomics stay.
  auto mins = histogram("lambda a, b: min(a, b)", ScalarType::Float64);
  std::string code3 = generate_cpu(*mins).source;
  CHECK_FALSE(has_copies(code3));
}

TEST_CASE("per-thread copies and partials follow the verdicts recorded on the map",
          "[codegen][wcr][scatter]") {
  // cpu-schedules records what the code generator would choose (weir/sdfg/reduction_choice.h):
  // the same record as the analysis generates the same program.
  auto plain = histogram("lambda a, b: a + b", ScalarType::Float64);
  auto marked = histogram("lambda a, b: a + b", ScalarType::Float64);
  record(*marked, kPrivatizedAttribute, "[\"H\"]");
  record(*marked, kPartialsAttribute, "[]");
  validate_or_throw(*marked);
  CHECK(generate_cpu(*marked).source == generate_cpu(*plain).source);
  // A record of none: the scatter keeps its atomic updates, with the same histogram.
  auto none = histogram("lambda a, b: a + b", ScalarType::Float64);
  record(*none, kPrivatizedAttribute, "[]");
  std::string code = generate_cpu(*none).source;
  INFO(code);
  CHECK_FALSE(has_copies(code));
  CHECK(count(code, "#pragma omp atomic") >= 1);
  Case<double> c(100000, 97);
  std::vector<double> h0(97, 0.5);
  CHECK(run(*none, c, h0, "recorded-none") == reference(c, h0));
  // H[0] += W[i]: one element for all iterations, a per-thread partial; none where the record
  // says so (every update atomic), and the same sum 0.5 + (1 + 2 + 3) * 33333 + 1 either way.
  auto one = histogram("lambda a, b: a + b", ScalarType::Float64, false, "0");
  CHECK(generate_cpu(*one).source.find("__weir_part") != std::string::npos);
  auto one_marked = histogram("lambda a, b: a + b", ScalarType::Float64, false, "0");
  record(*one_marked, kPartialsAttribute, "[\"H\"]");
  CHECK(generate_cpu(*one_marked).source == generate_cpu(*one).source);
  auto one_none = histogram("lambda a, b: a + b", ScalarType::Float64, false, "0");
  record(*one_none, kPartialsAttribute, "[]");
  std::string one_code = generate_cpu(*one_none).source;
  INFO(one_code);
  CHECK(one_code.find("__weir_part") == std::string::npos);
  CHECK(count(one_code, "#pragma omp atomic") >= 1);
  Case<double> c1(100000, 1);
  std::vector<double> h1 = run(*one_none, c1, {0.5}, "recorded-no-partial");
  CHECK(h1 == std::vector<double>{0.5 + 6.0 * 33333 + 1});
}

TEST_CASE("a recorded reduction verdict that the analysis does not prove is an error at the map",
          "[codegen][wcr][scatter]") {
  // The map reads H[0]: copies would change what it reads, so a record asking for them is refused.
  auto reads = histogram("lambda a, b: a + b", ScalarType::Float64, true);
  record(*reads, kPrivatizedAttribute, "[\"H\"]");
  std::string e = codegen_error(*reads);
  CHECK(e.find("points") != std::string::npos);
  CHECK(e.find("map attribute weir_privatized names `H`, which the dependence analysis does not prove safe "
               "for per-thread copies (proved: none)") != std::string::npos);
  auto reads_one = histogram("lambda a, b: a + b", ScalarType::Float64, true, "0");
  record(*reads_one, kPartialsAttribute, "[\"H\"]");
  CHECK(codegen_error(*reads_one)
            .find("map attribute weir_partials names `H`, which the dependence analysis "
                  "does not prove safe for per-thread partials (proved: none)") != std::string::npos);
  auto malformed = histogram("lambda a, b: a + b", ScalarType::Float64);
  record(*malformed, kPartialsAttribute, "\"H\"");
  CHECK(codegen_error(*malformed)
            .find("map attribute weir_partials is \"H\", expected a JSON array of container names") !=
        std::string::npos);
}
