// Lowering of @programs (and directly called @field_operators) to SDFGs: containers and
// symbols for the parameters, one state per program call, one map over the call's output
// domain per state with one tasklet computing the inlined operator.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>

#include "lowering_internal.h"
#include "weir/frontend/indexed_fields.h"
#include "weir/pycode/code.h"
#include "weir/pycode/names.h"
#include "weir/sdfg/field_dims.h"
#include "weir/sdfg/state.h"

namespace weir::frontend {

using namespace lowering;

namespace {

std::string map_param(const Dimension& d) { return "__" + d.name; }

/// One output of a call: a field container and the dims it is written over.
struct OutField {
  std::string name;
  std::vector<Dimension> dims;
};

/// The conventional neighbour counts of the mesh connectivities (weir/mesh/triangular_mesh.h
/// and ICON's grids); LoweringOptions::max_neighbors overrides or adds to them.
const std::map<std::string, std::int64_t>& default_max_neighbors() {
  static const std::map<std::string, std::int64_t> m = {
      {"E2V", 2},   {"E2C", 2},    {"C2E", 3},     {"C2V", 3},       {"V2E", 6},
      {"V2C", 6},   {"V2V", 6},    {"C2E2C", 3},   {"C2E2CO", 4},    {"E2C2V", 4},
      {"E2C2E", 4}, {"E2C2EO", 5}, {"C2E2C2E", 9}, {"C2E2C2E2C", 9}, {"E2ECV", 4},
  };
  return m;
}

class ProgramLowering final : public LoweringContext {
 public:
  ProgramLowering(const TypedDefinition& def, const LoweringOptions& opts)
      : def_(def),
        opts_(opts),
        sdfg_(std::make_unique<SDFG>(opts.sdfg_name.empty() ? def.name : opts.sdfg_name)) {}

  std::unique_ptr<SDFG> run() {
    std::set<const TypedDefinition*> seen;
    collect_offsets(def_, seen);
    if (def_.kind == DefinitionKind::Program)
      lower_program();
    else if (def_.kind == DefinitionKind::FieldOperator)
      lower_operator();
    else
      unsupported(def_.loc,
                  "lowering a scan_operator called directly ('" + def_.name + "'); call it from a program");
    // Every connectivity the program names is an argument, also one only dead code uses: the
    // signature is the @program's (as the embedded backend's), whatever the lowering reads.
    for (const auto& [local, o] : local_offsets_)
      if (!tables_.count(o.name)) unused_table(o);
    // The connectivity tables follow the parameters, by name.
    for (const auto& [name, n] : tables_) sdfg_->arg_names.push_back(name);
    record_connectivities();
    return std::move(sdfg_);
  }

  /// A table no code reads: its number of neighbours may be unknown (a symbol then).
  void unused_table(const FieldOffset& o) {
    if (sdfg_->has_data(o.name)) return;  // a parameter's name: refused where the table is read
    std::string rows = "__" + o.name + "_rows";
    sdfg_->add_symbol(rows, ScalarType::Int64);
    sym::Expr cols;
    if (auto it = opts_.max_neighbors.find(o.name); it != opts_.max_neighbors.end())
      cols = sym::Expr(it->second);
    else if (auto d = default_max_neighbors().find(o.name); d != default_max_neighbors().end())
      cols = sym::Expr(d->second);
    else {
      sdfg_->add_symbol("__" + o.name + "_neighbors", ScalarType::Int64);
      cols = sym::Expr::symbol("__" + o.name + "_neighbors");
    }
    sdfg_->add_array(o.name, ScalarType::Int32, {sym::Expr::symbol(rows), cols}, false);
    tables_[o.name] = 0;  // (no reads to unroll)
    table_offsets_.emplace(o.name, o);
  }

  /// The SDFG attribute `weir_connectivities` ([{"name", "from", "to", "local"}, and "indexed":
  /// the arguments the entries index where indexed_fields knows them], as
  /// runtime::ConnectivityParameter): which arguments are connectivity tables, so that running
  /// the SDFG as a file checks them as a field-view program's (entries, int64 tables).
  void record_connectivities() {
    std::string json;
    auto quoted = [](const std::string& t) { return "\"" + t + "\""; };  // identifiers: no escapes needed
    const auto indexed = indexed_fields(def_);
    for (const auto& [name, o] : table_offsets_) {
      std::string fields;
      auto known = indexed.find(o.name);
      if (known != indexed.end() && known->second)
        for (const std::string& f : *known->second) fields += (fields.empty() ? "" : ", ") + quoted(f);
      json += std::string(json.empty() ? "" : ", ") + "{\"name\": " + quoted(o.name) +
              ", \"from\": " + quoted(o.targets[0].name) + ", \"to\": " + quoted(o.source.name) +
              ", \"local\": " + quoted(o.targets[1].name) +
              (known != indexed.end() && known->second ? ", \"indexed\": [" + fields + "]" : "") + "}";
    }
    if (!json.empty()) sdfg_->extra.set("weir_connectivities", "[" + json + "]");
  }

  // ---------------------------------------------------------------- LoweringContext

  std::int64_t max_neighbors(const std::string& offset, const SourceLocation& loc) const {
    if (auto it = opts_.max_neighbors.find(offset); it != opts_.max_neighbors.end()) return it->second;
    if (auto it = default_max_neighbors().find(offset); it != default_max_neighbors().end())
      return it->second;
    throw FrontendError(
        loc, "the number of neighbours of '" + offset + "' is not known: give its table (`weir run --in " +
                 offset + "=FILE.npy`, offset_provider= from Python) or its width (`weir sdfg --neighbors " +
                 offset + "=N`, LoweringOptions::max_neighbors)");
  }

  std::int64_t table(const FieldOffset& o, const SourceLocation& loc) override {
    if (auto it = tables_.find(o.name); it != tables_.end()) return it->second;
    if (sdfg_->has_data(o.name))
      throw FrontendError(loc, "the connectivity table '" + o.name + "' has the name of a parameter");
    std::int64_t n = max_neighbors(o.name, loc);
    std::string rows = "__" + o.name + "_rows";
    sdfg_->add_symbol(rows, ScalarType::Int64);
    sdfg_->add_array(o.name, ScalarType::Int32, {sym::Expr::symbol(rows), sym::Expr(n)}, false);
    tables_[o.name] = n;
    table_offsets_.emplace(o.name, o);
    return n;
  }

  std::int64_t local_size(const Dimension& d, const SourceLocation& loc) override {
    if (const FieldOffset* o = table_of_local(d)) return max_neighbors(o->name, loc);
    return max_neighbors(d.name, loc);
  }

