// The timers' clock (codegen/prelude/weir_profile.h, docs/adr/0048-profiling.md "a cheaper
// clock"): the TSC where CPUID says it is invariant, checked against the kernel's own reading of
// that bit (/proc/cpuinfo's nonstop_tsc); calibrated ticks measure a sleep as steady_clock does;
// WEIR_PROFILE_CLOCK=monotonic falls back to CLOCK_MONOTONIC; and a compiled program names its
// clock through weir_profile_clock_info. No assertion on how fast anything is.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/instrumented.h"

// The prelude header itself, compiled into this test (it is a real header; its state is static).
#include "../../codegen/prelude/weir_profile.h"

using namespace weir;
using namespace weir::codegen;

namespace {

std::int64_t steady_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// Whether Linux found CPUID's invariant-TSC bit (it sets constant_tsc and nonstop_tsc from it).
bool kernel_says_nonstop_tsc() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" nonstop_tsc ") != std::string::npos;
  return false;
}

// The clock's name and rate from weir_profile_clock_info's JSON text ({"clock": ...,
// "ticks_per_second": ...}, program_abi.h), read field by field.
std::pair<std::string, double> clock_fields(const std::string& json) {
  const std::string name_key = "\"clock\":\"", rate_key = "\"ticks_per_second\":";
  const auto n = json.find(name_key), r = json.find(rate_key);
  REQUIRE(n != std::string::npos);
  REQUIRE(r != std::string::npos);
  const auto name_at = n + name_key.size();
  return {json.substr(name_at, json.find('"', name_at) - name_at),
          std::strtod(json.c_str() + r + rate_key.size(), nullptr)};
}

// Forgets the chosen clock, as a newly loaded program has not chosen one yet.
void reset_clock() { weir_profile_clock = {-1, 0, 0, 1.0}; }

}  // namespace

TEST_CASE("profile clock: the TSC is used where the CPU says it is invariant", "[codegen][profile]") {
  ::unsetenv("WEIR_PROFILE_CLOCK");
  reset_clock();
  weir_profile_choose_clock();
#if defined(__x86_64__)
  CHECK(weir_profile_tsc_invariant() == kernel_says_nonstop_tsc());
#else
  CHECK_FALSE(weir_profile_tsc_invariant());
#endif
  CHECK(weir_profile_clock.tsc == (weir_profile_tsc_invariant() ? 1 : 0));
  const std::string expected = weir_profile_clock.tsc == 1 ? "tsc" : "clock_monotonic";
  weir_profile_calibrate();
  const auto [name, rate] = clock_fields(weir_profile_clock_json());
  CHECK(name == expected);
  // The calibrated rate is what the conversion uses: ticks per second = 1e9 / ns per tick.
  CHECK(rate == Approx(1e9 / weir_profile_clock.ns_per_tick).epsilon(1e-6));
}

TEST_CASE("profile clock: calibrated ticks measure a sleep as steady_clock does", "[codegen][profile]") {
  ::unsetenv("WEIR_PROFILE_CLOCK");
  for (const bool monotonic : {false, true}) {
    INFO("WEIR_PROFILE_CLOCK=" << (monotonic ? "monotonic" : "(unset)"));
    if (monotonic) ::setenv("WEIR_PROFILE_CLOCK", "monotonic", 1);
    reset_clock();
    weir_profile_choose_clock();
    if (monotonic) CHECK(weir_profile_clock.tsc == 0);
    // The counter reads lie inside the steady_clock reads, so the converted interval is at most
    // steady_clock's (up to the calibration's error) and at least the sleep.
    const auto t0 = std::chrono::steady_clock::now();
    const std::int64_t k0 = weir_profile_now();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::int64_t k1 = weir_profile_now();
    const auto t1 = std::chrono::steady_clock::now();
    const double ns_per_tick = weir_profile_calibrate();
    const double truth = static_cast<double>(steady_ns(t1) - steady_ns(t0));
    const double measured = static_cast<double>(k1 - k0) * ns_per_tick;
    CHECK(measured >= 50e6);
    CHECK(measured <= truth * 1.001);
    if (monotonic) CHECK(ns_per_tick == 1.0);

    // A slot recorded in ticks reads as nanoseconds of steady_clock's epoch (weir_profile_read).
    const weir_profile_slot ticks{2, k1 - k0, k0};
    const weir_profile_slot s = weir_profile_to_ns(ticks, ns_per_tick);
    CHECK(s.executions == 2);
    CHECK(static_cast<double>(s.ns) == Approx(measured).margin(1.0));
    CHECK(s.first_start_ns >= steady_ns(t0) - 1000);  // within the pair's read error
    CHECK(s.first_start_ns <= steady_ns(t1));
  }
  ::unsetenv("WEIR_PROFILE_CLOCK");
}

TEST_CASE("profile clock: a compiled program names its timers' clock", "[codegen][profile]") {
  auto s = test::map_program("b = a * 2", Language::Python, ScheduleType::CPU_Multicore);
  set_instrument(s->all_states()[0]->extra, kTimerInstrument);
  GeneratedCode g = generate_cpu(*s);
  const std::int64_t n = 1 << 16;
  std::vector<double> a(n, 1.5), b(n, 0.0);
  std::int64_t size = n;
  std::vector<void*> args{a.data(), b.data(), &size};
  for (const bool monotonic : {false, true}) {
    INFO("WEIR_PROFILE_CLOCK=" << (monotonic ? "monotonic" : "(unset)"));
    if (monotonic)
      ::setenv("WEIR_PROFILE_CLOCK", "monotonic", 1);
    else
      ::unsetenv("WEIR_PROFILE_CLOCK");
    // A library of its own per case: the clock is chosen once per program load.
    auto dir =
        test::scratch_dir(monotonic ? "profile_clock_program_monotonic" : "profile_clock_program_default");
    test::LoadedProgram p(test::compile_shared(g.source, dir));
    auto info = reinterpret_cast<ProfileClockInfoFn>(p.symbol(kSymProfileClockInfo));
    auto read = reinterpret_cast<ProfileReadFn>(p.symbol(kSymProfileRead));
    REQUIRE(info);
    REQUIRE(read);
    void* h = p.init(args.data());
    REQUIRE(h);
    REQUIRE(p.run(h, args.data()) == 0);
    std::vector<std::int64_t> out(3, -1);
    REQUIRE(read(out.data(), 1) == 0);
    CHECK(out[0] == 1);
    CHECK(out[1] > 0);
    const auto [name, rate] = clock_fields(info());
    const bool tsc = !monotonic && weir_profile_tsc_invariant();
    CHECK(name == (tsc ? "tsc" : "clock_monotonic"));
    if (!tsc) CHECK(rate == 1e9);
    // The TSC's rate: this session's machines run it at 1-5 GHz (a wrong unit would be 1e9 off).
    if (tsc) CHECK((rate > 1e8 && rate < 1e11));
    REQUIRE(p.finalize(h) == 0);
    CHECK(b[n - 1] == 3.0);
  }
  ::unsetenv("WEIR_PROFILE_CLOCK");
}
