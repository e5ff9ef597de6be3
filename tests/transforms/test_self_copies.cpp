// Copies within one container, as DaCe writes `p[0, :] = p[1, :]`: an edge between two access
// nodes of `p` whose memlet names `p` at both ends, so `is_data_src` (or its default, the source)
// says which end `subset` is on, `other_subset` being the other. Each SDFG runs on the cpu
// backend as built, after a JSON round trip, after auto_optimize, and on the reference
// interpreter; every run must give the values NumPy gives (worked out by hand below: NumPy's
// slice assignment reads its whole source first, so overlapping copies behave as memmove).
// Regression: the cpu backend copied row 0 into row 1.
#include <cstring>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/redundant_array_removal.h"

using namespace weir;
using namespace weir::test;

namespace {

/// An SDFG over `p` of shape `shape` (symbols N, M) with one state copying between two access
/// nodes of p with `m`.
std::unique_ptr<SDFG> self_copy(const std::vector<std::string>& shape, const Memlet& m) {
  auto sdfg = std::make_unique<SDFG>("self_copy");
  std::vector<sym::Expr> sh;
  for (const auto& s : shape) {
    sdfg->add_symbol(s);
    sh.push_back(E(s));
  }
  sdfg->add_array("p", ScalarType::Float64, sh);
  auto& st = sdfg->add_state("s0", true);
  auto& r = st.add_access("p");
  auto& w = st.add_access("p");
  st.add_edge(r.id(), "", w.id(), "", m);
  return sdfg;
}

Memlet copy_memlet(const std::string& subset, const std::string& other, std::optional<bool> is_data_src) {
  Memlet m = M("p", subset);
  m.other_subset = S(other);
  m.is_data_src = is_data_src;
  return m;
}

/// p after running `sdfg` on the cpu backend with p = `init` (symbols from `syms`).
std::vector<double> on_cpu(const SDFG& sdfg, const Symbols& syms, const std::vector<double>& init) {
  use_scratch_cache();
  runtime::Arguments args;
  std::vector<std::int64_t> shape;
  for (const auto& e : sdfg.data("p").shape) shape.push_back(e.evaluate(syms));
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, shape);
  REQUIRE(static_cast<std::size_t>(f.size()) == init.size());
  std::memcpy(f.data(), init.data(), init.size() * sizeof(double));
  args.arrays.emplace("p", std::move(f));
  for (const auto& [k, v] : syms) args.values[k] = static_cast<std::int64_t>(v);
  auto backend = runtime::make_cpu_backend();
  runtime::run(*backend,
               runtime::CompilableProgram{std::shared_ptr<const SDFG>(sdfg.clone_sdfg()), {}, sdfg.name},
               args);
  std::vector<double> out;
  for (std::int64_t i = 0; i < args.arrays.at("p").size(); ++i)
    out.push_back(args.arrays.at("p").value_as_double(i));
  return out;
}

std::vector<double> on_interpreter(const SDFG& sdfg, const Symbols& syms, const std::vector<double>& init) {
  Interpreter it(sdfg, syms);
  it.mem["p"] = init;
  it.run();
  return it.mem["p"];
}

/// Every path gives `expect`.
void check_all_paths(SDFG& sdfg, const Symbols& syms, const std::vector<double>& init,
                     const std::vector<double>& expect) {
  require_valid(sdfg);
  CHECK(on_interpreter(sdfg, syms, init) == expect);
  CHECK(on_cpu(sdfg, syms, init) == expect);
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(sdfg));
  CHECK(on_cpu(*reloaded, syms, init) == expect);
  auto optimized = sdfg.clone_sdfg();
  transforms::auto_optimize(*optimized, DeviceType::CPU);
  require_valid(*optimized);
  CHECK(on_cpu(*optimized, syms, init) == expect);
  CHECK(on_interpreter(*optimized, syms, init) == expect);
}

std::vector<double> iota(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(10 * i + 1);
  return v;
}

}  // namespace

TEST_CASE("self-copy: DaCe's p[0, :] = p[1, :] (subset on the destination, is_data_src false)",
          "[transforms][self-copy]") {
  auto sdfg = self_copy({"N", "M"}, copy_memlet("0, 0:M", "1, 0:M", false));
  // p = [[1, 11, 21], [31, 41, 51], [61, 71, 81]]: row 0 becomes row 1.
  check_all_paths(*sdfg, {{"N", 3}, {"M", 3}}, iota(9), {31, 41, 51, 31, 41, 51, 61, 71, 81});
}

TEST_CASE("self-copy: the same copy with the subset on the source (is_data_src true, or unset)",
          "[transforms][self-copy]") {
  for (std::optional<bool> hint : {std::optional<bool>(true), std::optional<bool>()}) {
    INFO("is_data_src " << (hint ? "true" : "unset"));
    auto sdfg = self_copy({"N", "M"}, copy_memlet("1, 0:M", "0, 0:M", hint));
    check_all_paths(*sdfg, {{"N", 3}, {"M", 3}}, iota(9), {31, 41, 51, 31, 41, 51, 61, 71, 81});
  }
}

TEST_CASE("self-copy: a column copy p[:, 2] = p[:, 0] (strided)", "[transforms][self-copy]") {
  auto sdfg = self_copy({"N", "M"}, copy_memlet("0:N, 2", "0:N, 0", false));
  check_all_paths(*sdfg, {{"N", 2}, {"M", 3}}, iota(6), {1, 11, 1, 31, 41, 31});
}