  bool is_symbol(const std::string& name) override { return sdfg_->symbols.count(name) > 0; }

  std::string extent(const std::string& container, std::size_t j) override {
    return sdfg_->data(container).shape.at(j).str();
  }

  const FieldOffset* table_of_local(const Dimension& d) override {
    auto it = local_offsets_.find(d.name);
    return it == local_offsets_.end() ? nullptr : &it->second;
  }

  ValuePtr scan(const TExpr& call, const EnvPtr& env) override {
    auto key = std::make_pair(static_cast<const void*>(&call), scope_key(env));
    if (auto it = scans_.find(key); it != scans_.end()) return it->second.second;
    // One transient per result leaf over the current call's domain (indexed like the outputs).
    std::vector<OutField> dests;
    std::function<ValuePtr(const Type&)> make = [&](const Type& t) -> ValuePtr {
      auto v = std::make_shared<Val>();
      if (t.is_tuple()) {
        v->kind = Val::Kind::Tuple;
        for (const Type& e : t.elements) v->elems.push_back(make(e));
        return v;
      }
      if (!t.is_field()) unsupported(call.loc, "a scan result of type " + to_string(t));
      std::vector<sym::Expr> shape;
      for (const Dimension& d : t.dims) {
        auto pos = std::find(cur_dims_.begin(), cur_dims_.end(), d) - cur_dims_.begin();
        if (static_cast<std::size_t>(pos) == cur_dims_.size())
          unsupported(call.loc,
                      "a scan result over '" + d.name + "', which is not a dimension of the output domain");
        shape.push_back(cur_ranges_[static_cast<std::size_t>(pos)].end + sym::Expr(1));
      }
      std::string name = sdfg_->unique_data_name("__scan" + std::to_string(scan_count_) + "_" +
                                                 std::to_string(dests.size()));
      record_dims(sdfg_->add_array(name, to_sdfg_type(t.dtype), shape, true), t.dims);
      dests.push_back({name, t.dims});
      v->kind = Val::Kind::Field;
      v->name = name;
      v->dims = t.dims;
      params_[name] = v;
      return v;
    };
    ValuePtr result = make(call.type);  // named after the id emit_scan takes next
    std::vector<ValuePtr> args;
    for (const TExprPtr& a : call.args) args.push_back(lazy(a, env));
    emit_scan(*call.callee, args, dests, call.loc);
    scans_[key] = {env, result};
    return result;
  }

  ValuePtr stored_call(const TExpr& call, const EnvPtr& env) override {
    CallSite key{&call, scope_key(env)};
    if (auto it = stored_.find(key); it != stored_.end()) return it->second;
    // Over the current call's domain (emit_call stores only where that is the whole output).
    std::vector<sym::Expr> shape;
    std::vector<Range> ranges;
    for (const Dimension& d : call.type.dims) {
      auto pos =
          static_cast<std::size_t>(std::find(cur_dims_.begin(), cur_dims_.end(), d) - cur_dims_.begin());
      if (pos == cur_dims_.size()) throw Error("lowering: a stored call over a dimension outside the domain");
      shape.push_back(cur_ranges_[pos].end + sym::Expr(1));
      ranges.push_back(cur_ranges_[pos]);
    }
    std::string name =
        sdfg_->unique_data_name("__" + call.callee->name + "_" + std::to_string(stored_count_++));
    record_dims(sdfg_->add_array(name, to_sdfg_type(call.type.dtype), shape, true), call.type.dims);
    auto v = std::make_shared<Val>();
    v->kind = Val::Kind::Field;
    v->name = name;
    v->dims = call.type.dims;
    params_[name] = v;
    std::vector<ValuePtr> args;
    for (const TExprPtr& a : call.args) args.push_back(lazy(a, env));
    // Its own map, before the current call's: emit_call starts a call of its own, whose state
    // the current call's continues with afterwards.
    auto saved = std::make_tuple(cur_dims_, cur_ranges_, where_, scans_, stored_);
    emit_call(cur_call_, *call.callee, args, {{name, call.type.dims}}, call.type.dims, ranges, call.loc);
    std::tie(cur_dims_, cur_ranges_, where_, scans_, stored_) = std::move(saved);
    stored_[key] = v;
    return v;
  }

 private:
  // ---------------------------------------------------------------- offsets

  void collect_offsets(const TExpr& e, std::set<const TypedDefinition*>& seen) {
    for (const ShiftStep& st : e.shifts) {
      if (st.offset.targets.size() == 2 && st.offset.targets[1].kind == DimensionKind::Local)
        local_offsets_.emplace(st.offset.targets[1].name, st.offset);
      if (st.index_field) collect_offsets(*st.index_field, seen);
    }
    for (const TExprPtr& a : e.args) collect_offsets(*a, seen);
    if (e.callee) collect_offsets(*e.callee, seen);
  }

  void collect_offsets(const std::vector<TStmt>& body, std::set<const TypedDefinition*>& seen) {
    for (const TStmt& s : body) {
      if (s.value) collect_offsets(*s.value, seen);
      collect_offsets(s.body, seen);
      collect_offsets(s.orelse, seen);
    }
  }

  void collect_offsets(const TypedDefinition& d, std::set<const TypedDefinition*>& seen) {
    if (!seen.insert(&d).second) return;
    collect_offsets(d.body, seen);
    for (const ProgramCall& c : d.calls) {
      if (c.callee) collect_offsets(*c.callee, seen);
      for (const TExprPtr& a : c.args) collect_offsets(*a, seen);
    }
  }

  // ---------------------------------------------------------------- containers

  void add_field(const std::string& name, const Type& t, const SourceLocation& loc) {
    std::vector<sym::Expr> shape;
    if (t.dims.empty()) shape.push_back(sym::Expr(1));  // a 0-d field: one element, as DaCe holds it
    for (const Dimension& d : t.dims) {
      if (d.kind == DimensionKind::Local) {
        // A local dimension has as many entries as its connectivity has neighbours.
        shape.push_back(sym::Expr(local_size(d, loc)));
        continue;
      }
      // `__f_I_size`; `__out_I_size` for the output `__out`; a suffix if the name is taken.
      std::string base = (name.rfind("__", 0) == 0 ? name : "__" + name) + "_" + d.name + "_size";
      std::string s = base;
      for (int k = 1; sdfg_->symbols.count(s) || sdfg_->has_data(s); ++k) s = base + "_" + std::to_string(k);
      size_symbols_[name][d.name] = s;
      sdfg_->add_symbol(s, ScalarType::Int64);
      shape.push_back(sym::Expr::symbol(s));
    }
    record_dims(sdfg_->add_array(name, to_sdfg_type(t.dtype), shape, false), t.dims);
    auto v = std::make_shared<Val>();
    v->kind = Val::Kind::Field;
    v->name = name;
    v->dims = t.dims;
    params_[name] = v;
  }

