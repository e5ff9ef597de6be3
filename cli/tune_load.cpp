// Whether tune's ratios were measured on a loaded machine (tune_load.h).
#include "tune_load.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "targets.h"

namespace weir::cli {
namespace {

// The value at fraction `q` of the sorted `v` (non-empty), interpolated between neighbours.
double quantile(const std::vector<double>& v, double q) {
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

LoadReading parse_loadavg(const std::string& text) {
  std::istringstream in(text);
  std::string a, b, c;
  LoadReading r;
  if (!(in >> a >> b >> c)) return r;
  try {
    std::size_t used = 0;
    const double one = std::stod(a, &used);
    if (used != a.size() || !std::isfinite(one) || one < 0) return r;
    (void)std::stod(b);
    (void)std::stod(c);
    r.one_minute = one;
    r.text = a + " " + b + " " + c;
  } catch (const std::exception&) {
    return LoadReading{};
  }
  return r;
}

LoadReading read_load() {
  if (const char* injected = std::getenv("WEIR_TUNE_LOADAVG")) {
    LoadReading r = parse_loadavg(injected);
    if (r.one_minute < 0)
      throw UsageError(std::string("WEIR_TUNE_LOADAVG='") + injected +
                       "': expected the text of /proc/loadavg, three load averages such as '9.30 8.12 7.05'");
    return r;
  }
  std::ifstream f("/proc/loadavg");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_loadavg(ss.str());
}

double relative_spread(std::vector<double> seconds) {
  if (seconds.size() < 4) return 0;
  std::sort(seconds.begin(), seconds.end());
  const double mid = quantile(seconds, 0.5);
  return mid > 0 ? (quantile(seconds, 0.75) - quantile(seconds, 0.25)) / mid : 0;
}

double within_series_spread(const std::vector<std::vector<double>>& series) {
  std::vector<double> ratios;
  for (const auto& s : series) {
    if (s.empty()) continue;
    std::vector<double> sorted = s;
    std::sort(sorted.begin(), sorted.end());
    const double mid = quantile(sorted, 0.5);
    if (mid <= 0) continue;
    for (double x : s) ratios.push_back(x / mid);
  }
  return relative_spread(std::move(ratios));
}

std::string load_warning(const LoadReading& load, unsigned cpus,
                         const std::vector<std::vector<double>>& baseline_series, const std::string& whose,
                         const std::string& consequence) {
  const bool loaded = load.one_minute >= 0 && cpus > 0 && load.one_minute > cpus + kLoadMargin;
  const double spread = within_series_spread(baseline_series);
  const bool scattered = spread > kMaxBaselineSpread;
  if (!loaded && !scattered) return "";
  // The idle run of session 32 (load 1.2-1.3 on 2 CPUs) had baselines spread by 29-45%: a
  // scattered baseline alone says the timings are noisy, not that the machine is loaded.
  std::ostringstream os;
  os << std::fixed << (loaded ? "the machine is loaded (" : "the timings are noisy (");
  if (load.one_minute >= 0)
    os << "load " << std::setprecision(2) << load.one_minute << " on " << cpus << " CPU"
       << (cpus == 1 ? "" : "s");
  else
    os << "load unknown";
  if (scattered) {
    std::size_t calls = 0, n = 0;
    for (const auto& s : baseline_series) {
      calls += s.size();
      n += s.empty() ? 0 : 1;
    }
    os << "; " << whose << " " << calls << " calls in " << n << " series spread by " << std::setprecision(0)
       << spread * 100.0 << "% within a series (interquartile range / median)";
  }
  os << "): " << consequence;
  return os.str();
}

}  // namespace weir::cli
