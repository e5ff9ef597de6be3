// Source files, locations in them, and the located error that Python-code readers throw (the
// lexer and parser here; the field-view frontend's later stages too).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "weir/pycode/error.h"

namespace weir::pycode {

/// The text of one source file and its line table. A cheap, shared handle: copies refer to the
/// same text, which stays alive (and at the same address) as long as any copy or any
/// SourceLocation into it does. Line endings are normalised to '\n' and a UTF-8 byte order
/// mark is dropped. A default-constructed SourceFile is empty and has no path.
class SourceFile {
 public:
  SourceFile() = default;
  /// Wraps `text` under the display name `path` (a file path, or e.g. "<tasklet>").
  SourceFile(std::string path, std::string_view text);
  /// Reads a file from disk. Throws weir::Error when it cannot be read.
  static SourceFile load(const std::string& path);

  bool valid() const { return data_ != nullptr; }
  const std::string& path() const;
  const std::string& text() const;
  /// Number of lines (a final line without '\n' counts; an empty text has one empty line).
  std::size_t line_count() const;
  /// Line `line` (1-based) without its '\n'; empty when out of range.
  std::string_view line(std::size_t line) const;
  /// Byte offset where line `line` (1-based) starts; text().size() when out of range.
  std::size_t line_offset(std::size_t line) const;

  friend bool operator==(const SourceFile& a, const SourceFile& b) { return a.data_ == b.data_; }

 private:
  struct Data;
  std::shared_ptr<const Data> data_;
};

/// A position in a source file: 1-based line and 1-based column, the column counting
/// characters (UTF-8 code points; a tab counts as one). line == 0 means "unknown".
struct SourceLocation {
  SourceFile file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  bool known() const { return line != 0; }
  /// "path:line:col" (or "path" / "<unknown>" when parts are missing).
  std::string str() const;
};

/// A located error in Python source (lexer, parser, and every stage after them that points at
/// the source: the frontend's type checker and lowering, tasklet code in an SDFG). what() reads
///   path:line:col: error: message
///   <the source line>
///   <spaces>^
/// (the last two lines only when the location's file has that line).
class SourceError : public weir::Error {
 public:
  SourceError(SourceLocation location, const std::string& message);
  const SourceLocation& location() const { return location_; }
  /// The message alone, without location or source excerpt.
  const std::string& message() const { return message_; }

 private:
  SourceLocation location_;
  std::string message_;
};

}  // namespace weir::pycode
