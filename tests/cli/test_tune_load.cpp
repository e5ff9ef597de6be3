// `weir tune` says when the machine was too loaded for its ratios (cli/tune_load.h): the load
// rule and the baseline-spread rule on readings and call times given here, and the sentence in
// the output, the log and the script's header with a load injected through WEIR_TUNE_LOADAVG
// (docs/adr/0056-weir-tune.md, session 32). Nothing here times anything.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <thread>

#include "cli_test_util.h"
#include "tune_load.h"

namespace {

using weir::cli::load_warning;
using weir::cli::LoadReading;
using weir::cli::parse_loadavg;
using weir::cli::relative_spread;
using weir::cli::within_series_spread;
using Series = std::vector<std::vector<double>>;
using weir::test::run_weir;
namespace fs = std::filesystem;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// 20 calls of 10 ms: no spread at all.
std::vector<double> steady() { return std::vector<double>(20, 0.010); }
// The same as one series.
Series steady_series() { return {steady()}; }

}  // namespace

TEST_CASE("tune load: /proc/loadavg's text is read into its 1-minute average", "[cli][tune]") {
  LoadReading r = parse_loadavg("9.30 8.12 7.05 3/412 12345\n");
  CHECK(r.one_minute == Approx(9.30));
  CHECK(r.text == "9.30 8.12 7.05");
  CHECK(parse_loadavg("0.00 0.01 0.05").one_minute == 0.0);
  for (const std::string bad : {"", "busy 1 2", "1.0 2.0", "-1 0 0", "1.5x 0 0", "nan 0 0"}) {
    INFO(bad);
    CHECK(parse_loadavg(bad).one_minute == -1);
    CHECK(parse_loadavg(bad).text.empty());
  }
}

TEST_CASE("tune load: the spread of the baseline's calls is the interquartile range over the median",
          "[cli][tune]") {
  // Sorted 1..9 ms: quartiles 3 and 7 ms, median 5 ms -> (7 - 3) / 5 = 0.8.
  CHECK(relative_spread({0.009, 0.001, 0.005, 0.002, 0.008, 0.003, 0.007, 0.004, 0.006}) == Approx(0.8));
  // 1, 2, 3, 4: quartiles at 1.75 and 3.25 (interpolated), median 2.5 -> 1.5 / 2.5 = 0.6.
  CHECK(relative_spread({4, 1, 3, 2}) == Approx(0.6));
  CHECK(relative_spread(steady()) == 0.0);
  // One preempted call in twenty moves no quartile.
  std::vector<double> one_slow = steady();
  one_slow[7] = 0.080;
  CHECK(relative_spread(one_slow) == 0.0);
  CHECK(relative_spread({1, 100, 1000}) == 0.0);  // fewer than 4: too few to say
}

