// Checking and timing `weir tune`'s candidates (tune_measure.h).
#include "tune_measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <sstream>

#include "openmp_threads.h"

namespace weir::cli {

using runtime::Arguments;
using runtime::Field;

InputSnapshot::InputSnapshot(const Arguments& args, const std::vector<std::string>& written) {
  for (const auto& n : written)
    if (auto it = args.arrays.find(n); it != args.arrays.end()) saved_.emplace(n, it->second.clone());
}

void InputSnapshot::restore(Arguments& args) const {
  for (const auto& [name, f] : saved_) std::memcpy(args.arrays.at(name).data(), f.data(), f.nbytes());
}

double tune_tolerance(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float64:
    case ScalarType::Complex128: return 1e-9;
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Complex64: return 1e-4;
    default: return 0;
  }
}

namespace {

// The real values of a floating-point field (complex: real and imaginary parts in turn).
std::vector<double> as_doubles(const Field& f) {
  std::vector<double> v;
  const auto n = static_cast<std::size_t>(f.size());
  switch (f.dtype()) {
    case ScalarType::Float64: {
      const auto* p = static_cast<const double*>(f.data());
      v.assign(p, p + n);
      break;
    }
    case ScalarType::Float32: {
      const auto* p = static_cast<const float*>(f.data());
      v.assign(p, p + n);
      break;
    }
    case ScalarType::Complex128: {
      const auto* p = static_cast<const double*>(f.data());
      v.assign(p, p + 2 * n);
      break;
    }
    case ScalarType::Complex64: {
      const auto* p = static_cast<const float*>(f.data());
      v.assign(p, p + 2 * n);
      break;
    }
    default:
      for (std::int64_t i = 0; i < f.size(); ++i) v.push_back(f.value_as_double(i));
  }
  return v;
}

// "[1, 2, 0]": the C-order index of element `flat` of `shape`.
std::string index_text(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

std::string compare_one(const std::string& name, const Field& e, const Field& g) {
  if (e.dtype() != g.dtype() || e.shape() != g.shape())
    return name + ": expected " + e.describe() + ", got " + g.describe();
  const double rtol = tune_tolerance(e.dtype());
  if (rtol == 0) {  // integers, booleans: the bytes
    if (std::memcmp(e.data(), g.data(), e.nbytes()) == 0) return "";
    std::int64_t differ = 0, first = -1;
    for (std::int64_t i = 0; i < e.size(); ++i)
      if (e.value_as_double(i) != g.value_as_double(i)) {
        if (first < 0) first = i;
        ++differ;
      }
    std::ostringstream os;
    os << name << ": " << differ << " of " << e.size() << " values differ";
    if (first >= 0)
      os << " (first at " << index_text(first, e.shape()) << ": expected " << e.value_as_double(first)
         << ", got " << g.value_as_double(first) << ")";
    return os.str();
  }
  const std::vector<double> ev = as_doubles(e), gv = as_doubles(g);
  const bool complex = e.dtype() == ScalarType::Complex64 || e.dtype() == ScalarType::Complex128;
  double scale = 0;
  for (double x : ev)
    if (std::isfinite(x)) scale = std::max(scale, std::abs(x));
  std::int64_t differ = 0;
  std::size_t first = ev.size();
  double largest = 0;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const double a = ev[i], b = gv[i];
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;  // also equal infinities
    const double d = std::abs(a - b);
    if (d <= rtol * std::max({std::abs(a), std::abs(b), scale})) continue;
    if (first == ev.size()) first = i;
    ++differ;
    if (!(d <= largest)) largest = d;  // NaN stays the largest
  }
  if (!differ) return "";
  const std::size_t element = complex ? first / 2 : first;
  std::ostringstream os;
  os << name << ": " << differ << " of " << ev.size() << (complex ? " parts" : " values")
     << " differ (first at " << index_text(static_cast<std::int64_t>(element), e.shape()) << ": expected "
     << ev[first] << ", got " << gv[first] << "; largest difference " << largest << ")";
  return os.str();
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string compare_outputs(const Arguments& expected, const Arguments& got,
                            const std::vector<std::string>& names) {
  std::string why;
  for (const auto& n : names) {
    auto e = expected.arrays.find(n);
    auto g = got.arrays.find(n);
    if (e == expected.arrays.end() || g == got.arrays.end()) continue;
    if (std::string d = compare_one(n, e->second, g->second); !d.empty())
      why += (why.empty() ? "" : "; ") + d;
  }
  return why;
}

std::pair<std::vector<double>, std::vector<double>> time_interleaved(const TimedProgram& a,
                                                                     const TimedProgram& b, Arguments& args,
                                                                     const InputSnapshot& snapshot,
                                                                     int rounds, bool warm) {
  std::pair<std::vector<double>, std::vector<double>> seconds;
  auto call = [&](const TimedProgram& p, std::vector<double>& into) {
    set_openmp_threads(p.threads);
    if (warm) {
      snapshot.restore(args);
      p.program->run(args);
    }
    snapshot.restore(args);
    auto t0 = std::chrono::steady_clock::now();
    p.program->run(args);
    into.push_back(since(t0));
  };
  for (int r = 0; r < rounds; ++r) {
    call(a, seconds.first);
    call(b, seconds.second);
  }
  return seconds;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace weir::cli
