// What `weir run` reports and writes (run_outputs.h).
#include "run_outputs.h"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <vector>

#include "overwrite_guard.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/output_file.h"

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

// Minimum, maximum and mean of the values that are not NaN, and the count of NaNs.
struct Stats {
  double mn = std::numeric_limits<double>::infinity(), mx = -std::numeric_limits<double>::infinity(), sum = 0;
  std::int64_t nan = 0, n = 0;
  void add(double v) {
    if (std::isnan(v)) {
      ++nan;
      return;
    }
    mn = std::min(mn, v);
    mx = std::max(mx, v);
    sum += v;
    ++n;
  }
  std::string text() const {
    std::string s;
    if (n) s += "  min " + fmt(mn) + "  max " + fmt(mx) + "  mean " + fmt(sum / static_cast<double>(n));
    if (nan) s += "  NaN " + std::to_string(nan);
    return s;
  }
};

// A complex element's real and imaginary parts (NumPy's layout: real first).
template <class T>
std::pair<double, double> complex_at(const Field& f, std::int64_t i) {
  T parts[2];
  std::memcpy(parts,
              static_cast<const unsigned char*>(f.data()) + static_cast<std::size_t>(i) * 2 * sizeof(T),
              sizeof parts);
  return {static_cast<double>(parts[0]), static_cast<double>(parts[1])};
}

std::string summary(const std::string& name, const Field& f) {
  std::string s = "  " + name + ": " + f.describe();
  if (f.dtype() == ScalarType::Complex64 || f.dtype() == ScalarType::Complex128) {
    // The real and the imaginary parts, each as a real array's.
    Stats re, im;
    for (std::int64_t i = 0; i < f.size(); ++i) {
      auto [r, m] = f.dtype() == ScalarType::Complex64 ? complex_at<float>(f, i) : complex_at<double>(f, i);
      re.add(r);
      im.add(m);
    }
    // "real part: min ...  imaginary part: min ..." (text() starts with two spaces).
    s += "  real part:" + re.text().substr(1) + "  imaginary part:" + im.text().substr(1);
  } else {
    Stats st;
    for (std::int64_t i = 0; i < f.size(); ++i) st.add(f.value_as_double(i));
    s += st.text();
  }
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
  // Each file is written as write_file_atomically() does (a temporary beside its final target,
  // through symbolic links), all of them before the first is renamed into place: a failure (a
  // full disk) leaves every existing output as it was.
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw weir::Error(option + " " + out.string() + ": exists and is not a directory");
  const bool created = !fs::exists(out, ec);
  fs::create_directories(out, ec);
  if (ec) throw weir::Error("cannot write " + option + " " + out.string() + ": " + ec.message());
  try {
    std::vector<AtomicOutput> files;
    files.reserve(outputs.size());
    for (const auto& [name, f] : outputs) {
      files.emplace_back(out / (name + ".npy"));
      files.back().write(to_npy_bytes(*f));
    }
    for (AtomicOutput& file : files) file.commit();
  } catch (...) {
    if (created) fs::remove(out, ec);  // only if still empty
    throw;
  }
}

void returned_scalars_as_0d(const Signature& sig, Arguments& args) {
  for (const auto& p : sig.params) {
    if (!p.returned || p.kind != Parameter::Kind::Array || p.shape.size() != 1 ||
        p.shape[0].try_evaluate({}) != 1)
      continue;
    auto it = args.arrays.find(p.name);
    if (it == args.arrays.end() || it->second.size() != 1) continue;
    Field scalar = Allocator::cpu().allocate(it->second.dtype(), {});
    std::memcpy(scalar.data(), it->second.data(), it->second.nbytes());
    it->second = std::move(scalar);
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

void finish_outputs(const runtime::Signature& sig, runtime::Arguments& args, const std::string& out_dir,
                    const std::vector<std::filesystem::path>& inputs) {
  returned_scalars_as_0d(sig, args);
  auto outputs = print_outputs(sig, args);
  if (out_dir.empty()) return;
  write_outputs(out_dir, outputs, inputs);
  std::cout << "wrote " << outputs.size() << " file" << (outputs.size() == 1 ? "" : "s") << " to " << out_dir
            << "\n";
}

}  // namespace weir::cli
