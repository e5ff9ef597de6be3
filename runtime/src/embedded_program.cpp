// The embedded backend's Program: argument checks, conversion between runtime Fields and the
// interpreter's fields, and a @program's calls with their output domains.
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "embedded_eval.h"
#include "embedded_orchestration.h"
#include "weir/frontend/typed_ir.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/embedded.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/scalar_argument.h"

namespace weir::runtime {
namespace {

using namespace embedded;
using frontend::DefinitionKind;
using frontend::TypedDefinition;

std::string dims_str(const std::vector<Dimension>& dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].name;
  return s + ")";
}

ScalarType type_of(ScalarKind k) { return *scalar_type_from_string(frontend::to_string(k)); }

// A parameter of the program as the interpreter binds it: a field (fields and `__out` results),
// a scalar, or a connectivity table.
struct Param {
  enum Kind { Field, Scalar, Table } kind = Field;
  std::string name;
  ScalarKind dtype = ScalarKind::Float64;
  std::vector<Dimension> dims;
  std::string describe() const {
    if (kind == Scalar) return std::string(frontend::to_string(dtype)) + " scalar";
    if (kind == Table) return "an int32 or int64 array of shape (n_" + dims[0].name + ", max_neighbours)";
    return std::string(frontend::to_string(dtype)) + " field over " + dims_str(dims);
  }
};

void result_leaves(const frontend::Type& t, std::vector<frontend::Type>& out) {
  if (!t.is_tuple()) {
    out.push_back(t);
    return;
  }
  for (const auto& e : t.elements) result_leaves(e, out);
}

std::vector<Param> params_of(const TypedDefinition& def) {
  std::set<std::string> written;  // a 0-d field out= writes is a 0-d array argument
  for (const auto& c : def.calls)
    for (const auto& o : c.outs) written.insert(o.name);
  std::vector<Param> ps;
  for (const auto& p : def.params) {
    Param q;
    q.name = p.name;
    if (p.type.is_field() || (p.type.zero_dim && written.count(p.name))) {
      q.dtype = p.type.dtype;
      q.dims = p.type.dims;
    } else if (p.type.is_scalar()) {
      q.kind = Param::Scalar;
      q.dtype = p.type.dtype;
    } else {
      throw BackendError("parameter '" + p.name + "' of '" + def.name + "' has type " +
                         frontend::to_string(p.type) +
                         ", which cannot be passed as an argument (fields and scalars only)");
    }
    ps.push_back(q);
  }
  if (def.kind != DefinitionKind::Program) {
    std::vector<frontend::Type> leaves;
    result_leaves(def.returns, leaves);
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      Param q;
      q.name = def.returns.is_tuple() ? "__out_" + std::to_string(i) : "__out";
      q.dtype = leaves[i].dtype;
      q.dims = leaves[i].dims;  // none for a scalar result: a 0-d array
      ps.push_back(q);
    }
  }
  for (const auto& c : connectivities_of(def)) {
    Param q;
    q.kind = Param::Table;
    q.name = c.name;
    q.dims = {Dimension{c.from, frontend::DimensionKind::Horizontal}};
    ps.push_back(q);
  }
  return ps;
}

// The results of a @field_operator run directly (`__out_0`, `__out_1`, ...) are one call's: each
// dimension they share has one length in all of them. The compiled backends compute the call over
// the first one's domain and the embedded backend over each one's own, so a longer `__out_2` was
// left partly unwritten on one and refused on the other (user30 F2c).
void check_result_extents(const TypedDefinition& def, const Arguments& args) {
  std::map<std::string, std::pair<std::string, std::int64_t>> first;  // dimension -> (output, length)
  for (const auto& [name, type] : result_outputs(def)) {
    auto arr = args.arrays.find(name);
    if (arr == args.arrays.end() || arr->second.ndim() != type.dims.size()) continue;
    for (std::size_t d = 0; d < type.dims.size(); ++d) {
      const std::int64_t n = arr->second.shape()[d];
      auto [it, fresh] = first.emplace(type.dims[d].name, std::make_pair(name, n));
      if (!fresh && it->second.second != n)
        throw ArgumentError(
            "'" + name + "' is " + std::to_string(n) + " long along " + type.dims[d].name + " but '" +
            it->second.first + "' is " + std::to_string(it->second.second) +
            ": the results of one call of '" + def.name +
            "' are computed over one domain, so they must agree in every dimension they share");
    }
  }
}

