// Arguments of `weir run` from its command line (run_arguments.h).
#include "run_arguments.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "targets.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/errors.h"
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
    throw UsageError("--set " + name + "=" + v + ": '" + v + "' is out of range for float64");
  throw UsageError("--set " + name + "=" + v + ": '" + v + "' is not a number");
}

void read_set_json(const std::string& file, std::map<std::string, Number>& values) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw weir::Error(file + ": cannot read (--set-json)");
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

// `--in NAME=FILE` names an array parameter: a usage error (with the closest name) otherwise.
void check_array_name(const Signature& sig, const std::string& name, const std::string& file) {
  const Parameter* p = sig.find(name);
  if (p && p->kind == Parameter::Kind::Array) return;
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

GivenArguments gather_arguments(const RunOptions& o, const Signature& sig, const Allocator& allocator) {
  GivenArguments g;
  Arguments& args = g.args;
  auto load_input = [&](const std::string& name, const fs::path& file) {
    args.arrays.insert_or_assign(name, read_npy(file, allocator));
    g.input_files.push_back(file);
  };
  if (!o.in_dir.empty()) {
    if (!fs::is_directory(o.in_dir))
      throw UsageError("--in-dir " + o.in_dir + ": " +
                       (fs::exists(o.in_dir) ? "not a directory" : "no such directory"));
    std::vector<std::string> absent;  // array arguments the folder has no file for
    for (const auto& p : sig.params) {
      if (p.kind != Parameter::Kind::Array) continue;
      if (fs::exists(fs::path(o.in_dir) / (p.name + ".npy")))
        load_input(p.name, fs::path(o.in_dir) / (p.name + ".npy"));
      else
        absent.push_back(p.name);
    }
    // A file that matches no argument is ignored (a folder may serve several programs), but one
    // named almost like a missing argument is likely a misspelling of it: say so.
    for (const auto& e : fs::directory_iterator(o.in_dir)) {
      if (e.path().extension() != ".npy" || sig.find(e.path().stem().string())) continue;
      if (auto near = closest_name(e.path().stem().string(), absent))
        std::cerr << "weir: warning: --in-dir " << o.in_dir << ": " << e.path().filename().string()
                  << " matches no array argument (ignored); did you mean " << *near << ".npy?\n";
    }
  }
  std::map<std::string, std::string> given_in;  // --in NAME -> FILE, to catch a name given twice
  for (const auto& s : o.ins) {
    auto [name, file] = split_assignment("--in", s);
    check_array_name(sig, name, file);
    if (auto [it, fresh] = given_in.emplace(name, file); !fresh)
      throw UsageError("--in " + name + " is given twice (" + it->second + " and " + file + ")");
    load_input(name, file);
  }
  for (const auto& f : o.set_jsons) read_set_json(f, g.from_json);
  for (const auto& [k, v] : g.from_json) args.values[k] = v;
  for (const auto& s : o.sets) {
    auto [name, v] = split_assignment("--set", s);
    if (args.values.count(name) && !g.from_json.count(name))
      throw UsageError("--set " + name + " is given twice");
    args.values[name] = parse_number(name, v);
  }
  return g;
}

}  // namespace weir::cli
