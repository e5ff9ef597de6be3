// A Program that adds the wall time of each run of another one to a shared CalleeTimes (the
// callees of a call-by-call run, timed for bench/tools/orchestration_bench.cpp).
#pragma once

#include <chrono>
#include <memory>
#include <utility>

#include "weir/runtime/dispatch.h"
#include "weir/runtime/program.h"

namespace weir::runtime {

class TimedProgram final : public Program {
 public:
  TimedProgram(std::shared_ptr<Program> inner, std::shared_ptr<CalleeTimes> times)
      : inner_(std::move(inner)), times_(std::move(times)) {}

  const std::string& name() const override { return inner_->name(); }
  const Signature& signature() const override { return inner_->signature(); }
  void run(Arguments& args) override {
    const auto t0 = std::chrono::steady_clock::now();
    inner_->run(args);  // a run that throws is not counted
    times_->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++times_->runs;
  }

 private:
  std::shared_ptr<Program> inner_;
  std::shared_ptr<CalleeTimes> times_;
};

}  // namespace weir::runtime
