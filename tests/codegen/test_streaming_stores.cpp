// Streaming stores (docs/adr/0041, "streaming stores"; codegen/src/streaming_stores.cpp): a
// sequential innermost map that writes a row of a non-transient output once per point computes
// the row into a buffer in blocks and stores it with non-temporal stores, and each thread fences
// them once after the enclosing parallel loop. The programs gather a column of F through a
// table T, as unstructured stencils do: O[i, k] = 2 F[T[i], k] + k for i in 0:N (outer map),
// k in 0:K (inner map). Values are checked against the formula at sizes where the run-time test
// of codegen/prelude/weir_stream.h streams and where it does not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../../codegen/prelude/weir_stream.h"
#include "codegen_test_util.h"
#include "gather_program.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/streaming_choice.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::codegen;
using weir::test::codegen_error;
using weir::test::expected_gather;
using weir::test::gather_sdfg;
using weir::test::run_gather;
using weir::test::Shape;

namespace {

/// The 1-based line of `source` holding `text` (the first from `from`), 0 if none, and the
/// indentation of that line.
std::pair<std::size_t, std::size_t> line_of(const std::string& source, const std::string& text,
                                            std::size_t from = 0) {
  std::size_t at = source.find(text, from);
  if (at == std::string::npos) return {0, 0};
  std::size_t start = source.rfind('\n', at);
  start = start == std::string::npos ? 0 : start + 1;
  std::size_t indent = source.find_first_not_of(' ', start) - start;
  return {
      static_cast<std::size_t>(std::count(source.begin(), source.begin() + static_cast<long>(at), '\n')) + 1,
      indent};
}

std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("streaming stores: a gathered row written once goes through a buffer in blocks",
          "[codegen][streaming]") {
  auto s = gather_sdfg();
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  // The K loop runs in blocks whose row is computed into a buffer, then stored from it.
  CHECK_THAT(g.source, Catch::Contains("// streaming stores of 'O'"));
  CHECK_THAT(g.source, Catch::Contains("weir_stream_wanted(static_cast<int64_t>(K*N) * static_cast<int64_t>("
                                       "sizeof(double)), static_cast<int64_t>(K) * static_cast<int64_t>("
                                       "sizeof(double)), true, &O[i*K]);"));
  CHECK_THAT(g.source, Catch::Contains("+= weir_stream_block) {"));
  CHECK_THAT(g.source, Catch::Contains("alignas(64) double __weir_row"));
  CHECK_THAT(g.source, Catch::Contains("for (int64_t k = __weir_k"));
  const auto write = line_of(g.source, "] = o;");
  const auto store = line_of(g.source, "weir_stream_store(&O[i*K + __weir_k");
  REQUIRE(write.first > 0);
  REQUIRE(store.first > write.first);
  CHECK_THAT(g.source, Catch::Contains("[k - __weir_k"));
  CHECK(g.source.find("O[i*K + k] =") == std::string::npos);
  // The parallel loop's threads fence after their last row, before the region's barrier.
  CHECK_THAT(g.source, Catch::Contains("#pragma omp for nowait"));
  CHECK_THAT(g.source, Catch::Contains("weir_stream_fence();"));
  // The prelude's streaming header comes with it.
  CHECK_THAT(g.source, Catch::Contains("static inline void weir_stream_store("));
}

TEST_CASE("streaming stores: values are those of plain stores, streamed or not",
          "[codegen][run][streaming]") {
  // Big enough that the run-time test streams: rows of 517 and 512 levels (over one block of
  // 256, unaligned rows and whole ones), O of more than weir_stream_min_bytes.
  static_assert(2048 * 512 * 8 >= weir_stream_min_bytes, "the big case must stream");
  static_assert(512 * 8 >= weir_stream_min_row_bytes && 517 > 2 * weir_stream_block,
                "rows of several blocks");
  for (ScheduleType outer : {ScheduleType::CPU_Multicore, ScheduleType::Sequential}) {
    Shape sh;
    sh.outer = outer;
    auto s = gather_sdfg(sh);
    const std::string tag = outer == ScheduleType::Sequential ? "seq" : "par";
    for (auto [N, K] : {std::pair<std::int64_t, std::int64_t>{2048, 517}, {2048, 512}, {5, 3}, {3, 300}}) {
      INFO("N = " << N << ", K = " << K << ", outer " << tag);
      const std::string name = "stream_" + tag + "_" + std::to_string(N) + "_" + std::to_string(K);
      CHECK(run_gather(*s, name, N, K).O == expected_gather(N, K));
    }
  }
}

TEST_CASE("streaming stores: a map that records them off streams no row inside it",
          "[codegen][run][streaming]") {
  // The attribute cpu-schedules' streaming_stores=false records (weir/sdfg/streaming_choice.h),
  // on the outer parallel map or on the K loop itself; "on" leaves the decision to the plan.
  auto with = [](const char* map_label, const std::string& value) {
    auto s = gather_sdfg();
    for (Node* n : s->all_states().front()->nodes())
      if (auto* e = n->as<MapEntry>(); e && e->map->label == map_label)
        e->map->extra.set(kStreamingStoresAttribute, value);
    return s;
  };
  for (const char* label : {"rows", "levels"}) {
    INFO("off on map " << label);
    auto s = with(label, "\"off\"");
    GeneratedCode g = generate_cpu(*s);
    INFO(g.source);
    CHECK(g.source.find("weir_stream_wanted(") == std::string::npos);
    CHECK(g.source.find("weir_stream_fence();") == std::string::npos);
    CHECK_THAT(g.source, Catch::Contains("O[i*K + k] ="));
    // Where the plan streams (rows of 517 levels, O over weir_stream_min_bytes), the values are
    // the formula's: plain stores of the same rows.
    CHECK(run_gather(*s, std::string("stream_off_") + label, 2048, 517).O == expected_gather(2048, 517));
  }
  SECTION("\"on\" streams as without the attribute") {
    CHECK(generate_cpu(*with("rows", "\"on\"")).source == generate_cpu(*gather_sdfg()).source);
  }
  SECTION("the attribute survives saving and loading, on the map") {
    auto s = with("rows", "\"off\"");
    auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*s));
    std::size_t off = 0;
    for (Node* n : reloaded->all_states().front()->nodes())
      if (auto* e = n->as<MapEntry>(); e && recorded_streaming_stores(*e->map) == std::optional<bool>(false))
        ++off;
    CHECK(off == 1);
    CHECK(generate_cpu(*reloaded).source == generate_cpu(*s).source);
  }
  SECTION("another value is an error at the map") {
    for (const std::string bad : {"\"no\"", "false", "0"}) {
      INFO(bad);
      const std::string msg = codegen_error(*with("levels", bad));
      CHECK_THAT(msg, Catch::Contains("map attribute weir_streaming_stores is " + bad +
                                      ", expected the string \"off\" or \"on\"") &&
                          Catch::Contains("codegen: SDFG 'gather', state 'main', node"));
    }
  }
}