  /// `written`: the parameters some call's out= writes (a 0-d field among them is an array).
  void add_param(const TParam& p, const std::set<std::string>& symbols,
                 const std::set<std::string>& written) {
    if (p.type.is_field()) return add_field(p.name, p.type, p.loc);
    if (!p.type.is_scalar()) unsupported(p.loc, "parameter '" + p.name + "' of type " + to_string(p.type));
    if (p.type.zero_dim && written.count(p.name)) {
      if (symbols.count(p.name))
        throw FrontendError(p.loc, "the 0-d field '" + p.name +
                                       "' is both written by out= and used in a domain bound; a domain "
                                       "bound must be a scalar the program only reads");
      return add_field(p.name, p.type, p.loc);
    }
    auto v = std::make_shared<Val>();
    v->name = p.name;
    if (symbols.count(p.name)) {
      sdfg_->add_symbol(p.name, to_sdfg_type(p.type.dtype));
      v->kind = Val::Kind::Symbol;
    } else {
      sdfg_->add_scalar(p.name, to_sdfg_type(p.type.dtype), false);
      v->kind = Val::Kind::Scalar;
    }
    params_[p.name] = v;
  }

  // ---------------------------------------------------------------- programs

  static void collect_names(const TExpr& e, std::set<std::string>& out) {
    if (e.kind == TExprKind::Name) out.insert(e.name);
    for (const TExprPtr& a : e.args) collect_names(*a, out);
  }

  sym::Expr bound_expr(const TExpr& e) {
    switch (e.kind) {
      case TExprKind::Literal:
        if (e.literal.kind == ConstantValue::Kind::Int) return sym::Expr(e.literal.int_value);
        break;
      case TExprKind::Name: return sym::Expr::symbol(e.name);
      case TExprKind::Unary:
        if (e.unary_op == UnaryOperator::USub) return -bound_expr(*e.args[0]);
        if (e.unary_op == UnaryOperator::UAdd) return bound_expr(*e.args[0]);
        break;
      case TExprKind::Binary: {
        sym::Expr a = bound_expr(*e.args[0]), b = bound_expr(*e.args[1]);
        switch (e.binary_op) {
          case BinaryOperator::Add: return a + b;
          case BinaryOperator::Sub: return a - b;
          case BinaryOperator::Mult: return a * b;
          case BinaryOperator::FloorDiv: return sym::Expr::floordiv(a, b);
          case BinaryOperator::Mod: return sym::Expr::mod(a, b);
          default: break;
        }
        break;
      }
      case TExprKind::Builtin:
        // `int32(nlev - 1)`: an integer cast of an integer bound is the bound; `minimum(a, b)`.
        if (e.name == "astype" && is_integral(e.type.dtype) && is_integral(e.args[0]->type.dtype))
          return bound_expr(*e.args[0]);
        if (e.name == "minimum") return sym::Expr::min(bound_expr(*e.args[0]), bound_expr(*e.args[1]));
        if (e.name == "maximum") return sym::Expr::max(bound_expr(*e.args[0]), bound_expr(*e.args[1]));
        break;
      default: break;
    }
    unsupported(e.loc, "this domain bound");
  }

  // Constant domain bounds. A start at or past the end is an empty range, whatever the numbers
  // (gt4py's UnitRange(5, 2) equals UnitRange(0, 0)): `hi` becomes `lo`, so that nothing runs
  // and nothing is sized by a negative extent. Otherwise a negative bound can never be in
  // bounds and is the user's error, at the bound.
  static void check_constant_bounds(const ProgramCall::Range& r, const sym::Expr& lo, sym::Expr& hi) {
    std::optional<long long> l = lo.as_integer(), h = hi.as_integer();
    if (l && h && *l >= *h) {
      hi = lo;
      return;
    }
    std::string name = "domain of '" + r.dim.name + "'";
    if (l && *l < 0)
      throw FrontendError(r.lo->loc,
                          name + " starts at " + std::to_string(*l) + ", before the first index 0");
    if (h && *h < 0)
      throw FrontendError(r.hi->loc, name + " ends at " + std::to_string(*h) + ", before the first index 0");
  }

  ValuePtr program_arg(const TExprPtr& a) {
    if (a->kind == TExprKind::Name) {
      auto it = params_.find(a->name);
      if (it == params_.end()) unsupported(a->loc, "the argument '" + a->name + "'");
      return it->second;
    }
    if (a->kind == TExprKind::Tuple) {
      auto v = std::make_shared<Val>();
      v->kind = Val::Kind::Tuple;
      for (const TExprPtr& x : a->args) v->elems.push_back(program_arg(x));
      return v;
    }
    return lazy(a, program_env_);  // a literal, or a scalar expression of the parameters
  }

  /// The containers among the fields `v` passes (a program argument value).
  static void fields_of(const ValuePtr& v, std::set<std::string>& out) {
    if (v->kind == Val::Kind::Field) out.insert(v->name);
    for (const ValuePtr& e : v->elems) fields_of(e, out);
  }

  /// The output domain of `o` over its dims: `domain` (bounds by dimension), else its
  /// slices, else its whole shape.
  std::vector<Range> out_ranges(const ProgramCall::Out& o, const std::vector<ProgramCall::Range>& domain) {
    std::vector<Range> ranges;
    for (std::size_t j = 0; j < o.type.dims.size(); ++j) {
      const Dimension& d = o.type.dims[j];
      sym::Expr size = sym::Expr::symbol(size_symbols_.at(o.name).at(d.name));
      sym::Expr lo(0), hi = size;
      bool from_domain = false;
      for (const ProgramCall::Range& r : domain)
        if (r.dim == d) {
          lo = bound_expr(*r.lo);
          hi = bound_expr(*r.hi);
          from_domain = true;
          check_constant_bounds(r, lo, hi);
        }
      if (!from_domain && j < o.slices.size()) {
        const auto& [sl, sh] = o.slices[j];
        if (sl) lo = *sl < 0 ? size + sym::Expr(*sl) : sym::Expr(*sl);
        if (sh) hi = *sh < 0 ? size + sym::Expr(*sh) : sym::Expr(*sh);
      }
      ranges.emplace_back(lo, hi - sym::Expr(1));
    }
    return ranges;
  }

