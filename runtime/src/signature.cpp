#include "weir/runtime/signature.h"

#include <nlohmann/json.hpp>

#include "weir/runtime/errors.h"
#include "weir/sdfg/json_text.h"
#include "weir/sdfg/sdfg.h"

namespace weir::runtime {

const char* to_string(Parameter::Kind k) {
  switch (k) {
    case Parameter::Kind::Array: return "array";
    case Parameter::Kind::Scalar: return "scalar";
    case Parameter::Kind::Symbol: return "symbol";
  }
  return "?";
}

std::string Parameter::describe() const {
  switch (kind) {
    case Kind::Array: {
      std::string s = std::string(weir::to_string(dtype)) + " array";
      if (has_shape) {
        s += " of shape (";
        for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].str();
        s += shape.size() == 1 ? ",)" : ")";
      }
      return s;
    }
    case Kind::Scalar: return std::string(weir::to_string(dtype)) + " scalar";
    case Kind::Symbol: return "symbol";
  }
  return "?";
}

Signature Signature::from_sdfg(const SDFG& sdfg) {
  Signature sig;
  sig.program_name = sdfg.name;
  std::set<std::string> written;
  for (auto* st : sdfg.all_states())
    for (auto* n : st->nodes())
      if (auto* an = n->as<AccessNode>(); an && !st->in_edges(an->id()).empty()) written.insert(an->data);
  for (const auto& name : sdfg.arglist()) {
    Parameter p;
    p.name = name;
    auto it = sdfg.arrays.find(name);
    if (it == sdfg.arrays.end()) {
      p.kind = Parameter::Kind::Symbol;
      auto s = sdfg.symbols.find(name);
      p.dtype = s != sdfg.symbols.end() && s->second.pointer_depth == 0 && s->second.raw_json.empty()
                    ? s->second.base
                    : ScalarType::Int64;
      sig.params.push_back(std::move(p));
      continue;
    }
    const DataDescriptor& d = it->second;
    if (d.kind == DataKind::Stream || d.kind == DataKind::Unknown)
      throw ArgumentError("argument '" + name + "': a " + d.type_name +
                          " container cannot be passed to a compiled program");
    if (d.dtype.pointer_depth != 0 || !d.dtype.raw_json.empty() || size_of(d.dtype.base) == 0)
      throw ArgumentError("argument '" + name + "': its dtype " + d.dtype.str() +
                          " cannot be passed to a compiled program");
    p.dtype = d.dtype.base;
    p.written = written.count(name) != 0;
    p.returned = name.rfind("__return", 0) == 0;
    if (d.is_scalar()) {
      p.kind = Parameter::Kind::Scalar;
    } else {
      p.kind = Parameter::Kind::Array;
      p.shape = d.shape;
      p.strides = d.strides.size() == d.shape.size() ? d.strides : DataDescriptor::row_major_strides(d.shape);
      p.has_shape = true;
    }
    sig.params.push_back(std::move(p));
  }
  return sig;
}

Signature Signature::from_arglist_json(const std::string& program_name, const std::string& json) {
  Signature sig;
  sig.program_name = program_name;
  try {
    auto j = parse_json(json, "weir_arglist() of '" + program_name + "'");
    for (const auto& e : j) {
      Parameter p;
      p.name = e.at("name").get<std::string>();
      auto kind = e.at("kind").get<std::string>();
      if (kind == "array")
        p.kind = Parameter::Kind::Array;
      else if (kind == "scalar")
        p.kind = Parameter::Kind::Scalar;
      else if (kind == "symbol")
        p.kind = Parameter::Kind::Symbol;
      else
        throw LoadError("unknown argument kind '" + kind + "'");
      auto dt =
          e.contains("dtype") ? scalar_type_from_string(e["dtype"].get<std::string>()) : ScalarType::Int64;
      if (!dt) throw LoadError("unknown dtype " + e["dtype"].dump() + " of argument '" + p.name + "'");
      p.dtype = *dt;
      sig.params.push_back(std::move(p));
    }
  } catch (const InvalidJsonError& e) {
    throw LoadError(e.what());
  } catch (const nlohmann::json::exception& e) {
    throw LoadError("weir_arglist() of '" + program_name + "': not a list of arguments (" +
                    plain_json_words(e.what()) + ")");
  }
  return sig;
}

const Parameter* Signature::find(const std::string& name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

std::string Signature::names() const {
  std::string s;
  // Symbols named `__...` are the lowering's (field sizes, an orchestration's `__binding`):
  // inferred from the arrays or set by the program, never the user's to give.
  for (const auto& p : params)
    if (p.kind != Parameter::Kind::Symbol || p.name.rfind("__", 0) != 0)
      s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "no arguments" : s;
}

}  // namespace weir::runtime
