// Every disagreement the field-view fuzzer found, as a fixed small program with values worked
// out by hand, run on each variant (embedded, cpu as lowered, cpu auto-optimized). The test
// name gives the seed and program number that found it.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "corpus.h"
#include "driver.h"
#include "weir/runtime/allocator.h"

using namespace weir;
using namespace weir::fvdiff;

namespace {

runtime::Field f64(std::vector<std::int64_t> shape, const std::vector<double>& v) {
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, std::move(shape));
  REQUIRE(static_cast<std::size_t>(f.size()) == v.size());
  std::memcpy(f.data(), v.data(), v.size() * sizeof(double));
  return f;
}

/// Runs `program` of `source` on every variant with fresh copies of `arrays`; checks that each
/// ran and that `out` holds exactly `want` (bit for bit: the values are exact by construction).
void check_everywhere(const std::string& source, const std::string& program,
                      const std::map<std::string, runtime::Field>& arrays, const std::string& out,
                      const std::vector<double>& want) {
  ::setenv("WEIR_CACHE_DIR", test::shared_cache_dir("fvdiff-regressions").c_str(), 1);
  runtime::FieldViewProgram fv = runtime::load_field_view_source(source, program);
  for (const std::string& variant : variants()) {
    INFO("variant " << variant);
    runtime::Arguments args;
    for (const auto& [name, f] : arrays) args.arrays.emplace(name, f.clone());
    REQUIRE(run_variant(variant, fv, args) == "");
    const runtime::Field& got = args.arrays.at(out);
    REQUIRE(static_cast<std::size_t>(got.size()) == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO("index " << i);
      CHECK(got.value_as_double(static_cast<std::int64_t>(i)) == want[i]);
    }
  }
}

const char* kHeader =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Dims, Field, float64\n"
    "from gt4py.next.experimental import concat_where\n"
    "IDim = gtx.Dimension(\"I\")\n"
    "JDim = gtx.Dimension(\"J\")\n";

/// Runs program `number` of `seed` through the fuzzer's driver: no finding, and refused by every
/// variant alike when `refused`.
void check_seeded(std::uint64_t seed, std::uint64_t number, bool refused) {
  DriverOptions o;
  o.seed = seed;
  o.first = number;
  o.count = 1;
  o.dir = test::scratch_dir("fvdiff-" + std::to_string(seed) + "-" + std::to_string(number));
  RunSummary s = run_fuzz(o);
  std::string report;
  for (const Finding& f : s.findings) report += f.str() + "\n";
  INFO(report);
  CHECK(s.findings.empty());
  CHECK(s.programs == 1);
  CHECK(s.refused == (refused ? 1 : 0));
}

/// kHeader, K, and the decorator of a forward scan along K starting at 0.
const std::string kScanPrelude = std::string(kHeader) +
                                 "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                                 "@gtx.scan_operator(axis=KDim, forward=True, init=0.0)\n";

}  // namespace

TEST_CASE(
    "fvdiff regression (seed 1, programs 20, 32, 36): the cpu backend rounds a * b + c twice, never as one "
    "fma",
    "[fvdiff][regression]") {
  // a * b = 1 - 2^-60 rounds to 1, so a * b - 1 is 0 with one rounding per operation (gt4py,
  // NumPy, the embedded backend); an fma gives -2^-60.
  std::string src = std::string(kHeader) +
                    "@gtx.field_operator\n"
                    "def muladd(a: Field[Dims[IDim], float64], b: Field[Dims[IDim], float64], c: "
                    "Field[Dims[IDim], float64]) -> Field[Dims[IDim], float64]:\n"
                    "    return a * b + c\n"
                    "@gtx.program\n"
                    "def p(a: Field[Dims[IDim], float64], b: Field[Dims[IDim], float64], c: "
                    "Field[Dims[IDim], float64], o: Field[Dims[IDim], float64]):\n"
                    "    muladd(a, b, c, out=o)\n";
  const double e = std::ldexp(1.0, -30);
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2}, {1 + e, 3}));
  arrays.emplace("b", f64({2}, {1 - e, 0.5}));
  arrays.emplace("c", f64({2}, {-1, 0.25}));
  arrays.emplace("o", f64({2}, {7, 7}));
  check_everywhere(src, "p", arrays, "o", {0.0, 1.75});
}