TEST_CASE("tune load: a load above the CPUs or a scattered baseline makes the speed-ups unreliable",
          "[cli][tune]") {
  // The example: load 9.3 on 2 CPUs.
  CHECK(load_warning(parse_loadavg("9.30 8.12 7.05"), 2, steady_series()) ==
        "the machine is loaded (load 9.30 on 2 CPUs): speed-ups below are unreliable");
  // At most CPUs + 0.5 (tune's own threads count in the load): nothing to say.
  CHECK(load_warning(parse_loadavg("2.50 2.40 2.00"), 2, steady_series()).empty());
  CHECK(load_warning(parse_loadavg("2.51 2.40 2.00"), 2, steady_series()) ==
        "the machine is loaded (load 2.51 on 2 CPUs): speed-ups below are unreliable");
  CHECK(load_warning(parse_loadavg("9.30 8.12 7.05"), 16, steady_series()).empty());
  CHECK(load_warning(parse_loadavg("1.60 1.00 1.00"), 1, steady_series()) ==
        "the machine is loaded (load 1.60 on 1 CPU): speed-ups below are unreliable");
  // A low load but calls that scatter: half at 10 ms, half at 14 ms (quartiles 10 and 14, median
  // 12: 33%). Noisy, not loaded (the idle run of session 32 spread by 29-45% at load 1.3).
  std::vector<double> scattered(10, 0.010);
  scattered.insert(scattered.end(), 10, 0.014);
  CHECK(load_warning(parse_loadavg("0.20 0.20 0.20"), 2, {scattered}) ==
        "the timings are noisy (load 0.20 on 2 CPUs; the baseline's 20 calls in 1 series spread by 33% "
        "within a series (interquartile range / median)): speed-ups below are unreliable");
  // Both, and an unreadable load with a scattered baseline.
  CHECK(load_warning(parse_loadavg("7.00 1 1"), 2, {scattered}) ==
        "the machine is loaded (load 7.00 on 2 CPUs; the baseline's 20 calls in 1 series spread by 33% "
        "within a series (interquartile range / median)): speed-ups below are unreliable");
  CHECK(load_warning(LoadReading{}, 2, {scattered}) ==
        "the timings are noisy (load unknown; the baseline's 20 calls in 1 series spread by 33% within a "
        "series (interquartile range / median)): speed-ups below are unreliable");
  CHECK(load_warning(LoadReading{}, 2, steady_series()).empty());
  // Under 15% is within the rule: 9 calls of 1.0, 1.075, 1.15 (3 each) -> quartiles 1.0 and 1.15,
  // median 1.075: 14.0%; 1.0, 1.1, 1.2: 18.2%.
  std::vector<double> under{1.0, 1.0, 1.0, 1.075, 1.075, 1.075, 1.15, 1.15, 1.15};
  CHECK(relative_spread(under) == Approx(0.15 / 1.075));
  CHECK(load_warning(parse_loadavg("0.1 0.1 0.1"), 2, {under}).empty());
  std::vector<double> over{1.0, 1.0, 1.0, 1.1, 1.1, 1.1, 1.2, 1.2, 1.2};
  CHECK(load_warning(parse_loadavg("0.1 0.1 0.1"), 2, {over}) ==
        "the timings are noisy (load 0.10 on 2 CPUs; the baseline's 9 calls in 1 series spread by 18% within "
        "a series (interquartile range / median)): speed-ups below are unreliable");
}

TEST_CASE("tune load: the baseline's spread is measured within its series, not across them", "[cli][tune]") {
  // Every call divided by its own series' median, pooled: {1, 2, 3} and {10, 20, 30} ms give the
  // ratios 0.5, 1, 1.5 twice; sorted 0.5 0.5 1 1 1.5 1.5: quartiles 0.625 and 1.375
  // (interpolated), median 1 -> 0.75. Pooled, the six calls would give (17.5 - 2.25) / 6.5.
  CHECK(within_series_spread({{0.001, 0.002, 0.003}, {0.010, 0.020, 0.030}}) == Approx(0.75));
  CHECK(relative_spread({0.001, 0.002, 0.003, 0.010, 0.020, 0.030}) == Approx(15.25 / 6.5));
  CHECK(within_series_spread({steady()}) == 0.0);
  CHECK(within_series_spread({{}, {0.01, 0.01}}) == 0.0);  // fewer than 4 calls: too few to say
  // The idle run's kind (session 32, heat3d 29%, jacobi_2d 45% pooled at load 1.3): each series
  // steady, but the level moves from one series to the next (what the candidate timed in between
  // left in the caches). 10 series of 7 calls, the levels 10 to 19 ms: pooled 34% (the old rule
  // warned), within each series nothing: the ratios, median / median per series, are exact.
  Series levels;
  std::vector<double> pooled;
  for (int k = 0; k < 10; ++k) {
    levels.emplace_back(7, 0.010 + 0.001 * k);
    pooled.insert(pooled.end(), 7, 0.010 + 0.001 * k);
  }
  CHECK(relative_spread(pooled) == Approx(0.005 / 0.0145));  // quartiles 12 and 17 ms, median 14.5
  CHECK(within_series_spread(levels) == 0.0);
  CHECK(load_warning(parse_loadavg("1.30 1.20 1.10"), 2, levels).empty());
  // Scatter inside each series still speaks: every series alternates 10 and 14 ms (of 6 calls,
  // median 12 ms; ratios 5/6 and 7/6, quartiles at them, median 1: 33%).
  Series noisy(5, {0.010, 0.014, 0.010, 0.014, 0.010, 0.014});
  CHECK(within_series_spread(noisy) == Approx(1.0 / 3.0));
  CHECK(load_warning(parse_loadavg("1.30 1.20 1.10"), 2, noisy) ==
        "the timings are noisy (load 1.30 on 2 CPUs; the baseline's 30 calls in 5 series spread by 33% "
        "within a series (interquartile range / median)): speed-ups below are unreliable");
}