TEST_CASE("streaming stores: a sequential outer map fences once, after its loops", "[codegen][streaming]") {
  Shape sh;
  sh.outer = ScheduleType::Sequential;
  auto s = gather_sdfg(sh);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  // One fence, at the indentation of the outer loop, after its last line: not once per row. The
  // map's code is there twice, for the streamed and the plain store kind (docs/adr/0041, session
  // 35): one fence in each copy.
  CHECK(count_of(g.source, "weir_stream_fence();") == 2);
  CHECK(count_of(g.source, "constexpr bool weir_stores_streamed = true;") == 1);
  CHECK(count_of(g.source, "constexpr bool weir_stores_streamed = false;") == 1);
  const auto outer = line_of(g.source, "for (int64_t i = 0; i <= N - 1;");
  const auto store = line_of(g.source, "weir_stream_store(&O[");
  const auto fence = line_of(g.source, "weir_stream_fence();");
  REQUIRE(outer.first > 0);
  CHECK(fence.first > store.first);
  CHECK(fence.second == outer.second);
  CHECK(g.source.find("#pragma omp for nowait") == std::string::npos);
}

TEST_CASE("streaming stores: refused where the row is read, transient, reduced or not contiguous",
          "[codegen][streaming]") {
  auto streams = [](const Shape& sh) {
    GeneratedCode g = generate_cpu(*gather_sdfg(sh));
    return g.source.find("weir_stream_store(") != std::string::npos;
  };
  Shape plain;
  CHECK(streams(plain));
  Shape read;  // the tasklet reads the element it writes: the buffer would hide the old value
  read.reads_output = true;
  read.code = "o = f[t, k] + q";
  CHECK_FALSE(streams(read));
  Shape transient;  // a transient may be read from cache right after: no streaming
  transient.transient = true;
  CHECK_FALSE(streams(transient));
  Shape reduced;  // a conflict-resolved write updates, it does not write once
  reduced.wcr = "lambda a, b: a + b";
  CHECK_FALSE(streams(reduced));
  Shape transposed;  // O[k, i]: consecutive k are N elements apart, no row
  transposed.transposed = true;
  transposed.written = "k, i";
  CHECK_FALSE(streams(transposed));
}