TEST_CASE("fvdiff regression (seed 1, program 12): concat_where on J over an (I, J) field is an (I, J) field",
          "[fvdiff][regression]") {
  // The domain condition's dimension J came first: the result was typed Field[[J, I]] and the
  // annotation refused; so was `w + u` with w over J. gt4py keeps the operands' order: [J]
  // with [I, J] is [I, J].
  std::string src = std::string(kHeader) +
                    "@gtx.field_operator\n"
                    "def dj(u: Field[Dims[IDim, JDim], float64], w: Field[Dims[JDim], float64]) -> "
                    "Field[Dims[IDim, JDim], float64]:\n"
                    "    return w + concat_where(JDim == 0, 0.0, u * 2.0)\n"
                    "@gtx.program\n"
                    "def p(u: Field[Dims[IDim, JDim], float64], w: Field[Dims[JDim], float64], o: "
                    "Field[Dims[IDim, JDim], float64]):\n"
                    "    dj(u, w, out=o)\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("u", f64({2, 3}, {1, 2, 4, 8, 16, 32}));
  arrays.emplace("w", f64({3}, {0.5, 0.25, 0.125}));
  arrays.emplace("o", f64({2, 3}, {-1, -1, -1, -1, -1, -1}));
  check_everywhere(src, "p", arrays, "o", {0.5, 4.25, 8.125, 0.5, 32.25, 64.125});
}

TEST_CASE("fvdiff regression (seed 1001, program 153): x ** 3 on cpu is pow(x, 3), not x * x * x",
          "[fvdiff][regression]") {
  // (x * x) * x rounds twice: for x = 1 + 11e-5 it is 1 ulp below pow(x, 3), the meaning of **
  // in the embedded backend and NumPy. Both spellings of the exponent (int and float).
  std::string src =
      std::string(kHeader) +
      "@gtx.field_operator\n"
      "def cube(a: Field[Dims[IDim], float64]) -> tuple[Field[Dims[IDim], float64], Field[Dims[IDim], "
      "float64]]:\n"
      "    return a ** 3, a ** 3.0\n"
      "@gtx.program\n"
      "def p(a: Field[Dims[IDim], float64], o: Field[Dims[IDim], float64], o2: Field[Dims[IDim], float64]):\n"
      "    cube(a, out=(o, o2))\n";
  const double x = 1.0 + 11 * 1e-5;
  const double want = std::pow(x, 3.0);
  REQUIRE(want != x * x * x);  // the input shows the difference
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2}, {x, 2.0}));
  arrays.emplace("o", f64({2}, {0, 0}));
  arrays.emplace("o2", f64({2}, {0, 0}));
  check_everywhere(src, "p", arrays, "o", {want, 8.0});
  check_everywhere(src, "p", arrays, "o2", {want, 8.0});
}

TEST_CASE("fvdiff regression (seed 1, program 176): a scan into a K-sliced output writes where the slice is",
          "[fvdiff][regression]") {
  // LoopMapInterchange gave the column's nested SDFG outer memlets starting where the run's
  // accesses start (K = 2 for out=o[:, 2:]); the nested SDFG indexes from that start, so every
  // write moved 2 levels up and past the array (heap corruption on cpu after auto-optimize).
  std::string src = std::string(kHeader) +
                    "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                    "@gtx.scan_operator(axis=KDim, forward=False, init=0.0)\n"
                    "def acc(carry: float64, x: float64) -> float64:\n"
                    "    return carry + x\n"
                    "@gtx.field_operator\n"
                    "def f(a: Field[Dims[IDim, KDim], float64]) -> Field[Dims[IDim, KDim], float64]:\n"
                    "    return acc(a(KDim - 1))\n"
                    "@gtx.program\n"
                    "def p(a: Field[Dims[IDim, KDim], float64], o: Field[Dims[IDim, KDim], float64]):\n"
                    "    f(a, out=o[:, 2:])\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2, 4}, {1, 2, 3, 4, 10, 20, 30, 40}));
  arrays.emplace("o", f64({2, 4}, {-1, -1, -1, -1, -1, -1, -1, -1}));
  // Backward from K = 3: o[3] = a[2]; o[2] = o[3] + a[1]; K = 0, 1 keep their values.
  check_everywhere(src, "p", arrays, "o", {-1, -1, 5, 3, -1, -1, 50, 30});
}

