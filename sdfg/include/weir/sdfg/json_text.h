// One reader and one error form for every JSON text weir reads (SDFG files, transformation
// scripts, --set-json files, composition descriptions, program signatures):
// "ORIGIN:LINE:COLUMN: invalid JSON: <what is wrong, in plain words>", with the limits of
// json_limits.h checked first and no library exception names in the message.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "weir/pycode/error.h"

namespace weir {

/// JSON text that cannot be read: where (origin, 1-based line and column) and what.
class InvalidJsonError : public Error {
 public:
  InvalidJsonError(std::string origin, std::size_t line, std::size_t column, std::string what);
  const std::string& origin() const { return origin_; }
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }
  /// The plain words after "invalid JSON: ".
  const std::string& problem() const { return problem_; }

 private:
  std::string origin_;
  std::size_t line_, column_;
  std::string problem_;
};

/// `text` parsed; `origin` names it in errors (a file, or "weir_arglist()"). Throws
/// InvalidJsonError for malformed text, nesting deeper than kMaxJsonDepth and numbers outside
/// the range of a double.
nlohmann::json parse_json(std::string_view text, const std::string& origin);
/// As parse_json, keeping the order of every object's keys (composition descriptions: the order
/// of /arrays is the argument order of the composed SDFG).
nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& origin);

/// The text of a nlohmann::json exception in plain words, without the library's exception name:
/// "[json.exception.out_of_range.403] key 'name' not found" -> "key 'name' not found".
std::string plain_json_words(const std::string& library_message);

}  // namespace weir
