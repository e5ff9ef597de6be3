// Sizes of what `weir run` passes (run_sizes.h).
#include "run_sizes.h"

#include <iostream>

#include "targets.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/known_symbols.h"
#include "weir/sdfg/suggest.h"

namespace weir::cli {

using namespace weir::runtime;

namespace {

// Names --set may give: parameters, symbols, dimensions of fields (--set K=8) and of
// connectivity tables. Internal size symbols (`__f_K_size`) are accepted but never listed.
struct KnownNames {
  std::vector<std::string> order;  // parameters in call order, for messages
  std::set<std::string> params, dims;
  bool has(const std::string& n) const {
    return params.count(n) || dims.count(n) || !size_dimension(n).empty();
  }
  std::string listed() const {
    std::string s;
    for (const auto& p : order)
      if (size_dimension(p).empty()) s += (s.empty() ? "" : ", ") + p;
    std::string d;
    for (const auto& x : dims) d += (d.empty() ? "" : ", ") + x;
    return (s.empty() ? "no parameters" : "parameters: " + s) + (d.empty() ? "" : "; dimensions: " + d);
  }
};

KnownNames known_names(const RunTarget& t) {
  KnownNames k;
  for (const auto& p : t.sig.params) {
    k.params.insert(p.name);
    k.order.push_back(p.name);
    for (const auto& e : p.shape)
      for (const auto& s : e.free_symbols())
        if (auto d = size_dimension(s); !d.empty()) k.dims.insert(d);
  }
  for (const auto& c : t.connectivities) k.dims.insert({c.from, c.to, c.local});
  return k;
}

}  // namespace

bool is_size_of(const std::string& symbol, const std::string& dim) {
  std::string suffix = "_" + dim + "_size";
  return symbol.size() > suffix.size() + 2 && symbol.rfind("__", 0) == 0 &&
         symbol.compare(symbol.size() - suffix.size(), std::string::npos, suffix) == 0;
}

std::set<std::string> size_hints(const Signature& sig, const Arguments& args) {
  std::set<std::string> hints;
  for (const auto& [name, v] : args.values) {
    // (A connectivity table may share its name with its local dimension: E2V.)
    if (const Parameter* p = sig.find(name); p && p->kind != Parameter::Kind::Array) continue;
    if (!std::holds_alternative<std::int64_t>(v)) continue;
    for (const auto& p : sig.params)
      for (const auto& e : p.shape)
        for (const auto& s : e.free_symbols())
          if (is_size_of(s, name)) hints.insert(name);
  }
  return hints;
}

std::string size_dimension(const std::string& symbol) {
  const std::string suffix = "_size";
  if (symbol.rfind("__", 0) != 0 || symbol.size() <= suffix.size() + 3 ||
      symbol.compare(symbol.size() - suffix.size(), std::string::npos, suffix) != 0)
    return "";
  std::string stem = symbol.substr(0, symbol.size() - suffix.size());
  return stem.substr(stem.rfind('_') + 1);
}

std::map<std::string, std::int64_t> dimension_extents(const RunTarget& t, const Arguments& args,
                                                      const std::set<std::string>& hints) {
  std::map<std::string, std::int64_t> dims;
  auto given_int = [&](const std::string& n) -> const std::int64_t* {
    auto it = args.values.find(n);
    return it == args.values.end() ? nullptr : std::get_if<std::int64_t>(&it->second);
  };
  for (const auto& h : hints)
    if (auto* v = given_int(h)) dims.emplace(h, *v);
  for (const auto& c : t.connectivities)
    for (const auto& d : {c.from, c.to, c.local})
      if (auto* v = given_int(d)) dims.emplace(d, *v);
  for (const auto& p : t.sig.params) {
    auto a = args.arrays.find(p.name);
    if (p.kind != Parameter::Kind::Array || a == args.arrays.end()) continue;
    for (std::size_t i = 0; i < p.shape.size() && i < a->second.ndim(); ++i)
      if (auto d = size_dimension(p.shape[i].str()); !d.empty()) dims.emplace(d, a->second.shape()[i]);
  }
  for (const auto& c : t.connectivities) {
    if (auto a = args.arrays.find(c.name); a != args.arrays.end() && a->second.ndim() == 2) {
      dims.emplace(c.from, a->second.shape()[0]);
      dims.emplace(c.local, a->second.shape()[1]);
    }
    if (const Parameter* p = t.sig.find(c.name); p && p->shape.size() == 2)
      if (auto n = p->shape[1].try_evaluate({})) dims.emplace(c.local, *n);
  }
  return dims;
}

std::map<std::string, long long> shape_symbols(const RunTarget& t, const Arguments& args,
                                               const std::set<std::string>& hints) {
  const Signature& sig = t.sig;
  std::map<std::string, long long> symbols;
  for (const auto& [k, v] : args.values)
    if (auto* i = std::get_if<std::int64_t>(&v)) symbols[k] = *i;
  // Symbols an array given spells out as an extent (`A: [N, M]` of shape (64, 32): N=64, M=32,
  // `[I + 4]` of 20: I=16).
  for (const auto& [k, v] : known_symbols(sig, args)) symbols.emplace(k, v);
  for (const auto& p : sig.params)
    if (auto a = args.arrays.find(p.name); p.kind == Parameter::Kind::Array && a != args.arrays.end())
      for (std::size_t i = 0; i < p.shape.size() && i < a->second.ndim(); ++i)
        if (auto fs = p.shape[i].free_symbols(); fs.size() == 1 && p.shape[i].str() == *fs.begin())
          symbols.emplace(*fs.begin(), a->second.shape()[i]);
  // The extent of each dimension (`--set K=8`, or from the arrays given) sizes every
  // `__f_K_size` not given otherwise, and the rows of connectivity tables.
  std::map<std::string, std::int64_t> dims = dimension_extents(t, args, hints);
  for (const auto& p : sig.params)
    for (const auto& e : p.shape)
      for (const auto& s : e.free_symbols())
        if (auto d = dims.find(size_dimension(s)); !symbols.count(s) && d != dims.end())
          symbols[s] = d->second;
  for (const auto& c : t.connectivities)
    if (const Parameter* p = sig.find(c.name); p && !p->shape.empty() && dims.count(c.from))
      if (auto rows = p->shape[0].free_symbols(); rows.size() == 1 && p->shape[0].str() == *rows.begin())
        symbols.emplace(*rows.begin(), dims.at(c.from));
  return symbols;
}

void check_value_names(const RunTarget& t, Arguments& args, const std::map<std::string, Number>& from_json) {
  KnownNames k = known_names(t);
  std::vector<std::string> ignored;
  for (const auto& [name, v] : args.values) {
    if (k.has(name)) continue;
    std::vector<std::string> candidates(k.dims.begin(), k.dims.end());
    for (const auto& p : k.order)
      if (size_dimension(p).empty()) candidates.push_back(p);
    std::string what = "program '" + t.sig.program_name + "' has no parameter, symbol or dimension '" + name +
                       "'" + did_you_mean(name, candidates) + " (" + k.listed() + ")";
    if (!from_json.count(name)) throw UsageError("--set " + name + "=" + to_string(v) + ": " + what);
    std::cerr << "weir: warning: --set-json: " << what << "; ignored\n";
    ignored.push_back(name);
  }
  for (const auto& name : ignored) args.values.erase(name);
}

void check_size_hints(const RunOptions& o, const RunTarget& t, const Arguments& args,
                      const std::set<std::string>& hints) {
  const Signature& sig = t.sig;
  for (const auto& h : hints) {
    const std::string given = "--set " + h + "=" + to_string(args.values.at(h));
    const auto* n = std::get_if<std::int64_t>(&args.values.at(h));
    if (n && *n < 0)
      throw UsageError(given + ": an extent cannot be negative (--set " + h +
                       "=N gives the number of points along dimension " + h + ", 0 or more)");
    for (const auto& p : sig.params) {
      auto a = args.arrays.find(p.name);
      if (!n || p.kind != Parameter::Kind::Array || a == args.arrays.end()) continue;
      for (std::size_t i = 0; i < p.shape.size() && i < a->second.ndim(); ++i)
        if (is_size_of(p.shape[i].str(), h) && a->second.shape()[i] != *n)
          throw UsageError(given + ": '" + p.name + "' is " + std::to_string(a->second.shape()[i]) +
                           " long along " + h + "; --set " + h +
                           "=N sizes the fields weir makes (--random-inputs, outputs it allocates) and "
                           "must agree with the fields given");
    }
    bool used = false;
    for (const auto& p : sig.params)
      if (p.kind == Parameter::Kind::Array && !args.arrays.count(p.name) &&
          (o.random_inputs || t.outputs_only.count(p.name)))
        for (const auto& e : p.shape)
          for (const auto& s : e.free_symbols()) used = used || is_size_of(s, h);
    if (used) continue;
    std::cerr << "weir: warning: " << given << " is not used: "
              << (o.random_inputs
                      ? "every field along " + h + " was given, and sizes come from the arrays given"
                      : "sizes come from the arrays given (--set DIM=N sizes fields made by --random-inputs)")
              << "\n";
  }
}

std::set<std::string> take_field_extents(const RunTarget& t, Arguments& args) {
  std::set<std::string> taken;
  std::vector<std::pair<std::string, Number>> given;
  for (const auto& [name, v] : args.values)
    if (name.find('.') != std::string::npos) given.emplace_back(name, v);
  for (const auto& [name, v] : given) {
    const std::string field = name.substr(0, name.rfind('.')), dim = name.substr(name.rfind('.') + 1);
    const std::string what = "--set " + name + "=" + to_string(v);
    const Parameter* p = t.sig.find(field);
    if (!p || p->kind != Parameter::Kind::Array) {
      std::vector<std::string> fields;
      for (const auto& q : t.sig.params)
        if (q.kind == Parameter::Kind::Array && size_dimension(q.name).empty()) fields.push_back(q.name);
      throw UsageError(what + ": program '" + t.sig.program_name + "' has no field '" + field + "'" +
                       did_you_mean(field, fields) +
                       " (--set FIELD.DIM=N sizes one field along one dimension)");
    }
    const std::string symbol = frontend::size_symbol(field, dim);
    std::vector<std::string> dims;
    bool has = false;
    for (const auto& e : p->shape) {
      if (auto d = size_dimension(e.str()); !d.empty()) dims.push_back(d);
      has = has || e.str() == symbol;
    }
    if (!has) {
      std::string listed;
      for (const auto& d : dims) listed += (listed.empty() ? "" : ", ") + d;
      throw UsageError(what + ": '" + field + "' has no dimension " + dim +
                       (listed.empty() ? std::string() : " (it is over " + listed + ")"));
    }
    const auto* n = std::get_if<std::int64_t>(&v);
    if (!n || *n < 0)
      throw UsageError(what + ": an extent is an integer, 0 or more (the number of points of '" + field +
                       "' along " + dim + ")");
    args.values.erase(name);
    args.values[symbol] = *n;
    taken.insert(symbol);
  }
  return taken;
}

void take_neighbour_counts(const RunTarget& t, Arguments& args) {
  const Signature& sig = t.sig;
  for (const auto& c : t.connectivities) {
    auto v = args.values.find(c.local);
    const Parameter* p = sig.find(c.local);
    if (v == args.values.end() || (p && p->kind != Parameter::Kind::Array)) continue;
    if (const Parameter* table = sig.find(c.name); table && table->shape.size() == 2)
      if (auto n = table->shape[1].try_evaluate({});
          n && std::get_if<std::int64_t>(&v->second) && *n != std::get<std::int64_t>(v->second))
        throw UsageError("--set " + c.local + "=" + to_string(v->second) + ": this program has " +
                         std::to_string(*n) + " neighbours per row in '" + c.name + "'");
    args.values.erase(v);
  }
}

}  // namespace weir::cli
