#include "gt4py_writer.h"

#include <cstdio>
#include <functional>
#include <set>
#include <sstream>

namespace weir::fvdiff {

namespace {

std::string literal_text(DType t, double v) {
  char buf[64];
  if (t == DType::Int32)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (t == DType::Float64 && s.find_first_of(".e") == std::string::npos) s += ".0";
  return v < 0 ? "(" + s + ")" : s;
}

std::string cond_text(const Universe& U, const Cond& c) {
  std::string d = U.dim_names.at(c.dim);
  if (c.op == "in")
    return "((" + std::to_string(c.value) + " <= " + d + ") & (" + d + " < " + std::to_string(c.value2) +
           "))";
  return d + " " + c.op + " " + std::to_string(c.value);
}

std::string expr_text(const Universe& U, const Node& n) {
  switch (n.kind) {
    case Node::Kind::Field:
    case Node::Kind::Scalar:
    case Node::Kind::Var: return n.name;
    case Node::Kind::Literal: return literal_text(n.dtype, n.value);
    case Node::Kind::Shift: {
      std::string s = n.args[0]->name + "(";
      bool first = true;
      for (int d = 0; d < kNumDims; ++d)
        if (n.shift[d] != 0) {
          s += (first ? "" : ", ") + std::string(U.dim_names.at(d)) + (n.shift[d] > 0 ? " + " : " - ") +
               std::to_string(std::abs(n.shift[d]));
          first = false;
        }
      return s + ")";
    }
    case Node::Kind::Unary: return "(" + n.name + expr_text(U, *n.args[0]) + ")";
    case Node::Kind::Binary:
      return "(" + expr_text(U, *n.args[0]) + " " + n.name + " " + expr_text(U, *n.args[1]) + ")";
    case Node::Kind::Where:
      return "where(" + expr_text(U, *n.args[0]) + ", " + expr_text(U, *n.args[1]) + ", " +
             expr_text(U, *n.args[2]) + ")";
    case Node::Kind::ConcatWhere:
      return "concat_where(" + cond_text(U, n.cond) + ", " + expr_text(U, *n.args[0]) + ", " +
             expr_text(U, *n.args[1]) + ")";
    case Node::Kind::AsType: return "astype(" + expr_text(U, *n.args[0]) + ", " + n.name + ")";
    case Node::Kind::Neighbor:
      return n.args[0]->name + "(" + n.offset + "[" + std::to_string(static_cast<int>(n.value)) + "])";
    case Node::Kind::Reduce: {
      std::string s = n.name + "(" + n.args[0]->name + "(" + n.offset + ")";
      if (n.args.size() > 1) s += " * " + expr_text(U, *n.args[1]);
      return s + ", axis=" + U.table(n.offset).local + ")";
    }
    case Node::Kind::Call: {
      std::string s = n.name + "(";
      for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + expr_text(U, *n.args[i]);
      return s + ")";
    }
  }
  return "?";
}

void collect_inputs(const Node& n, std::set<std::string>& names) {
  if (n.kind == Node::Kind::Field || (n.kind == Node::Kind::Scalar && n.name.size() > 0 && n.name != "c0" &&
                                      n.name != "c1" && n.name[0] != 'x'))
    names.insert(n.name);
  if (n.kind == Node::Kind::Var) collect_inputs(*n.var, names);
  for (const NodeP& a : n.args) collect_inputs(*a, names);
}

std::set<std::string> inputs_of(const SubProgram& sp) {
  std::set<std::string> names;
  for (const auto& v : sp.vars) collect_inputs(*v.second, names);
  for (const NodeP& r : sp.results) collect_inputs(*r, names);
  for (const NodeP& r : sp.scan.args) collect_inputs(*r, names);
  return names;
}

std::vector<const Input*> ordered(const Universe& U, const std::set<std::string>& names) {
  std::vector<const Input*> v;
  for (const Input& i : U.inputs)
    if (names.count(i.name)) v.push_back(&i);
  return v;
}

std::string param_type(const Universe& U, const Input& i) {
  if (i.local.empty()) return i.dims ? field_type(U, i.dims, i.dtype) : dtype_name(i.dtype);
  // A field over a horizontal dimension and a local one (weights of neighbours).
  return "Field[Dims[" + std::string(U.dim_names.at(static_cast<std::size_t>(__builtin_ctz(i.dims)))) + ", " +
         i.local + "], " + dtype_name(i.dtype) + "]";
}

std::string out_target(const SubProgram& sp, std::size_t r) {
  std::string name = sp.out_name(r);
  if (sp.out_style != "slice") return name;
  const Index3& n = sp.universe->sizes;
  std::string s = name + "[";
  bool first = true;
  for (int d = 0; d < kNumDims; ++d) {
    if (!(sp.out_dims & (1u << d))) continue;
    s += first ? "" : ", ";
    first = false;
    std::int64_t lo = sp.box.lo[d], hi = sp.box.hi[d];
    // Both spellings of bounds: positive, negative from the end, and left out.
    if (lo != 0) s += (sp.seed + d) % 2 ? std::to_string(lo) : std::to_string(lo - n[d]);
    s += ":";
    if (hi != n[d]) s += (sp.seed + d) % 3 ? std::to_string(hi - n[d]) : std::to_string(hi);
  }
  return s + "]";
}

std::string domain_text(const SubProgram& sp) {
  const Universe& U = *sp.universe;
  const Index3& n = U.sizes;
  std::string s = "{";
  bool first = true;
  for (int d = 0; d < kNumDims; ++d) {
    if (!(sp.out_dims & (1u << d))) continue;
    // Dimensions computed whole may be left out of the domain.
    if (sp.box.lo[d] == 0 && sp.box.hi[d] == n[d] && (sp.seed >> d) % 2) continue;
    s += (first ? "" : ", ") + std::string(U.dim_names.at(d)) + ": (" + std::to_string(sp.box.lo[d]) + ", " +
         std::to_string(sp.box.hi[d]) + ")";
    first = false;
  }
  if (first) {  // every dimension whole and left out: name the first one
    int d = 0;
    while (!(sp.out_dims & (1u << d))) ++d;
    s += std::string(U.dim_names.at(d)) + ": (0, " + std::to_string(n[d]) + ")";
  }
  return s + "}";
}

void write_operators(std::ostringstream& o, const SubProgram& sp) {
  const Universe& U = *sp.universe;
  std::vector<const Input*> ins = ordered(U, inputs_of(sp));
  std::string params;
  for (const Input* i : ins) params += (params.empty() ? "" : ", ") + i->name + ": " + param_type(U, *i);
  std::size_t nres = sp.is_scan ? sp.scan.body.size() : sp.results.size();
  std::string ret;
  for (std::size_t r = 0; r < nres; ++r)
    ret += (r ? ", " : "") + field_type(U, sp.out_dims, sp.is_scan ? DType::Float64 : sp.results[r]->dtype);
  if (nres > 1) ret = "tuple[" + ret + "]";
  if (sp.is_scan) {
    const Scan& s = sp.scan;
    std::size_t nc = s.init.size();
    std::string init, carry_t;
    for (std::size_t c = 0; c < nc; ++c)
      init += (c ? ", " : "") + literal_text(DType::Float64, s.init[c]),
          carry_t += (c ? ", " : "") + std::string("float64");
    if (nc > 1) init = "(" + init + ")", carry_t = "tuple[" + carry_t + "]";
    o << "\n@gtx.scan_operator(axis=KDim, forward=" << (s.forward ? "True" : "False") << ", init=" << init
      << ")\n";
    o << "def s" << sp.number << "(" << (nc > 1 ? "carry" : "c0") << ": " << carry_t;
    for (std::size_t x = 0; x < s.args.size(); ++x) o << ", x" << x << ": float64";
    o << ") -> " << carry_t << ":\n";
    if (nc > 1) o << "    c0, c1 = carry\n";
    std::string body;
    for (std::size_t c = 0; c < nc; ++c) body += (c ? ", " : "") + expr_text(U, *s.body[c]);
    o << "    return " << body << "\n";
  }
  o << "\n@gtx.field_operator\ndef " << sp.name() << "(" << params << ") -> " << ret << ":\n";
  for (const auto& [name, value] : sp.vars) o << "    " << name << " = " << expr_text(U, *value) << "\n";
  if (sp.is_scan) {
    std::string args;
    for (std::size_t x = 0; x < sp.scan.args.size(); ++x)
      args += (x ? ", " : "") + expr_text(U, *sp.scan.args[x]);
    o << "    return s" << sp.number << "(" << args << ")\n";
  } else {
    std::string rs;
    for (std::size_t r = 0; r < nres; ++r) rs += (r ? ", " : "") + expr_text(U, *sp.results[r]);
    o << "    return " << rs << "\n";
  }
}

}  // namespace

std::string field_type(const Universe& U, unsigned dims, DType t) {
  std::string s = "Field[Dims[";
  bool first = true;
  for (int d = 0; d < kNumDims; ++d)
    if (dims & (1u << d)) s += (first ? "" : ", ") + std::string(U.dim_names.at(d)), first = false;
  return s + "], " + dtype_name(t) + "]";
}

std::vector<const Input*> inputs_used(const std::vector<const SubProgram*>& programs) {
  std::set<std::string> names;
  for (const SubProgram* sp : programs)
    for (const std::string& n : inputs_of(*sp)) names.insert(n);
  return ordered(*programs.front()->universe, names);
}

namespace {
void collect_tables(const Node& n, std::set<std::string>& names) {
  if (!n.offset.empty()) names.insert(n.offset);
  if (n.kind == Node::Kind::Var) collect_tables(*n.var, names);
  for (const NodeP& a : n.args) collect_tables(*a, names);
}
}  // namespace

std::vector<const Table*> tables_used(const std::vector<const SubProgram*>& programs) {
  std::set<std::string> names;
  for (const SubProgram* sp : programs) {
    for (const auto& v : sp->vars) collect_tables(*v.second, names);
    for (const NodeP& r : sp->results) collect_tables(*r, names);
  }
  std::vector<const Table*> v;
  for (const Table& t : programs.front()->universe->tables)
    if (names.count(t.name)) v.push_back(&t);
  return v;
}

std::string write_gt4py_module(const std::vector<const SubProgram*>& programs) {
  const Universe& U = *programs.front()->universe;
  std::ostringstream o;
  o << "import gt4py.next as gtx\n"
       "from gt4py.next import Dims, Field, astype, float64, int32, max_over, maximum, min_over, minimum, "
       "neighbor_sum, where\n"
       "from gt4py.next.experimental import concat_where\n\n";
  if (!U.unstructured) {
    o << "IDim = gtx.Dimension(\"I\")\nJDim = gtx.Dimension(\"J\")\n";
  } else {
    o << "Vertex = gtx.Dimension(\"Vertex\")\nEdge = gtx.Dimension(\"Edge\")\n";
    for (const Table& t : U.tables)
      o << t.local << " = gtx.Dimension(\"" << t.local << "\", kind=gtx.DimensionKind.LOCAL)\n";
  }
  o << "KDim = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n";
  for (const Table& t : U.tables)
    o << t.name << " = gtx.FieldOffset(\"" << t.name
      << "\", source=" << U.dim_names[static_cast<std::size_t>(t.to)] << ", target=("
      << U.dim_names[static_cast<std::size_t>(t.from)] << ", " << t.local << "))\n";
  for (const SubProgram* sp : programs) write_operators(o, *sp);
  std::string params;
  for (const Input* i : inputs_used(programs))
    params += (params.empty() ? "" : ", ") + i->name + ": " + param_type(U, *i);
  for (const SubProgram* sp : programs) {
    std::size_t nres = sp->is_scan ? sp->scan.body.size() : sp->results.size();
    if (!sp->out_alias.empty()) continue;  // writes an input
    for (std::size_t r = 0; r < nres; ++r)
      params += ", " + sp->out_name(r) + ": " +
                field_type(U, sp->out_dims, sp->is_scan ? DType::Float64 : sp->results[r]->dtype);
  }
  o << "\n\n@gtx.program" << (U.unstructured ? "(grid_type=gtx.GridType.UNSTRUCTURED)" : "") << "\ndef "
    << kProgramName << "(" << params << "):\n";
  for (const SubProgram* sp : programs) {
    std::size_t nres = sp->is_scan ? sp->scan.body.size() : sp->results.size();
    std::string args;
    for (const Input* i : ordered(U, inputs_of(*sp))) args += i->name + ", ";
    std::string out;
    for (std::size_t r = 0; r < nres; ++r) out += (r ? ", " : "") + out_target(*sp, r);
    if (nres > 1) out = "(" + out + ")";
    o << "    " << sp->name() << "(" << args << "out=" << out;
    if (sp->out_style == "domain") o << ", domain=" << domain_text(*sp);
    o << ")\n";
  }
  return o.str();
}

}  // namespace weir::fvdiff