TEST_CASE("streaming stores: rows with unwritten elements between them stream only when long",
          "[codegen][streaming]") {
  // docs/adr/0041, "session 30": rows with a halo in the unit-stride dimension (as heat3d's
  // u_new[1:-1, 1:-1, 1:-1]) have partial cache lines at both ends with a gap between rows;
  // streamed, short ones ran slower than plain stores. The run-time test is told the rows are not
  // whole, and the loop writes through a pointer: the buffer where the row streams, else O.
  auto source = [](const Shape& sh) { return generate_cpu(*gather_sdfg(sh)).source; };
  Shape halo;  // O is N x (K + 2), the loop writes O[i, 1:K+1]
  halo.pad = 2;
  halo.written = "i, k + 1";
  const std::string both = source(halo);
  INFO(both);
  CHECK_THAT(both,
             Catch::Contains("weir_stream_wanted(static_cast<int64_t>(K*N + 2*N) * static_cast<int64_t>("
                             "sizeof(double)), static_cast<int64_t>(K) * static_cast<int64_t>("
                             "sizeof(double)), false, &O[i*(K + 2) + 1]);"));
  CHECK_THAT(both, Catch::Contains("double* const __weir_to"));
  CHECK_THAT(both, Catch::Contains(" : &O[i*(K + 2) + __weir_k"));
  CHECK_THAT(both, Catch::Contains("weir_stream_store(&O[i*(K + 2) + __weir_k"));
  Shape tail;  // O is N x (K + 1), the loop writes O[i, 0:K]: the last element of each row is a gap
  tail.pad = 1;
  CHECK_THAT(source(tail), Catch::Contains("sizeof(double)), false, &O[i*(K + 1)]);"));
  Shape whole;  // O is N x K, the loop writes O[i, k]: whole rows, the third argument `true`
  const std::string all = source(whole);
  CHECK_THAT(all, Catch::Contains(
                      "static_cast<int64_t>(K) * static_cast<int64_t>(sizeof(double)), true, &O[i*K]);"));
  CHECK(all.find("sizeof(double)), false,") == std::string::npos);
}

TEST_CASE("streaming stores: the run-time test wants long rows where they are not whole",
          "[codegen][streaming]") {
  // 8 MiB outputs; whole rows of whole cache lines from 256 bytes, rows with gaps between them
  // from 8 KiB (the destination's alignment does not matter to them).
  alignas(64) static char line[64];
  const std::int64_t big = weir_stream_min_bytes;
  CHECK(weir_stream_wanted(big, 640, true, line));
  CHECK_FALSE(weir_stream_wanted(big, 640, false, line));
  CHECK_FALSE(weir_stream_wanted(big, 8191, false, line));
  CHECK(weir_stream_wanted(big, 8192, false, line + 8));
  CHECK(weir_stream_wanted(big, 16368, false, line + 8));  // laplace2d's rows of 2046 doubles
  CHECK_FALSE(weir_stream_wanted(big - 1, 16368, false, line));
  CHECK_FALSE(weir_stream_wanted(big, 255, true, line));
}

TEST_CASE("streaming stores: whole rows that start or end inside a cache line stream only when long",
          "[codegen][streaming]") {
  // G14 of user31: `--auto cpu` code on NumPy's arrays (16 bytes off a line) streamed rows of
  // 512 bytes, each with a partial line at both ends, and took 3.7-6.5x the time it took on
  // aligned arrays. Such rows stream from 2 KiB; rows of whole lines from 256 bytes.
  alignas(64) static char line[64];
  const std::int64_t big = weir_stream_min_bytes;
  CHECK(weir_stream_whole_lines(line, 512));
  CHECK_FALSE(weir_stream_whole_lines(line + 16, 512));
  CHECK_FALSE(weir_stream_whole_lines(line, 520));
  CHECK(weir_stream_wanted(big, 512, true, line));
  for (std::size_t off : {8, 16, 48}) {
    INFO("offset " << off);
    CHECK_FALSE(weir_stream_wanted(big, 512, true, line + off));
    CHECK_FALSE(weir_stream_wanted(big, 2047, true, line + off));
    CHECK(weir_stream_wanted(big, 2048, true, line + off));
    CHECK(weir_stream_wanted(big, 16384, true, line + off));
  }
  CHECK_FALSE(weir_stream_wanted(big, 648, true, line));  // 81 doubles: ends inside a line
  CHECK(weir_stream_wanted(big, 2056, true, line));
  CHECK_FALSE(weir_stream_wanted(big - 1, 2048, true, line + 16));
  // The generated test passes where the loop's first row starts; values are the same at every
  // offset of the output, rows of 512 doubles (4 KiB, streamed at every offset) and 64 (512
  // bytes, streamed only aligned).
  Shape sh;
  auto s = gather_sdfg(sh);
  for (auto [N, K] : {std::pair<std::int64_t, std::int64_t>{2048, 512}, {16384, 64}})
    for (std::size_t off : {0, 8, 16, 48}) {
      INFO("N = " << N << ", K = " << K << ", O " << off << " bytes past a line");
      const std::string name = "stream_offset_" + std::to_string(K) + "_" + std::to_string(off);
      CHECK(run_gather(*s, name, N, K, {}, {}, 64, off).O == expected_gather(N, K));
    }
}