  void lower_program() {
    std::set<std::string> symbols;
    for (const ProgramCall& c : def_.calls)
      for (std::size_t i = 0; i < std::max<std::size_t>(c.outs.size(), 1); ++i)
        for (const ProgramCall::Range& r : c.outs.empty() ? c.domain : c.domain_of(i)) {
          collect_names(*r.lo, symbols);
          collect_names(*r.hi, symbols);
        }
    std::set<std::string> written;
    for (const ProgramCall& c : def_.calls)
      for (const ProgramCall::Out& o : c.outs) written.insert(o.name);
    for (const TParam& p : def_.params) {
      add_param(p, symbols, written);
      sdfg_->arg_names.push_back(p.name);
      program_env_ = bind_name(program_env_, p.name, params_.at(p.name));
    }
    for (std::size_t k = 0; k < def_.calls.size(); ++k) {
      const ProgramCall& c = def_.calls[k];
      if (c.outs.empty()) unsupported(c.loc, "a call without outputs");
      std::vector<ValuePtr> args;
      for (const TExprPtr& a : c.args) args.push_back(program_arg(a));
      for (const ProgramCall::Out& o : c.outs)
        for (const Dimension& d : o.type.dims)
          if (d.kind == DimensionKind::Local)
            unsupported(c.loc, "outputs with a local dimension ('" + d.name + "')");
      bool per_output = false;  // outputs over different domains (a tuple of domains)
      for (std::size_t i = 1; i < c.outs.size(); ++i)
        per_output = per_output || !same_domain(c.domain_of(i), c.domain_of(0)) ||
                     !(c.outs[i].type.dims == c.outs[0].type.dims);
      // An output the call reads where another point writes it is computed into a temporary
      // and copied afterwards (check_out_hazards; docs/adr/0043): gt4py evaluates the whole
      // right-hand side before writing. With one map per output, an output that is also an
      // argument of the call goes through a copy too unless its map is the last.
      std::vector<std::pair<std::string, std::size_t>> copies;  // temporary, output index
      std::set<std::string> inputs;
      for (const ValuePtr& a : args) fields_of(a, inputs);
      auto target = [&](std::size_t i) -> std::string {
        const ProgramCall::Out& o = c.outs[i];
        bool copy = o.copy || (per_output && i + 1 < c.outs.size() && inputs.count(o.name));
        if (!copy) return o.name;
        for (const auto& [t, j] : copies)
          if (c.outs[j].name == o.name) return t;
        const ScalarType dtype = sdfg_->data(o.name).dtype.base;
        std::vector<sym::Expr> shape = sdfg_->data(o.name).shape;
        std::vector<std::string> dims = field_dims(sdfg_->data(o.name));
        std::string t = sdfg_->unique_data_name("__" + o.name + "_result");
        DataDescriptor& result = sdfg_->add_array(t, dtype, std::move(shape), true);
        if (!dims.empty()) set_field_dims(result, dims);
        copies.emplace_back(t, i);
        return t;
      };
      if (per_output) {
        // One map per output, each computing its element of the result.
        for (std::size_t i = 0; i < c.outs.size(); ++i) {
          const ProgramCall::Out& o = c.outs[i];
          emit_call(k, *c.callee, args, {{target(i), o.type.dims}}, o.type.dims,
                    out_ranges(o, c.domain_of(i)), c.loc, i);
        }
      } else {
        const Type& t0 = c.outs[0].type;
        std::vector<OutField> outs;
        for (std::size_t i = 0; i < c.outs.size(); ++i) {
          const ProgramCall::Out& o = c.outs[i];
          // Every output is written at the points of the call's one map, so the elements of a
          // tuple out= must be sliced alike (the embedded backend writes each over its own slice).
          if (o.slices != c.outs[0].slices)
            unsupported(c.loc, "elements of a tuple out= sliced differently ('" + c.outs[0].name + "' and '" +
                                   o.name + "')");
          outs.push_back({target(i), o.type.dims});
        }
        emit_call(k, *c.callee, args, outs, t0.dims, out_ranges(c.outs[0], c.domain_of(0)), c.loc);
      }
      // Each copy runs over the points its map wrote (with one map: the first output's domain).
      for (const auto& [t, i] : copies) {
        const ProgramCall::Out& o = c.outs[i];
        emit_copy(k, t, o, per_output ? out_ranges(o, c.domain_of(i)) : out_ranges(c.outs[0], c.domain_of(0)),
                  c.loc);
      }
    }
    if (def_.calls.empty()) sdfg_->add_state("empty", true);
  }

  /// A state after the last copying temporary `tmp` into output `o` over `ranges` (its domain).
  void emit_copy(std::size_t k, const std::string& tmp, const ProgramCall::Out& o,
                 const std::vector<Range>& ranges, const SourceLocation& loc) {
    std::map<std::string, std::string> params;
    for (const Dimension& d : o.type.dims) params[d.name] = map_param(d);
    cur_dims_ = o.type.dims;
    cur_ranges_ = ranges;
    where_ = loc;
    KernelBuilder kb(params, this);
    kb.set_location(loc);
    auto v = std::make_shared<Val>();
    v->kind = Val::Kind::Field;
    v->name = tmp;
    v->dims = o.type.dims;
    Code result = kb.eval_value(v, {});
    emit_kernel(kb, result, {{o.name, o.type.dims}}, o.type.dims, ranges,
                "call_" + std::to_string(k) + "_copy_" + o.name, "copy_" + o.name);
  }

