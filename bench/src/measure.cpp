#include "measure.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>

namespace weir::bench {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Stats stats_of(std::vector<double> s) {
  Stats st;
  st.n = s.size();
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  st.min = s.front();
  st.max = s.back();
  std::size_t h = s.size() / 2;
  st.median = s.size() % 2 ? s[h] : 0.5 * (s[h - 1] + s[h]);
  return st;
}

long peak_rss_kib() {
  // VmHWM belongs to the process's current address space. getrusage's ru_maxrss would do on
  // its own, but Linux carries it across exec, so a child spawned by a big parent would report
  // the parent's peak.
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // KiB on Linux
}

double growth_exponent(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::pair<double, double>> p;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
    if (x[i] > 0 && y[i] > 0) p.emplace_back(std::log(x[i]), std::log(y[i]));
  if (p.size() < 2) return 0;
  double mx = 0, my = 0;
  for (auto& [a, b] : p) mx += a, my += b;
  mx /= p.size();
  my /= p.size();
  double sxy = 0, sxx = 0;
  for (auto& [a, b] : p) sxy += (a - mx) * (b - my), sxx += (a - mx) * (a - mx);
  return sxx > 0 ? sxy / sxx : 0;
}

}  // namespace weir::bench
