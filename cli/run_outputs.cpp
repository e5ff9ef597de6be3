// What `weir run` reports and writes (run_outputs.h).
#include "run_outputs.h"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

#include "overwrite_guard.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/errors.h"

namespace weir::cli {

namespace fs = std::filesystem;
using namespace weir::runtime;

namespace {

// -0.0 prints as 0: a summary that says "min -0" reads like a fault (the checksum still tells
// the bits apart).
std::string fmt(double v) {
  if (v == 0) v = 0.0;
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

// Element `i` as a double; complex values by their magnitude (the summary says "|z|").
double summary_value(const Field& f, std::int64_t i) {
  const auto* p = static_cast<const unsigned char*>(f.data()) + static_cast<std::size_t>(i) * f.itemsize();
  if (f.dtype() == ScalarType::Complex128 || f.dtype() == ScalarType::Complex64) {
    if (f.dtype() == ScalarType::Complex128) {
      double z[2];
      std::memcpy(z, p, sizeof z);
      return std::hypot(z[0], z[1]);
    }
    float z[2];
    std::memcpy(z, p, sizeof z);
    return std::hypot(static_cast<double>(z[0]), static_cast<double>(z[1]));
  }
  return f.value_as_double(i);
}

std::string summary(const std::string& name, const Field& f) {
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, sum = 0;
  std::int64_t nan = 0, n = 0;
  for (std::int64_t i = 0; i < f.size(); ++i) {
    double v = summary_value(f, i);
    if (std::isnan(v)) {
      ++nan;
      continue;
    }
    mn = std::min(mn, v);
    mx = std::max(mx, v);
    sum += v;
    ++n;
  }
  std::string s = "  " + name + ": " + f.describe();
  if (n && (f.dtype() == ScalarType::Complex128 || f.dtype() == ScalarType::Complex64)) s += "  |z|";
  if (n) s += "  min " + fmt(mn) + "  max " + fmt(mx) + "  mean " + fmt(sum / static_cast<double>(n));
  if (nan) s += "  NaN " + std::to_string(nan);
  return s + "  checksum " + f.checksum();  // (legend printed below the outputs)
}

}  // namespace

void check_output_dir(const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw weir::Error("--out " + out.string() + ": exists and is not a directory");
  fs::path base = fs::absolute(out, ec);
  while (!base.empty() && !fs::exists(base, ec) && base != base.parent_path()) base = base.parent_path();
  if (!fs::is_directory(base, ec))
    throw weir::Error("cannot write --out " + out.string() + ": " + base.string() + " is not a directory");
  fs::path probe = base / (".weir-probe-" + std::to_string(::getpid()));
  if (!fs::create_directory(probe, ec) || ec)
    throw weir::Error("cannot write --out " + out.string() + ": " +
                      (ec ? ec.message() : "cannot create a directory in " + base.string()));
  fs::remove(probe, ec);
}

namespace {

// "results/" names the folder "results": its parent and name below must not be "results" and "".
fs::path output_folder(const fs::path& out_dir) {
  fs::path out = out_dir.lexically_normal();
  if (out.filename().empty() && out.has_parent_path()) out = out.parent_path();
  return out;
}

}  // namespace

void refuse_outputs_over_inputs(const fs::path& out_dir, const std::vector<std::string>& names,
                                const std::vector<fs::path>& inputs, const std::string& option) {
  fs::path out = output_folder(out_dir);
  for (const auto& name : names)
    refuse_overwriting_input(option + " " + out.string(), out / (name + ".npy"), inputs, "directory");
}

void write_outputs(const fs::path& out_dir, const std::vector<std::pair<std::string, const Field*>>& outputs,
                   const std::vector<fs::path>& inputs, const std::string& option) {
  fs::path out = output_folder(out_dir);
  std::vector<std::string> names;
  for (const auto& [name, f] : outputs) names.push_back(name);
  refuse_outputs_over_inputs(out, names, inputs, option);
  // The temporary directory is on the file system of the files' final place (renames across
  // file systems fail with "Invalid cross-device link"): inside `out` when it exists (it may be
  // a mount point), else beside it.
  std::error_code ec;
  bool existing = fs::is_directory(out, ec);
  fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!existing) fs::create_directories(parent);
  fs::path tmp = existing
                     ? out / (".weir-tmp-" + std::to_string(::getpid()))
                     : parent / ("." + out.filename().string() + ".weir-tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    for (const auto& [name, f] : outputs) write_npy(tmp / (name + ".npy"), *f);
    if (!existing) {
      fs::rename(tmp, out);
      return;
    }
    if (!fs::is_directory(out))
      throw weir::Error(option + " " + out.string() + ": exists and is not a directory");
    for (const auto& [name, f] : outputs) fs::rename(tmp / (name + ".npy"), out / (name + ".npy"));
    fs::remove_all(tmp);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

std::vector<std::pair<std::string, const Field*>> print_outputs(const Signature& sig, const Arguments& args) {
  std::vector<std::pair<std::string, const Field*>> outputs;
  for (const auto& p : sig.params)
    if (p.kind == Parameter::Kind::Array && p.written) outputs.emplace_back(p.name, &args.arrays.at(p.name));
  std::cout << "outputs (" << outputs.size() << "):\n";
  for (const auto& [name, f] : outputs) std::cout << summary(name, *f) << "\n";
  if (!outputs.empty())
    std::cout
        << "  (checksum: the first 16 hex digits of the SHA-256 of the array's bytes; equal checksums mean "
           "bit-identical results)\n";
  for (const auto& p : sig.params)
    if (p.kind == Parameter::Kind::Scalar && p.written)
      std::cout << "  " << p.name << " = " << to_string(args.values.at(p.name)) << "\n";
  return outputs;
}

}  // namespace weir::cli