  /// Whether two domain= lists give the same bounds (written alike) for the same dimensions.
  bool same_domain(const std::vector<ProgramCall::Range>& a, const std::vector<ProgramCall::Range>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i].dim == b[i].dim) || unparse_bound(*a[i].lo) != unparse_bound(*b[i].lo) ||
          unparse_bound(*a[i].hi) != unparse_bound(*b[i].hi))
        return false;
    return true;
  }
  std::string unparse_bound(const TExpr& e) { return bound_expr(e).str(); }

  // ---------------------------------------------------------------- field operators

  void lower_operator() {
    for (const TParam& p : def_.params) {
      add_param(p, {}, {});
      sdfg_->arg_names.push_back(p.name);
    }
    std::vector<OutField> outs;
    std::vector<Type> leaves;
    if (def_.returns.is_tuple()) {
      for (std::size_t i = 0; i < def_.returns.elements.size(); ++i) {
        const Type& t = def_.returns.elements[i];
        if (!t.is_field() && !t.is_scalar()) unsupported(def_.loc, "a tuple result with a non-field element");
        outs.push_back({"__out_" + std::to_string(i), t.dims});
        leaves.push_back(t);
      }
    } else {
      // A scalar result is a 0-d field `__out` of one element (the embedded backend's too).
      if (!def_.returns.is_field() && !def_.returns.is_scalar())
        unsupported(def_.loc, "a field operator returning " + to_string(def_.returns));
      outs.push_back({"__out", def_.returns.dims});
      leaves.push_back(def_.returns);
    }
    for (std::size_t i = 0; i < outs.size(); ++i) {
      if (!(leaves[i].dims == leaves[0].dims)) unsupported(def_.loc, "outputs over different dimensions");
      add_field(outs[i].name, leaves[i], def_.loc);
      sdfg_->arg_names.push_back(outs[i].name);
    }
    std::vector<Range> ranges;
    for (const Dimension& d : leaves[0].dims)
      ranges.emplace_back(sym::Expr(0),
                          sym::Expr::symbol(size_symbols_.at(outs[0].name).at(d.name)) - sym::Expr(1));
    std::vector<ValuePtr> args;
    for (const TParam& p : def_.params) args.push_back(params_.at(p.name));
    emit_call(0, def_, args, outs, leaves[0].dims, ranges, def_.loc);
  }

  // ---------------------------------------------------------------- one call: state + map

  /// What a tasklet writes: connector `conn` into `container` at `point`; the map exit's
  /// outer memlet covers `whole`.
  struct Write {
    std::string container, conn;
    std::vector<sym::Expr> point;
    std::vector<Range> whole;
  };

  /// Appends a state to `region` after `*last` (in order).
  SDFGState& next_state(ControlFlowRegion& region, BlockId& last, const std::string& label) {
    SDFGState& st = region.add_state(label, last == kNoBlock && region.num_blocks() == 0);
    if (last != kNoBlock) region.add_edge(last, st.id());
    last = st.id();
    return st;
  }

  /// The most elements one run of a tasklet reads through whole-container connector `conn`:
  /// one per subscript `conn[...]` in its code (the code has no loops; counted on its syntax
  /// tree); 0 (DaCe's "unbounded") if it has none.
  static sym::Expr whole_read_volume(const pycode::NameUse& code, const std::string& conn) {
    auto n = code.subscript_count.find(conn);
    return sym::Expr(static_cast<std::int64_t>(n == code.subscript_count.end() ? 0 : n->second));
  }

  /// Fills `st` with a map over `params`/`ranges` (no map when there are none) holding one
  /// tasklet with the builder's code and reads, and the given writes. `param_ranges` gives the
  /// range of every symbol reads are relative to (the map parameters, loop variables).
  void build_kernel_state(SDFGState& st, const std::string& label, const KernelBuilder& kb, std::string code,
                          const std::vector<Write>& writes, const std::vector<std::string>& params,
                          const std::vector<Range>& ranges,
                          const std::map<std::string, Range>& param_ranges) {
    std::vector<std::string> in_conns, out_conns;
    for (const Read& r : kb.reads()) in_conns.push_back(r.conn);
    for (const Write& w : writes) out_conns.push_back(w.conn);
    bool mapped = !params.empty();
    NodeId entry_id = 0, exit_id = 0;
    if (mapped) {
      MapEntry& entry = st.add_map(label + "_map", params, Subset(ranges), opts_.map_schedule);
      entry_id = entry.id();
      exit_id = entry.exit;
    }
    Tasklet& t = st.add_tasklet(label, CodeBlock{std::move(code), Language::Python}, in_conns, out_conns);
    NodeId tid = t.id();
    const pycode::NameUse tasklet_code = pycode::names_used(*t.code.parsed());

    // Reads: one access node per container, an outer memlet covering all the reads (none
    // where a map or loop range is empty: offsets must not widen it into points outside).
    bool runs = true;
    for (const auto& [p, r] : param_ranges) runs = runs && !provably_empty(r);
    std::vector<std::string> containers;
    for (const Read& r : kb.reads())
      if (std::find(containers.begin(), containers.end(), r.container) == containers.end())
        containers.push_back(r.container);
    for (const std::string& c : containers) {
      const DataDescriptor& desc = sdfg_->data(c);
      bool whole = false;
      for (const Read& r : kb.reads()) whole = whole || (r.container == c && r.whole);
      Subset outer;
      if (desc.is_scalar()) {
        outer = Subset({Range::index(0)});
      } else if (whole) {
        outer = Subset::full(desc.shape);
      } else {
        std::vector<Range> rs;
        const Read* first = nullptr;
        for (const Read& r : kb.reads())
          if (r.container == c && !first) first = &r;
        for (std::size_t j = 0; j < first->params.size(); ++j) {
          std::int64_t lo = first->offsets[j], hi = first->offsets[j];
          for (const Read& r : kb.reads())
            if (r.container == c) {
              lo = std::min(lo, r.offsets[j]);
              hi = std::max(hi, r.offsets[j]);
            }
          if (first->params[j].empty()) {
            rs.emplace_back(sym::Expr(lo), sym::Expr(runs ? hi : lo - 1));
          } else if (!runs) {
            const Range& pr = param_ranges.at(first->params[j]);
            rs.emplace_back(pr.start + sym::Expr(lo), pr.start + sym::Expr(lo - 1));
          } else {
            const Range& pr = param_ranges.at(first->params[j]);
            rs.emplace_back(pr.start + sym::Expr(lo), pr.end + sym::Expr(hi));
          }
        }
        outer = Subset(rs);
      }
      AccessNode& a = st.add_access(c);
      std::string out = "OUT_" + c;
      // Volumes as DaCe's memlet propagation gives them: what one tasklet run reads (a whole
      // connector: at most one element per subscript in the code, dynamic), times the map's
      // iterations outside.
      sym::Expr per_run(0);
      for (const Read& r : kb.reads())
        if (r.container == c)
          per_run = per_run + (r.whole ? whole_read_volume(tasklet_code, r.conn) : sym::Expr(1));
      if (mapped) {
        MapEntry& entry = *st.node(entry_id).as<MapEntry>();
        entry.in_connectors["IN_" + c] = std::nullopt;
        entry.out_connectors[out] = std::nullopt;
        Memlet m = Memlet::simple(c, outer);
        if (whole) {
          sym::Expr iterations(1);
          for (const Range& r : ranges) iterations = iterations * r.size();
          m.volume = per_run * iterations;
          m.dynamic = true;
        }
        st.add_edge(a.id(), "", entry_id, "IN_" + c, m);
      }
      for (const Read& r : kb.reads())
        if (r.container == c) {
          Memlet m;
          if (r.whole) {
            m = Memlet::simple(c, Subset::full(desc.shape));
            m.dynamic = true;  // the code reads some of it, at indices it computes
            m.volume = whole_read_volume(tasklet_code, r.conn);
          } else {
            std::vector<Range> idx;
            for (const sym::Expr& x : r.index) idx.push_back(Range::index(x));
            m = Memlet::simple(c, Subset(idx));
          }
          if (!r.debuginfo.empty()) m.extra.set("debuginfo", r.debuginfo);
          if (mapped)
            st.add_edge(entry_id, out, tid, r.conn, m);
          else
            st.add_edge(a.id(), "", tid, r.conn, m);
        }
    }
    if (kb.reads().empty() && mapped) st.add_edge(entry_id, "", tid, "", Memlet{});

    for (const Write& w : writes) {
      std::vector<Range> point;
      for (const sym::Expr& x : w.point) point.push_back(Range::index(x));
      AccessNode& a = st.add_access(w.container);
      if (!mapped) {
        st.add_edge(tid, w.conn, a.id(), "", Memlet::simple(w.container, Subset(point)));
        continue;
      }
      MapExit& exit = *st.node(exit_id).as<MapExit>();
      std::string in = "IN_" + w.container, out = "OUT_" + w.container;
      if (exit.in_connectors.count(in))
        unsupported(where_, "writing '" + w.container + "' twice in one call");
      exit.in_connectors[in] = std::nullopt;
      exit.out_connectors[out] = std::nullopt;
      st.add_edge(tid, w.conn, exit_id, in, Memlet::simple(w.container, Subset(point)));
      st.add_edge(exit_id, out, a.id(), "", Memlet::simple(w.container, Subset(w.whole)));
    }
    if (writes.empty() && mapped) st.add_edge(tid, "", exit_id, "", Memlet{});
    if (where_.known()) {
      std::string info = debuginfo_json(where_);
      // Not on the map exit: DaCe's MapExit has no such property (the exit's line is its entry's).
      for (Node* n : st.nodes())
        if (n->kind() != NodeKind::MapExit) n->extra.set("debuginfo", info);
    }
  }

  /// The path (element indices) of leaf `n` of `t` in flattened order.
  static std::vector<std::size_t> leaf_path(const Type& t, std::size_t n) {
    std::vector<std::size_t> path;
    std::size_t seen = 0;
    std::function<bool(const Type&)> walk = [&](const Type& x) {
      if (!x.is_tuple()) return seen++ == n;
      for (std::size_t i = 0; i < x.elements.size(); ++i) {
        path.push_back(i);
        if (walk(x.elements[i])) return true;
        path.pop_back();
      }
      return false;
    };
    if (!walk(t)) throw Error("lowering: no result leaf " + std::to_string(n));
    return path;
  }

  /// Flattens a result code into its leaves.
  static std::vector<std::string> leaves_of(const Code& c) {
    std::vector<std::string> leaves;
    std::function<void(const Code&)> flat = [&](const Code& x) {
      if (!x.tuple)
        leaves.push_back(x.text);
      else
        for (const Code& e : x.elems) flat(e);
    };
    flat(c);
    return leaves;
  }

  /// A connector name for output `i` of `n` that no container or symbol has.
  std::string out_conn(std::size_t i, std::size_t n, const std::string& base = "__out") {
    std::string conn = n == 1 ? base : base + "_" + std::to_string(i);
    if (sdfg_->has_data(conn) || sdfg_->symbols.count(conn)) conn = "__result" + conn.substr(base.size());
    return conn;
  }

  /// `leaf`: compute only that leaf of the (flattened) result into the single output.
  void emit_call(std::size_t k, const TypedDefinition& callee, const std::vector<ValuePtr>& args,
                 const std::vector<OutField>& outs, const std::vector<Dimension>& dims,
                 const std::vector<Range>& ranges, const SourceLocation& loc,
                 std::optional<std::size_t> leaf = std::nullopt) {
    if (callee.kind == DefinitionKind::Program)
      unsupported(loc, "program '" + callee.name + "' called in a program");
    std::map<std::string, std::string> params;
    std::vector<std::string> param_list;
    for (const Dimension& d : dims) {
      if (d.kind == DimensionKind::Local) unsupported(loc, "outputs with a local dimension");
      params[d.name] = map_param(d);
      param_list.push_back(map_param(d));
    }
    cur_dims_ = dims;
    cur_call_ = k;
    scans_.clear();  // scan results belong to one call (its domain)
    stored_.clear();
    cur_ranges_ = ranges;
    where_ = loc;
    if (callee.kind == DefinitionKind::ScanOperator) {
      if (leaf) unsupported(loc, "a scan operator call whose outputs have different domains");
      return emit_scan(callee, args, outs, loc);
    }

    std::vector<DomainCut> cuts;
    KernelBuilder kb(params, this);
    kb.set_location(loc);
    kb.collect_cuts(&cuts);
    ValuePtr res = kb.inline_call(callee, args, loc);
    // An operator returning a scan's result directly: the scan writes the outputs.
    if (!leaf && res->kind == Val::Kind::Lazy && res->expr->kind == TExprKind::Call && res->expr->callee &&
        res->expr->callee->kind == DefinitionKind::ScanOperator && kb.lines().empty() && kb.reads().empty()) {
      std::vector<ValuePtr> scan_args;
      for (const TExprPtr& a : res->expr->args) scan_args.push_back(lazy(a, res->env));
      return emit_scan(*res->expr->callee, scan_args, outs, res->expr->loc);
    }
    // The result itself needs no temporary: `__out = (...)`.
    auto result_of = [&](KernelBuilder& b, const ValuePtr& r) {
      return leaf                         ? b.value_elem(r, leaf_path(callee.returns, *leaf), {})
             : r->kind == Val::Kind::Lazy ? b.eval(*r->expr, r->env, {})
                                          : b.eval_value(r, {});
    };
    Code result = result_of(kb, res);
    // Nested calls the tasklet would recompute at many neighbours: built again with them
    // stored, each by its own map (docs/adr/0008, 2026-12-07).
    std::set<CallSite> stored = storable(kb.stored_calls(), outs, dims, ranges);
    std::optional<KernelBuilder> skb;
    if (!stored.empty()) {
      cuts.clear();
      skb.emplace(params, this);
      skb->set_location(loc);
      skb->collect_cuts(&cuts);
      skb->store_calls(stored);
      res = skb->inline_call(callee, args, loc);
      result = result_of(*skb, res);
    }
    KernelBuilder& built = skb ? *skb : kb;
    const std::string label =
        "call_" + std::to_string(k) + "_" + callee.name + (leaf ? "_out" + std::to_string(*leaf) : "");
    // concat_where as gt4py defines it: one map per region of its conditions, each computing
    // only the branches taken there, so no branch reads outside its own part of the domain.
    std::vector<DomainRegion> regions;
    if (!cuts.empty()) regions = split_domain(param_list, ranges, cuts, kMaxRegions);
    if (regions.empty()) return emit_kernel(built, result, outs, dims, ranges, label, callee.name);
    for (std::size_t r = 0; r < regions.size(); ++r) {
      KernelBuilder rb(params, this);
      rb.set_location(loc);
      rb.in_region(&regions[r]);
      rb.store_calls(stored);
      ValuePtr rres = rb.inline_call(callee, args, loc);
      Code rresult = result_of(rb, rres);
      emit_kernel(rb, rresult, outs, dims, regions[r].ranges, label + "_part" + std::to_string(r),
                  callee.name);
    }
  }

  /// The calls of `calls` that can be stored over the domain `ranges` of `dims`: none unless
  /// the domain is the whole first output (the neighbours of its points may be any of its
  /// points), and only calls whose result has dimensions, all of the domain.
  std::set<CallSite> storable(std::set<CallSite> calls, const std::vector<OutField>& outs,
                              const std::vector<Dimension>& dims, const std::vector<Range>& ranges) {
    if (calls.empty() || outs.empty()) return {};
    const DataDescriptor& out = sdfg_->data(outs[0].name);
    if (outs[0].dims != dims || out.shape.size() != ranges.size()) return {};
    for (std::size_t j = 0; j < ranges.size(); ++j)
      if (!(ranges[j].start == sym::Expr(0)) || !(ranges[j].end + sym::Expr(1) == out.shape[j])) return {};
    for (auto it = calls.begin(); it != calls.end();) {
      const auto& t = static_cast<const TExpr*>(it->first)->type;
      bool inside = !t.dims.empty();
      for (const Dimension& d : t.dims)
        inside = inside && std::find(dims.begin(), dims.end(), d) != dims.end();
      it = inside ? std::next(it) : calls.erase(it);
    }
    return calls;
  }

  /// Most maps one call's domain is split into for its concat_where conditions (beyond, one map
  /// computes every branch with guarded reads).
  static constexpr std::size_t kMaxRegions = 32;

  /// A state after the last with a map over `ranges` computing `result` of `kb` into `outs`.
  void emit_kernel(const KernelBuilder& kb, const Code& result, const std::vector<OutField>& outs,
                   const std::vector<Dimension>& dims, const std::vector<Range>& ranges,
                   const std::string& label, const std::string& name) {
    std::vector<std::string> leaves = leaves_of(result);
    if (leaves.size() != outs.size())
      throw Error("lowering: " + std::to_string(leaves.size()) + " results for " +
                  std::to_string(outs.size()) + " outputs");

    std::string code;
    for (const std::string& l : kb.lines()) code += l + "\n";
    std::vector<Write> writes;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      Write w{outs[i].name, out_conn(i, outs.size()), {}, {}};
      code += w.conn + " = " + leaves[i] + (i + 1 < outs.size() ? "\n" : "");
      for (std::size_t j = 0; j < outs[i].dims.size(); ++j) {
        w.point.push_back(sym::Expr::symbol(map_param(outs[i].dims[j])));
        w.whole.push_back(ranges[j]);
      }
      if (outs[i].dims.empty()) {  // a 0-d field: its one element
        w.point.push_back(sym::Expr(0));
        w.whole.push_back(Range::index(sym::Expr(0)));
      }
      writes.push_back(std::move(w));
    }
    std::vector<std::string> param_list;
    std::map<std::string, Range> pr;
    for (std::size_t j = 0; j < dims.size(); ++j) {
      param_list.push_back(map_param(dims[j]));
      pr[map_param(dims[j])] = ranges[j];
    }
    SDFGState& st = next_state(*sdfg_, last_state_, label);
    build_kernel_state(st, name, kb, std::move(code), writes, param_list, ranges, pr);
  }

  // ---------------------------------------------------------------- scans

  /// A scan over the current call's domain writing its result leaves into `dests`: an init
  /// state setting the carry (one transient per carry leaf over the non-scan dimensions), then
  /// a LoopRegion over the scan axis (up or down) whose state maps over the other dimensions;
  /// its tasklet reads the carry and the arguments at the level, and writes the new carry and
  /// the outputs at the level.
  void emit_scan(const TypedDefinition& scan, const std::vector<ValuePtr>& args,
                 const std::vector<OutField>& dests, const SourceLocation& loc) {
    const Dimension& axis = scan.axis;
    auto apos = std::find(cur_dims_.begin(), cur_dims_.end(), axis) - cur_dims_.begin();
    if (static_cast<std::size_t>(apos) == cur_dims_.size())
      unsupported(loc, "a scan along '" + axis.name + "' over a domain without that dimension");
    const Range axis_range = cur_ranges_[static_cast<std::size_t>(apos)];
    std::vector<Dimension> col_dims;
    std::vector<std::string> col_params;
    std::vector<Range> col_ranges;
    std::map<std::string, std::string> params;
    std::map<std::string, Range> pr;
    for (std::size_t j = 0; j < cur_dims_.size(); ++j) {
      if (static_cast<std::ptrdiff_t>(j) == apos) continue;
      col_dims.push_back(cur_dims_[j]);
      col_params.push_back(map_param(cur_dims_[j]));
      col_ranges.push_back(cur_ranges_[j]);
      params[cur_dims_[j].name] = map_param(cur_dims_[j]);
      pr[map_param(cur_dims_[j])] = cur_ranges_[j];
    }
    int id = scan_count_++;
    std::string tag = "scan" + std::to_string(id) + "_" + scan.name;

    // Carry transients over the other dimensions (one element when there are none).
    std::vector<Type> carry_types;
    std::function<void(const Type&)> flat = [&](const Type& t) {
      if (t.is_tuple())
        for (const Type& e : t.elements) flat(e);
      else
        carry_types.push_back(t);
    };
    flat(scan.returns);
    std::vector<sym::Expr> carry_shape, carry_point;
    std::vector<Range> carry_whole;
    for (std::size_t j = 0; j < col_dims.size(); ++j) {
      carry_shape.push_back(col_ranges[j].end + sym::Expr(1));
      carry_point.push_back(sym::Expr::symbol(col_params[j]));
      carry_whole.push_back(col_ranges[j]);
    }
    if (col_dims.empty()) {
      carry_shape.push_back(sym::Expr(1));
      carry_point.push_back(sym::Expr(0));
      carry_whole.push_back(Range::index(sym::Expr(0)));
    }
    std::vector<std::string> carries;
    std::size_t leaf = 0;
    std::function<ValuePtr(const Type&)> carry_val = [&](const Type& t) -> ValuePtr {
      auto v = std::make_shared<Val>();
      if (t.is_tuple()) {
        v->kind = Val::Kind::Tuple;
        for (const Type& e : t.elements) v->elems.push_back(carry_val(e));
        return v;
      }
      if (!t.is_scalar()) unsupported(scan.loc, "a scan carry of type " + to_string(t));
      std::string name =
          sdfg_->unique_data_name("__carry" + std::to_string(id) + "_" + std::to_string(leaf++));
      sdfg_->add_array(name, to_sdfg_type(t.dtype), carry_shape, true);
      carries.push_back(name);
      v->kind = Val::Kind::Field;
      v->name = name;
      v->dims = col_dims;
      return v;
    };
    ValuePtr carry = carry_val(scan.returns);
    if (carries.size() != dests.size())
      throw Error("lowering: scan '" + scan.name + "' has " + std::to_string(carries.size()) +
                  " results for " + std::to_string(dests.size()) + " outputs");
    auto carry_writes = [&](const std::string& base) {
      std::vector<Write> ws;
      for (std::size_t i = 0; i < carries.size(); ++i)
        ws.push_back({carries[i], out_conn(i, carries.size(), base), carry_point, carry_whole});
      return ws;
    };

    // The level kernel first: materializing the scans its arguments use adds their blocks,
    // which must come before this scan's.
    std::map<std::string, std::string> col_map = params;
    std::string var = map_param(axis);
    params[axis.name] = var;
    pr[var] = Range::index(sym::Expr::symbol(var));
    KernelBuilder kb(params, this);
    kb.set_location(loc);
    std::vector<ValuePtr> all{carry};
    all.insert(all.end(), args.begin(), args.end());
    ValuePtr res = kb.inline_call(scan, all, loc);
    Code result = res->kind == Val::Kind::Lazy ? kb.eval(*res->expr, res->env, {}) : kb.eval_value(res, {});
    // A scan reads every argument at every point of its domain, also one its body never uses
    // (gt4py's embedded scan does; an argument's domain bounds the call): the reads of an unused
    // argument are the tasklet's too, so that the bounds checks refuse one that is not defined
    // there, as the embedded backend does (docs/adr/0014). Used ones are memoized, read once.
    for (const ValuePtr& a : args) kb.eval_value(a, {});
    std::vector<std::string> leaves = leaves_of(result);
    if (leaves.size() != carries.size()) throw Error("lowering: scan result does not match its carry");
    std::string code;
    for (const std::string& l : kb.lines()) code += l + "\n";
    std::vector<Write> ws = carry_writes("__carry");
    for (std::size_t i = 0; i < leaves.size(); ++i) code += ws[i].conn + " = " + leaves[i] + "\n";
    for (std::size_t i = 0; i < dests.size(); ++i) {
      Write w{dests[i].name, out_conn(i, dests.size()), {}, {}};
      for (const Dimension& d : dests[i].dims) {
        if (d == axis) {
          w.point.push_back(sym::Expr::symbol(var));
          w.whole.push_back(Range::index(sym::Expr::symbol(var)));
          continue;
        }
        auto pos = std::find(col_dims.begin(), col_dims.end(), d) - col_dims.begin();
        if (static_cast<std::size_t>(pos) == col_dims.size())
          unsupported(loc, "a scan output over '" + d.name + "', which is not a dimension of the domain");
        w.point.push_back(sym::Expr::symbol(col_params[static_cast<std::size_t>(pos)]));
        w.whole.push_back(col_ranges[static_cast<std::size_t>(pos)]);
      }
      code += w.conn + " = " + ws[i].conn + (i + 1 < dests.size() ? "\n" : "");
      ws.push_back(std::move(w));
    }
    // Init state: carry = init.
    {
      KernelBuilder ikb(col_map, this);
      ikb.set_location(loc);
      if (!scan.init) unsupported(scan.loc, "a scan operator without init=");
      std::vector<std::string> ileaves = leaves_of(ikb.eval(*scan.init, nullptr, {}));
      if (ileaves.size() != carries.size()) throw Error("lowering: scan init does not match its carry");
      std::vector<Write> iws = carry_writes("__init");
      std::string icode;
      for (const std::string& l : ikb.lines()) icode += l + "\n";
      for (std::size_t i = 0; i < iws.size(); ++i)
        icode += iws[i].conn + " = " + ileaves[i] + (i + 1 < iws.size() ? "\n" : "");
      SDFGState& ist = next_state(*sdfg_, last_state_, tag + "_init");
      build_kernel_state(ist, tag + "_init", ikb, std::move(icode), iws, col_params, col_ranges, pr);
    }

    // The loop over the scan axis.
    std::string lo = axis_range.start.str(), hi = axis_range.end.str();
    LoopRegion& loop =
        scan.forward
            ? sdfg_->add_loop(tag, var, var + " = " + lo, var + " <= " + hi, var + " = " + var + " + 1")
            : sdfg_->add_loop(tag, var, var + " = " + hi, var + " >= " + lo, var + " = " + var + " - 1");
    if (last_state_ != kNoBlock) sdfg_->add_edge(last_state_, loop.id());
    last_state_ = loop.id();

    BlockId inner = kNoBlock;
    SDFGState& st = next_state(loop, inner, tag + "_level");
    build_kernel_state(st, tag, kb, std::move(code), ws, col_params, col_ranges, pr);
  }

  const TypedDefinition& def_;
  const LoweringOptions& opts_;
  std::unique_ptr<SDFG> sdfg_;
  std::map<std::string, ValuePtr> params_;
  EnvPtr program_env_;  // the program's parameters, for argument expressions
  std::map<std::string, std::map<std::string, std::string>> size_symbols_;  // field -> dim -> symbol
  BlockId last_state_ = kNoBlock;
  // the call being lowered (scans materialize over its domain)
  std::vector<Dimension> cur_dims_;
  std::vector<Range> cur_ranges_;
  SourceLocation where_;
  int scan_count_ = 0;
  /// Scan results of the current call by (call, scope_key of its scope).
  std::map<std::pair<const void*, std::string>, std::pair<EnvPtr, ValuePtr>> scans_;
  /// Stored nested calls of the current call (LoweringContext::stored_call).
  std::map<CallSite, ValuePtr> stored_;
  int stored_count_ = 0;
  std::size_t cur_call_ = 0;                          // the current call's number (labels of its states)
  std::map<std::string, std::int64_t> tables_;        // connectivity -> max neighbours
  std::map<std::string, FieldOffset> table_offsets_;  // connectivity -> its offset
  std::map<std::string, FieldOffset> local_offsets_;  // local dimension -> its connectivity
};

}  // namespace

std::unique_ptr<SDFG> lower_to_sdfg(const TypedDefinition& def, const LoweringOptions& options) {
  return ProgramLowering(def, options).run();
}

}  // namespace weir::frontend
