// The run-time choice between streamed and plain stores (docs/adr/0041, "session 34";
// codegen/prelude/weir_stream.h, StreamGen::open_store_choice): the map that fences streamed rows
// times its calls with each kind and keeps the faster, because which kind pays depends on the
// machine. The rule is checked on injected times; the gathering program of gather_program.h
// (O[i, k] = 2 F[T[i], k] + k) is run call after call, measured and with each kind forced, and
// every call's values are those worked out from the inputs' definitions.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../codegen/prelude/weir_stream.h"
#include "codegen_test_util.h"
#include "gather_program.h"
#include "weir/codegen/cpu_codegen.h"

using namespace weir;
using namespace weir::codegen;
using weir::test::expected_gather;
using weir::test::gather_sdfg;
using weir::test::Shape;

namespace {

/// O after each of `calls` calls of the gathering program compiled once into `name` (N x K),
/// with WEIR_STREAMING_STORES set to `mode` ("" unsets it) before the program is loaded (it
/// reads the variable once).
std::vector<std::vector<double>> calls_of(const SDFG& s, const std::string& name, std::int64_t N,
                                          std::int64_t K, int calls, const std::string& mode) {
  if (mode.empty())
    unsetenv("WEIR_STREAMING_STORES");
  else
    setenv("WEIR_STREAMING_STORES", mode.c_str(), 1);
  weir::test::GatherRun r = weir::test::run_gather(s, name, N, K, {}, {}, 64, 0, calls);
  unsetenv("WEIR_STREAMING_STORES");
  REQUIRE(r.rc == 0);
  return r.each;
}

}  // namespace

TEST_CASE("store choice: a warm-up, then alternating timed calls of each kind, then the faster kind runs",
          "[codegen][streaming]") {
  static_assert(weir_stream_samples == 3, "the sequence below is written for 3 samples per kind");
  weir_store_times t;
  // Call 1: a warm-up that streams and is not kept.
  CHECK(weir_stream_choose(t, -1));
  weir_stream_ran(t, true, 9.0);
  CHECK(t.streamed.load() < 0);
  // Calls 2-7 alternate streamed and plain stores; each kind keeps its least time. Streaming is
  // faster in its first call (a plain call slowed by load) but slower in the least of three
  // (AMD's case): one sample each would have chosen streaming for good.
  const double times[6] = {2.0, 4.0, 3.0, 1.5, 2.5, 1.8};
  for (int c = 0; c < 6; ++c) {
    INFO("timed call " << c + 1);
    const bool streamed = c % 2 == 0;
    CHECK(weir_stream_choose(t, -1) == streamed);
    weir_stream_ran(t, streamed, times[c]);
  }
  CHECK(t.streamed.load() == 2.0);
  CHECK(t.plain.load() == 1.5);
  // Plain stores measured faster: they run, and every weir_stream_retry-th choice streamed
  // stores again.
  int streamed = 0;
  for (unsigned i = 0; i < 4 * weir_stream_retry; ++i) streamed += weir_stream_choose(t, -1) ? 1 : 0;
  CHECK(streamed == 4);
  // A retry slower than streaming's least time changes nothing; one faster than plain's switches.
  weir_stream_ran(t, true, 3.0);
  CHECK(t.streamed.load() == 2.0);
  CHECK_FALSE(weir_stream_choose(t, -1));
  weir_stream_ran(t, true, 1.0);
  int plain = 0;
  for (unsigned i = 0; i < 2 * weir_stream_retry; ++i) plain += weir_stream_choose(t, -1) ? 0 : 1;
  CHECK(plain == 2);
  // Forced either way, whatever was measured.
  for (int i = 0; i < 100; ++i) {
    CHECK(weir_stream_choose(t, 1));
    CHECK_FALSE(weir_stream_choose(t, 0));
  }
}

TEST_CASE("store choice: WEIR_STREAMING_STORES forces a kind with 'on' and 'off' only",
          "[codegen][streaming]") {
  CHECK(weir_stream_mode_of("on") == 1);
  CHECK(weir_stream_mode_of("off") == 0);
  CHECK(weir_stream_mode_of(nullptr) == -1);
  CHECK(weir_stream_mode_of("") == -1);
  CHECK(weir_stream_mode_of("measure") == -1);
  CHECK(weir_stream_mode_of("ON") == -1);
}

TEST_CASE("store choice: a program of one OpenMP thread chooses where a map may stream",
          "[codegen][streaming]") {
  // Its measured thread choice always takes the one-thread branch, which stores plainly: a map
  // that may write 8 MiB (1 Mi points of 8 bytes) runs the parallel branch's store choice on its
  // one thread (weir_stream_one_thread, docs/adr/0041 session 38); smaller maps, and programs of
  // more threads, keep the choice of one thread or many.
  CHECK(weir_stream_one_thread_of(1, 1048576.0));
  CHECK(weir_stream_one_thread_of(1, 4e6));
  CHECK_FALSE(weir_stream_one_thread_of(1, 1048575.0));
  CHECK_FALSE(weir_stream_one_thread_of(2, 4e6));
  CHECK_FALSE(weir_stream_one_thread_of(64, 1e9));
}

TEST_CASE("store choice: every call's values are those of the formula, measured or forced either way",
          "[codegen][run][streaming]") {
  // 2048 x 512 doubles (8 MiB, rows of 4 KiB): the rows' own test streams them, so the calls
  // that choose streaming run the buffered, non-temporal path and the others plain stores.
  static_assert(2048 * 512 * 8 >= weir_stream_min_bytes, "the output must be big enough to stream");
  const std::int64_t N = 2048, K = 512;
  const std::vector<double> want = expected_gather(N, K);
  for (ScheduleType outer : {ScheduleType::CPU_Multicore, ScheduleType::Sequential}) {
    Shape sh;
    sh.outer = outer;
    auto s = gather_sdfg(sh);
    // The choice is made around the outer map, the one that fences.
    const std::string source = generate_cpu(*s).source;
    CHECK(source.find("static weir_store_times weir_store_times_;") != std::string::npos);
    CHECK(source.find("= weir_stores_streamed && weir_stream_wanted(") != std::string::npos);
    CHECK(source.find("weir_stream_ran(weir_store_times_, weir_stores_streamed,") != std::string::npos);
    const std::string tag = outer == ScheduleType::Sequential ? "seq" : "par";
    // Measured: call 1 streams, calls 2-7 alternate the kinds, then either; forced: one kind always.
    for (const char* m : {"", "on", "off"}) {
      const std::string mode = m;
      INFO("outer " << tag << ", WEIR_STREAMING_STORES='" << mode << "'");
      const auto calls = calls_of(*s, "store_choice_" + tag + "_" + (mode.empty() ? "measured" : mode), N, K,
                                  mode.empty() ? 9 : 2, mode);
      REQUIRE(calls.size() == (mode.empty() ? 9U : 2U));
      for (std::size_t c = 0; c < calls.size(); ++c) {
        INFO("call " << c + 1);
        CHECK(calls[c] == want);
      }
    }
  }
}