TEST_CASE(
    "fvdiff regression (seed 1, programs 0..54 together): a map parameter shadows a scan's loop symbol of "
    "its name",
    "[fvdiff][regression]") {
  // The scan's loop variable is the SDFG symbol __K (-1 after a backward scan); the next call's
  // map over (I, K) names its parameter __K too. The bounds checks of the lowered SDFG took the
  // map's inner memlet a[__I, __K - 1] for one of the symbol's value (a[.., -2]: "reads
  // a[-2 .. -2]") instead of ranging over the map. Only batches with both kinds of call failed
  // (each program alone passed), which the fuzzer now reports as a finding of its own.
  std::string src = std::string(kHeader) +
                    "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                    "@gtx.scan_operator(axis=KDim, forward=False, init=0.0)\n"
                    "def acc(carry: float64, x: float64) -> float64:\n"
                    "    return carry + x\n"
                    "@gtx.field_operator\n"
                    "def up(a: Field[Dims[IDim, KDim], float64]) -> Field[Dims[IDim, KDim], float64]:\n"
                    "    return a(KDim + 1) - a(KDim - 1)\n"
                    "@gtx.program\n"
                    "def p(a: Field[Dims[IDim, KDim], float64], s: Field[Dims[IDim, KDim], float64], o: "
                    "Field[Dims[IDim, KDim], float64]):\n"
                    "    acc(a, out=s)\n"
                    "    up(a, out=o, domain={IDim: (0, 2), KDim: (1, 3)})\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2, 4}, {1, 2, 4, 8, 16, 32, 64, 128}));
  arrays.emplace("s", f64({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0}));
  arrays.emplace("o", f64({2, 4}, {-1, -1, -1, -1, -1, -1, -1, -1}));
  // o[i, k] = a[i, k + 1] - a[i, k - 1] for k = 1, 2: 4 - 1, 8 - 2; 64 - 16, 128 - 32.
  check_everywhere(src, "p", arrays, "o", {-1, 3, 6, -1, -1, 48, 96, -1});
  // The backward scan: suffix sums.
  check_everywhere(src, "p", arrays, "s", {15, 14, 12, 8, 240, 224, 192, 128});
}

TEST_CASE("fvdiff regression (seed 7, program 65): a concat_where written to an empty slice writes nothing",
          "[fvdiff][regression]") {
  // out=o[:, 2:2] is empty along K, and the branches' K extents ([-3, 0) and [3, 6)) do not
  // meet. The embedded backend trimmed the concat_where's empty result in every dimension and
  // then refused it for not covering I.
  std::string src = std::string(kHeader) +
                    "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                    "@gtx.field_operator\n"
                    "def f(a: Field[Dims[IDim, KDim], float64]) -> Field[Dims[IDim, KDim], float64]:\n"
                    "    return concat_where(IDim > 0, a(KDim + 3), a(KDim - 3))\n"
                    "@gtx.program\n"
                    "def p(a: Field[Dims[IDim, KDim], float64], o: Field[Dims[IDim, KDim], float64]):\n"
                    "    f(a, out=o[:, 2:2])\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2, 3}, {1, 2, 3, 4, 5, 6}));
  arrays.emplace("o", f64({2, 3}, {-1, -2, -3, -4, -5, -6}));
  check_everywhere(src, "p", arrays, "o", {-1, -2, -3, -4, -5, -6});
}

