#include "weir/runtime/connectivity_check.h"

#include <cstdint>
#include <optional>
#include <string>

#include "weir/runtime/allocator.h"
#include "weir/runtime/errors.h"

namespace weir::runtime {
namespace {

// The smallest extent along `dim` of the array arguments other than connectivity tables.
std::optional<std::int64_t> extent_of(const std::string& dim, const std::vector<ConnectivityParameter>& conns,
                                      const Signature& sig, const Arguments& args) {
  std::optional<std::int64_t> extent;
  for (const auto& p : sig.params) {
    if (p.kind != Parameter::Kind::Array || !p.has_shape) continue;
    bool is_table = false;
    for (const auto& c : conns) is_table = is_table || c.name == p.name;
    auto it = args.arrays.find(p.name);
    if (is_table || it == args.arrays.end() || it->second.ndim() != p.shape.size()) continue;
    const std::string symbol = "__" + p.name + "_" + dim + "_size";
    for (std::size_t i = 0; i < p.shape.size(); ++i)
      if (p.shape[i].is_symbol() && p.shape[i].symbol_name() == symbol) {
        std::int64_t n = it->second.shape()[i];
        extent = extent ? std::min(*extent, n) : n;
      }
  }
  return extent;
}

template <typename T>
void check_entries(const ConnectivityParameter& c, const Field& table, std::int64_t extent) {
  const T* data = static_cast<const T*>(table.data());
  const std::int64_t cols = table.shape()[1];
  const std::int64_t n = static_cast<std::int64_t>(table.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = static_cast<std::int64_t>(data[i]);
    if (v == -1 || (v >= 0 && v < extent)) continue;
    throw ArgumentError("connectivity '" + c.name + "': entry [" + std::to_string(i / cols) + ", " +
                        std::to_string(i % cols) + "] = " + std::to_string(v) + " is outside " + c.to + " (size " +
                        std::to_string(extent) + ")");
  }
}

template <typename T>
void check_column(const DirectNeighbourRead& d, const Field& table) {
  const T* data = static_cast<const T*>(table.data());
  const std::int64_t rows = table.shape()[0], cols = table.shape()[1];
  if (d.column >= cols) return;  // binding reports a table narrower than the program's
  for (std::int64_t r = 0; r < rows; ++r)
    if (data[r * cols + d.column] == -1)
      throw ProgramError(d.where + ": neighbour " + std::to_string(d.column) + " of '" + d.table +
                         "' is missing at row " + std::to_string(r) + " (entry [" + std::to_string(r) + ", " +
                         std::to_string(d.column) +
                         "] is -1), so the value read there is undefined; a compiled backend refuses "
                         "tables with -1 in a column read without a neighbour reduction");
}

/// The int32 copy of an int64 table (entries were checked: -1 or indices of a dimension).
Field narrowed(const Field& t) {
  Field c = Allocator::cpu().allocate(ScalarType::Int32, t.shape());
  const auto* from = static_cast<const std::int64_t*>(t.data());
  auto* to = static_cast<std::int32_t*>(c.data());
  for (std::int64_t i = 0; i < t.size(); ++i) {
    if (from[i] < INT32_MIN || from[i] > INT32_MAX)
      throw ArgumentError("connectivity table entry " + std::to_string(from[i]) + " does not fit int32");
    to[i] = static_cast<std::int32_t>(from[i]);
  }
  return c;
}

class CheckedProgram : public Program {
 public:
  CheckedProgram(std::shared_ptr<Program> inner, std::vector<ConnectivityParameter> conns,
                 std::vector<DirectNeighbourRead> direct)
      : inner_(std::move(inner)), conns_(std::move(conns)), direct_(std::move(direct)) {}
  const std::string& name() const override { return inner_->name(); }
  const Signature& signature() const override { return inner_->signature(); }
  void run(Arguments& args) override {
    check_connectivities(conns_, inner_->signature(), args);
    check_direct_neighbours(direct_, args);
    // int64 tables where the program takes int32: swapped for int32 copies during the run.
    std::vector<std::pair<std::string, Field>> swapped;
    for (const auto& c : conns_) {
      auto it = args.arrays.find(c.name);
      if (it == args.arrays.end() || it->second.dtype() != ScalarType::Int64 || it->second.ndim() != 2) continue;
      for (const auto& p : inner_->signature().params)
        if (p.name == c.name && p.kind == Parameter::Kind::Array && p.dtype == ScalarType::Int32) {
          Field narrow = narrowed(it->second);
          swapped.emplace_back(c.name, std::move(it->second));
          it->second = std::move(narrow);
        }
    }
    struct Restore {
      Arguments& args;
      std::vector<std::pair<std::string, Field>>& swapped;
      ~Restore() {
        for (auto& [name, f] : swapped) args.arrays.at(name) = std::move(f);
      }
    } restore{args, swapped};
    inner_->run(args);
  }

 private:
  std::shared_ptr<Program> inner_;
  std::vector<ConnectivityParameter> conns_;
  std::vector<DirectNeighbourRead> direct_;
};

}  // namespace

void check_connectivities(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                          const Arguments& args) {
  for (const auto& c : connectivities) {
    auto it = args.arrays.find(c.name);
    if (it == args.arrays.end() || it->second.ndim() != 2 || it->second.size() == 0) continue;
    auto extent = extent_of(c.to, connectivities, sig, args);
    if (!extent) continue;
    const Field& table = it->second;
    if (table.dtype() == ScalarType::Int32) check_entries<std::int32_t>(c, table, *extent);
    else if (table.dtype() == ScalarType::Int64) check_entries<std::int64_t>(c, table, *extent);
  }
}

void check_direct_neighbours(const std::vector<DirectNeighbourRead>& direct, const Arguments& args) {
  for (const auto& d : direct) {
    auto it = args.arrays.find(d.table);
    if (it == args.arrays.end() || it->second.ndim() != 2) continue;
    if (it->second.dtype() == ScalarType::Int32) check_column<std::int32_t>(d, it->second);
    else if (it->second.dtype() == ScalarType::Int64) check_column<std::int64_t>(d, it->second);
  }
}

std::shared_ptr<Program> with_connectivity_checks(std::shared_ptr<Program> program,
                                                  std::vector<ConnectivityParameter> connectivities,
                                                  std::vector<DirectNeighbourRead> direct) {
  if (connectivities.empty()) return program;
  return std::make_shared<CheckedProgram>(std::move(program), std::move(connectivities), std::move(direct));
}

}  // namespace weir::runtime
