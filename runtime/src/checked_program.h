// The Program with_connectivity_checks returns (connectivity_check.cpp): the call's connectivity
// tables checked, then the wrapped program run on int32 copies of them. Internal to the runtime:
// without_connectivity_checks and run_for_symbols (run_for_symbols.cpp) reach through it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/indexed_connectivity_check.h"
#include "weir/runtime/program.h"

namespace weir::runtime::detail {

class CheckedProgram final : public Program {
 public:
  CheckedProgram(std::shared_ptr<Program> inner, std::vector<ConnectivityParameter> conns,
                 IndexedFields indexed)
      : inner_(std::move(inner)), conns_(std::move(conns)), indexed_(std::move(indexed)) {}
  const std::shared_ptr<Program>& inner() const { return inner_; }
  const std::string& name() const override { return inner_->name(); }
  const Signature& signature() const override { return inner_->signature(); }
  void run(Arguments& args) override {
    checked(args, [&] { inner_->run(args); });
  }
  /// Checks the tables of `args`, then calls `run_inner` with int32 copies of them in `args`
  /// (what run() runs the wrapped program in).
  void checked(Arguments& args, const std::function<void()>& run_inner) const {
    check_connectivities(conns_, inner_->signature(), args, indexed_);
    with_int32_tables(conns_, inner_->signature(), args, run_inner);
  }

 private:
  std::shared_ptr<Program> inner_;
  std::vector<ConnectivityParameter> conns_;
  IndexedFields indexed_;
};

}  // namespace weir::runtime::detail