TEST_CASE("streaming stores: the prelude copies every length at every alignment", "[codegen][streaming]") {
  // weir_stream_store against memcpy: destinations at each byte offset of a 16-byte lane, lengths
  // that end inside and at the end of lanes, streamed and not; the bytes around are untouched.
  std::vector<unsigned char> src(300);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 37 + 11);
  for (bool stream : {true, false})
    for (std::size_t offset = 0; offset < 20; ++offset)
      for (std::int64_t bytes : {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 255, 256}) {
        alignas(64) unsigned char dst[320];
        std::fill(std::begin(dst), std::end(dst), static_cast<unsigned char>(0xAB));
        weir_stream_store(dst + offset, src.data(), bytes, stream);
        weir_stream_fence();
        INFO("offset " << offset << ", " << bytes << " bytes, stream " << stream);
        CHECK(std::equal(src.begin(), src.begin() + bytes, dst + offset));
        CHECK(std::all_of(dst, dst + offset, [](unsigned char c) { return c == 0xAB; }));
        CHECK(std::all_of(dst + offset + bytes, std::end(dst), [](unsigned char c) { return c == 0xAB; }));
      }
  // The run-time test: big outputs with long rows only.
  alignas(64) static char line[64];
  CHECK(weir_stream_wanted(weir_stream_min_bytes, weir_stream_min_row_bytes, true, line));
  CHECK_FALSE(weir_stream_wanted(weir_stream_min_bytes - 1, 1 << 20, true, line));
  CHECK_FALSE(weir_stream_wanted(std::int64_t(1) << 40, weir_stream_min_row_bytes - 8, true, line));
}

TEST_CASE("streaming stores: the prelude's stores of 16, 32 and 64 bytes copy like memcpy",
          "[codegen][streaming]") {
  // The same sweep compiled for SSE2 only, AVX2 and the machine (AVX-512 where it has it): the
  // width of the non-temporal store, and so the alignment the copy starts at, differs.
  const auto dir = test::scratch_dir("stream_widths");
  const auto cpp = dir / "sweep.cpp";
  std::ofstream(cpp) << "#include \"" << WEIR_SOURCE_DIR << "/codegen/prelude/weir_stream.h\"\n"
                     << R"(#include <cstdio>
int main() {
  unsigned char src[300];
  for (int i = 0; i < 300; ++i) src[i] = static_cast<unsigned char>(i * 37 + 11);
  const long long sizes[] = {0, 1, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 200, 256};
  for (int stream = 0; stream < 2; ++stream)
    for (int offset = 0; offset < 70; ++offset)
      for (long long bytes : sizes) {
        alignas(64) unsigned char dst[400];
        for (unsigned char& c : dst) c = 0xAB;
        weir_stream_store(dst + offset, src, bytes, stream != 0);
        weir_stream_fence();
        for (int i = 0; i < 400; ++i) {
          const bool inside = i >= offset && i < offset + bytes;
          if (dst[i] != (inside ? src[i - offset] : 0xAB)) {
            std::printf("offset %d, %lld bytes, stream %d: byte %d wrong\n", offset, bytes, stream, i);
            return 1;
          }
        }
      }
  return 0;
}
)";
  for (const char* flags : {"", "-mavx2", "-march=native"}) {
    INFO("flags '" << flags << "'");
    const auto exe = dir / "sweep";
    const auto log = dir / "sweep.log";
    const std::string build = std::string("g++ -std=c++17 -O2 -Wall -Wextra -Werror ") + flags + " -o '" +
                              exe.string() + "' '" + cpp.string() + "' > '" + log.string() + "' 2>&1";
    REQUIRE(std::system(build.c_str()) == 0);
    const std::string run = "'" + exe.string() + "' > '" + log.string() + "' 2>&1";
    const int rc = std::system(run.c_str());
    INFO(test::read_text(log));
    CHECK(rc == 0);
  }
}
