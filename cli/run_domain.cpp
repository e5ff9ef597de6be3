// `weir run --domain` (run_domain.h).
#include "run_domain.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <regex>
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

}  // namespace

std::string operator_call(const RunTarget& t, const std::string& out_slice) {
  // The field-view signature keeps the source's parameter order (an SDFG's may differ).
  const runtime::Signature& sig = t.field_view_sig.params.empty() ? t.sig : t.field_view_sig;
  std::string call = t.sig.program_name + "(";
  for (const auto& p : sig.params) {
    bool table = false;
    for (const auto& c : t.connectivities) table = table || c.name == p.name;
    // Every argument of the operator (fields and scalars, in order); sizes and connectivity
    // tables are no arguments of the call (tables come with offset_provider).
    if (p.name != "__out" && !table && p.kind != runtime::Parameter::Kind::Symbol) call += p.name + ", ";
  }
  return call + "out=" + out_slice + ")";
}

void refuse_domain(const std::string& text, const RunTarget& t) {
  const runtime::Parameter* out = t.sig.find("__out");
  if (!out)
    throw UsageError("--domain: '" + t.sig.program_name +
                     "' is not a @field_operator run directly; the calls of a @program give their own "
                     "domains (out=out[1:-1, :] or domain={I: (1, 9)})");
  std::vector<std::string> dims;  // the result's dimensions, in order
  for (const auto& e : out->shape) dims.push_back(size_dimension(e.str()));
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
  std::string slice = "out[";
  for (std::size_t k = 0; k < dims.size(); ++k) {
    auto g = given.find(dims[k]);
    slice +=
        (k ? ", " : "") +
        (g == given.end() ? ":" : std::to_string(g->second.first) + ":" + std::to_string(g->second.second));
  }
  std::string call = operator_call(t, slice + "]");
  throw UsageError(
      "--domain: weir runs a @field_operator called directly over its whole output; to compute '" +
      t.sig.program_name + "' on " + listed + ", run a @program that calls it with a sliced out=: " + call);
}

std::string needed_out_slice(const std::string& message, const std::vector<std::string>& dims) {
  // Per dimension, how many points the result lacks at the start and at the end.
  std::map<std::string, std::pair<long long, long long>> cut;
  static const std::regex one(R"(([A-Za-z_][A-Za-z_0-9]*): \[(-?[0-9]+), (-?[0-9]+)\))");
  auto ranges = [](const std::string& text) {
    std::map<std::string, std::pair<long long, long long>> r;
    for (std::sregex_iterator it(text.begin(), text.end(), one), end; it != end; ++it)
      r[(*it)[1]] = {std::stoll((*it)[2]), std::stoll((*it)[3])};
    return r;
  };
  std::smatch m;
  static const std::regex computed(
      R"(computed over \((.*?\))\), which does not cover the output domain of '[^']*' \((.*?\))\))");
  // A compiled backend's bounds check: "'f' is read over I: [-1, 7) and J: [-1, 6), outside its
  // domain I: [0, 6) and J: [0, 5)" (every dimension read outside, of the first field read outside).
  static const std::regex read_outside(
      R"(is read over ((?:[A-Za-z_][A-Za-z_0-9]*: \[-?[0-9]+, -?[0-9]+\)(?: and )?)+), outside its domain )"
      R"(((?:[A-Za-z_][A-Za-z_0-9]*: \[-?[0-9]+, -?[0-9]+\)(?: and )?)+))");
  if (std::regex_search(message, m, computed)) {
    auto have = ranges(m[1]), want = ranges(m[2]);
    for (const auto& [d, w] : want)
      if (auto h = have.find(d); h != have.end())
        cut[d] = {std::max(0LL, h->second.first - w.first), std::max(0LL, w.second - h->second.second)};
  } else if (std::regex_search(message, m, read_outside)) {
    auto read = ranges(m[1]), domain = ranges(m[2]);
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
