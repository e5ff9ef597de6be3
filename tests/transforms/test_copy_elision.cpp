// copy-elision on lowered scans: an operator that returns one result of a two-result scan makes
// the lowering write both results into volume transients and copy one into the output with a
// map (issue 16: such transients made a first call slow). The pass lets the scan write the
// output and drops the write of the unused result; outputs (reference interpreter, hand-computed
// prefix sums) stay the same. Refusals: the output accessed elsewhere, the transient read twice.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "support/builders.h"
#include "support/interpreter.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/simplify.h"

using namespace weir;

namespace {

// `first` returns the running sum of a scan that also carries a running product.
const char* const kSource = R"(
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
F = Field[Dims[I, K], float64]


@gtx.scan_operator(axis=K, forward=True, init=(0.0, 1.0))
def two(carry: tuple[float64, float64], x: float64) -> tuple[float64, float64]:
    a, b = carry
    return a + x, b * x


@gtx.field_operator
def first(f: F) -> F:
    a, b = two(f)
    return a


@gtx.field_operator
def both(f: F) -> F:
    a, b = two(f)
    return a + b


@gtx.field_operator
def plus1(f: F) -> F:
    return f + 1.0


@gtx.program
def prog(f: F, out: F):
    first(f, out=out)


@gtx.program
def prog_both(f: F, out: F):
    both(f, out=out)


@gtx.program
def prog_out_read(f: F, out: F, out2: F):
    first(f, out=out)
    plus1(out, out=out2)


@gtx.field_operator
def all_results(f: F) -> tuple[F, F]:
    a, b = two(f)
    return a, b


@gtx.field_operator
def swapped(f: F) -> tuple[F, F]:
    a, b = two(f)
    return b, a


@gtx.field_operator
def first_twice(f: F) -> tuple[F, F]:
    a, b = two(f)
    return a, a


@gtx.program
def prog_all(f: F, out: F, out2: F):
    all_results(f, out=(out, out2))


@gtx.program
def prog_swapped(f: F, out: F, out2: F):
    swapped(f, out=(out, out2))


@gtx.program
def prog_first_twice(f: F, out: F, out2: F):
    first_twice(f, out=(out, out2))


@gtx.program
def prog_all_read(f: F, out: F, out2: F, out3: F):
    all_results(f, out=(out, out2))
    plus1(out2, out=out3)
)";

std::unique_ptr<SDFG> lower(const std::string& program) {
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const frontend::LoadedModule& m = loader.load_source(frontend::SourceFile("scan.py", kSource));
  frontend::TypeChecker tc;
  for (const auto& d : m.definitions)
    if (d->name == program) return frontend::lower_to_sdfg(tc.check(*d));
  FAIL("no program " << program);
  return nullptr;
}

/// The names of the transients over (I, K): the scan's results.
std::set<std::string> volume_transients(const SDFG& sdfg) {
  std::set<std::string> out;
  for (const auto& [name, d] : sdfg.arrays)
    if (d.transient && d.shape.size() == 2) out.insert(name);
  return out;
}

std::size_t run_pass(SDFG& sdfg, const std::string& name) {
  transforms::AnalysisCache cache;
  return transforms::make_pass(name)->run(sdfg, cache);
}

constexpr long long kI = 3, kK = 5;

/// Every array over (I, K) is 3 x 5.
test::Symbols sizes(const SDFG& sdfg) {
  test::Symbols s;
  auto ends_with = [](const std::string& n, const char* tail) {
    const std::string t(tail);
    return n.size() > t.size() && n.compare(n.size() - t.size(), t.size(), t) == 0;
  };
  for (const auto& [name, type] : sdfg.symbols) {
    if (ends_with(name, "_I_size")) s[name] = kI;
    if (ends_with(name, "_K_size")) s[name] = kK;
  }
  return s;
}

/// Runs `sdfg` on seeded inputs in the reference interpreter; its arrays afterwards.
test::Arrays run(const SDFG& sdfg) {
  test::Interpreter in(sdfg, sizes(sdfg), true);
  in.randomize(7);
  in.run();
  return in.mem;
}

/// The running sum of f along K (f is I x K, row-major), computed here.
std::vector<double> running_sum(const std::vector<double>& f) {
  std::vector<double> out(f.size());
  for (long long i = 0; i < kI; ++i) {
    double acc = 0.0;
    for (long long k = 0; k < kK; ++k) out[i * kK + k] = acc += f[i * kK + k];
  }
  return out;
}

/// The running product of f along K, computed here.
std::vector<double> running_product(const std::vector<double>& f) {
  std::vector<double> out(f.size());
  for (long long i = 0; i < kI; ++i) {
    double acc = 1.0;
    for (long long k = 0; k < kK; ++k) out[i * kK + k] = acc *= f[i * kK + k];
  }
  return out;
}

std::size_t count_maps(const SDFG& sdfg) {
  std::size_t maps = 0;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes()) maps += n->as<MapEntry>() != nullptr;
  return maps;
}

}  // namespace

TEST_CASE("copy-elision: a scan writes the output its result was copied into", "[transforms][copy-elision]") {
  auto sdfg = lower("prog");
  test::require_valid(*sdfg);
  // Lowered: both scan results in volume transients, a map copies the first into `out`.
  REQUIRE(volume_transients(*sdfg) == std::set<std::string>{"__scan0_0", "__scan0_1"});
  test::Arrays before = run(*sdfg);
  CHECK(before.at("out") == running_sum(before.at("f")));

  CHECK(run_pass(*sdfg, "copy-elision") == 1);
  test::require_valid(*sdfg);
  CHECK(volume_transients(*sdfg).empty());
  // The copy map is gone; the unused result's assignment left the scan's tasklet.
  std::size_t maps = 0;
  for (const SDFGState* st : sdfg->all_states())
    for (const Node* n : st->nodes()) {
      if (n->as<MapEntry>()) ++maps;
      if (const auto* t = n->as<Tasklet>()) CHECK(t->code.code.find("__out_1") == std::string::npos);
    }
  CHECK(maps == 2);  // the scan's init and level maps
  test::Arrays after = run(*sdfg);
  CHECK(after.at("f") == before.at("f"));
  CHECK(after.at("out") == before.at("out"));
  // Nothing left to elide.
  CHECK(run_pass(*sdfg, "copy-elision") == 0);
}