void check(const FieldViewProgram& program, const std::vector<Param>& params, const Arguments& args) {
  const TypedDefinition& def = *program.definition;
  std::string names;
  std::set<std::string> known;
  for (const Param& p : params) {
    names += (names.empty() ? "" : ", ") + p.name;
    known.insert(p.name);
  }
  Signature sig = field_view_signature(def);
  std::set<std::string> symbols;
  for (const auto& p : sig.params)
    for (const auto& e : p.shape)
      for (const auto& s : e.free_symbols()) symbols.insert(s);
  for (const auto& [name, f] : args.arrays)
    if (!known.count(name))
      throw ArgumentError("unknown argument '" + name + "' (program '" + def.name + "' takes " + names + ")");
  for (const auto& [name, v] : args.values)
    if (!known.count(name) && !symbols.count(name))
      throw ArgumentError("unknown argument '" + name + "' (program '" + def.name + "' takes " + names + ")");
  for (const Param& p : params) {
    if (p.kind == Param::Scalar) {
      auto it = args.values.find(p.name);
      if (it == args.values.end()) {
        if (args.arrays.count(p.name))
          throw ArgumentError("argument '" + p.name + "': expected a " + p.describe() + ", got an array");
        throw ArgumentError("missing argument '" + p.name + "' (" + p.describe() + ")");
      }
      // As the compiled backends convert it (an int32 of 2**32 + 24 must not wrap).
      Parameter scalar;
      scalar.name = p.name;
      scalar.kind = Parameter::Kind::Scalar;
      scalar.dtype = type_of(p.dtype);
      check_scalar_argument(scalar, it->second);
      continue;
    }
    auto it = args.arrays.find(p.name);
    if (it == args.arrays.end()) {
      if (args.values.count(p.name))
        throw ArgumentError("argument '" + p.name + "': expected a " + p.describe() + ", got a scalar");
      throw ArgumentError(
          std::string(p.kind == Param::Table ? "missing connectivity table '" : "missing argument '") +
          p.name + "' (" + p.describe() + ")");
    }
    const Field& f = it->second;
    if (p.kind == Param::Table) {
      if ((f.dtype() != ScalarType::Int32 && f.dtype() != ScalarType::Int64) || f.ndim() != 2)
        throw ArgumentError("connectivity table '" + p.name + "': expected " + p.describe() + ", got " +
                            f.describe());
      continue;
    }
    if (f.dtype() != type_of(p.dtype) || f.ndim() != p.dims.size())
      throw ArgumentError("argument '" + p.name + "': expected a " + p.describe() + " (" +
                          std::to_string(p.dims.size()) + " dimension" + (p.dims.size() == 1 ? "" : "s") +
                          "), got " + f.describe());
  }
  check_local_dimension_widths(connectivities_of(def), sig, args);
  if (def.kind != DefinitionKind::Program) check_result_extents(def, args);
}

// ----------------------------------------------------------------------------- Field <-> FieldVal