TEST_CASE("fvdiff regression (seed 7, program 521): a call over an empty domain validates and writes nothing",
          "[fvdiff][regression]") {
  // domain K (0, 0): the lowered map's outer memlet of `a` is a[0:2, 0:-1] (end before start,
  // step 1: empty); the validator took it for an index -1 outside a. (With a read at a negative
  // K offset the lowering still gives a one-point outer memlet a[.., -1], refused: open.)
  std::string src = std::string(kHeader) +
                    "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                    "@gtx.field_operator\n"
                    "def f(a: Field[Dims[IDim, KDim], float64]) -> Field[Dims[IDim, KDim], float64]:\n"
                    "    return 2.0 * a\n"
                    "@gtx.program\n"
                    "def p(a: Field[Dims[IDim, KDim], float64], o: Field[Dims[IDim, KDim], float64]):\n"
                    "    f(a, out=o, domain={IDim: (0, 2), KDim: (0, 0)})\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2, 3}, {1, 2, 3, 4, 5, 6}));
  arrays.emplace("o", f64({2, 3}, {-1, -2, -3, -4, -5, -6}));
  check_everywhere(src, "p", arrays, "o", {-1, -2, -3, -4, -5, -6});
}

TEST_CASE(
    "fvdiff regression (seed 2004, program 304): a scan reading outside its input is refused after "
    "auto-optimize",
    "[fvdiff][regression][security]") {
  // scan(-a2(J - 1)) over the whole J range reads a2 at J = -1. The lowered SDFG's checks refused
  // it; after auto_optimize the read sat inside the scan's nested SDFG, whose outer memlets fit,
  // and the program ran. Bounds checks inside nested SDFG bodies (ADR 0005) refuse it now.
  check_seeded(2004, 304, true);
}

TEST_CASE(
    "fvdiff regression (seed 2004, program 304, by hand): every variant refuses a scan over a shifted read",
    "[fvdiff][regression][security]") {
  ::setenv("WEIR_CACHE_DIR", test::shared_cache_dir("fvdiff-regressions").c_str(), 1);
  std::string src =
      kScanPrelude +
      "def s0(c0: float64, x0: float64) -> float64:\n"
      "    return c0 + x0\n"
      "@gtx.field_operator\n"
      "def f(a2: Field[Dims[IDim, JDim, KDim], float64]) -> Field[Dims[IDim, JDim, KDim], float64]:\n"
      "    return s0(-a2(JDim - 1))\n"
      "@gtx.program\n"
      "def p(a2: Field[Dims[IDim, JDim, KDim], float64], o: Field[Dims[IDim, JDim, KDim], float64]):\n"
      "    f(a2, out=o)\n";
  runtime::FieldViewProgram fv = runtime::load_field_view_source(src, "p");
  std::vector<double> zeros(24, 0.0), marks(24, -1.0);
  for (const std::string& variant : variants()) {
    INFO("variant " << variant);
    runtime::Arguments args;
    args.arrays.emplace("a2", f64({2, 3, 4}, zeros));
    args.arrays.emplace("o", f64({2, 3, 4}, marks));
    std::string error = run_variant(variant, fv, args);
    INFO(error);
    CHECK(error != "");
    // After auto_optimize the scan's first level runs in blocks of columns (ScanColumnBlocking,
    // which since session 35 takes the column index as a symbol of the nested SDFG): the check
    // is the block map's, over the block's columns, J in [-1, 2).
    if (variant == "cpu") {
      CHECK_THAT(error, Catch::Contains("'a2' is read over J: [-1, 2), outside its domain J: [0, 3)"));
      CHECK_THAT(error,
                 Catch::Contains("nested SDFG 'scan0_s0_init_column', state 'scan0_s0/scan0_s0_level', "
                                 "map 'colblock_scan0_s0_level': reads a2[-1 .. 1] in dimension 1 of a2 with "
                                 "shape 3 (shifted reads need a larger input or a smaller output domain)"));
    }
    // The lowered SDFG is refused before anything is written; after auto_optimize the scan's
    // initialisation (zeros) writes `o` in the state that then fails.
    if (variant == "embedded" || variant == "cpu-lowered")
      for (std::int64_t i = 0; i < 24; ++i) CHECK(args.arrays.at("o").value_as_double(i) == -1.0);
  }
}