TEST_CASE("weir tune: an injected load above the CPUs is reported in the output, the log and the script",
          "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-load-injected");
  const std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py") + "::laplacian";
  const std::string env = "WEIR_CACHE_DIR=" + q(weir::test::shared_cache_dir("tune"));
  const unsigned cpus = std::thread::hardware_concurrency();
  auto tune = [&](const std::string& name, const std::string& loadavg) {
    auto r = run_weir("tune " + program + " --set I=16 --set J=10 --set K=2 --max-candidates 2 -o " +
                          q(dir / (name + ".json")),
                      env + " WEIR_TUNE_LOADAVG='" + loadavg + "'");
    INFO(r.out);
    REQUIRE(r.code == 0);
    return r.out;
  };
  const std::string expected =
      "the machine is loaded (load 1000.00 on " + std::to_string(cpus) + " CPU" + (cpus == 1 ? "" : "s");
  const std::string out = tune("loaded", "1000.00 900.00 800.00 9/400 4242");
  // Said before the best is named (the speed-ups it qualifies come below it).
  REQUIRE_THAT(out, Catch::Contains(expected) && Catch::Contains("): speed-ups below are unreliable\n"));
  CHECK(out.find(expected) < out.rfind("best: "));
  const nlohmann::json log = nlohmann::json::parse(weir::test::read_text(dir / "loaded.log.json"));
  REQUIRE(log["load_warning"].is_string());
  CHECK_THAT(log["load_warning"].get<std::string>(), Catch::StartsWith(expected));
  CHECK(log["load_average"] == "1000.00 900.00 800.00");
  CHECK(log["load_average_before"] == "1000.00 900.00 800.00");
  const nlohmann::json script = nlohmann::json::parse(weir::test::read_text(dir / "loaded.json"));
  CHECK(script["weir_tune"]["load_warning"] == log["load_warning"]);
  CHECK_THAT(script["weir_tune"]["comment"].get<std::string>(),
             Catch::EndsWith("; " + log["load_warning"].get<std::string>()));

  // An idle reading: the load rule says nothing (the spread rule depends on this machine's
  // timings, so only its wording is checked when it speaks).
  const std::string idle = tune("idle", "0.00 0.00 0.00 1/400 4242");
  CHECK_THAT(idle, !Catch::Contains("the machine is loaded (load 0.00 on " + std::to_string(cpus) + " CPU" +
                                    (cpus == 1 ? "" : "s") + ")"));
  const nlohmann::json idle_log = nlohmann::json::parse(weir::test::read_text(dir / "idle.log.json"));
  if (!idle_log["load_warning"].is_null())
    CHECK_THAT(idle_log["load_warning"].get<std::string>(), Catch::Contains(" series spread by "));
  CHECK(idle_log["load_average"] == "0.00 0.00 0.00");
}

TEST_CASE("weir tune: an injected load that is not a load reading is a usage error naming the variable",
          "[cli][tune]") {
  auto dir = weir::test::scratch_dir("tune-load-bad-injection");
  const std::string program =
      q(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py") + "::laplacian";
  auto r = run_weir(
      "tune " + program + " --set I=16 --set J=10 --set K=2 --max-candidates 2 -o " + q(dir / "best.json"),
      "WEIR_TUNE_LOADAVG='busy'");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK_THAT(r.out,
             Catch::Contains("WEIR_TUNE_LOADAVG='busy': expected the text of /proc/loadavg, three load "
                             "averages such as '9.30 8.12 7.05'"));
  CHECK_FALSE(fs::exists(dir / "best.json"));
  CHECK_FALSE(fs::exists(dir / "best.log.json"));
}
