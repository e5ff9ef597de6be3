#include "weir/runtime/arguments.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>

#include "weir/runtime/allocator.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/known_symbols.h"
#include "weir/runtime/scalar_argument.h"

namespace weir::runtime {
namespace {

// Where a symbol's value came from, for conflict messages.
struct Known {
  std::int64_t value;
  std::string source;
  std::string param;  // the array it was inferred from ("" if given)
  std::size_t dim = 0;
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// An extent of `p` as its user wrote it: the field-view lowering's size symbol of a field
// (`__f_I_size` of f) is its dimension's name ("I"), that of a connectivity table's rows
// (`__E2V_rows`) "rows", other extents their expression.
std::string extent_text(const Parameter& p, const sym::Expr& e) {
  std::string s = e.str();
  const std::string prefix = (p.name.rfind("__", 0) == 0 ? p.name : "__" + p.name) + "_", suffix = "_size";
  if (s == prefix + "rows") return "rows";
  if (e.free_symbols().size() != 1 || *e.free_symbols().begin() != s ||
      s.size() <= prefix.size() + suffix.size() || s.rfind(prefix, 0) != 0 ||
      s.compare(s.size() - suffix.size(), std::string::npos, suffix) != 0)
    return s;
  return s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
}

// The shape of `p` with every dimension evaluated where the symbols allow: "(64, N + 1)", "(I, J)".
std::string expected_shape(const Parameter& p, const std::map<std::string, long long>& values) {
  std::string s = "(";
  for (std::size_t i = 0; i < p.shape.size(); ++i) {
    auto v = p.shape[i].try_evaluate(values);
    s += (i ? ", " : "") + (v ? std::to_string(*v) : extent_text(p, p.shape[i]));
  }
  return s + (p.shape.size() == 1 ? ",)" : ")");
}

std::string expected_desc(const Parameter& p, const std::map<std::string, long long>& values) {
  if (p.kind != Parameter::Kind::Array || !p.has_shape) return p.describe();
  const bool one = p.shape.size() == 1 && p.shape[0].try_evaluate({}) == 1;
  return std::string(weir::to_string(p.dtype)) + " array of shape " + expected_shape(p, values) +
         (one ? " or a 0-d array" : "");
}

// If `e` is a*S + c for one symbol S (a != 0), returns {S, a, c}.
struct Affine {
  std::string symbol;
  long long a, c;
};
std::optional<Affine> as_affine(const sym::Expr& e) {
  auto fs = e.free_symbols();
  if (fs.size() != 1) return std::nullopt;
  const std::string& s = *fs.begin();
  auto c = e.subs({{s, sym::Expr(0)}}).as_integer();
  auto c1 = e.subs({{s, sym::Expr(1)}}).as_integer();
  if (!c || !c1 || *c1 == *c) return std::nullopt;
  long long a = *c1 - *c;
  if (e != sym::Expr(a) * sym::Expr::symbol(s) + sym::Expr(*c)) return std::nullopt;
  return Affine{s, a, *c};
}

std::optional<std::int64_t> integral(const Number& n) {
  if (auto* i = std::get_if<std::int64_t>(&n)) return *i;
  if (auto* b = std::get_if<bool>(&n)) return *b ? 1 : 0;
  double d = std::get<double>(n);
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  return std::nullopt;
}

template <class T>
void put(void* slot, T v) {
  std::memcpy(slot, &v, sizeof v);
}

// Converts `n` to the parameter's dtype into `slot`; throws ArgumentError if it does not fit.
void convert_scalar(const Parameter& p, const Number& n, void* slot) {
  auto bad = [&](const std::string& why) {
    return ArgumentError("argument " + quoted(p.name) + ": expected " + p.describe() + ", got " +
                         to_string(n) + " (" + why + ")");
  };
  auto as_double = [&]() -> double {
    if (auto* i = std::get_if<std::int64_t>(&n)) return static_cast<double>(*i);
    // true/false for a float is likely a mix-up of parameters: refuse rather than pass 1.0.
    if (std::holds_alternative<bool>(n)) throw bad("a boolean for a floating-point parameter");
    return std::get<double>(n);
  };
  auto int_in = [&](long double lo, long double hi) -> std::int64_t {
    auto v = integral(n);
    if (!v) throw bad("not an integer");
    if (static_cast<long double>(*v) < lo || static_cast<long double>(*v) > hi) throw bad("out of range");
    return *v;
  };
  switch (p.dtype) {
    case ScalarType::Float64: put(slot, as_double()); return;
    case ScalarType::Float32: {
      // A finite number that float32 cannot hold would become inf (NumPy warns of the overflow);
      // inf and nan given as such stay. Past FLT_MAX + half an ulp it rounds to inf.
      const double d = as_double();
      const double limit = static_cast<double>(std::numeric_limits<float>::max()) + std::ldexp(1.0, 103);
      if (std::isfinite(d) && std::fabs(d) >= limit)
        throw bad("outside float32's range: its largest magnitude is 3.4028235e+38");
      put(slot, static_cast<float>(d));
      return;
    }
    case ScalarType::Bool: put(slot, static_cast<unsigned char>(int_in(0, 1))); return;
    case ScalarType::Int8: put(slot, static_cast<std::int8_t>(int_in(-128, 127))); return;
    case ScalarType::Int16: put(slot, static_cast<std::int16_t>(int_in(-32768, 32767))); return;
    case ScalarType::Int32:
      put(slot, static_cast<std::int32_t>(int_in(-2147483648.0L, 2147483647.0L)));
      return;
    case ScalarType::Int64: put(slot, int_in(-9.3e18L, 9.3e18L)); return;
    case ScalarType::UInt8: put(slot, static_cast<std::uint8_t>(int_in(0, 255))); return;
    case ScalarType::UInt16: put(slot, static_cast<std::uint16_t>(int_in(0, 65535))); return;
    case ScalarType::UInt32: put(slot, static_cast<std::uint32_t>(int_in(0, 4294967295.0L))); return;
    case ScalarType::UInt64: put(slot, static_cast<std::uint64_t>(int_in(0, 9.3e18L))); return;
    default: throw bad("scalars of this dtype cannot be passed");
  }
}

Number read_scalar(ScalarType t, const void* slot) {
  auto get = [slot]<class T>(T) {
    T v;
    std::memcpy(&v, slot, sizeof v);
    return v;
  };
  switch (t) {
    case ScalarType::Float64: return get(double{});
    case ScalarType::Float32: return static_cast<double>(get(float{}));
    case ScalarType::Bool: return get(static_cast<unsigned char>(0)) != 0;
    case ScalarType::Int8: return static_cast<std::int64_t>(get(std::int8_t{}));
    case ScalarType::Int16: return static_cast<std::int64_t>(get(std::int16_t{}));
    case ScalarType::Int32: return static_cast<std::int64_t>(get(std::int32_t{}));
    case ScalarType::Int64: return get(std::int64_t{});
    case ScalarType::UInt8: return static_cast<std::int64_t>(get(std::uint8_t{}));
    case ScalarType::UInt16: return static_cast<std::int64_t>(get(std::uint16_t{}));
    case ScalarType::UInt32: return static_cast<std::int64_t>(get(std::uint32_t{}));
    case ScalarType::UInt64: return static_cast<std::int64_t>(get(std::uint64_t{}));
    default: return std::int64_t{0};
  }
}

// Return values the caller did not give, allocated as DaCe does (zero-filled here).
void allocate_return_values(const Signature& sig, const std::map<std::string, long long>& values,
                            Arguments& args) {
  for (const auto& p : sig.params) {
    if (!p.returned) continue;
    if (p.kind == Parameter::Kind::Scalar) {
      bool integral_type = p.dtype != ScalarType::Float32 && p.dtype != ScalarType::Float64;
      if (!args.values.count(p.name))
        args.values[p.name] = integral_type ? Number(std::int64_t{0}) : Number(0.0);
      continue;
    }
    if (p.kind != Parameter::Kind::Array || !p.has_shape || args.arrays.count(p.name)) continue;
    std::vector<std::int64_t> shape;
    for (std::size_t d = 0; d < p.shape.size(); ++d) {
      std::int64_t e = 0;
      try {
        e = p.shape[d].evaluate(values);
      } catch (const sym::SymbolicError& err) {
        throw ArgumentError("return value " + quoted(p.name) + ": cannot evaluate dimension " +
                            std::to_string(d) + " (" + p.shape[d].str() + "): " + err.what());
      }
      if (e < 0)
        throw ArgumentError("return value " + quoted(p.name) + ": dimension " + std::to_string(d) + " (" +
                            p.shape[d].str() + ") is " + std::to_string(e));
      shape.push_back(e);
    }
    args.arrays.emplace(p.name, Allocator::cpu().allocate(p.dtype, std::move(shape)));
  }
}

}  // namespace

std::string to_string(const Number& n) {
  if (auto* i = std::get_if<std::int64_t>(&n)) return std::to_string(*i);
  if (auto* b = std::get_if<bool>(&n)) return *b ? "true" : "false";
  std::ostringstream os;
  os.precision(17);
  os << std::get<double>(n);
  return os.str();
}

void BoundArguments::store_written_scalars(const Signature& sig, Arguments& args) const {
  for (std::size_t i = 0; i < sig.params.size() && i < slots_.size(); ++i) {
    const auto& p = sig.params[i];
    if (p.kind == Parameter::Kind::Scalar && p.written)
      args.values[p.name] = read_scalar(p.dtype, slots_[i].bytes);
  }
}

void BoundArguments::rebind_value(const Signature& sig, std::size_t i, const Number& n) {
  const Parameter& p = sig.params.at(i);
  void* slot = slots_.at(i).bytes;
  if (p.kind == Parameter::Kind::Scalar) {
    convert_scalar(p, n, slot);
  } else if (p.kind == Parameter::Kind::Symbol) {
    auto v = integral(n);
    if (!v) throw ArgumentError("symbol " + quoted(p.name) + ": expected an integer, got " + to_string(n));
    put(slot, *v);
    symbols_[p.name] = *v;
  } else {
    throw ArgumentError("argument " + quoted(p.name) + ": expected " + p.describe() + ", got the number " +
                        to_string(n));
  }
  pointers_.at(i) = slot;
}

void check_scalar_argument(const Parameter& p, const Number& n) {
  alignas(16) unsigned char slot[16];
  convert_scalar(p, n, slot);
}

std::map<std::string, long long> known_symbols(const Signature& sig, const Arguments& args) {
  std::map<std::string, long long> known;
  for (const auto& p : sig.params)
    if (auto it = args.values.find(p.name); p.kind == Parameter::Kind::Symbol && it != args.values.end())
      if (auto v = integral(it->second)) known.emplace(p.name, *v);
  for (const auto& p : sig.params) {
    auto it = args.arrays.find(p.name);
    if (p.kind != Parameter::Kind::Array || !p.has_shape || it == args.arrays.end() ||
        it->second.ndim() != p.shape.size())
      continue;
    for (std::size_t d = 0; d < p.shape.size(); ++d) {
      auto aff = as_affine(p.shape[d]);
      const Parameter* s = aff ? sig.find(aff->symbol) : nullptr;
      if (!s || s->kind != Parameter::Kind::Symbol) continue;
      std::int64_t extent = it->second.shape()[d];
      if ((extent - aff->c) % aff->a == 0 && (extent - aff->c) / aff->a >= 0)
        known.emplace(aff->symbol, (extent - aff->c) / aff->a);
    }
  }
  return known;
}

namespace {
// A 0-d array (NumPy's shape ()) stands for an array of shape (1,): DaCe and weir's SDFGs hold a
// 0-d field as one element.
bool zero_d_for_one(const Field& f, const Parameter& p) {
  return f.ndim() == 0 && p.shape.size() == 1 && p.shape[0].try_evaluate({}) == 1;
}
bool rank_fits(const Field& f, const Parameter& p) {
  return !p.has_shape || f.ndim() == p.shape.size() || zero_d_for_one(f, p);
}
}  // namespace

Number zero_d_value(const Field& f) {
  if (f.ndim() != 0) throw ArgumentError("expected a 0-d array, got " + f.describe());
  auto as = [&](auto v) {
    std::memcpy(&v, f.data(), sizeof v);
    return v;
  };
  switch (f.dtype()) {
    case ScalarType::Bool: return as(bool{});
    case ScalarType::Float32: return static_cast<double>(as(float{}));
    case ScalarType::Float64: return as(double{});
    case ScalarType::Int64: return as(std::int64_t{});
    case ScalarType::UInt64: return static_cast<std::int64_t>(as(std::uint64_t{}));
    default: return static_cast<std::int64_t>(f.value_as_double(0));  // narrower integers: exact
  }
}

void scalars_from_zero_d_arrays(const Signature& sig, Arguments& args) {
  for (auto it = args.arrays.begin(); it != args.arrays.end();) {
    const Parameter* p = sig.find(it->first);
    if (!p || p->kind != Parameter::Kind::Scalar || it->second.ndim() != 0) {
      ++it;
      continue;
    }
    if (args.values.count(it->first))
      throw ArgumentError("argument " + quoted(it->first) +
                          " is given twice: as a number and as a 0-d array");
    args.values.emplace(it->first, zero_d_value(it->second));
    it = args.arrays.erase(it);
  }
}

BoundArguments bind_arguments(const Signature& sig, Arguments& args) {
  scalars_from_zero_d_arrays(sig, args);
  // 1. Every given name must be a parameter of the right kind.
  for (const auto& [name, f] : args.arrays) {
    const Parameter* p = sig.find(name);
    if (!p)
      throw ArgumentError("unknown argument " + quoted(name) + " (program '" + sig.program_name + "' takes " +
                          sig.names() + ")");
    if (p->kind != Parameter::Kind::Array)
      throw ArgumentError("argument " + quoted(name) + ": expected " + p->describe() +
                          " (a number), got an array " + f.describe());
  }
  for (const auto& [name, v] : args.values) {
    const Parameter* p = sig.find(name);
    if (!p)
      throw ArgumentError("unknown argument " + quoted(name) + " (program '" + sig.program_name + "' takes " +
                          sig.names() + ")");
    if (p->kind == Parameter::Kind::Array)
      throw ArgumentError("argument " + quoted(name) + ": expected " + p->describe() + ", got the number " +
                          to_string(v));
  }

  // 2. Symbols: given values, then inferred from array dimensions of the form a*S + c.
  std::map<std::string, Known> known;
  for (const auto& p : sig.params) {
    if (p.kind != Parameter::Kind::Symbol) continue;
    auto it = args.values.find(p.name);
    if (it == args.values.end()) continue;
    auto v = integral(it->second);
    if (!v)
      throw ArgumentError("symbol " + quoted(p.name) + ": expected an integer, got " + to_string(it->second));
    known[p.name] = Known{*v, "given", ""};
  }
  struct Conflict {
    const Parameter* param;
    const Field* field;
    std::string symbol;
    Known first;
  };
  // Every inference of a symbol from an array's extent, in parameter order.
  struct Inferred {
    Known known;
    const Parameter* param;
    const Field* field;
  };
  std::map<std::string, std::vector<Inferred>> inferred;
  for (const auto& p : sig.params) {
    if (p.kind != Parameter::Kind::Array || !p.has_shape) continue;
    auto it = args.arrays.find(p.name);
    if (it == args.arrays.end() || it->second.ndim() != p.shape.size()) continue;
    for (std::size_t d = 0; d < p.shape.size(); ++d) {
      auto aff = as_affine(p.shape[d]);
      if (!aff || !sig.find(aff->symbol) || sig.find(aff->symbol)->kind != Parameter::Kind::Symbol) continue;
      std::int64_t extent = it->second.shape()[d];
      std::string source = "argument " + quoted(p.name) + " (dimension " + std::to_string(d) + " is " +
                           p.shape[d].str() + " = " + std::to_string(extent) + ")";
      if ((extent - aff->c) % aff->a != 0 || (extent - aff->c) / aff->a < 0)
        throw ArgumentError("argument " + quoted(p.name) + ": dimension " + std::to_string(d) +
                            " has extent " + std::to_string(extent) + ", but " + p.shape[d].str() + " = " +
                            std::to_string(extent) + " has no solution with " + aff->symbol + " a size >= 0");
      inferred[aff->symbol].push_back(
          {Known{(extent - aff->c) / aff->a, source, p.name, d}, &p, &it->second});
    }
  }
  // A symbol not given takes the value most arrays agree on (the first one's on a tie), so that
  // the one array of a wrong size is the one blamed, whatever its place in the argument list.
  std::optional<Conflict> conflict;
  for (const auto& [symbol, all] : inferred) {
    auto k = known.find(symbol);
    if (k == known.end()) {
      const Inferred* best = nullptr;
      std::size_t best_votes = 0;
      for (const Inferred& x : all) {
        std::size_t votes = 0;
        for (const Inferred& y : all) votes += y.known.value == x.known.value;
        if (votes > best_votes) best = &x, best_votes = votes;
      }
      k = known.emplace(symbol, best->known).first;
    }
    for (const Inferred& x : all)
      if (x.known.value != k->second.value && !conflict)
        conflict = Conflict{x.param, x.field, symbol, k->second};
  }
  std::map<std::string, long long> values;
  for (const auto& [s, k] : known) values[s] = k.value;
  // A shape that disagrees with a symbol's value given or inferred before: a shape error of
  // that array, saying where the value came from.
  if (conflict) {
    const Known& first = conflict->first;
    std::string why =
        conflict->symbol + " = " + std::to_string(first.value) +
        (first.param.empty()                    ? " as given"
         : first.param == conflict->param->name ? " from its dimension " + std::to_string(first.dim)
                                                : " from " + first.source);
    throw ArgumentError("argument " + quoted(conflict->param->name) + ": expected " +
                        expected_desc(*conflict->param, values) + ", got " + conflict->field->describe() +
                        " (" + why + ")");
  }

  // 3. Missing arguments (all of them in one message), then missing symbol values.
  std::vector<std::string> missing;
  for (const auto& p : sig.params) {
    if (p.returned && (p.kind == Parameter::Kind::Scalar || p.has_shape)) continue;  // allocated below
    bool have = p.kind == Parameter::Kind::Array    ? args.arrays.count(p.name) != 0
                : p.kind == Parameter::Kind::Scalar ? args.values.count(p.name) != 0
                                                    : true;
    if (!have) missing.push_back(quoted(p.name) + " (" + expected_desc(p, values) + ")");
  }
  if (!missing.empty()) {
    std::string m = missing.size() == 1 ? "missing argument " : "missing arguments ";
    for (std::size_t i = 0; i < missing.size(); ++i) m += (i ? ", " : "") + missing[i];
    throw ArgumentError(m);
  }
  // Arrays of the wrong dtype or number of dimensions, before symbols they leave undetermined.
  for (const auto& p : sig.params) {
    if (p.kind != Parameter::Kind::Array || !args.arrays.count(p.name)) continue;
    const Field& f = args.arrays.at(p.name);
    if (f.dtype() != p.dtype || !rank_fits(f, p))
      throw ArgumentError("argument " + quoted(p.name) + ": expected " + expected_desc(p, values) + ", got " +
                          f.describe());
  }
  for (const auto& p : sig.params)
    if (p.kind == Parameter::Kind::Symbol && !known.count(p.name))
      throw ArgumentError(
          "missing value of symbol " + quoted(p.name) +
          ": give it, or an array whose shape determines it (no array shape is a plain function of " +
          p.name + ")");

  allocate_return_values(sig, values, args);

  // 4. Check arrays, convert scalars, lay out the pointers.
  BoundArguments b;
  b.slots_.resize(sig.params.size());
  b.pointers_.resize(sig.params.size());
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    const Parameter& p = sig.params[i];
    void* slot = b.slots_[i].bytes;
    switch (p.kind) {
      case Parameter::Kind::Array: {
        Field& f = args.arrays.at(p.name);
        bool ok = f.dtype() == p.dtype;
        std::vector<std::int64_t> shape;
        if (p.has_shape) {
          ok = ok && rank_fits(f, p);
          const bool one = zero_d_for_one(f, p);
          for (std::size_t d = 0; d < p.shape.size(); ++d) {
            std::int64_t e = 0;
            try {
              e = p.shape[d].evaluate(values);
            } catch (const sym::SymbolicError& err) {
              throw ArgumentError("argument " + quoted(p.name) + ": cannot evaluate dimension " +
                                  std::to_string(d) + " (" + p.shape[d].str() + "): " + err.what());
            }
            shape.push_back(e);
            if (ok && !one && f.shape()[d] != e) ok = false;
          }
        }
        if (!ok)
          throw ArgumentError("argument " + quoted(p.name) + ": expected " + expected_desc(p, values) +
                              ", got " + f.describe());
        // An array with no elements (any extent 0) is never addressed, so its strides do not
        // matter: the program's strides are products of extents that can differ from NumPy's
        // (which counts an extent 0 as 1), e.g. (0, 1) against (1, 1) for shape (3, 0).
        const bool empty = std::find(shape.begin(), shape.end(), std::int64_t{0}) != shape.end();
        if (p.has_shape && !empty) {
          auto c_order = row_major_strides(shape);
          for (std::size_t d = 0; d < p.strides.size() && d < shape.size(); ++d) {
            auto st = p.strides[d].try_evaluate(values);
            if (shape[d] > 1 && (!st || *st != c_order[d])) {
              std::string want;
              for (std::size_t k = 0; k < p.strides.size(); ++k) {
                auto v = p.strides[k].try_evaluate(values);
                want += (k ? ", " : "") + (v ? std::to_string(*v) : p.strides[k].str());
              }
              throw ArgumentError("argument " + quoted(p.name) + ": the program expects strides (" + want +
                                  ") in elements, but arrays are passed in C order with strides " +
                                  shape_str(c_order));
            }
          }
        }
        b.pointers_[i] = f.data();
        break;
      }
      case Parameter::Kind::Scalar:
        convert_scalar(p, args.values.at(p.name), slot);
        b.pointers_[i] = slot;
        break;
      case Parameter::Kind::Symbol:
        put(slot, static_cast<std::int64_t>(known.at(p.name).value));
        b.symbols_[p.name] = known.at(p.name).value;
        b.pointers_[i] = slot;
        break;
    }
  }
  return b;
}

}  // namespace weir::runtime