TEST_CASE(
    "fvdiff regression (seed 9001, program 740): a shifted read in an empty part of a concat_where split "
    "runs",
    "[fvdiff][regression]") {
  // concat_where(K == 2, 0, a - a(K + 1)) over K in [0, 3) splits the domain into K < 2, K == 2
  // and K > 2; the last part is empty, but the CPU expansion's outer map over I still runs, and
  // its propagated read of a is the hull [3, 3] of a[K] and a[K + 1] over K in [3, 2]. The
  // bounds checks refused that (cpu variant only); nothing is read there.
  std::string src = std::string(kHeader) +
                    "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                    "@gtx.field_operator\n"
                    "def f(a: Field[Dims[IDim, KDim], float64]) -> Field[Dims[IDim, KDim], float64]:\n"
                    "    return concat_where(KDim == 2, 0.0, a - a(KDim + 1))\n"
                    "@gtx.program\n"
                    "def p(a: Field[Dims[IDim, KDim], float64], o: Field[Dims[IDim, KDim], float64]):\n"
                    "    f(a, out=o)\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2, 3}, {1, 2, 4, 8, 16, 32}));
  arrays.emplace("o", f64({2, 3}, {-1, -1, -1, -1, -1, -1}));
  // o[i, k] = a[i, k] - a[i, k + 1] for k < 2, 0 at k = 2.
  check_everywhere(src, "p", arrays, "o", {-1, -2, 0, -8, -16, 0});
}

TEST_CASE("fvdiff regression (seed 9002, program 8037): a domain whose start is past its end is empty",
          "[fvdiff][regression]") {
  // gt4py's UnitRange(3, 2) is the empty range: the call writes nothing. The cpu lowering
  // refused it ("domain of 'K' (3, 2) starts after its end") while the embedded backend and
  // NumPy ran it. Constant bounds only; o keeps its values.
  std::string src = std::string(kHeader) +
                    "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                    "@gtx.field_operator\n"
                    "def f(a: Field[Dims[IDim, KDim], float64]) -> Field[Dims[IDim, KDim], float64]:\n"
                    "    return a(KDim + 1) * 2.0\n"
                    "@gtx.program\n"
                    "def p(a: Field[Dims[IDim, KDim], float64], o: Field[Dims[IDim, KDim], float64]):\n"
                    "    f(a, out=o, domain={IDim: (0, 2), KDim: (3, 2)})\n"
                    "    f(a, out=o, domain={IDim: (1, 2), KDim: (1, 2)})\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2, 3}, {1, 2, 4, 8, 16, 32}));
  arrays.emplace("o", f64({2, 3}, {-1, -1, -1, -1, -1, -1}));
  // Only the second call writes: o[1, 1] = 2 * a[1, 2] = 64.
  check_everywhere(src, "p", arrays, "o", {-1, -1, -1, -1, 64, -1});
}

TEST_CASE(
    "fvdiff regression (seed 9002, programs 900, 2401, 2992, 3145): scan arguments and concat_where branches "
    "bound domains as gt4py's",
    "[fvdiff][regression]") {
  // 900, 2401, 2992: a scan operator's argument shifted out of its field, which the scan's body
  // never uses; the embedded backend refused (gt4py's scan reads every argument at every point),
  // the cpu variants never read it and ran. 3145: concat_where(K >= 2, -4, nz) read only where
  // K >= 2; the embedded backend bounded J by nz's domain and refused a valid program.
  for (std::uint64_t n : {900, 2401, 2992, 3145}) {
    INFO("program " << n);
    check_seeded(9002, n, n != 3145);
  }
}

