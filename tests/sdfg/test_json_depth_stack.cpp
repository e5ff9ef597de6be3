// The JSON nesting limit (kMaxJsonDepth) holds on the default 8 MiB stack in every build
// (issue 17): nlohmann's serializer recurses once per level, about 10 KB a level under clang 14
// -O0 AddressSanitizer, so an SDFG at the limit is loaded, written and loaded again on a thread
// whose stack is exactly 8 MiB; one level more is refused when read, and weir never writes what
// it would refuse to read.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "on_stack.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"

using weir::test::kDefaultStack;
using weir::test::on_stack_of;

namespace {

std::string nested_arrays(std::size_t n) { return std::string(n, '[') + std::string(n, ']'); }

/// An SDFG whose top-level attributes hold `unknown_attr` = `value` (JSON text): the root object
/// and the attributes object are levels 1 and 2, so n nested arrays make the file 2 + n deep.
std::string sdfg_text_with(const std::string& value) {
  weir::SDFG s("deep");
  s.add_state("s0", true);
  auto j = nlohmann::json::parse(weir::sdfg_to_json_text(s));
  j["attributes"]["unknown_attr"] = "@@";
  std::string t = j.dump();
  t.replace(t.find("\"@@\""), 4, value);
  return t;
}

}  // namespace

TEST_CASE("SDFG JSON at the nesting limit loads, saves and reloads on an 8 MiB stack",
          "[serialize][security]") {
  REQUIRE(weir::kMaxJsonDepth == 600);
  const std::string at_limit = sdfg_text_with(nested_arrays(weir::kMaxJsonDepth - 2));
  const std::string beyond = sdfg_text_with(nested_arrays(weir::kMaxJsonDepth - 1));
  on_stack_of(kDefaultStack, [&] {
    auto a = weir::sdfg_from_json_text(at_limit, "deep.sdfg");
    std::string written = weir::sdfg_to_json_text(*a);
    auto b = weir::sdfg_from_json_text(written, "again.sdfg");
    CHECK(weir::sdfg_difference(*a, *b).empty());
    REQUIRE(a->extra.find("unknown_attr"));
    CHECK(*a->extra.find("unknown_attr") == nested_arrays(598));
    // one level more: refused at the 599th array, level 601 (columns count from 1)
    std::string column = std::to_string(beyond.find(nested_arrays(599)) + 599);
    CHECK_THROWS_WITH(weir::sdfg_from_json_text(beyond, "deep.sdfg"),
                      "deep.sdfg:1:" + column + ": invalid JSON: nested deeper than 600 levels");
  });
}

TEST_CASE("an SDFG nested deeper than weir reads is not written", "[serialize][security]") {
  weir::SDFG s("deep");
  s.add_state("s0", true);
  s.extra.set("unknown_attr", nested_arrays(599));  // 2 + 599 levels
  on_stack_of(kDefaultStack, [&] {
    CHECK_THROWS_WITH(weir::sdfg_to_json_text(s),
                      "SDFG 'deep' nests 601 levels deep in JSON; weir reads at most 600 levels, so it is "
                      "not written (fewer nested control-flow blocks or nested SDFGs)");
  });
  s.extra.set("unknown_attr", nested_arrays(598));
  CHECK_NOTHROW(weir::sdfg_to_json_text(s));
}
