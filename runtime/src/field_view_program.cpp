#include "weir/runtime/field_view_program.h"

#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "weir/frontend/definition_lookup.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/orchestration.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/errors.h"

#include "flat_tuple_operator.h"

namespace weir::runtime {
namespace {

using namespace weir::frontend;

// Owns what a typed definition points into.
struct Loaded {
  explicit Loaded(const std::vector<std::string>& search_path) : loader(LoaderOptions{search_path, true}) {}
  ModuleLoader loader;
  TypeChecker checker;
  std::unique_ptr<Orchestration> orchestration;
};

// Whether `d` calls a definition named `callee` (in its body or its program calls).
bool calls_named(const TExpr& e, const std::string& callee) {
  if (e.callee && e.callee->name == callee) return true;
  for (const auto& a : e.args)
    if (calls_named(*a, callee)) return true;
  for (const ShiftStep& s : e.shifts)
    if (s.index_field && calls_named(*s.index_field, callee)) return true;
  return false;
}

bool calls_named(const std::vector<TStmt>& body, const std::string& callee) {
  for (const TStmt& s : body)
    if ((s.value && calls_named(*s.value, callee)) || calls_named(s.body, callee) ||
        calls_named(s.orelse, callee))
      return true;
  return false;
}

bool calls_named(const TypedDefinition& d, const std::string& callee) {
  for (const auto& c : d.calls)
    if (c.callee && c.callee->name == callee) return true;
  return calls_named(d.body, callee);
}

// A @scan_operator run directly: its parameters are the values at one level of a column (gt4py
// gives it fields, whose dimensions say where the columns are; weir's arrays carry no
// dimensions), so there is nothing to scan. The error names the definitions of the file that
// call it, to run instead.
[[noreturn]] void refuse_scan_operator(const TypedDefinition& scan, const LoadedModule& m,
                                       TypeChecker& checker, const std::string& file) {
  std::string params, callers;
  // The first parameter is the carry (the state passed up the column), not an argument.
  for (std::size_t i = 1; i < scan.params.size(); ++i)
    params += (params.empty() ? "" : ", ") + scan.params[i].name + ": " + to_string(scan.params[i].type);
  for (const auto& d : m.definitions) {
    if (d->name == scan.name) continue;
    try {
      if (calls_named(checker.check(*d), scan.name)) callers += (callers.empty() ? "" : ", ") + d->name;
    } catch (const weir::Error&) {
      // A definition that does not type-check is no suggestion.
    }
  }
  throw FrontendError(
      scan.loc, "'" + scan.name +
                    "' is a @scan_operator: its arguments are the values at one level of a column (" +
                    params + "), so run directly it has no fields to scan along " + scan.axis.name +
                    "; run a @field_operator or @program that calls it with fields over " + scan.axis.name +
                    (callers.empty() ? " (none in this file does)"
                                     : " (in this file: " + callers + "; e.g. weir run " + file +
                                           "::" + callers.substr(0, callers.find(',')) + ")"));
}

FieldViewProgram finish(const std::shared_ptr<Loaded>& l, const LoadedModule& m, const std::string& name,
                        const std::string& file) {
  NamedDefinition named = find_named_definition(m, name, file);
  if (named.plain_function) {
    l->orchestration = check_orchestration(*named.plain_function, m, l->checker);
    FieldViewProgram p;
    p.orchestration = std::shared_ptr<const Orchestration>(l, l->orchestration.get());
    p.origin = file + "::" + name;
    return p;
  }
  const Definition* def = named.definition;
  const TypedDefinition& typed = l->checker.check(*def);
  if (typed.kind == DefinitionKind::ScanOperator) refuse_scan_operator(typed, m, l->checker, file);
  FieldViewProgram p;
  // A field operator's tuple parameters are passed leaf by leaf (x_0, x_1_0), as a program's.
  p.definition = with_flat_tuple_parameters(std::shared_ptr<const TypedDefinition>(l, &typed));
  p.origin = file + "::" + name;
  return p;
}

// The offsets of shifts in `e` (or `d`, and everything it calls): the unstructured ones
// (connectivities), or with `cartesian` the Cartesian ones (`Koff[1]`, `as_offset(Koff, f)`).
void offsets_in(const TExpr& e, std::map<std::string, FieldOffset>& out,
                std::set<const TypedDefinition*>& seen, bool cartesian);

void offsets_in(const TypedDefinition& d, std::map<std::string, FieldOffset>& out,
                std::set<const TypedDefinition*>& seen, bool cartesian) {
  if (!seen.insert(&d).second) return;
  std::function<void(const std::vector<TStmt>&)> stmts = [&](const std::vector<TStmt>& body) {
    for (const TStmt& s : body) {
      if (s.value) offsets_in(*s.value, out, seen, cartesian);
      stmts(s.body);
      stmts(s.orelse);
    }
  };
  stmts(d.body);
  for (const auto& c : d.calls) offsets_in(*c.callee, out, seen, cartesian);
}

void offsets_in(const TExpr& e, std::map<std::string, FieldOffset>& out,
                std::set<const TypedDefinition*>& seen, bool cartesian) {
  for (const auto& a : e.args) offsets_in(*a, out, seen, cartesian);
  for (const ShiftStep& s : e.shifts) {
    const bool unstructured = s.kind == ShiftStep::Kind::Neighbor || s.kind == ShiftStep::Kind::AllNeighbors;
    if (cartesian ? !unstructured && s.offset.cartesian() : unstructured) out[s.offset.name] = s.offset;
    if (s.index_field) offsets_in(*s.index_field, out, seen, cartesian);
  }
  if (e.callee) offsets_in(*e.callee, out, seen, cartesian);
}

Parameter array_param(const std::string& name, ScalarType dtype, const std::vector<std::string>& dims,
                      bool written) {
  Parameter p;
  p.name = name;
  p.kind = Parameter::Kind::Array;
  p.dtype = dtype;
  p.has_shape = true;
  p.written = written;
  std::string base = name.rfind("__", 0) == 0 ? name : "__" + name;
  for (const auto& d : dims) p.shape.push_back(sym::Expr::symbol(base + "_" + d + "_size"));
  // C order strides over the symbolic shape.
  p.strides.assign(p.shape.size(), sym::Expr(1));
  for (std::size_t i = p.shape.size(); i-- > 1;) p.strides[i - 1] = p.strides[i] * p.shape[i];
  return p;
}

ScalarType dtype_of(ScalarKind k) { return *scalar_type_from_string(to_string(k)); }

std::vector<std::string> dim_names(const Type& t) {
  std::vector<std::string> n;
  for (const auto& d : t.dims) n.push_back(d.name);
  return n;
}

}  // namespace

const std::string& FieldViewProgram::name() const {
  static const std::string none;
  if (orchestration) return orchestration->name;
  return definition ? definition->name : none;
}

FieldViewProgram load_field_view_program(const std::string& file, const std::string& name,
                                         const std::vector<std::string>& search_path) {
  auto l = std::make_shared<Loaded>(search_path);
  return finish(l, l->loader.load_file(file), name, file);
}

FieldViewProgram load_field_view_source(const std::string& text, const std::string& name,
                                        const std::string& path,
                                        const std::vector<std::string>& search_path) {
  auto l = std::make_shared<Loaded>(search_path);
  return finish(l, l->loader.load_source(SourceFile(path, text)), name, path);
}

std::vector<ConnectivityParameter> connectivities_of(const TypedDefinition& def) {
  std::map<std::string, FieldOffset> offs;
  std::set<const TypedDefinition*> seen;
  offsets_in(def, offs, seen, false);
  std::vector<ConnectivityParameter> out;
  for (const auto& [name, o] : offs)
    out.push_back({name, o.targets[0].name, o.source.name, o.targets[1].name});
  return out;
}

std::vector<std::pair<std::string, Type>> result_outputs(const TypedDefinition& def) {
  std::vector<Type> leaves;
  std::function<void(const Type&)> flat = [&](const Type& t) {
    if (t.is_tuple())
      for (const Type& e : t.elements) flat(e);
    else
      leaves.push_back(t);
  };
  flat(def.returns);
  std::vector<std::pair<std::string, Type>> out;
  for (std::size_t i = 0; i < leaves.size(); ++i)
    out.emplace_back(leaves.size() == 1 && !def.returns.is_tuple() ? "__out" : "__out_" + std::to_string(i),
                     leaves[i]);
  return out;
}

Signature field_view_signature(const TypedDefinition& def) {
  Signature sig;
  sig.program_name = def.name;
  std::set<std::string> written;
  for (const auto& c : def.calls)
    for (const auto& o : c.outs) written.insert(o.name);
  for (const TParam& p : def.params) {
    // A 0-d field that out= writes is an array of no dimensions (passed as a 0-d array).
    if (p.type.is_field() || (p.type.zero_dim && written.count(p.name))) {
      sig.params.push_back(
          array_param(p.name, dtype_of(p.type.dtype), dim_names(p.type), written.count(p.name) > 0));
    } else if (p.type.is_scalar()) {
      Parameter s;
      s.name = p.name;
      s.kind = Parameter::Kind::Scalar;
      s.dtype = dtype_of(p.type.dtype);
      sig.params.push_back(s);
    } else {
      // A program's tuple parameters are flattened by the type checker (x_0, x_1, ...); a
      // field operator run directly keeps its declared ones.
      throw BackendError(def.name + ": parameter '" + p.name + "' has type " + to_string(p.type) +
                         ", which cannot be passed to a @field_operator run directly (fields and scalars "
                         "only); call it from a @program, which takes a tuple parameter as one argument "
                         "per element (" +
                         p.name + "_0, " + p.name + "_1, ...)");
    }
  }
  if (def.kind != DefinitionKind::Program)
    for (const auto& [name, type] : result_outputs(def))
      sig.params.push_back(array_param(name, dtype_of(type.dtype), dim_names(type), true));
  for (const auto& c : connectivities_of(def))
    sig.params.push_back(array_param(c.name, ScalarType::Int32, {c.from, c.local}, false));
  return sig;
}

}  // namespace weir::runtime