TEST_CASE(
    "fvdiff regression (seed 9002, program 900, by hand): a scan's unused argument shifted out of its field "
    "is refused on every variant",
    "[fvdiff][regression]") {
  ::setenv("WEIR_CACHE_DIR", test::shared_cache_dir("fvdiff-regressions").c_str(), 1);
  std::string src =
      kScanPrelude +
      "def s(c: float64, x0: float64, x1: float64) -> float64:\n"
      "    return c + x1\n"
      "@gtx.field_operator\n"
      "def f(a1: Field[Dims[IDim, KDim], float64], b: Field[Dims[IDim, KDim], float64]) -> "
      "Field[Dims[IDim, KDim], float64]:\n"
      "    return s(a1(IDim + 1), b)\n"
      "@gtx.program\n"
      "def p(a1: Field[Dims[IDim, KDim], float64], b: Field[Dims[IDim, KDim], float64], o: "
      "Field[Dims[IDim, KDim], float64]):\n"
      "    f(a1, b, out=o)\n"
      "@gtx.program\n"
      "def inside(a1: Field[Dims[IDim, KDim], float64], b: Field[Dims[IDim, KDim], float64], o: "
      "Field[Dims[IDim, KDim], float64]):\n"
      "    f(a1, b, out=o, domain={IDim: (0, 1), KDim: (0, 2)})\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a1", f64({2, 2}, {0, 0, 0, 0}));
  arrays.emplace("b", f64({2, 2}, {1, 2, 4, 8}));
  arrays.emplace("o", f64({2, 2}, {-1, -1, -1, -1}));
  // Over I in [0, 1), where a1(IDim + 1) is defined: o[0, k] = b[0, 0] + ... + b[0, k].
  check_everywhere(src, "inside", arrays, "o", {1, 3, -1, -1});
  runtime::FieldViewProgram fv = runtime::load_field_view_source(src, "p");
  for (const std::string& variant : variants()) {
    INFO("variant " << variant);
    runtime::Arguments args;
    for (const auto& [name, f] : arrays) args.arrays.emplace(name, f.clone());
    std::string error = run_variant(variant, fv, args);
    INFO(error);
    if (variant == "embedded")
      CHECK_THAT(error,
                 Catch::Contains("the result of 'f' is computed over (I: [0, 1), K: [0, 2)), which does "
                                 "not cover the output domain of 'o' (I: [0, 2), K: [0, 2))"));
    else
      // In the program's terms the field (also where the GPU code reads a1's device copy), then
      // the container in the SDFG.
      CHECK_THAT(error, Catch::Contains("'a1' is read over I: [") &&
                            Catch::Contains("outside its domain I: [0, 2)") &&
                            Catch::Contains(variant == "cuda-emulation" ? "reads gpu_a1[" : "reads a1["));
  }
}

