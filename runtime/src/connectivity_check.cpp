#include "weir/runtime/connectivity_check.h"

#include <cstdint>
#include <optional>
#include <string>

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

class CheckedProgram : public Program {
 public:
  CheckedProgram(std::shared_ptr<Program> inner, std::vector<ConnectivityParameter> conns)
      : inner_(std::move(inner)), conns_(std::move(conns)) {}
  const std::string& name() const override { return inner_->name(); }
  const Signature& signature() const override { return inner_->signature(); }
  void run(Arguments& args) override {
    check_connectivities(conns_, inner_->signature(), args);
    inner_->run(args);
  }

 private:
  std::shared_ptr<Program> inner_;
  std::vector<ConnectivityParameter> conns_;
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

std::shared_ptr<Program> with_connectivity_checks(std::shared_ptr<Program> program,
                                                  std::vector<ConnectivityParameter> connectivities) {
  if (connectivities.empty()) return program;
  return std::make_shared<CheckedProgram>(std::move(program), std::move(connectivities));
}

}  // namespace weir::runtime
