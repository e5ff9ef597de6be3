// Arrays `weir run --random-inputs` makes (random_inputs.h).
#include "random_inputs.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "run_sizes.h"
#include "weir/runtime/byte_size.h"
#include "weir/runtime/errors.h"

namespace weir::cli {

using namespace weir::runtime;

namespace {

// Fills a field with seeded uniform values: [0, 1) for floats, 0..9 for integers, 0/1 for bool.
void fill_random(Field& f, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> real(0.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9), bit(0, 1);
  auto* p = static_cast<unsigned char*>(f.data());
  auto put = [&]<class T>(std::int64_t i, T v) { std::memcpy(p + i * sizeof(T), &v, sizeof v); };
  for (std::int64_t i = 0; i < f.size(); ++i) {
    switch (f.dtype()) {
      case ScalarType::Float64: put(i, real(rng)); break;
      case ScalarType::Float32: put(i, static_cast<float>(real(rng))); break;
      case ScalarType::Bool: p[i] = static_cast<unsigned char>(bit(rng)); break;
      case ScalarType::Int8: put(i, static_cast<std::int8_t>(small(rng))); break;
      case ScalarType::Int16: put(i, static_cast<std::int16_t>(small(rng))); break;
      case ScalarType::Int32: put(i, static_cast<std::int32_t>(small(rng))); break;
      case ScalarType::Int64: put(i, static_cast<std::int64_t>(small(rng))); break;
      case ScalarType::UInt8: put(i, static_cast<std::uint8_t>(small(rng))); break;
      case ScalarType::UInt16: put(i, static_cast<std::uint16_t>(small(rng))); break;
      case ScalarType::UInt32: put(i, static_cast<std::uint32_t>(small(rng))); break;
      case ScalarType::UInt64: put(i, static_cast<std::uint64_t>(small(rng))); break;
      default: throw RuntimeError("--random-inputs: cannot fill " + f.describe());
    }
  }
}

// A --random-inputs array: refuses shapes larger than the machine's memory before trying, and
// names the argument when the allocation fails anyway.
Field allocate_input(const Backend& backend, const Parameter& p, const std::vector<std::int64_t>& shape) {
  long double bytes = static_cast<long double>(size_of(p.dtype));
  for (auto n : shape) {
    if (n < 0)
      throw ArgumentError("--random-inputs: argument '" + p.name + "': negative extent in shape " +
                          shape_str(shape));
    bytes *= static_cast<long double>(n);
  }
  long double memory =
      static_cast<long double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<long double>(::sysconf(_SC_PAGESIZE));
  std::string need = "argument '" + p.name + "': shape " + shape_str(shape) + " needs " + byte_size(bytes);
  if (memory > 0 && bytes > memory)
    throw ArgumentError(need + ", more than this machine's memory (" + byte_size(memory) + ")");
  try {
    return backend.allocator().allocate(p.dtype, shape);
  } catch (const ArgumentError& e) {
    throw ArgumentError("argument '" + p.name + "': " + e.what());  // out of memory (Allocator)
  }
}

// The error of a shape whose symbols were not given, in the user's terms: a field's size symbol
// (`__f_I_size`) is its dimension, given with --set I=N.
ArgumentError missing_sizes(const RunTarget& t, const Parameter& p, const std::set<std::string>& need) {
  std::string shape, dims, sets, others, other_sets;
  for (const auto& e : p.shape) {
    std::string d = size_dimension(e.str());
    shape += (shape.empty() ? "" : ", ") + (d.empty() ? e.str() : d);
  }
  std::size_t n_dims = 0;
  for (const auto& s : need) {
    if (std::string d = size_dimension(s); !d.empty()) {
      dims += (dims.empty() ? "" : ", ") + d;
      sets += " --set " + d + "=N";
      ++n_dims;
    } else {
      others += (others.empty() ? "" : ", ") + s;
      other_sets += " --set " + s + "=VALUE";
    }
  }
  std::string what = std::string(weir::to_string(p.dtype)) + " array of shape (" + shape +
                     (p.shape.size() == 1 ? ",)" : ")");
  std::string m = "--random-inputs: the shape of '" + p.name + "' (" + what + ") needs ";
  if (!dims.empty()) m += std::string(n_dims == 1 ? "the extent of " : "the extents of ") + dims;
  if (!others.empty()) m += (dims.empty() ? "" : " and ") + others;
  m += "; give " + std::string(need.size() == 1 ? "it" : "them") + " with";
  if (!dims.empty()) m += sets + " (--set DIM=N sizes every field along DIM)";
  if (!others.empty()) {
    m += std::string(dims.empty() ? "" : " and") + other_sets;
    if (dims.empty() && (t.field_view || !t.connectivities.empty()))
      m += " (or --set DIM=N for every field's extent along DIM)";
  }
  return ArgumentError(m);
}

// Every extent the arrays to make lack, in one message (rather than one run per dimension),
// when the first array that lacks some does not lack them all: "--random-inputs: the arrays
// not given ('v', 'w', 'C2V') need the extents of Vertex, K, Edge, Cell, C2V; give them with
// --set Vertex=N ...". Otherwise missing_sizes' message, which spells out that array's shape.
void require_all_sizes(const RunTarget& t, const Arguments& args,
                       const std::map<std::string, long long>& symbols,
                       const std::map<std::string, std::int64_t>& dims) {
  std::vector<std::string> lacking;                 // arrays
  std::vector<std::pair<std::string, bool>> names;  // in order of first use; whether a dimension
  std::size_t first = 0;                            // names the first array lacks
  auto add = [&](const std::string& n, bool dim) {
    for (const auto& x : names)
      if (x.first == n) return false;
    names.emplace_back(n, dim);
    return true;
  };
  for (const auto& p : t.sig.params) {
    if (p.kind != Parameter::Kind::Array || args.arrays.count(p.name)) continue;
    bool lacks = false;
    const ConnectivityParameter* table = nullptr;
    for (const auto& c : t.connectivities)
      if (c.name == p.name) table = &c;
    for (std::size_t k = 0; k < p.shape.size(); ++k)
      for (const auto& s : p.shape[k].free_symbols())
        if (!symbols.count(s)) {
          // A table's rows (`__E2V_rows` of a compiled program) are its first dimension's extent.
          std::string d = table && k == 0 ? table->from : size_dimension(s);
          add(d.empty() ? s : d, !d.empty());
          lacks = true;
        }
    for (const auto& c : t.connectivities)
      if (c.name == p.name && !dims.count(c.to)) {
        add(c.to, true);
        lacks = true;
      }
    if (!lacks) continue;
    lacking.push_back(p.name);
    if (lacking.size() == 1) first = names.size();
  }
  if (names.size() == first) return;
  std::string arrays, listed, sets;
  for (const auto& a : lacking) arrays += (arrays.empty() ? "'" : ", '") + a + "'";
  for (const auto& [n, dim] : names) {
    listed += (listed.empty() ? "" : ", ") + n;
    sets += " --set " + n + (dim ? "=N" : "=VALUE");
  }
  std::string m = "--random-inputs: the arrays not given (" + arrays + ") need the extents of " + listed +
                  "; give them with" + sets + " (--set DIM=N sizes every field along DIM)";
  if (!t.connectivities.empty())
    m +=
        "; or take a mesh's tables and sizes from files: weir mesh --nx 8 --ny 6 -o mesh, then --in-dir mesh";
  throw ArgumentError(m);
}

}  // namespace

std::vector<std::string> fill_random_inputs(const RunOptions& o, const RunTarget& t, const Backend& backend,
                                            Arguments& args, const std::set<std::string>& hints) {
  const Signature& sig = t.sig;
  std::map<std::string, long long> symbols = shape_symbols(t, args, hints);
  std::map<std::string, std::int64_t> dims = dimension_extents(t, args, hints);
  require_all_sizes(t, args, symbols, dims);
  std::mt19937_64 rng(o.seed);
  std::vector<std::string> made;
  for (const auto& p : sig.params) {
    if (p.kind != Parameter::Kind::Array || args.arrays.count(p.name) || t.outputs_only.count(p.name))
      continue;
    std::vector<std::int64_t> shape;
    std::set<std::string> need;
    for (const auto& e : p.shape) {
      if (auto v = e.try_evaluate(symbols)) shape.push_back(*v);
      for (const auto& s : e.free_symbols())
        if (!symbols.count(s)) need.insert(s);
    }
    if (!need.empty()) throw missing_sizes(t, p, need);
    Field f = allocate_input(backend, p, shape);
    const ConnectivityParameter* conn = nullptr;
    for (const auto& c : t.connectivities)
      if (c.name == p.name) conn = &c;
    if (conn) {
      // Valid neighbour indices: uniform in [0, extent of the dimension the table indexes).
      auto it = dims.find(conn->to);
      if (it == dims.end())
        throw ArgumentError("--random-inputs: the connectivity table '" + p.name + "' indexes dimension '" +
                            conn->to + "'; give its extent with --set " + conn->to +
                            "=N (or an array along " + conn->to + ")");
      std::uniform_int_distribution<std::int64_t> idx(0, std::max<std::int64_t>(0, it->second - 1));
      for (std::int64_t i = 0; i < f.size(); ++i) {
        auto v = idx(rng);
        if (f.dtype() == ScalarType::Int32)
          static_cast<std::int32_t*>(f.data())[i] = static_cast<std::int32_t>(v);
        else
          static_cast<std::int64_t*>(f.data())[i] = v;
      }
    } else {
      fill_random(f, rng);
    }
    args.arrays.insert_or_assign(p.name, std::move(f));
    made.push_back(p.name);
  }
  return made;
}

}  // namespace weir::cli
