// `weir compose`: one SDFG from a lowered stage file and a JSON sequence (a time loop calling the
// stage twice with the time levels' roles exchanged), run on the cpu backend against NumPy;
// malformed descriptions fail with the JSON path and write nothing.
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"
#include "orchestration_run_util.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

namespace fs = std::filesystem;
using namespace weir;
using namespace weir::test::orchestration;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const std::string kSpec = R"({
  "name": "heat_twice",
  "arrays": {"u": {"dtype": "float64", "shape": ["N", "M"]},
             "u_next": {"dtype": "float64", "shape": ["N", "M"]},
             "kappa": {"dtype": "float64", "shape": ["N", "M"]}},
  "scalars": {"dt": "float64"},
  "stages": {"step": "heat_step.sdfg"},
  "sequence": [
    {"for": "t", "range": [0, "T"], "body": [
      {"call": "step", "bind": {"u": "u", "kappa": "kappa", "dt": "dt", "out": "u_next"}},
      {"call": "step", "bind": {"u": "u_next", "kappa": "kappa", "dt": "dt", "out": "u"}}]}]})";

}  // namespace

TEST_CASE("weir compose: a time loop over a stage file runs like the orchestration",
          "[orchestration][compose]") {
  auto dir = weir::test::scratch_dir("orchestration-compose-cli");
  ::setenv("WEIR_CACHE_DIR", weir::test::shared_cache_dir("orchestration").c_str(), 1);
  fs::path heat = fs::path(WEIR_SOURCE_DIR) / "examples" / "orchestration" / "heat.py";
  auto s =
      weir::test::run_weir("sdfg " + q(heat.string() + "::heat_step") + " -o " + q(dir / "heat_step.sdfg"));
  INFO(s.out);
  REQUIRE(s.code == 0);
  std::ofstream(dir / "spec.json") << kSpec;
  auto c = weir::test::run_weir("compose " + q(dir / "spec.json") + " -o " + q(dir / "heat_twice.sdfg"));
  INFO(c.out);
  REQUIRE(c.code == 0);
  std::unique_ptr<SDFG> sdfg = load_sdfg((dir / "heat_twice.sdfg").string());
  CHECK(validate(*sdfg).empty());
  CHECK(sdfg->arg_names == std::vector<std::string>{"u", "u_next", "kappa", "dt"});

  fs::create_directories(dir / "in");
  runtime::Arguments args;
  args.arrays.emplace("u",
                      make({10, 8}, [](std::int64_t i) { return std::cos(0.31 * static_cast<double>(i)); }));
  args.arrays.emplace("u_next", make({10, 8}, [](std::int64_t) { return 0.0; }));
  args.arrays.emplace("kappa",
                      make({10, 8}, [](std::int64_t i) { return 0.5 + 0.02 * static_cast<double>(i % 5); }));
  for (const auto& [k, f] : args.arrays) runtime::write_npy(dir / "in" / (k + ".npy"), f);
  auto ref = numpy_reference(
      "compose", args,
      "u, un, kappa = inp['u'], inp['u_next'], inp['kappa']\n"
      "U, UN = u, un\n"
      "for _ in range(6):\n"
      "    l = -4.0 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]\n"
      "    un[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * kappa[1:-1, 1:-1] * l\n"
      "    u, un = un, u\n"
      "out['u'], out['u_next'] = U, UN\n",
      {"u", "u_next"});
  auto r = weir::test::run_weir("run " + q(dir / "heat_twice.sdfg") + " --backend cpu --in-dir " +
                                q(dir / "in") + " --set dt=0.1 --set T=3 --out " + q(dir / "out"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  for (const char* f : {"u", "u_next"}) {
    INFO("field " << f);
    CHECK(max_rel_diff(runtime::read_npy(dir / "out" / (std::string(f) + ".npy")), ref.at(f)) <= 1e-12);
  }
}

TEST_CASE("weir compose: malformed descriptions name the JSON path and write nothing",
          "[orchestration][compose]") {
  auto dir = weir::test::scratch_dir("orchestration-compose-bad");
  fs::path heat = fs::path(WEIR_SOURCE_DIR) / "examples" / "orchestration" / "heat.py";
  REQUIRE(
      weir::test::run_weir("sdfg " + q(heat.string() + "::heat_step") + " -o " + q(dir / "heat_step.sdfg"))
          .code == 0);
  auto expect = [&](const std::string& from, const std::string& to, const std::string& message) {
    std::string spec = kSpec;
    REQUIRE(spec.find(from) != std::string::npos);
    spec.replace(spec.find(from), from.size(), to);
    std::ofstream(dir / "bad.json") << spec;
    auto r = weir::test::run_weir("compose " + q(dir / "bad.json") + " -o " + q(dir / "bad.sdfg"));
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Matchers::Contains(message));
    CHECK_FALSE(fs::exists(dir / "bad.sdfg"));
  };
  expect("\"out\": \"u_next\"", "\"out\": \"nope\"",
         "/sequence/0/body/0/bind/out: expected an array or scalar");
  expect("\"out\": \"u\"}", "\"oot\": \"u\"}",
         "/sequence/0/body/1/bind/oot: stage 'step' has no argument container 'oot'");
  expect(", \"out\": \"u\"}", "}", "/sequence/0/body/1/bind: container 'out' of stage 'step' is not bound");
  expect("\"call\": \"step\", \"bind\": {\"u\": \"u\",", "\"call\": \"stp\", \"bind\": {\"u\": \"u\",",
         "/sequence/0/body/0/call: expected the name of a stage");
  expect("heat_step.sdfg", "missing.sdfg", "/stages/step:");
  expect("\"dt\": \"float64\"}", "\"dt\": \"float65\"}", "/scalars/dt: unknown dtype 'float65'");
  expect("\"range\": [0, \"T\"]", "\"range\": [0]", "/sequence/0/range: expected [start, end]");
  expect("\"kappa\": \"kappa\", \"dt\": \"dt\", \"out\": \"u_next\"",
         "\"kappa\": \"dt\", \"dt\": \"dt\", \"out\": \"u_next\"",
         "/sequence/0/body/0/bind/kappa: 'dt' does not fit container 'kappa'");
}

TEST_CASE("weir compose: a call writing an array it also reads reads it as it was before the call",
          "[orchestration][compose]") {
  // A user's report: binding the stage's input `u` and its output `out` to one array computed the
  // 5-point stencil in place (points read after their neighbours were written). gt4py's meaning
  // of out= (ADR 0043): the whole result from the inputs before the call, then stored; the
  // boundary out[0], out[-1] the stage does not write keeps its values.
  auto dir = weir::test::scratch_dir("orchestration-compose-in-place");
  ::setenv("WEIR_CACHE_DIR", weir::test::shared_cache_dir("orchestration").c_str(), 1);
  fs::path heat = fs::path(WEIR_SOURCE_DIR) / "examples" / "orchestration" / "heat.py";
  REQUIRE(
      weir::test::run_weir("sdfg " + q(heat.string() + "::heat_step") + " -o " + q(dir / "heat_step.sdfg"))
          .code == 0);
  std::ofstream(dir / "spec.json") << R"({
  "name": "heat_in_place",
  "arrays": {"u": {"dtype": "float64", "shape": ["N", "M"]},
             "kappa": {"dtype": "float64", "shape": ["N", "M"]}},
  "scalars": {"dt": "float64"},
  "stages": {"step": "heat_step.sdfg"},
  "sequence": [{"for": "t", "range": [0, "T"], "body": [
    {"call": "step", "bind": {"u": "u", "kappa": "kappa", "dt": "dt", "out": "u"}}]}]})";
  auto c = weir::test::run_weir("compose " + q(dir / "spec.json") + " -o " + q(dir / "in_place.sdfg"));
  INFO(c.out);
  REQUIRE(c.code == 0);
  std::unique_ptr<SDFG> sdfg = load_sdfg((dir / "in_place.sdfg").string());
  CHECK(validate(*sdfg).empty());
  CHECK(sdfg->has_data("__u_before_call1"));
  CHECK(sdfg->data("__u_before_call1").transient);

  fs::create_directories(dir / "in");
  runtime::Arguments args;
  args.arrays.emplace(
      "u", make({9, 7}, [](std::int64_t i) { return std::sin(0.37 * static_cast<double>(i * i)); }));
  args.arrays.emplace("kappa",
                      make({9, 7}, [](std::int64_t i) { return 0.5 + 0.03 * static_cast<double>(i % 7); }));
  for (const auto& [k, f] : args.arrays) runtime::write_npy(dir / "in" / (k + ".npy"), f);
  auto ref = numpy_reference("compose_in_place", args,
                             "u, kappa = inp['u'].copy(), inp['kappa']\n"
                             "for _ in range(3):\n"
                             "    l = -4.0 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + "
                             "u[1:-1, :-2]\n"
                             "    u[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * kappa[1:-1, 1:-1] * l\n"
                             "out['u'] = u\n",
                             {"u"});
  // An SDFG file runs on a compiled backend (the embedded one runs field-view programs).
  auto r = weir::test::run_weir("run " + q(dir / "in_place.sdfg") + " --backend cpu --in-dir " +
                                q(dir / "in") + " --set dt=0.1 --set T=3 --out " + q(dir / "out"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(max_rel_diff(runtime::read_npy(dir / "out" / "u.npy"), ref.at("u")) <= 1e-12);
}

TEST_CASE("weir compose: two outputs of one call bound to one array are refused",
          "[orchestration][compose]") {
  // Which write wins would depend on the stage's order of states: refused at the binding.
  auto dir = weir::test::scratch_dir("orchestration-compose-two-outputs");
  std::ofstream(dir / "two.py") << "import gt4py.next as gtx\n"
                                   "from gt4py.next import Field, float64\n"
                                   "I = gtx.Dimension('I')\n"
                                   "@gtx.field_operator\n"
                                   "def twice(a: Field[[I], float64]) -> Field[[I], float64]:\n"
                                   "    return 2.0 * a\n"
                                   "@gtx.program\n"
                                   "def two(a: Field[[I], float64], o1: Field[[I], float64], "
                                   "o2: Field[[I], float64]):\n"
                                   "    twice(a, out=o1)\n"
                                   "    twice(a, out=o2)\n";
  REQUIRE(weir::test::run_weir("sdfg " + q(dir / "two.py") + "::two -o " + q(dir / "two.sdfg")).code == 0);
  std::ofstream(dir / "spec.json") << R"({"arrays": {"a": {"dtype": "float64", "shape": ["N"]},
    "b": {"dtype": "float64", "shape": ["N"]}},
  "stages": {"two": "two.sdfg"},
  "sequence": [{"call": "two", "bind": {"a": "a", "o1": "b", "o2": "b"}}]})";
  auto r = weir::test::run_weir("compose " + q(dir / "spec.json") + " -o " + q(dir / "bad.sdfg"));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::Matchers::Contains("/sequence/0/bind/o2: 'b' is bound to container 'o1' as well, and "
                                       "stage 'two' writes both 'o1' and 'o2': bind each output to an "
                                       "array of its own"));
  CHECK_FALSE(fs::exists(dir / "bad.sdfg"));
}