namespace weir::runtime {

std::vector<ConnectivityParameter> connectivities_of(const FieldViewProgram& program) {
  if (!program.orchestration) return connectivities_of(*program.definition);
  std::map<std::string, ConnectivityParameter> all;
  for (const TypedDefinition* c : program.orchestration->callees)
    for (const auto& p : connectivities_of(*c)) all.emplace(p.name, p);
  std::vector<ConnectivityParameter> out;
  for (auto& [name, p] : all) out.push_back(p);
  return out;
}

std::map<std::string, std::string> cartesian_offsets_of(const FieldViewProgram& program) {
  std::map<std::string, FieldOffset> offs;
  std::set<const TypedDefinition*> seen;
  if (program.orchestration)
    for (const TypedDefinition* c : program.orchestration->callees) offsets_in(*c, offs, seen, true);
  else
    offsets_in(*program.definition, offs, seen, true);
  std::map<std::string, std::string> out;
  for (const auto& [name, o] : offs) out.emplace(name, o.source.name);
  return out;
}

Signature field_view_signature(const FieldViewProgram& program) {
  if (!program.orchestration) return field_view_signature(*program.definition);
  const Orchestration& o = *program.orchestration;
  Signature sig;
  sig.program_name = o.name;
  std::vector<std::string> w = written_parameters(o);
  std::set<std::string> written(w.begin(), w.end());
  for (const TParam& p : o.params) {
    if (p.type.is_field()) {
      // Sizes of its own per field (frontend::size_symbol), as the lowering's arrays have them.
      sig.params.push_back(
          array_param(p.name, dtype_of(p.type.dtype), dim_names(p.type), written.count(p.name) > 0));
    } else {
      Parameter s;
      s.name = p.name;
      s.kind = Parameter::Kind::Scalar;
      s.dtype = dtype_of(p.type.dtype);
      sig.params.push_back(s);
    }
  }
  for (const auto& c : connectivities_of(program))
    sig.params.push_back(array_param(c.name, ScalarType::Int32, {c.from, c.local}, false));
  return sig;
}

}  // namespace weir::runtime