Num read_element(const Field& f, std::int64_t i) {
  const auto* p = static_cast<const unsigned char*>(f.data()) + static_cast<std::size_t>(i) * f.itemsize();
  Num v{0.0};
  auto get = [&]<class T>(T) {
    T x;
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  switch (f.dtype()) {
    case ScalarType::Bool: v.i = *p != 0; break;
    // NOLINTNEXTLINE(bugprone-signed-char-misuse): int8 sign-extends on purpose (T is signed char)
    case ScalarType::Int8: v.i = get(std::int8_t{}); break;
    case ScalarType::Int16: v.i = get(std::int16_t{}); break;
    case ScalarType::Int32: v.i = get(std::int32_t{}); break;
    case ScalarType::Int64: v.i = get(std::int64_t{}); break;
    case ScalarType::UInt8: v.u = get(std::uint8_t{}); break;
    case ScalarType::UInt16: v.u = get(std::uint16_t{}); break;
    case ScalarType::UInt32: v.u = get(std::uint32_t{}); break;
    case ScalarType::UInt64: v.u = get(std::uint64_t{}); break;
    case ScalarType::Float32: v.f = get(float{}); break;
    case ScalarType::Float64: v.f = get(double{}); break;
    default: throw ArgumentError("unsupported array dtype " + f.describe());
  }
  return v;
}

void write_element(Field& f, std::int64_t i, Num v) {
  auto* p = static_cast<unsigned char*>(f.data()) + static_cast<std::size_t>(i) * f.itemsize();
  auto put = [&]<class T>(T x) { std::memcpy(p, &x, sizeof x); };
  switch (f.dtype()) {
    case ScalarType::Bool: *p = v.i != 0; break;
    case ScalarType::Int8: put(static_cast<std::int8_t>(v.i)); break;
    case ScalarType::Int16: put(static_cast<std::int16_t>(v.i)); break;
    case ScalarType::Int32: put(static_cast<std::int32_t>(v.i)); break;
    case ScalarType::Int64: put(v.i); break;
    case ScalarType::UInt8: put(static_cast<std::uint8_t>(v.u)); break;
    case ScalarType::UInt16: put(static_cast<std::uint16_t>(v.u)); break;
    case ScalarType::UInt32: put(static_cast<std::uint32_t>(v.u)); break;
    case ScalarType::UInt64: put(v.u); break;
    case ScalarType::Float32: put(static_cast<float>(v.f)); break;
    case ScalarType::Float64: put(v.f); break;
    default: break;
  }
}

// A field argument as the interpreter's field over [0, shape) per dimension (same C-order layout).
FieldVal to_fieldval(const Field& f, ScalarKind dtype, const std::vector<Dimension>& dims) {
  std::vector<Range> ranges;
  for (std::int64_t n : f.shape()) ranges.push_back({0, n});
  FieldVal v = FieldVal::allocate(dtype, dims, ranges);
  for (std::int64_t i = 0; i < f.size(); ++i) (*v.data)[static_cast<std::size_t>(i)] = read_element(f, i);
  return v;
}

Num scalar_num(ScalarKind k, const Number& n) {
  if (auto* i = std::get_if<std::int64_t>(&n)) return from_int(k, *i);
  if (auto* b = std::get_if<bool>(&n)) return from_int(k, *b ? 1 : 0);
  return from_double(k, std::get<double>(n));
}

std::string domain_str(const std::vector<Dimension>& dims, const std::vector<Range>& ranges) {
  std::string s = "(";
  for (std::size_t d = 0; d < dims.size(); ++d) s += (d ? ", " : "") + dims[d].name + ": " + ranges[d].str();
  return s + ")";
}

// ----------------------------------------------------------------------------- the program

class EmbeddedProgram final : public Program {
 public:
  explicit EmbeddedProgram(FieldViewProgram p)
      : program_(std::move(p)),
        sig_(field_view_signature(*program_.definition)),
        params_(params_of(*program_.definition)) {}

  const std::string& name() const override { return program_.name(); }
  const Signature& signature() const override { return sig_; }

  void run(Arguments& args) override {
    scalars_from_zero_d_arrays(sig_, args);
    check(program_, params_, args);
    const TypedDefinition& def = *program_.definition;
    Context ctx;
    std::map<std::string, Value> env;
    std::map<std::string, FieldVal> fields;  // field parameters, updated by each call's outputs
    for (const Param& p : params_) {
      if (p.kind == Param::Scalar) {
        env[p.name] = Value::of(FieldVal::scalar(p.dtype, scalar_num(p.dtype, args.values.at(p.name))));
      } else if (p.kind == Param::Table) {
        const Field& f = args.arrays.at(p.name);
        Table t;
        t.rows = f.shape()[0];
        t.cols = f.shape()[1];
        t.data.resize(static_cast<std::size_t>(f.size()));
        for (std::int64_t i = 0; i < f.size(); ++i)
          t.data[static_cast<std::size_t>(i)] = read_element(f, i).i;
        widen(ctx, p.dims[0].name, {0, t.rows});
        ctx.tables.emplace(p.name, std::move(t));
      } else {
        FieldVal v = to_fieldval(args.arrays.at(p.name), p.dtype, p.dims);
        for (std::size_t d = 0; d < p.dims.size(); ++d) widen(ctx, p.dims[d].name, v.ranges[d]);
        fields[p.name] = v;
        env[p.name] = Value::of(std::move(v));
      }
    }
    std::int64_t margin = shift_reach(def) + 1;
    for (auto& [name, r] : ctx.universe) r = {r.lo - margin, r.hi + margin};
    Evaluator ev(ctx);
    std::set<std::string> written;
    if (def.kind == DefinitionKind::Program) {
      for (const auto& call : def.calls) {
        std::vector<Value> cargs;
        for (const auto& a : call.args) cargs.push_back(ev.eval(*a, env));
        if (!call.outs.empty()) {
          const FieldVal& first = fields.at(call.outs[0].name);
          ev.set_call_domain(first.dims, output_domain(call, 0, first, ev, env));
        }
        Value result = ev.call(*call.callee, cargs, call.loc);
        std::vector<const FieldVal*> leaves;
        flatten(result, leaves);
        for (std::size_t i = 0; i < call.outs.size(); ++i) {
          const auto& out = call.outs[i];
          FieldVal& target = fields.at(out.name);
          write(*leaves[i], target, output_domain(call, i, target, ev, env), call.callee->name, out.name,
                call.loc, !ctx.tables.empty(), ev);
          env[out.name] = Value::of(target);
          written.insert(out.name);
        }
      }
    } else {
      std::vector<Value> cargs;
      for (const auto& p : def.params) cargs.push_back(env.at(p.name));
      for (const Param& p : params_)
        if (p.name.rfind("__out", 0) == 0) {
          ev.set_call_domain(fields.at(p.name).dims, fields.at(p.name).ranges);
          break;
        }
      Value result = ev.call(def, cargs, def.loc);
      std::vector<const FieldVal*> leaves;
      flatten(result, leaves);
      std::size_t i = 0;
      for (const Param& p : params_) {
        if (p.name.rfind("__out", 0) != 0) continue;
        FieldVal& target = fields.at(p.name);
        write(*leaves[i++], target, target.ranges, def.name, p.name, def.loc, !ctx.tables.empty(), ev);
        written.insert(p.name);
      }
    }
    // Only now, after every call succeeded, do the arguments change.
    for (const auto& name : written) {
      Field& f = args.arrays.at(name);
      const FieldVal& v = fields.at(name);
      for (std::int64_t i = 0; i < f.size(); ++i) write_element(f, i, (*v.data)[static_cast<std::size_t>(i)]);
    }
  }

 private:
  static void widen(Context& ctx, const std::string& dim, Range r) {
    auto [it, fresh] = ctx.universe.emplace(dim, r);
    if (!fresh) it->second = {std::min(it->second.lo, r.lo), std::max(it->second.hi, r.hi)};
  }

  // The domain of the call's output `i` in `target` (a field over [0, shape)): slices, its
  // domain= (its own from a tuple of domains, else the call's), or all.
  static std::vector<Range> output_domain(const frontend::ProgramCall& call, std::size_t i,
                                          const FieldVal& target, Evaluator& ev,
                                          std::map<std::string, Value>& env) {
    const frontend::ProgramCall::Out& out = call.outs[i];
    std::vector<Range> r = target.ranges;
    for (std::size_t d = 0; d < out.slices.size() && d < r.size(); ++d) {
      std::int64_t n = target.ranges[d].hi;
      auto pos = [&](std::optional<std::int64_t> b, std::int64_t dflt) {
        if (!b) return dflt;
        std::int64_t v = *b < 0 ? n + *b : *b;
        return std::clamp<std::int64_t>(v, 0, n);
      };
      r[d] = {pos(out.slices[d].first, 0), pos(out.slices[d].second, n)};
    }
    for (const auto& dr : call.domain_of(i)) {
      int p = target.find(dr.dim);
      if (p < 0) continue;
      auto bound = [&](const frontend::TExpr& e) {
        FieldVal v = ev.eval(e, env).field;
        return static_cast<std::int64_t>(to_double(v.dtype, (*v.data)[static_cast<std::size_t>(v.base)]));
      };
      std::int64_t lo = bound(*dr.lo), hi = bound(*dr.hi);
      const Range& whole = target.ranges[static_cast<std::size_t>(p)];
      if (lo < whole.lo || hi > whole.hi)
        fail(call.loc, "domain= gives " + dr.dim.name + ": [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "), outside the output field '" + out.name + "' (" +
                           dr.dim.name + ": " + whole.str() + ")");
      r[static_cast<std::size_t>(p)] = {lo, std::max(lo, hi)};
    }
    return r;
  }

  // Writes `value` into `target` over `domain` (target's dims), or throws when `value` does not
  // cover it or is undefined somewhere in it.
  // `tables`: whether the program reads connectivity tables (else a -1 entry cannot be the cause).
  // `ev` names the cause of an undefined value (Evaluator::cause).
  static void write(const FieldVal& value, FieldVal& target, const std::vector<Range>& domain,
                    const std::string& op, const std::string& out, const frontend::SourceLocation& loc,
                    bool tables, const Evaluator& ev) {
    FieldVal region = target;
    region.ranges = domain;
    std::vector<int> pos(target.dims.size());
    for (std::size_t d = 0; d < target.dims.size(); ++d) pos[d] = value.find(target.dims[d]);
    for (std::size_t d = 0; d < value.dims.size(); ++d)
      if (target.find(value.dims[d]) < 0)
        fail(loc, "'" + op + "' returns a field over " + dims_str(value.dims) + " but '" + out +
                      "' is over " + dims_str(target.dims));
    // An empty domain writes nothing, so nothing needs to cover it (a concat_where over it has
    // no points left to keep in any dimension).
    for (const Range& r : domain)
      if (r.size() == 0) return;
    bool covered = true, shifted = false;
    for (std::size_t d = 0; d < target.dims.size(); ++d) {
      if (pos[d] < 0 || domain[d].size() == 0) continue;
      const Range& have = value.ranges[static_cast<std::size_t>(pos[d])];
      if (!have.is_unbounded() && (have.lo > domain[d].lo || have.hi < domain[d].hi)) {
        covered = false;
        // Input fields start at 0: a result that does not was moved by shifts.
        shifted = shifted || have.lo != 0;
      }
    }
    if (!covered)
      fail(loc,
           "the result of '" + op + "' is computed over " + domain_str(value.dims, value.ranges) +
               ", which does not cover the output domain of '" + out + "' " +
               domain_str(target.dims, domain) +
               (shifted
                    ? " (shifted reads need a larger input or a smaller output domain)"
                    : " (an input is smaller than the output domain; pass larger inputs or a smaller output "
                      "domain)"));
    std::vector<std::int64_t> sub(value.dims.size());
    std::vector<std::pair<std::int64_t, Num>> updates;
    for_each_point(region, [&](const std::vector<std::int64_t>& idx, std::int64_t) {
      std::int64_t off = target.offset(idx);
      for (std::size_t d = 0; d < pos.size(); ++d)
        if (pos[d] >= 0) sub[static_cast<std::size_t>(pos[d])] = idx[d];
      std::int64_t o = value.offset(sub);
      if (!value.is_valid(o)) {
        std::string at;
        for (std::size_t d = 0; d < idx.size(); ++d)
          at += (d ? ", " : "") + target.dims[d].name + "=" + std::to_string(idx[d]);
        // A missing neighbour read directly: said at its shift, with the table entry.
        if (const Evaluator::Cause* c = ev.cause(value.mark(o)))
          fail(c->loc,
               (c->read.empty() ? std::string("a read") : "a read of '" + c->read + "'") + " through " +
                   c->offset + "[" + std::to_string(c->row) + ", " + std::to_string(c->col) +
                   "], which is -1 (a missing neighbour, which has no value to read), leaves the result "
                   "of '" +
                   op + "' undefined at (" + at + ") of the output '" + out + "'" +
                   (loc.known() ? " (the call at " + loc.str() + ")" : std::string()));
        fail(loc,
             "the result of '" + op + "' is undefined at (" + at + ") of the output '" + out + "' (" +
                 (tables ? "a neighbour that does not exist: -1 in a connectivity table, or a read outside "
                           "a field"
                         : "a read outside an input field: a shifted read there reaches past the input's "
                           "end") +
                 ")");
      }
      updates.emplace_back(off, (*value.data)[static_cast<std::size_t>(o)]);
    });
    // A copy of the target's data: the value may share it (out= also read by the call).
    auto data = std::make_shared<std::vector<Num>>(*target.data);
    for (const auto& [off, v] : updates) (*data)[static_cast<std::size_t>(off)] = v;
    target.data = std::move(data);
  }

  FieldViewProgram program_;
  Signature sig_;
  std::vector<Param> params_;
};

}  // namespace

std::shared_ptr<Program> make_embedded_program(const FieldViewProgram& program) {
  if (program.orchestration) return make_embedded_orchestration(program);
  if (!program.definition) throw BackendError("an empty FieldViewProgram cannot run");
  return std::make_shared<EmbeddedProgram>(program);
}

void check_embedded_arguments(const FieldViewProgram& program, const Arguments& args) {
  if (program.orchestration) return check_orchestration_arguments(program, args);
  check(program, params_of(*program.definition), args);
}

}  // namespace weir::runtime
