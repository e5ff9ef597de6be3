// SourceFile (text + line table), SourceLocation and SourceError formatting.
#include "weir/pycode/source.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace weir::pycode {

struct SourceFile::Data {
  std::string path;
  std::string text;
  std::vector<std::size_t> line_starts;  // byte offset of each line's first character
};

namespace {

std::string normalise(std::string_view in) {
  if (in.size() >= 3 && in.substr(0, 3) == "\xEF\xBB\xBF") in.remove_prefix(3);
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\r') {
      out += '\n';
      if (i + 1 < in.size() && in[i + 1] == '\n') ++i;
    } else {
      out += in[i];
    }
  }
  return out;
}

const std::string& empty_string() {
  static const std::string empty;
  return empty;
}

}  // namespace

SourceFile::SourceFile(std::string path, std::string_view text) {
  auto data = std::make_shared<Data>();
  data->path = std::move(path);
  data->text = normalise(text);
  data->line_starts.push_back(0);
  for (std::size_t i = 0; i < data->text.size(); ++i)
    if (data->text[i] == '\n' && i + 1 < data->text.size()) data->line_starts.push_back(i + 1);
  data_ = std::move(data);
}

SourceFile SourceFile::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw weir::Error("cannot open source file '" + path + "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw weir::Error("cannot read source file '" + path + "'");
  return SourceFile(path, buffer.str());
}

const std::string& SourceFile::path() const { return data_ ? data_->path : empty_string(); }
const std::string& SourceFile::text() const { return data_ ? data_->text : empty_string(); }

std::size_t SourceFile::line_count() const { return data_ ? data_->line_starts.size() : 0; }

std::size_t SourceFile::line_offset(std::size_t line) const {
  if (!data_ || line == 0 || line > data_->line_starts.size()) return text().size();
  return data_->line_starts[line - 1];
}

std::string_view SourceFile::line(std::size_t line) const {
  if (!data_ || line == 0 || line > data_->line_starts.size()) return {};
  std::string_view text = data_->text;
  std::size_t begin = data_->line_starts[line - 1];
  std::size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  return text.substr(begin, end - begin);
}

std::string SourceLocation::str() const {
  std::string out = file.valid() && !file.path().empty() ? file.path() : "<unknown>";
  if (line != 0) {
    out += ':' + std::to_string(line);
    if (column != 0) out += ':' + std::to_string(column);
  }
  return out;
}

namespace {

std::string format_error(const SourceLocation& loc, const std::string& message) {
  std::string out = loc.str() + ": error: " + message;
  std::string_view text = loc.file.line(loc.line);
  if (loc.line == 0 || loc.line > loc.file.line_count()) return out;
  out += '\n';
  out += text;
  out += '\n';
  // The caret line repeats the tabs of the source line so that the caret lines up.
  std::uint32_t col = 1;
  for (std::size_t i = 0; i < text.size() && col < loc.column; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    out += c == '\t' ? '\t' : ' ';
    ++col;
  }
  for (; col < loc.column; ++col) out += ' ';
  out += '^';
  return out;
}

}  // namespace

SourceError::SourceError(SourceLocation location, const std::string& message)
    : weir::Error(format_error(location, message)), location_(std::move(location)), message_(message) {}

}  // namespace weir::pycode
