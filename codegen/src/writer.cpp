// Text helpers of the code generator: an indenting line writer, label sanitizing, escaping.
#include <cctype>

#include "codegen_internal.h"

namespace weir::codegen::detail {

void Writer::line(const std::string& s) {
  if (s.rfind("//", 0) != 0) {
    lines_.push_back({s.empty() ? 0 : indent_, s});
    return;
  }
  // A comment quotes names from the SDFG (labels): a line break would end it and a trailing
  // backslash would splice the next line into it, so neither survives.
  std::string c = s;
  for (char& ch : c)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f || ch == '\\') ch = '?';
  lines_.push_back({indent_, std::move(c)});
}

void Writer::lines(const std::string& s) {
  // Verbatim (the prelude, trusted user code): no comment rewriting.
  std::size_t b = 0;
  while (b <= s.size()) {
    std::size_t e = s.find('\n', b);
    if (e == std::string::npos) e = s.size();
    std::string l = s.substr(b, e - b);
    lines_.push_back({l.empty() ? 0 : indent_, std::move(l)});
    b = e + 1;
  }
}

std::size_t Writer::replace_line(std::size_t from, const std::string& old, const std::string& with) {
  for (std::size_t i = from; i < lines_.size(); ++i) {
    std::string& text = lines_[i].second;
    const std::size_t start = text.find_first_not_of(' ');
    if (start == std::string::npos || text.compare(start, std::string::npos, old) != 0) continue;
    text = text.substr(0, start) + with;
    return i;
  }
  return npos;
}

Writer Writer::folded(const std::string& condition, bool holds) const {
  // The next line at indentation `at` after `from` with text `text`, or npos.
  auto find = [&](std::size_t from, int at, const std::string& text) {
    for (std::size_t i = from; i < lines_.size(); ++i) {
      if (lines_[i].second.empty()) continue;
      if (lines_[i].first < at) return npos;
      if (lines_[i].first == at) return lines_[i].second == text ? i : npos;
    }
    return npos;
  };
  Writer out;
  out.indent_ = indent_;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const auto& [at, text] = lines_[i];
    const std::size_t other = text == condition ? find(i + 1, at, "} else {") : npos;
    const std::size_t end = other == npos ? npos : find(other + 1, at, "}");
    if (end == npos) {
      out.lines_.push_back(lines_[i]);
      continue;
    }
    out.lines_.push_back({at, "{"});
    for (std::size_t k = holds ? i + 1 : other + 1; k < (holds ? other : end); ++k)
      out.lines_.push_back(lines_[k]);
    out.lines_.push_back({at, "}"});
    i = end;
  }
  return out;
}

void Writer::append(const Writer& w) {
  for (const auto& [ind, text] : w.lines_) lines_.push_back({text.empty() ? 0 : ind + indent_, text});
}

std::string Writer::str() const {
  std::size_t n = 0;
  for (const auto& [ind, text] : lines_) n += static_cast<std::size_t>(ind) * 4 + text.size() + 1;
  std::string out;
  out.reserve(n);
  for (const auto& [ind, text] : lines_) {
    // Preprocessor lines may be indented too; keep them with their block.
    out.append(static_cast<std::size_t>(ind) * 4, ' ');
    out += text;
    out += '\n';
  }
  return out;
}

std::string sanitize_label(const std::string& label) {
  std::string out;
  for (char c : label) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (ok)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
    if (out.size() >= 40) break;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::string c_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      out += "\"\"";  // end the hex escape
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace weir::codegen::detail
