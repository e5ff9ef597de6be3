// The tune section's target rows (tune_bench.h).
#include "tune_targets.h"

#include <iomanip>
#include <sstream>

namespace weir::bench {

using nlohmann::json;

json tune_targets(const json& kernels) {
  std::size_t measured = 0, fast = 0;
  std::string slower, fast_names;
  for (const json& k : kernels) {
    if (!k.contains("speedup")) continue;
    const double s = k["speedup"].get<double>();
    ++measured;
    if (s >= kTuneTargetSpeedup) fast_names += (fast++ ? ", " : "") + k["name"].get<std::string>();
    if (s < kTuneNeverSlower) {
      std::ostringstream os;
      os << k["name"].get<std::string>() << " " << std::fixed << std::setprecision(2) << s << "x";
      slower += (slower.empty() ? "" : ", ") + os.str();
    }
  }
  const json none = nullptr;
  std::ostringstream half, never;
  half << fast << " of " << measured << " kernels" << (fast ? " (" + fast_names + ")" : "");
  never << (slower.empty() ? "none below " : slower + " below ") << std::fixed << std::setprecision(2)
        << kTuneNeverSlower << "x";
  return json::array(
      {{{"target", "weir tune >= 1.15x faster than --auto cpu on at least half of the stencil kernels"},
        {"measured", half.str()},
        {"met", measured ? json(2 * fast >= measured) : none}},
       {{"target", "weir tune never slower than --auto cpu"},
        {"measured", never.str()},
        {"met", measured ? json(slower.empty()) : none}}});
}

}  // namespace weir::bench
