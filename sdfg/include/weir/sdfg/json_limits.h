// Limits of every JSON text weir reads (SDFG files, transformation scripts, --set-json files,
// program signatures, cache manifests): checked before parsing, without recursion, so that
// hostile nesting cannot overflow the stack (nlohmann's parser, destructor and error messages
// recurse) and out-of-range numbers get a position (nlohmann's out_of_range.406 has none).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace weir {

/// Deepest nesting of JSON arrays/objects weir reads and writes; deeper text is rejected with its
/// line and column before parsing, and an SDFG that would nest deeper is not written
/// (sdfg_to_json_text). DaCe's own SDFGs nest a few dozen levels; 99 nested `if` blocks (the
/// most CPython's tokenizer accepts) lower to about 520. The limit keeps nlohmann's recursive
/// serializer within the default 8 MiB stack in every build: about 10 KB per level under
/// clang 14 -O0 AddressSanitizer, the largest frames (tests/sdfg/test_json_depth_stack.cpp).
inline constexpr std::size_t kMaxJsonDepth = 600;

/// What makes `text` unreadable before parsing, or nullopt: "at line L, column C: nested deeper
/// than 600 levels" or "at line L, column C: number 1e400 is outside the range of a double".
/// Malformed text is left for the parser to report. Never recurses.
std::optional<std::string> json_limit_problem(std::string_view text);

/// The same problem with the byte offset where it is (0-based) and the words after the position.
struct JsonLimitProblem {
  std::size_t offset = 0;
  std::string what;  ///< "nested deeper than 1000 levels"
};
std::optional<JsonLimitProblem> json_limit_problem_at(std::string_view text);

/// "line L, column C" of byte `offset` of `text` (1-based, columns in bytes as nlohmann counts).
std::string json_text_position(std::string_view text, std::size_t offset);

}  // namespace weir
