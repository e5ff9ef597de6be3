#include "weir/runtime/connectivity_check.h"

#include "weir/frontend/indexed_fields.h"
#include "weir/runtime/indexed_connectivity_check.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "checked_program.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/errors.h"

namespace weir::runtime {
namespace {

// A shape as Python writes it: (96, 10).
std::string shape_text(const Field& f) {
  std::string t = "(";
  for (std::size_t i = 0; i < f.ndim(); ++i) t += (i ? ", " : "") + std::to_string(f.shape()[i]);
  return t + (f.ndim() == 1 ? ",)" : ")");
}

// The extent along a dimension of the array arguments other than connectivity tables: the
// smallest, and every argument's (named with its shape), so that an entry outside it blames the
// array that gives it when the arguments disagree (a field of the wrong size, or transposed).
struct DimExtent {
  std::optional<std::int64_t> smallest;
  std::vector<std::pair<std::int64_t, std::string>> of;  // extent, "'q' (96, 10)"
  std::vector<bool> indexed;                             // per `of`: whether the entries index it
};

// `indexed`: the arguments the table's entries index, or nullptr for every array argument.
DimExtent extent_of(const std::string& dim, const std::vector<ConnectivityParameter>& conns,
                    const Signature& sig, const Arguments& args, const std::vector<std::string>* indexed) {
  DimExtent extent;
  for (const auto& p : sig.params) {
    if (p.kind != Parameter::Kind::Array || !p.has_shape) continue;
    // Every argument is listed (a larger one is named when the entry passes the smallest); only
    // the fields the entries index give the bound.
    const bool bounds = !indexed || std::find(indexed->begin(), indexed->end(), p.name) != indexed->end();
    bool is_table = false;
    for (const auto& c : conns) is_table = is_table || c.name == p.name;
    auto it = args.arrays.find(p.name);
    if (is_table || it == args.arrays.end() || it->second.ndim() != p.shape.size()) continue;
    const std::string symbol = "__" + p.name + "_" + dim + "_size";
    for (std::size_t i = 0; i < p.shape.size(); ++i)
      if (p.shape[i].is_symbol() && p.shape[i].symbol_name() == symbol) {
        std::int64_t n = it->second.shape()[i];
        if (bounds) extent.smallest = extent.smallest ? std::min(*extent.smallest, n) : n;
        extent.of.emplace_back(n, "'" + p.name + "' " + shape_text(it->second));
        extent.indexed.push_back(bounds);
      }
  }
  return extent;
}

// Why `extent` is the size an entry must stay below: the arguments that give it, and when
// others have a larger extent, all of them (the array is more likely wrong than the table).
std::string extent_origin(const std::string& dim, const DimExtent& extent) {
  std::string smallest, all;
  bool disagree = false;
  for (std::size_t i = 0; i < extent.of.size(); ++i) {
    const auto& [n, what] = extent.of[i];
    if (n == *extent.smallest && extent.indexed[i]) smallest += (smallest.empty() ? "" : ", ") + what;
    disagree = disagree || n > *extent.smallest;
    all += (all.empty() ? "" : ", ") + what + " has " + std::to_string(n);
  }
  std::string t = ", the " + dim + " extent of " + smallest;
  if (disagree)
    t += "; the arguments disagree on " + dim + ": " + all +
         " (is an array of the wrong size, or transposed, e.g. (K, " + dim + ") for (" + dim + ", K)?)";
  return t;
}

template <typename T>
void check_entries(const ConnectivityParameter& c, const Field& table, const DimExtent& extent) {
  const T* data = static_cast<const T*>(table.data());
  const std::int64_t cols = table.shape()[1];
  const std::int64_t n = static_cast<std::int64_t>(table.size());
  const std::int64_t size = *extent.smallest;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = static_cast<std::int64_t>(data[i]);
    if (v == -1 || (v >= 0 && v < size)) continue;
    throw ArgumentError("connectivity '" + c.name + "': entry [" + std::to_string(i / cols) + ", " +
                        std::to_string(i % cols) + "] = " + std::to_string(v) + " is outside " + c.to +
                        " (size " + std::to_string(size) + extent_origin(c.to, extent) + ")");
  }
}

/// The int32 copy of the int64 table of `c` (entries were checked where an argument gives the
/// extent of `c.to`; otherwise an entry may not fit, reported with the table and its place as
/// check_entries reports one outside the dimension).
Field narrowed(const ConnectivityParameter& c, const Field& t) {
  Field n = Allocator::cpu().allocate(ScalarType::Int32, t.shape());
  const auto* from = static_cast<const std::int64_t*>(t.data());
  auto* to = static_cast<std::int32_t*>(n.data());
  const std::int64_t cols = t.shape()[1];
  for (std::int64_t i = 0; i < t.size(); ++i) {
    if (from[i] < INT32_MIN || from[i] > INT32_MAX)
      throw ArgumentError(
          "connectivity '" + c.name + "': entry [" + std::to_string(i / cols) + ", " +
          std::to_string(i % cols) + "] = " + std::to_string(from[i]) +
          " does not fit int32 (the compiled program reads its tables as int32; an entry is -1 "
          "or an index of " +
          c.to + ")");
    to[i] = static_cast<std::int32_t>(from[i]);
  }
  return n;
}

}  // namespace

