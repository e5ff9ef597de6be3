// The `weir tune` section's timing protocol (tune_timing.h).
#include "tune_timing.h"

#include <omp.h>

#include <chrono>
#include <cstring>
#include <map>
#include <stdexcept>

namespace weir::bench {

std::pair<std::vector<double>, std::vector<double>> time_like_weir_tune(
    const TimedCall& a, const TimedCall& b, runtime::Arguments& args, const std::vector<std::string>& written,
    int warmup, int rounds, bool warm) {
  std::map<std::string, runtime::Field> saved;
  for (const auto& name : written) {
    auto it = args.arrays.find(name);
    if (it == args.arrays.end())
      throw std::invalid_argument("time_like_weir_tune: no array '" + name + "' among the arguments");
    saved.emplace(name, it->second.clone());
  }
  auto restore = [&] {
    for (const auto& [name, copy] : saved)
      std::memcpy(args.arrays.at(name).data(), copy.data(), copy.nbytes());
  };
  auto call = [&](const TimedCall& p) {
    omp_set_num_threads(p.threads);
    if (warm) {
      restore();
      p.call();
    }
    restore();
    const auto t0 = std::chrono::steady_clock::now();
    p.call();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int w = 0; w < warmup; ++w) call(a), call(b);
  std::pair<std::vector<double>, std::vector<double>> seconds;
  for (int r = 0; r < rounds; ++r) {
    seconds.first.push_back(call(a));
    seconds.second.push_back(call(b));
  }
  // The arguments end as they began: the inputs, not what the last call left in them.
  restore();
  return seconds;
}

}  // namespace weir::bench