TEST_CASE("self-copy: overlapping copies read their whole source first, both directions",
          "[transforms][self-copy]") {
  // NumPy: p = [1, 11, 21, 31, 41]; p[0:3] = p[1:4] -> [11, 21, 31, 31, 41]
  auto left = self_copy({"N"}, copy_memlet("0:3", "1:4", false));
  check_all_paths(*left, {{"N", 5}}, iota(5), {11, 21, 31, 31, 41});
  // p[1:4] = p[0:3] -> [1, 1, 11, 21, 41] (a forward element loop would give [1, 1, 1, 1, 41])
  auto right = self_copy({"N"}, copy_memlet("1:4", "0:3", false));
  check_all_paths(*right, {{"N", 5}}, iota(5), {1, 1, 11, 21, 41});
  // The same, the subset on the source: p[1:N] = p[0:N-1]
  auto src_side = self_copy({"N"}, copy_memlet("0:N-1", "1:N", true));
  check_all_paths(*src_side, {{"N", 5}}, iota(5), {1, 1, 11, 21, 31});
  // A whole-array self-copy changes nothing.
  auto whole = self_copy({"N"}, copy_memlet("0:N", "0:N", false));
  check_all_paths(*whole, {{"N", 4}}, iota(4), iota(4));
}

TEST_CASE("self-copy: a reversed subset p[::-1] = p (step -1 on the destination)",
          "[transforms][self-copy]") {
  // NumPy: p = [1, 11, 21, 31]; p[::-1] = p -> [31, 21, 11, 1]
  Memlet m = M("p", "0:N");
  m.subset = Subset({Range(E("N - 1"), E("0"), E("-1"))});
  m.other_subset = S("0:N");
  m.is_data_src = false;
  auto sdfg = self_copy({"N"}, m);
  check_all_paths(*sdfg, {{"N", 4}}, iota(4), {31, 21, 11, 1});
}

namespace {

/// Applies RedundantArrayRemoval at its first applicable match; the reasons of refusals otherwise.
std::string remove_redundant(SDFG& sdfg) {
  transforms::RedundantArrayRemoval rar;
  transforms::AnalysisCache cache;
  std::string reasons;
  for (auto& c : transforms::find_matches(sdfg, rar, cache)) {
    if (c.result) {
      transforms::apply_transactional(sdfg, rar, c.match, cache);
      return "";
    }
    reasons += c.result.reason() + "\n";
  }
  return reasons.empty() ? "no candidate" : reasons;
}

/// p (read) -> T by each of `into` (memlets of the edges from p's read node into T), then T ->
/// p (a second node) in full; p and the transient T have shape N.
std::unique_ptr<SDFG> through_transient(const std::vector<Memlet>& into) {
  auto sdfg = std::make_unique<SDFG>("through_transient");
  sdfg->add_symbol("N");
  sdfg->add_array("p", ScalarType::Float64, {E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  auto& st = sdfg->add_state("s0", true);
  auto& r = st.add_access("p");
  auto& t = st.add_access("T");
  auto& w = st.add_access("p");
  for (const Memlet& m : into) st.add_edge(r.id(), "", t.id(), "", m);
  st.add_edge(t.id(), "", w.id(), "", M("T", "0:N"));
  return sdfg;
}

}  // namespace

TEST_CASE("RedundantArrayRemoval: a transient between two nodes of one array keeps the copy's direction",
          "[transforms][self-copy][redundant-array-removal]") {
  // T = p[::-1] (the memlet names T, the destination; other_subset the reversed source), then
  // p = T. Once T is gone the edge p -> p names p at both ends: it must still copy p[::-1] into
  // p, reading all of p first. NumPy: p = [1, 11, 21, 31]; p[:] = p[::-1].copy() -> [31, 21, 11, 1]
  Memlet in = M("T", "0:N");
  in.other_subset = Subset({Range(E("N - 1"), E("0"), E("-1"))});
  auto sdfg = through_transient({in});
  Symbols syms{{"N", 4}};
  std::vector<double> expect{31, 21, 11, 1};
  check_all_paths(*sdfg, syms, iota(4), expect);
  REQUIRE(remove_redundant(*sdfg) == "");
  CHECK_FALSE(sdfg->has_data("T"));
  check_all_paths(*sdfg, syms, iota(4), expect);
}

TEST_CASE("RedundantArrayRemoval: refuses when the array is still read by another copy into the transient",
          "[transforms][self-copy][redundant-array-removal]") {
  // A rotation: T[0:N-1] = p[1:N], T[N-1] = p[0], p = T. Writing p directly would let one copy
  // overwrite p[0] before the other reads it. NumPy: np.roll([1, 11, 21, 31, 41], -1)
  Memlet body = M("T", "0:N-1");
  body.other_subset = S("1:N");
  Memlet wrap = M("p", "0");
  wrap.other_subset = S("N-1");
  auto sdfg = through_transient({body, wrap});
  Symbols syms{{"N", 5}};
  std::vector<double> expect{11, 21, 31, 41, 1};
  check_all_paths(*sdfg, syms, iota(5), expect);
  CHECK_THAT(remove_redundant(*sdfg), Catch::Contains("'p' is read by the writers of 'T'"));
}