TEST_CASE(
    "fvdiff regression (seed 9002, program 3145, by hand): concat_where's branch never read does not bound "
    "the result",
    "[fvdiff][regression]") {
  // t0(J - 3, K + 2) over K in [0, 2) reads t0 only at K >= 2: the constant branch, defined at
  // every J, not nz's (J: [0, 2)).
  std::string src = std::string(kHeader) +
                    "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
                    "@gtx.field_operator\n"
                    "def f(nz: Field[Dims[JDim, KDim], float64]) -> Field[Dims[JDim, KDim], float64]:\n"
                    "    t0 = concat_where(KDim >= 2, -4.0, nz)\n"
                    "    return t0(JDim - 3, KDim + 2) * 0.5\n"
                    "@gtx.program\n"
                    "def p(nz: Field[Dims[JDim, KDim], float64], o: Field[Dims[JDim, KDim], float64]):\n"
                    "    f(nz, out=o, domain={KDim: (0, 2)})\n";
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("nz", f64({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
  arrays.emplace("o", f64({2, 4}, {9, 9, 9, 9, 9, 9, 9, 9}));
  check_everywhere(src, "p", arrays, "o", {-2, -2, 9, 9, -2, -2, 9, 9});
}

TEST_CASE(
    "fvdiff regression (seed 9002, program 4220): a backward scan reading past the top of its shifted "
    "argument "
    "is refused",
    "[fvdiff][regression][security]") {
  // s(where(m0, 0.0, 0.0), a2(J + 1, K + 1)) over all of K: the scan's column range is the output's
  // K: [0, 6), but a2(K + 1) is over K: [-1, 5). The embedded backend ran the scan over the
  // column range without checking it against its arguments, and read a2 at K = 6 (the next
  // row's memory); the cpu variants and NumPy refuse it.
  check_seeded(9002, 4220, true);
}

TEST_CASE(
    "fvdiff regression (seed 9002, program 4220, by hand): a scan over levels past its shifted argument is "
    "refused everywhere, and runs over levels inside it",
    "[fvdiff][regression][security]") {
  ::setenv("WEIR_CACHE_DIR", test::shared_cache_dir("fvdiff-regressions").c_str(), 1);
  std::string src =
      std::string(kHeader) +
      "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
      "@gtx.scan_operator(axis=KDim, forward=False, init=(0.0, 1.0))\n"
      "def s(carry: tuple[float64, float64], x0: float64, x1: float64) -> tuple[float64, float64]:\n"
      "    c0, c1 = carry\n"
      "    return 0.5 * c0 + x1, c1 - x0\n"
      "@gtx.field_operator\n"
      "def f(a: Field[Dims[IDim, KDim], float64]) -> tuple[Field[Dims[IDim, KDim], float64], "
      "Field[Dims[IDim, KDim], float64]]:\n"
      "    return s(a, a(KDim + 1))\n"
      "@gtx.program\n"
      "def whole(a: Field[Dims[IDim, KDim], float64], o0: Field[Dims[IDim, KDim], float64], o1: "
      "Field[Dims[IDim, KDim], float64]):\n"
      "    f(a, out=(o0, o1))\n"
      "@gtx.program\n"
      "def part(a: Field[Dims[IDim, KDim], float64], o0: Field[Dims[IDim, KDim], float64], o1: "
      "Field[Dims[IDim, KDim], float64]):\n"
      "    f(a, out=(o0, o1), domain={IDim: (0, 2), KDim: (0, 3)})\n";
  const std::vector<double> a = {1, 2, 3, 4, 10, 20, 30, 40}, marks(8, -1.0);
  runtime::FieldViewProgram fv = runtime::load_field_view_source(src, "whole");
  for (const std::string& variant : variants()) {
    INFO("variant " << variant);
    runtime::Arguments args;
    args.arrays.emplace("a", f64({2, 4}, a));
    args.arrays.emplace("o0", f64({2, 4}, marks));
    args.arrays.emplace("o1", f64({2, 4}, marks));
    std::string error = run_variant(variant, fv, args);
    INFO(error);
    CHECK(error != "");
    if (variant == "embedded") {
      CHECK(error ==
            "<source>.py:13:12: scan operator 's' reads its argument 'x1' at K = 3, outside its domain K: "
            "[-1, 3) "
            "(the scan runs over the output domain K: [0, 4); shifted reads need a larger input or a smaller "
            "output "
            "domain)");
      for (std::int64_t i = 0; i < 8; ++i) CHECK(args.arrays.at("o0").value_as_double(i) == -1.0);
    }
  }
  // Over K: [0, 3) every level of a(K + 1) is inside. Backward from K = 2:
  // c0 = a[3], 0.5 * a[3] + a[2], ...: 4, 5, 4.5 (and 40, 50, 45); c1 = 1 - a[2], ...: -2, -4, -5
  // (and -29, -49, -59).
  std::map<std::string, runtime::Field> arrays;
  arrays.emplace("a", f64({2, 4}, a));
  arrays.emplace("o0", f64({2, 4}, marks));
  arrays.emplace("o1", f64({2, 4}, marks));
  check_everywhere(src, "part", arrays, "o0", {4.5, 5, 4, -1, 45, 50, 40, -1});
  check_everywhere(src, "part", arrays, "o1", {-5, -4, -2, -1, -59, -49, -29, -1});
}
