// Validation of data descriptors (DaCe's validate_sdfg descriptor loop and Data.validate):
// names, descriptor kind, shape/strides/offset agreement, symbols and storage.
#include <exception>

#include "validate_internal.h"
#include "weir/sdfg/symbolic.h"

namespace weir::detail {

namespace {

std::string join_exprs(const std::vector<sym::Expr>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += v[i].str();
  }
  return s + "]";
}

/// The first part of `e` that is not integer arithmetic of symbols (a call of an unknown
/// function such as `system(0)`, a comparison, a boolean), as text; "" when there is none.
std::string non_arithmetic_part(const sym::Expr& e) {
  switch (e.kind()) {
    case sym::Kind::Call:
      if (e.name() == "Abs") break;  // abs(N), which the symbolic layer keeps as a call
      return e.str();
    case sym::Kind::Compare:
    case sym::Kind::Not:
    case sym::Kind::And:
    case sym::Kind::Or:
    case sym::Kind::Boolean: return e.str();
    default: break;
  }
  for (const sym::Expr& a : e.args())
    if (std::string p = non_arithmetic_part(a); !p.empty()) return p;
  return "";
}

/// Sizes, strides and offsets are integer arithmetic of symbols (+ - * / // % **, Min, Max,
/// Abs, ceiling, floor): code generation prints them as C++, where a call of any other name
/// would call whatever that name is.
void check_arithmetic(Validator& v, const std::string& what, const DataDescriptor& d) {
  auto check = [&](const char* field, const sym::Expr& e) {
    std::string part = non_arithmetic_part(e);
    if (part.empty()) return;
    v.report("desc-expression",
             what + ": " + field + " `" + e.str() + "` is not integer arithmetic of symbols (`" + part +
                 "`; allowed: integers, symbols, + - * / // % **, Min, Max, Abs, ceiling, floor)",
             v.at_sdfg());
  };
  for (const auto& e : d.shape) check("shape", e);
  for (const auto& e : d.strides) check("stride", e);
  for (const auto& e : d.offset) check("offset", e);
  check("total_size", d.total_size);
  check("start_offset", d.start_offset);
}

void check_descriptor(Validator& v, const std::string& name, const DataDescriptor& d,
                      const SymbolSet& defined) {
  const ElementRef here = v.at_sdfg();
  const std::string what = "container '" + name + "'";
  if (!is_identifier(name)) {
    v.report("data-name", "data container name '" + name + "' is not a valid identifier", here);
  }
  if (d.kind == DataKind::Unknown) {
    // Nothing else of the descriptor is known (the loader keeps it verbatim).
    v.report("desc-unknown-type", what + " has unknown data descriptor type '" + d.type_name + "'", here);
    return;
  }

  if (d.is_scalar()) {
    auto one = d.shape.size() == 1 ? d.shape[0].as_integer() : std::nullopt;
    if (!one || *one != 1) {
      v.report("desc-scalar-shape",
               what + " is a Scalar but has shape " + join_exprs(d.shape) + " (a Scalar has shape [1])",
               here);
    }
  } else {
    if (!d.strides.empty() && d.strides.size() != d.shape.size()) {
      v.report("desc-strides",
               what + " has " + std::to_string(d.strides.size()) + " strides for " +
                   std::to_string(d.shape.size()) + " dimensions",
               here);
    }
    if (!d.offset.empty() && d.offset.size() != d.shape.size()) {
      v.report("desc-offset",
               what + " has " + std::to_string(d.offset.size()) + " offsets for " +
                   std::to_string(d.shape.size()) + " dimensions",
               here);
    }
  }
  check_arithmetic(v, what, d);
  for (std::size_t i = 0; i < d.shape.size(); ++i) {
    auto n = d.shape[i].as_integer();
    if (n && *n < 0) {
      v.report("desc-negative-shape",
               what + " has negative size " + std::to_string(*n) + " in dimension " + std::to_string(i),
               here);
    }
  }

  SymbolSet used;
  try {
    used = d.free_symbols();
  } catch (const std::exception&) {
    used.clear();
  }
  SymbolSet undefined = undefined_in(used, defined);
  if (!undefined.empty()) {
    v.report("desc-undefined-symbol",
             what + " uses undeclared symbol(s) " + quoted_list(undefined) +
                 " (symbols of descriptors must be declared SDFG symbols)",
             here);
  }

  if (d.storage == StorageType::Register) {
    if (d.lifetime == AllocationLifetime::Persistent || d.lifetime == AllocationLifetime::External) {
      v.report("desc-storage",
               what + " cannot be both " + std::string(to_string(d.lifetime)) + " and use Register storage",
               here);
    }
    // A non-transient container with Register storage is accepted, as DaCe does (its
    // auto-optimize writes them, e.g. for arguments of nested SDFGs): the caller's pointer is
    // used and the storage hint ignored.
  }

  check_descriptor_layout(v, name, d);

  if (v.depth == 0 && v.parent_node == nullptr && d.is_scalar() && !d.transient &&
      name.rfind("__return", 0) == 0) {
    v.report("desc-return-scalar",
             what + ": a top-level SDFG cannot return a Scalar (use a one-element Array)", here);
  }
}

}  // namespace

void validate_descriptors(Validator& v) {
  // Descriptors may use declared symbols and, for transients allocated later, symbols that
  // the control flow defines (interstate assignments, loop variables).
  SymbolSet defined = v.defined;
  defined.insert(v.all_loop_variables.begin(), v.all_loop_variables.end());
  for (const auto& entry : v.sdfg.arrays) {
    // (Not a structured binding: C++17 lambdas cannot capture those, and clang 14 refuses.)
    v.guarded(v.at_sdfg(), [&] { check_descriptor(v, entry.first, entry.second, defined); });
  }
}

}  // namespace weir::detail