void check_local_dimension_widths(const std::vector<ConnectivityParameter>& connectivities,
                                  const Signature& sig, const Arguments& args) {
  for (const auto& c : connectivities) {
    auto t = args.arrays.find(c.name);
    if (t == args.arrays.end() || t->second.ndim() != 2) continue;
    const std::int64_t width = t->second.shape()[1];
    for (const auto& p : sig.params) {
      auto f = args.arrays.find(p.name);
      if (p.kind != Parameter::Kind::Array || p.name == c.name || f == args.arrays.end() ||
          f->second.ndim() != p.shape.size())
        continue;
      // The size symbol of `p` along the local dimension (array_param: `__out` keeps its "__").
      const std::string symbol = (p.name.rfind("__", 0) == 0 ? "" : "__") + p.name + "_" + c.local + "_size";
      std::vector<std::int64_t> expected = f->second.shape();
      for (std::size_t i = 0; i < p.shape.size(); ++i)
        if (p.shape[i].is_symbol() && p.shape[i].symbol_name() == symbol) expected[i] = width;
      if (expected == f->second.shape()) continue;
      std::string shape;
      for (std::int64_t n : expected) shape += (shape.empty() ? "" : ", ") + std::to_string(n);
      throw ArgumentError("argument '" + p.name + "': expected " + std::string(to_string(f->second.dtype())) +
                          " array of shape (" + shape + (expected.size() == 1 ? ",)" : ")") + ", got " +
                          f->second.describe() + "\n  '" + p.name + "' is over " + c.local +
                          ", which has one entry per column of connectivity table '" + c.name + "' (" +
                          std::to_string(width) + ")");
    }
  }
}

void check_connectivities(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                          const Arguments& args) {
  check_connectivities(connectivities, sig, args, IndexedFields{});
}

void check_connectivities(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                          const Arguments& args, const IndexedFields& indexed) {
  for (const auto& c : connectivities) {
    auto it = args.arrays.find(c.name);
    if (it == args.arrays.end() || it->second.ndim() != 2 || it->second.size() == 0) continue;
    auto known = indexed.find(c.name);
    const DimExtent extent =
        extent_of(c.to, connectivities, sig, args, known == indexed.end() ? nullptr : &known->second);
    if (!extent.smallest) continue;
    const Field& table = it->second;
    if (table.dtype() == ScalarType::Int32)
      check_entries<std::int32_t>(c, table, extent);
    else if (table.dtype() == ScalarType::Int64)
      check_entries<std::int64_t>(c, table, extent);
  }
}

void with_int32_tables(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                       Arguments& args, const std::function<void()>& fn) {
  std::vector<std::pair<std::string, Field>> swapped;
  struct Restore {
    Arguments& args;
    std::vector<std::pair<std::string, Field>>& swapped;
    ~Restore() {
      for (auto& [name, f] : swapped) args.arrays.at(name) = std::move(f);
    }
  } restore{args, swapped};
  for (const auto& c : connectivities) {
    auto it = args.arrays.find(c.name);
    if (it == args.arrays.end() || it->second.dtype() != ScalarType::Int64 || it->second.ndim() != 2)
      continue;
    const Parameter* p = sig.find(c.name);
    if (!p || p->kind != Parameter::Kind::Array || p->dtype != ScalarType::Int32) continue;
    Field narrow = narrowed(c, it->second);
    swapped.emplace_back(c.name, std::move(it->second));
    it->second = std::move(narrow);
  }
  fn();
}

std::vector<ConnectivityParameter> recorded_connectivities(const SDFG& sdfg) {
  std::vector<ConnectivityParameter> out;
  const std::string* text = sdfg.extra.find("weir_connectivities");
  if (!text) return out;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  auto field = [](const nlohmann::json& e, const char* k) {
    auto it = e.find(k);
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (j.is_array())
    for (const auto& e : j) {
      ConnectivityParameter c{e.is_object() ? field(e, "name") : "", e.is_object() ? field(e, "from") : "",
                              e.is_object() ? field(e, "to") : "", e.is_object() ? field(e, "local") : ""};
      if (c.name.empty() || c.from.empty() || c.to.empty() || c.local.empty()) {
        j = nullptr;
        break;
      }
      out.push_back(std::move(c));
    }
  if (!j.is_array())
    throw ArgumentError("SDFG '" + sdfg.name +
                        "': attribute weir_connectivities is not a list of {name, from, to, local}");
  return out;
}

std::shared_ptr<Program> with_connectivity_checks(std::shared_ptr<Program> program,
                                                  std::vector<ConnectivityParameter> connectivities) {
  return with_connectivity_checks(std::move(program), std::move(connectivities), IndexedFields{});
}

std::shared_ptr<Program> with_connectivity_checks(std::shared_ptr<Program> program,
                                                  std::vector<ConnectivityParameter> connectivities,
                                                  IndexedFields indexed) {
  if (connectivities.empty()) return program;
  return std::make_shared<detail::CheckedProgram>(std::move(program), std::move(connectivities),
                                                  std::move(indexed));
}

IndexedFields indexed_fields_of(const FieldViewProgram& program) {
  IndexedFields out;
  if (program.orchestration || !program.definition) return out;
  for (auto& [table, fields] : frontend::indexed_fields(*program.definition))
    if (fields) out.emplace(table, std::move(*fields));
  return out;
}

IndexedFields recorded_indexed_fields(const SDFG& sdfg) {
  IndexedFields out;
  const std::string* text = sdfg.extra.find("weir_connectivities");
  if (!text) return out;
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("indexed")) continue;
    const auto& f = e["indexed"];
    if (!f.is_array() ||
        !std::all_of(f.begin(), f.end(), [](const nlohmann::json& x) { return x.is_string(); }))
      continue;
    out.emplace(e["name"].get<std::string>(), f.get<std::vector<std::string>>());
  }
  return out;
}

std::shared_ptr<Program> without_connectivity_checks(const std::shared_ptr<Program>& program) {
  if (auto* c = dynamic_cast<const detail::CheckedProgram*>(program.get())) return c->inner();
  return program;
}

}  // namespace weir::runtime
