// Ranges and subsets. Ends are stored inclusive (as DaCe does) and printed exclusive
// (Python slice text), so "0:N" <-> start 0, end N - 1.
#include "weir/sdfg/subset.h"

namespace weir {

sym::Expr Range::size() const {
  // DaCe: ceiling((end + 1 - start) / step) * tile; a negative constant step counts downwards
  // (end <= start), so the inclusive extent is start - end + 1 = -(end - 1 - start).
  sym::Expr off = 1;
  if (auto s = step.as_integer(); s && *s < 0) off = -1;
  return sym::Expr::ceildiv(end - start + off, step) * tile;
}

Subset Subset::full(const std::vector<sym::Expr>& shape) {
  std::vector<Range> r;
  r.reserve(shape.size());
  for (const auto& s : shape) r.emplace_back(0, s - 1);
  return Subset(std::move(r));
}

namespace {

// Splits `text` at top-level occurrences of `sep` (outside (), [] and {}).
std::vector<std::string_view> split_top(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == sep && depth == 0) {
      parts.push_back(text.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  parts.push_back(text.substr(begin));
  return parts;
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\n\r") == std::string_view::npos; }

}  // namespace

Subset Subset::parse(std::string_view text) {
  std::vector<Range> ranges;
  if (blank(text)) return Subset();  // zero-dimensional
  for (std::string_view dim : split_top(text, ',')) {
    auto tok = split_top(dim, ':');
    if (tok.size() > 4)
      throw sym::SymbolicError("too many ':' in subset dimension '" + std::string(dim) + "'");
    for (auto t : tok)
      if (blank(t))
        throw sym::SymbolicError("empty bound in subset dimension '" + std::string(dim) +
                                 "' (open slices need the container's shape)");
    if (tok.size() == 1) {
      ranges.push_back(Range::index(sym::Expr::parse(tok[0])));
      continue;
    }
    // start:stop[:step[:tile]] with an exclusive stop, as in Python.
    Range r(sym::Expr::parse(tok[0]), sym::Expr::parse(tok[1]) - 1);
    if (tok.size() > 2) r.step = sym::Expr::parse(tok[2]);
    if (tok.size() > 3) r.tile = sym::Expr::parse(tok[3]);
    ranges.push_back(std::move(r));
  }
  return Subset(std::move(ranges));
}

sym::Expr Subset::num_elements() const {
  sym::Expr n = 1;
  for (const auto& r : ranges_) n *= r.size();
  return n;
}

std::vector<sym::Expr> Subset::size() const {
  std::vector<sym::Expr> out;
  out.reserve(ranges_.size());
  for (const auto& r : ranges_) out.push_back(r.size());
  return out;
}

bool Subset::is_single_element() const {
  for (const auto& r : ranges_)
    if (r.start != r.end) return false;
  return true;
}

Subset Subset::offset_by(const std::vector<sym::Expr>& delta, bool negative) const {
  Subset out = *this;
  for (std::size_t i = 0; i < out.ranges_.size() && i < delta.size(); ++i) {
    auto& r = out.ranges_[i];
    r.start = negative ? r.start - delta[i] : r.start + delta[i];
    r.end = negative ? r.end - delta[i] : r.end + delta[i];
  }
  return out;
}

Subset Subset::subs(const std::map<std::string, sym::Expr>& m) const {
  Subset out = *this;
  for (auto& r : out.ranges_) {
    r.start = r.start.subs(m);
    r.end = r.end.subs(m);
    r.step = r.step.subs(m);
    r.tile = r.tile.subs(m);
  }
  return out;
}

std::set<std::string> Subset::free_symbols() const {
  std::set<std::string> out;
  for (const auto& r : ranges_)
    for (const auto* e : {&r.start, &r.end, &r.step, &r.tile}) out.merge(e->free_symbols());
  return out;
}

std::string Subset::str() const {
  std::string out;
  for (const auto& r : ranges_) {
    if (!out.empty()) out += ", ";
    if (r.start == r.end && r.step == 1 && r.tile == 1) {
      out += r.start.str();
      continue;
    }
    out += r.start.str() + ":" + (r.end + 1).str();
    if (r.step != 1 || r.tile != 1) out += ":" + r.step.str();
    if (r.tile != 1) out += ":" + r.tile.str();
  }
  return out;
}

}  // namespace weir
