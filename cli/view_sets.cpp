// `weir view --set` resolved against the SDFG shown (view_sets.h).
#include "view_sets.h"

#include <map>
#include <set>
#include <stdexcept>

#include "run_arguments.h"
#include "run_sizes.h"
#include "targets.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/sdfg/suggest.h"

namespace weir::cli {

namespace {

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

long long integer_value(const std::string& given, const std::string& value) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(value, &used);
    if (used == value.size()) return v;
  } catch (const std::logic_error&) {
  }
  throw UsageError("--set " + given + ": expected NAME=INTEGER (a symbol's value or a dimension's extent)");
}

}  // namespace

std::map<std::string, long long> view_symbol_values(const SDFG& sdfg, const std::vector<std::string>& sets) {
  std::set<std::string> symbols = sdfg.free_symbols();
  for (const auto& [name, type] : sdfg.symbols) symbols.insert(name);
  std::set<std::string> dims, sizes;              // dimensions of the size symbols; the symbols in shapes
  std::multimap<std::string, std::string> along;  // dimension -> a symbol that is its extent
  for (const auto& s : symbols)
    if (auto d = size_dimension(s); !d.empty()) along.emplace(d, s);
  // The rows of a connectivity table the lowering recorded (`__E2V_rows`) are its dimension's
  // points (Edge), as `weir run --set Edge=N` sizes them.
  try {
    for (const auto& c : runtime::recorded_connectivities(sdfg))
      if (symbols.count("__" + c.name + "_rows")) along.emplace(c.from, "__" + c.name + "_rows");
  } catch (const weir::Error&) {  // a malformed record is the run's to refuse
  }
  for (const auto& [d, s] : along) dims.insert(d);
  for (const auto& [name, desc] : sdfg.arrays)
    for (const auto& e : desc.shape)
      for (const auto& s : e.free_symbols()) sizes.insert(s);
  std::map<std::string, long long> by_symbol, by_dim;
  for (const std::string& s : sets) {
    auto [name, value] = split_assignment("--set", s);
    const long long v = integer_value(s, value);
    const bool symbol = symbols.count(name) > 0, dim = !symbol && dims.count(name) > 0;
    if (!symbol && !dim) {
      std::vector<std::string> candidates(dims.begin(), dims.end());
      candidates.insert(candidates.end(), symbols.begin(), symbols.end());
      throw UsageError("--set " + s + ": SDFG '" + sdfg.name + "' has no symbol or dimension '" + name + "'" +
                       did_you_mean(name, candidates) + " (" +
                       (symbols.empty() ? std::string("no symbols") : "symbols: " + join(symbols)) +
                       (dims.empty() ? "" : "; dimensions: " + join(dims)) + ")");
    }
    if (v < 0 && (dim || sizes.count(name) || !size_dimension(name).empty()))
      throw UsageError("--set " + s + ": an extent cannot be negative (--set " + name +
                       "=N gives the number of points " +
                       (dim ? "along dimension " + name : "of '" + name + "', a size of the SDFG's arrays") +
                       ", 0 or more)");
    auto& into = symbol ? by_symbol : by_dim;
    if (!into.emplace(name, v).second) throw UsageError("--set " + name + " is given twice");
  }
  std::map<std::string, long long> values = by_symbol;
  for (const auto& [dim, v] : by_dim)
    for (auto [it, end] = along.equal_range(dim); it != end; ++it)
      values.emplace(it->second, v);  // a symbol set by its own name wins
  return values;
}

}  // namespace weir::cli