TEST_CASE("copy-elision: auto_optimize keeps no volume transient of the scan", "[transforms][copy-elision]") {
  auto sdfg = lower("prog");
  test::Arrays before = run(*sdfg);
  transforms::auto_optimize(*sdfg, DeviceType::CPU);
  test::require_valid(*sdfg);
  CHECK(sdfg->arrays.size() == 2);  // f, out
  CHECK(run(*sdfg).at("out") == before.at("out"));
}

TEST_CASE("copy-elision: refused where the output or the transient is used elsewhere",
          "[transforms][copy-elision]") {
  SECTION("the operator reads both results: no plain copy") {
    auto sdfg = lower("prog_both");
    CHECK(run_pass(*sdfg, "copy-elision") == 0);
    CHECK(volume_transients(*sdfg) == std::set<std::string>{"__scan0_0", "__scan0_1"});
  }
  SECTION("a condition may skip the copy") {
    // Only when n > 0 does the copy run: writing `out` at the scan would change it for n <= 0.
    auto sdfg = lower("prog");
    sdfg->add_symbol("n");
    std::size_t conditioned = 0;
    for (const ControlFlowEdge* e : sdfg->edges())
      if (sdfg->block(e->dst).label == "call_0_first") {
        sdfg->edge(e->id).data.condition = CodeBlock{"n > 0", Language::Python};
        ++conditioned;
      }
    REQUIRE(conditioned == 1);
    test::require_valid(*sdfg);
    CHECK(run_pass(*sdfg, "copy-elision") == 0);
    CHECK(volume_transients(*sdfg) == std::set<std::string>{"__scan0_0", "__scan0_1"});
  }
  SECTION("the output is read by a later call") {
    auto sdfg = lower("prog_out_read");
    test::Arrays before = run(*sdfg);
    CHECK(run_pass(*sdfg, "copy-elision") == 0);
    CHECK(volume_transients(*sdfg) == std::set<std::string>{"__scan0_0", "__scan0_1"});
    CHECK(run(*sdfg).at("out2") == before.at("out2"));
  }
}

TEST_CASE("copy-elision: an operator returning all results of a scan lets the scan write every output",
          "[transforms][copy-elision]") {
  // Issue 16, friction 3: `a, b = scan(f); return a, b` lowers to one map copying both
  // volume transients into the outputs; each copy goes, the scan writes `out` and `out2`.
  for (const char* program : {"prog_all", "prog_swapped"}) {
    INFO(program);
    const bool swap = std::string(program) == "prog_swapped";
    auto sdfg = lower(program);
    test::require_valid(*sdfg);
    REQUIRE(volume_transients(*sdfg) == std::set<std::string>{"__scan0_0", "__scan0_1"});
    CHECK(count_maps(*sdfg) == 3);  // the scan's init and level maps, the copy map
    test::Arrays before = run(*sdfg);
    const std::vector<double> sum = running_sum(before.at("f")), product = running_product(before.at("f"));
    CHECK(before.at("out") == (swap ? product : sum));
    CHECK(before.at("out2") == (swap ? sum : product));

    CHECK(run_pass(*sdfg, "copy-elision") == 2);  // two arrays no longer copied
    test::require_valid(*sdfg);
    CHECK(volume_transients(*sdfg).empty());
    CHECK(count_maps(*sdfg) == 2);
    test::Arrays after = run(*sdfg);
    CHECK(after.at("out") == before.at("out"));
    CHECK(after.at("out2") == before.at("out2"));
    CHECK(run_pass(*sdfg, "copy-elision") == 0);
  }
  SECTION("auto_optimize keeps f, out and out2 only") {
    auto sdfg = lower("prog_all");
    test::Arrays before = run(*sdfg);
    transforms::auto_optimize(*sdfg, DeviceType::CPU);
    test::require_valid(*sdfg);
    CHECK(sdfg->arrays.size() == 3);
    test::Arrays after = run(*sdfg);
    CHECK(after.at("out") == before.at("out"));
    CHECK(after.at("out2") == before.at("out2"));
  }
}

TEST_CASE("copy-elision: a copy map of several results goes as a whole or stays",
          "[transforms][copy-elision]") {
  SECTION("one result copied into two outputs: the scan cannot write both") {
    auto sdfg = lower("prog_first_twice");
    test::Arrays before = run(*sdfg);
    CHECK(before.at("out") == running_sum(before.at("f")));
    CHECK(before.at("out2") == before.at("out"));
    CHECK(run_pass(*sdfg, "copy-elision") == 0);
    test::Arrays after = run(*sdfg);
    CHECK(after.at("out") == before.at("out"));
    CHECK(after.at("out2") == before.at("out2"));
  }
  SECTION("one of the outputs is read by a later call") {
    auto sdfg = lower("prog_all_read");
    test::Arrays before = run(*sdfg);
    CHECK(run_pass(*sdfg, "copy-elision") == 0);
    CHECK(volume_transients(*sdfg) == std::set<std::string>{"__scan0_0", "__scan0_1"});
    test::Arrays after = run(*sdfg);
    for (const char* o : {"out", "out2", "out3"}) CHECK(after.at(o) == before.at(o));
  }
}
