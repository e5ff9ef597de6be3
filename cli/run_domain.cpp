// `weir run --domain` (run_domain.h).
#include "run_domain.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "run_sizes.h"
#include "targets.h"

namespace weir::cli {

namespace {

// "I=1:9,K=0:5" as dimension -> (start, stop), in the order given.
std::vector<std::pair<std::string, std::pair<long long, long long>>> parse_domain(const std::string& text) {
  const std::string usage =
      "--domain " + text + ": expected DIM=START:STOP[,DIM=START:STOP...] (e.g. I=1:9,K=0:5)";
  std::vector<std::pair<std::string, std::pair<long long, long long>>> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(',', at);
    std::string part = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    std::size_t eq = part.find('='), colon = part.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos) throw UsageError(usage);
    auto number = [&](const std::string& s) {
      errno = 0;
      char* e = nullptr;
      long long v = std::strtoll(s.c_str(), &e, 10);
      if (s.empty() || *e != '\0' || errno != 0) throw UsageError(usage);
      return v;
    };
    long long lo = number(part.substr(eq + 1, colon - eq - 1)), hi = number(part.substr(colon + 1));
    std::string dim = part.substr(0, eq);
    if (lo < 0 || hi < lo)
      throw UsageError("--domain " + dim + "=" + std::to_string(lo) + ":" + std::to_string(hi) +
                       ": START and STOP must satisfy 0 <= START <= STOP");
    for (const auto& [d, r] : out)
      if (d == dim) throw UsageError("--domain: " + dim + " is given twice");
    out.emplace_back(dim, std::make_pair(lo, hi));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return out;
}

// The results of a @field_operator run directly: `__out`, or `__out_0`, `__out_1`, ... for a
// tuple of fields, in order; empty for a @program.
std::vector<const runtime::Parameter*> operator_results(const runtime::Signature& sig) {
  std::vector<const runtime::Parameter*> out;
  if (const runtime::Parameter* one = sig.find("__out")) return {one};
  for (std::size_t k = 0;; ++k) {
    const runtime::Parameter* p = sig.find("__out_" + std::to_string(k));
    if (!p) return out;
    out.push_back(p);
  }
}

bool is_result_name(const std::string& name) {
  if (name == "__out") return true;
  return name.rfind("__out_", 0) == 0 && name.size() > 6 &&
         std::all_of(name.begin() + 6, name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string operator_call(const RunTarget& t, const std::string& out_slice) {
  // The field-view signature keeps the source's parameter order (an SDFG's may differ).
  const runtime::Signature& sig = t.field_view_sig.params.empty() ? t.sig : t.field_view_sig;
  std::string call = t.sig.program_name + "(";
  // A tuple parameter is one argument of the call (`t`), though run directly it takes its
  // leaves (t_0, t_1_0): the operator's declared parameters, where it has tuple ones.
  if (!t.declared_params.empty()) {
    for (const auto& p : t.declared_params) call += p + ", ";
    return call + "out=" + out_slice + ")";
  }
  for (const auto& p : sig.params) {
    bool table = false;
    for (const auto& c : t.connectivities) table = table || c.name == p.name;
    // Every argument of the operator (fields and scalars, in order); sizes and connectivity
    // tables are no arguments of the call (tables come with offset_provider).
    if (!is_result_name(p.name) && !table && p.kind != runtime::Parameter::Kind::Symbol)
      call += p.name + ", ";
  }
  return call + "out=" + out_slice + ")";
}

void refuse_domain(const std::string& text, const RunTarget& t) {
  const std::vector<const runtime::Parameter*> results = operator_results(t.sig);
  if (results.empty())
    throw UsageError("--domain: '" + t.sig.program_name +
                     "' is not a @field_operator run directly; the calls of a @program give their own "
                     "domains (out=out[1:-1, :] or domain={I: (1, 9)})");
  std::vector<std::vector<std::string>> result_dims;  // each result's dimensions, in order
  std::vector<std::string> dims;                      // every result's, once each
  for (const runtime::Parameter* out : results) {
    result_dims.emplace_back();
    for (const auto& e : out->shape) {
      result_dims.back().push_back(size_dimension(e.str()));
      if (std::find(dims.begin(), dims.end(), result_dims.back().back()) == dims.end())
        dims.push_back(result_dims.back().back());
    }
  }
  std::map<std::string, std::pair<long long, long long>> given;
  std::string listed;
  for (const auto& [d, r] : parse_domain(text)) {
    bool known = false;
    for (const auto& x : dims) known = known || x == d;
    if (!known) {
      std::string all;
      for (const auto& x : dims) all += (all.empty() ? "" : ", ") + x;
      throw UsageError("--domain: '" + t.sig.program_name + "' returns a field over (" + all +
                       "), not over " + d);
    }
    given[d] = r;
    listed += (listed.empty() ? "" : ", ") + d + ": [" + std::to_string(r.first) + ", " +
              std::to_string(r.second) + ")";
  }
  // One slice per result (`out[1:11, :]`; a tuple `(out_0[...], out_1[...])`), over its dimensions.
  std::string slices;
  for (std::size_t r = 0; r < results.size(); ++r) {
    std::string slice = results.size() == 1 ? "out[" : "out_" + std::to_string(r) + "[";
    for (std::size_t k = 0; k < result_dims[r].size(); ++k) {
      auto g = given.find(result_dims[r][k]);
      slice += (k ? ", " : "") +
               (g == given.end() ? std::string(":")
                                 : std::to_string(g->second.first) + ":" + std::to_string(g->second.second));
    }
    slices += (r ? ", " : "") + slice + "]";
  }
  std::string call = operator_call(t, results.size() == 1 ? slices : "(" + slices + ")");
  throw UsageError(
      "--domain: weir runs a @field_operator called directly over its whole output; to compute '" +
      t.sig.program_name + "' on " + listed + ", run a @program that calls it with a sliced out=: " + call);
}

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A signed integer at text[i] (advancing i); nullopt if none or out of range.
std::optional<long long> integer_at(const std::string& text, std::size_t& i) {
  std::size_t j = i + (i < text.size() && text[i] == '-' ? 1 : 0);
  const std::size_t digits = j;
  while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
  if (j == digits) return std::nullopt;
  errno = 0;
  const long long v = std::strtoll(text.c_str() + i, nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  i = j;
  return v;
}

// "D: [a, b)" at text[i] (advancing i past it): the dimension and its range.
std::optional<std::pair<std::string, std::pair<long long, long long>>> range_at(const std::string& text,
                                                                                std::size_t& i) {
  std::size_t j = i;
  if (j >= text.size() || !(std::isalpha(static_cast<unsigned char>(text[j])) || text[j] == '_'))
    return std::nullopt;
  while (j < text.size() && ident_char(text[j])) ++j;
  std::string dim = text.substr(i, j - i);
  if (text.compare(j, 3, ": [") != 0) return std::nullopt;
  j += 3;
  auto lo = integer_at(text, j);
  if (!lo || text.compare(j, 2, ", ") != 0) return std::nullopt;
  j += 2;
  auto hi = integer_at(text, j);
  if (!hi || j >= text.size() || text[j] != ')') return std::nullopt;
  i = j + 1;
  return std::make_pair(std::move(dim), std::make_pair(*lo, *hi));
}

// Every "D: [a, b)" in `text`, left to right.
std::map<std::string, std::pair<long long, long long>> ranges_in(const std::string& text) {
  std::map<std::string, std::pair<long long, long long>> r;
  for (std::size_t at = text.find(": ["); at != std::string::npos; at = text.find(": [", at + 1)) {
    std::size_t start = at;
    while (start > 0 && ident_char(text[start - 1])) --start;
    while (start < at && std::isdigit(static_cast<unsigned char>(text[start]))) ++start;
    std::size_t i = start;
    if (auto d = range_at(text, i)) r[d->first] = d->second;
  }
  return r;
}

// "D: [a, b) and E: [c, d)..." at text[i] (advancing i past the last range); empty if none.
std::map<std::string, std::pair<long long, long long>> range_list_at(const std::string& text,
                                                                     std::size_t& i) {
  std::map<std::string, std::pair<long long, long long>> r;
  for (;;) {
    auto d = range_at(text, i);
    if (!d) break;
    r[d->first] = d->second;
    std::size_t next = i + 5;
    if (text.compare(i, 5, " and ") != 0) break;
    std::size_t probe = next;
    if (!range_at(text, probe)) break;
    i = next;
  }
  return r;
}

// The text between `open` and the first `close` after it on the same line, where open starts at
// or after `from`; nullopt if none.
std::optional<std::string> between(const std::string& text, const std::string& open, const std::string& close,
                                   std::size_t from, std::size_t* end = nullptr) {
  const std::size_t a = text.find(open, from);
  if (a == std::string::npos) return std::nullopt;
  const std::size_t b = text.find(close, a + open.size());
  if (b == std::string::npos || text.find('\n', a) < b) return std::nullopt;
  if (end) *end = b + close.size();
  return text.substr(a + open.size(), b - a - open.size());
}

}  // namespace

std::string needed_out_slice(const std::string& message, const std::vector<std::string>& dims) {
  // Per dimension, how many points the result lacks at the start and at the end. The messages
  // are scanned, not matched with std::regex (whose matcher recursed per character: issue 35).
  std::map<std::string, std::pair<long long, long long>> cut;
  // The embedded backend: "computed over (I: [1, 5)), which does not cover the output domain of
  // 'out' (I: [0, 6))".
  std::size_t after = 0;
  auto have =
      between(message, "computed over (", "), which does not cover the output domain of '", 0, &after);
  std::optional<std::string> want;
  if (have) {
    const std::size_t quote = message.find('\'', after);
    if (quote != std::string::npos && message.compare(quote, 3, "' (") == 0 &&
        message.find('\n', after) > quote)
      want = between(message, "' (", "))", quote);
  }
  // A compiled backend's bounds check: "'f' is read over I: [-1, 7) and J: [-1, 6), outside its
  // domain I: [0, 6) and J: [0, 5)" (every dimension read outside, of the first field read outside).
  std::map<std::string, std::pair<long long, long long>> read, domain;
  if (!want) {
    const std::string lead = "is read over ", mid = ", outside its domain ";
    for (std::size_t at = message.find(lead); at != std::string::npos && domain.empty();
         at = message.find(lead, at + 1)) {
      std::size_t i = at + lead.size();
      read = range_list_at(message, i);
      if (read.empty() || message.compare(i, mid.size(), mid) != 0) continue;
      i += mid.size();
      domain = range_list_at(message, i);
    }
  }
  if (want) {
    // The lazy end of `want` stopped before its last range's ')'.
    auto h = ranges_in(*have), w = ranges_in(*want + ")");
    for (const auto& [d, wr] : w)
      if (auto it = h.find(d); it != h.end())
        cut[d] = {std::max(0LL, it->second.first - wr.first), std::max(0LL, wr.second - it->second.second)};
  } else if (!domain.empty()) {
    for (const auto& [d, r] : read)
      if (auto dom = domain.find(d); dom != domain.end())
        cut[d] = {std::max(0LL, dom->second.first - r.first), std::max(0LL, r.second - dom->second.second)};
  } else {
    return "";
  }
  std::string s;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    auto c = cut.find(dims[k]);
    std::string part = ":";
    if (c != cut.end() && (c->second.first || c->second.second))
      part = (c->second.first ? std::to_string(c->second.first) : "") + ":" +
             (c->second.second ? "-" + std::to_string(c->second.second) : "");
    s += (k ? ", " : "") + part;
  }
  return "out[" + s + "]";
}

}  // namespace weir::cli
