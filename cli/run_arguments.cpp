// Arguments of `weir run` from its command line (run_arguments.h).
#include "run_arguments.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "run_sizes.h"
#include "targets.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/json_text.h"
#include "weir/sdfg/suggest.h"
#include "weir/sdfg/text.h"

namespace weir::cli {

namespace fs = std::filesystem;
using namespace weir::runtime;

namespace {

Number parse_number(const std::string& name, const std::string& v) {
  if (v == "true" || v == "True") return true;
  if (v == "false" || v == "False") return false;
  errno = 0;
  char* end = nullptr;
  long long i = std::strtoll(v.c_str(), &end, 10);
  if (*end == '\0' && errno == 0) return static_cast<std::int64_t>(i);
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (*end == '\0' && errno == 0) return d;
  if (*end == '\0' && errno == ERANGE && !v.empty())
    throw UsageError("--set " + name + "=" + v + ": expected a number within float64's range");
  throw UsageError("--set " + name + "=" + v + ": expected a number (an integer, a decimal or true/false)");
}

// What `name` is when it takes only integers: "a symbol of program 'p'", "an int32 argument of
// program 'p'", "a dimension (--set DIM=N sizes the fields along it)", or "".
std::string integer_kind(const Signature& sig, const std::string& name) {
  const std::string of = " of program '" + sig.program_name + "'";
  if (const Parameter* p = sig.find(name)) {
    if (p->kind == Parameter::Kind::Symbol) return "a symbol" + of;
    bool integer = p->dtype >= ScalarType::Int8 && p->dtype <= ScalarType::UInt64;
    if (p->kind == Parameter::Kind::Scalar && integer)
      return "an " + std::string(to_string(p->dtype)) + " argument" + of;
    return "";
  }
  for (const auto& p : sig.params)
    for (const auto& x : p.shape)
      if (size_dimension(x.str()) == name) return "a dimension" + of;
  return "";
}

void read_set_json(const std::string& file, std::map<std::string, Number>& values) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw weir::Error(file + ": cannot read (--set-json): " + std::strerror(errno));
  protect_input_file(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j = parse_json(text, file);
  if (!j.is_object()) throw weir::Error(file + ": expected a JSON object of names to numbers");
  for (const auto& [k, v] : j.items()) {
    if (v.is_boolean())
      values[k] = v.get<bool>();
    else if (v.is_number_integer())
      values[k] = v.get<std::int64_t>();
    else if (v.is_number())
      values[k] = v.get<double>();
    else
      throw weir::Error(file + ": '" + k + "' is " + v.dump() + ", not a number");
  }
}

// The range of an integer dtype, as long long (uint64's upper end: the largest int64, all --set parses).
std::pair<long long, long long> integer_range(ScalarType t) {
  switch (t) {
    case ScalarType::Int8: return {INT8_MIN, INT8_MAX};
    case ScalarType::Int16: return {INT16_MIN, INT16_MAX};
    case ScalarType::Int32: return {INT32_MIN, INT32_MAX};
    case ScalarType::UInt8: return {0, UINT8_MAX};
    case ScalarType::UInt16: return {0, UINT16_MAX};
    case ScalarType::UInt32: return {0, UINT32_MAX};
    case ScalarType::UInt64: return {0, INT64_MAX};
    default: return {INT64_MIN, INT64_MAX};
  }
}

// `--set NAME=V` for a name that takes only integers (a symbol, a dimension, an integer
// argument): a decimal, or an integer outside the argument's dtype, is a usage error.
void check_integer_value(const Signature& sig, const std::string& name, const std::string& v,
                         const Number& n) {
  const std::string kind = integer_kind(sig, name);
  if (kind.empty()) return;
  const std::string head = "--set " + name + "=" + v + ": expected an integer";
  const std::string what = " ('" + name + "' is " + kind + ")";
  if (std::holds_alternative<double>(n)) throw UsageError(head + what);
  const Parameter* p = sig.find(name);
  const auto* i = std::get_if<std::int64_t>(&n);
  if (!p || p->kind != Parameter::Kind::Scalar || !i) return;
  auto [lo, hi] = integer_range(p->dtype);
  if (*i < lo || *i > hi)
    throw UsageError(head + " from " + std::to_string(lo) + " to " + std::to_string(hi) + what);
}

// `--in NAME=FILE` names an array parameter: a usage error (with the closest name) otherwise.
void check_array_name(const Signature& sig, const std::string& name, const std::string& file) {
  const Parameter* p = sig.find(name);
  if (p && (p->kind == Parameter::Kind::Array || p->kind == Parameter::Kind::Scalar)) return;
  const std::string head = "--in " + name + "=" + file + ": ";
  if (p)
    throw UsageError(head + "'" + name + "' is a " + to_string(p->kind) + " of program '" + sig.program_name +
                     "', not an array: give it with --set " + name + "=VALUE");
  std::vector<std::string> arrays;
  for (const auto& q : sig.params)
    if (q.kind == Parameter::Kind::Array) arrays.push_back(q.name);
  throw UsageError(head + "program '" + sig.program_name + "' has no array argument '" + name + "'" +
                   did_you_mean(name, arrays) +
                   (arrays.empty() ? " (it takes no arrays)" : " (arrays: " + join(arrays) + ")"));
}

}  // namespace

std::pair<std::string, std::string> split_assignment(const std::string& opt, const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw UsageError(opt + " " + s + ": expected NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

GivenArguments gather_arguments(const RunOptions& o, const Signature& sig, const Allocator& allocator,
                                const Signature* program) {
  GivenArguments g;
  Arguments& args = g.args;
  auto load_input = [&](const std::string& name, const fs::path& file) {
    args.arrays.insert_or_assign(name, read_npy(file, allocator));
    g.input_files.push_back(file);
  };
  // --in NAME=FILE wins over a DIR/NAME.npy of --in-dir: the names given so, checked first.
  std::map<std::string, std::string> given_in;  // --in NAME -> FILE, to catch a name given twice
  for (const auto& s : o.ins) {
    auto [name, file] = split_assignment("--in", s);
    check_array_name(sig, name, file);
    if (auto [it, fresh] = given_in.emplace(name, file); !fresh)
      throw UsageError("--in " + name + " is given twice (" + it->second + " and " + file + ")");
  }
  for (std::size_t k = 0; k < o.in_dirs.size(); ++k) {
    const std::string& dir = o.in_dirs[k];
    if (!fs::is_directory(dir))
      throw UsageError("--in-dir " + dir + ": " +
                       (fs::exists(dir) ? "not a directory" : "no such directory"));
    // The same folder twice (`in` and `./in`) would find each file "in two folders".
    for (std::size_t j = 0; j < k; ++j) {
      std::error_code ec;
      if (fs::equivalent(o.in_dirs[j], dir, ec))
        throw UsageError("--in-dir " + dir + " is given twice" +
                         (o.in_dirs[j] == dir ? std::string() : " (as " + o.in_dirs[j] + ")"));
    }
  }
  // Every array argument without --in that has a DIR/NAME.npy in one of the folders (in two: an
  // error naming both files).
  std::vector<std::string> absent;  // array arguments no folder has a file for
  for (const auto& p : sig.params) {
    if (p.kind != Parameter::Kind::Array || given_in.count(p.name)) continue;
    fs::path found;
    for (const auto& dir : o.in_dirs) {
      fs::path f = fs::path(dir) / (p.name + ".npy");
      if (!fs::exists(f)) continue;
      if (!found.empty())
        throw UsageError("--in-dir: '" + p.name + "' is in two folders (" + found.string() + " and " +
                         f.string() + "); give the one to use with --in " + p.name + "=FILE.npy");
      found = f;
    }
    if (found.empty())
      absent.push_back(p.name);
    else
      load_input(p.name, found);
  }
  // A file that matches no argument is ignored (a folder may serve several programs), but one
  // named almost like a missing argument is likely a misspelling of it: say so.
  for (const auto& dir : o.in_dirs)
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".npy" || sig.find(e.path().stem().string())) continue;
      if (auto near = closest_name(e.path().stem().string(), absent))
        std::cerr << "weir: warning: --in-dir " << dir << ": " << e.path().filename().string()
                  << " matches no array argument (ignored); did you mean " << *near << ".npy?\n";
    }
  for (const auto& s : o.ins) {
    auto [name, file] = split_assignment("--in", s);
    const Parameter* p = sig.find(name);
    if (p->kind != Parameter::Kind::Scalar) {
      load_input(name, file);
      continue;
    }
    // A scalar from a 0-d array, as gt4py passes a 0-d field (`Field[Dims[()], T]`).
    Field f = read_npy(file, allocator);
    if (f.ndim() != 0)
      throw UsageError("--in " + name + "=" + file + ": '" + name + "' is a scalar of program '" +
                       sig.program_name + "': give it with --set " + name +
                       "=VALUE or as a 0-d array (shape ()), not " + f.describe());
    args.values[name] = zero_d_value(f);
    g.input_files.push_back(file);
  }
  for (const auto& f : o.set_jsons) read_set_json(f, g.from_json);
  for (const auto& [k, v] : g.from_json) args.values[k] = v;
  for (const auto& s : o.sets) {
    auto [name, v] = split_assignment("--set", s);
    if (args.values.count(name) && !g.from_json.count(name))
      throw UsageError("--set " + name + " is given twice");
    args.values[name] = parse_number(name, v);
    check_integer_value(program && program->find(name) ? *program : sig, name, v, args.values[name]);
  }
  return g;
}

}  // namespace weir::cli
