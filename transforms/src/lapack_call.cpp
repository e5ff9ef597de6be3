// The LAPACK expansions' shared parts (see lapack_call.h).
#include "lapack_call.h"

#include <algorithm>
#include <cctype>

#include "weir/sdfg/tasklet_fault.h"
#include "weir/sdfg/written_by_weir.h"

namespace weir::transforms::detail {

void CodeLines::line(const std::string& s) {
  text_ += std::string(static_cast<std::size_t>(2 * depth_), ' ') + s + "\n";
}

void CodeLines::open(const std::string& s) {
  line(s);
  ++depth_;
}

void CodeLines::close() {
  --depth_;
  line("}");
}

void CodeLines::open_for(const std::string& v, const std::string& from, const std::string& to) {
  open("for (int64_t " + v + " = " + from + "; " + v + " < " + to + "; ++" + v + ") {");
}

std::string LapackOperand::at(const std::vector<std::string>& vars) const {
  if (extents.empty()) return conn;
  std::string index;
  for (std::size_t k = 0; k < vars.size(); ++k) {
    if (!index.empty()) index += " + ";
    index += stride_cpp[k] == "1" ? vars[k] : vars[k] + " * (" + stride_cpp[k] + ")";
  }
  return conn + "[" + index + "]";
}

namespace {

/// The C++ text of an integer expression of symbols (sum, difference, product), or "" for any
/// other (a floor division, Min, a power): the tasklet's code spells sizes and strides so.
std::string int_cpp(const sym::Expr& e) {
  std::string s = e.str();
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("_ +-*()").find(c) == std::string::npos)
      return "";
  return s.find("**") == std::string::npos ? s : "";
}

}  // namespace

LapackOperand LapackOperands::take(const std::string& conn, bool input,
                                   std::initializer_list<std::size_t> ranks, bool required, bool array_only) {
  const std::string cls = site_.node.class_name();
  LapackOperand op;
  const DataflowEdge* edge = nullptr;
  for (const DataflowEdge* e : site_.data_edges(input))
    if ((input ? e->dst_conn : e->src_conn) == conn && !edge) edge = e;
  if (!edge) {
    if (!required) return op;
    throw site_.error(cls + " needs " + (input ? "an input" : "an output") + " edge on connector '" + conn +
                      "'");
  }
  LibraryOperand lo = site_.operand(*edge, input, conn);
  if (array_only && lo.desc.is_scalar())
    throw site_.error(cls + " connector '" + conn + "' must be connected to an array");
  const std::vector<std::size_t> dims = squeezed(lo);
  if (std::find(ranks.begin(), ranks.end(), dims.size()) == ranks.end())
    throw site_.error(cls + " operand '" + conn + "' has " + std::to_string(dims.size()) +
                      " non-unit dimensions, which this library node does not take");
  op.present = true;
  op.type = lo.desc.dtype.base;
  std::size_t skip = conn.find_first_not_of('_');
  op.conn = "__" + (skip == std::string::npos ? conn : conn.substr(skip));
  for (std::size_t d : dims) {
    op.extents.push_back(lo.desc.shape[d]);
    op.extent_cpp.push_back(int_cpp(lo.desc.shape[d]));
    op.stride_cpp.push_back(int_cpp(lo.desc.strides[d]));
    if (op.extent_cpp.back().empty() || op.stride_cpp.back().empty())
      throw site_.error(
          cls + " operand '" + conn + "' has the extent " + lo.desc.shape[d].str() + " and stride " +
          lo.desc.strides[d].str() +
          ", which the LAPACK expansion cannot spell in C++ (sums and products of symbols only)");
  }
  ops_.push_back(std::move(lo));
  op.index = ops_.size() - 1;
  return op;
}

void LapackOperands::check_all_taken() const {
  for (bool input : {true, false})
    for (const DataflowEdge* e : site_.data_edges(input)) {
      bool taken = false;
      for (const LibraryOperand& op : ops_) taken = taken || op.edge_id == e->id;
      if (!taken)
        throw site_.error(site_.node.class_name() + " has " + (input ? "an input" : "an output") +
                          " edge on connector '" + (input ? e->dst_conn : e->src_conn) +
                          "', which this library node does not take");
    }
}

std::string lapack_prefix(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return "s";
    case ScalarType::Complex64: return "c";
    case ScalarType::Complex128: return "z";
    default: return "d";
  }
}

bool lapack_complex(ScalarType t) { return t == ScalarType::Complex128 || t == ScalarType::Complex64; }

std::string lapacke_pointer(const std::string& m, ScalarType t) {
  if (!lapack_complex(t)) return m;
  return std::string("reinterpret_cast<") +
         (t == ScalarType::Complex64 ? "lapack_complex_float" : "lapack_complex_double") + "*>(" + m + ")";
}

bool lapacke_implementation(const LibraryNode& n) {
  std::string impl;
  for (char c : n.implementation) impl += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return impl == "openblas" || impl == "mkl" || impl == "lapacke" || impl == "lapack";
}

std::string lapack_label(const LibraryNode& n) {
  return n.class_name() + " '" + n.label + "' (node " + std::to_string(n.id()) + ")";
}

void check_lapack_type(const ExpansionSite& site, ScalarType t) {
  if (t != ScalarType::Float64 && t != ScalarType::Float32 && !lapack_complex(t))
    throw site.error(site.node.class_name() + " of " + std::string(to_string(t)) +
                     " is not supported by the CPU code generator (float32, float64, complex64 and "
                     "complex128 are)");
}

void emit_potf2(CodeLines& w, const Potf2Names& v, bool cplx) {
  auto l = [&](const std::string& r, const std::string& c) {
    return v.l + "[" + r + " * " + v.n + " + " + c + "]";
  };
  auto cj = [&](const std::string& x) { return cplx ? "std::conj(" + x + ")" : x; };
  const std::string re = cplx ? "std::real(__d)" : "__d";
  w.open_for(v.j, "0", v.n);
  w.line(v.t + " __d = " + l(v.j, v.j) + ";");
  w.open_for(v.k, "0", v.j);
  w.line("__d -= " + l(v.j, v.k) + " * " + cj(l(v.j, v.k)) + ";");
  w.close();
  w.open("if (!(" + re + " > 0)) {");
  w.line(v.info + " = " + v.j + " + 1;");
  w.line("break;");
  w.close();
  w.line("const " + v.t + " __s = " + v.t + "(std::sqrt(" + re + "));");
  w.line(l(v.j, v.j) + " = __s;");
  w.open_for(v.i, v.j + " + 1", v.n);
  w.line(v.t + " __v = " + l(v.i, v.j) + ";");
  w.open_for(v.k, "0", v.j);
  w.line("__v -= " + l(v.i, v.k) + " * " + cj(l(v.j, v.k)) + ";");
  w.close();
  w.line(l(v.i, v.j) + " = __v / __s;");
  w.close();
  w.close();
}

void emit_lu_solve(CodeLines& w, const LuSolveNames& v) {
  auto x = [&](const std::string& r, const std::string& c) {
    return v.x + "[" + r + " * " + v.r + " + " + c + "]";
  };
  auto a = [&](const std::string& r, const std::string& c) {
    return v.a + "[" + r + " * " + v.n + " + " + c + "]";
  };
  // laswp: the row interchanges in order.
  w.open_for(v.k, "0", v.n);
  w.open("if (" + v.p + "[" + v.k + "] != " + v.k + ") {");
  w.open_for(v.j, "0", v.r);
  w.line("std::swap(" + x(v.k, v.j) + ", " + x(v.p + "[" + v.k + "]", v.j) + ");");
  w.close();
  w.close();
  w.close();
  // L (unit diagonal), then U backwards.
  w.open_for(v.i, "0", v.n);
  w.open_for(v.k, "0", v.i);
  w.open_for(v.j, "0", v.r);
  w.line(x(v.i, v.j) + " -= " + a(v.i, v.k) + " * " + x(v.k, v.j) + ";");
  w.close();
  w.close();
  w.close();
  w.open("for (int64_t " + v.i + " = " + v.n + " - 1; " + v.i + " >= 0; --" + v.i + ") {");
  w.open_for(v.k, v.i + " + 1", v.n);
  w.open_for(v.j, "0", v.r);
  w.line(x(v.i, v.j) + " -= " + a(v.i, v.k) + " * " + x(v.k, v.j) + ";");
  w.close();
  w.close();
  w.open_for(v.j, "0", v.r);
  w.line(x(v.i, v.j) + " /= " + a(v.i, v.i) + ";");
  w.close();
  w.close();
}

std::unique_ptr<SDFG> lapack_call_sdfg(const ExpansionSite& site, const std::vector<LibraryOperand>& ops,
                                       const std::string& name, const std::string& code,
                                       const std::vector<std::string>& messages) {
  std::unique_ptr<SDFG> inner = expansion_sdfg(site, ops);
  for (const char* f : {"_fault", "_fault_arg"})
    inner->add_data(f, DataDescriptor::make_scalar(ScalarType::Int64, true));
  SDFGState& st = inner->add_state(name, true);
  std::vector<std::string> ins, outs;
  auto connector = [](const LibraryOperand& op) {
    std::size_t skip = op.name.find_first_not_of('_');
    return "__" + (skip == std::string::npos ? op.name : op.name.substr(skip));
  };
  for (const LibraryOperand& op : ops) (op.incoming ? ins : outs).push_back(connector(op));
  outs.push_back("__fault");
  outs.push_back("__fault_arg");
  Tasklet& t = st.add_tasklet(name, CodeBlock{code, Language::CPP}, ins, outs);
  mark_written_by_weir(t);
  declare_fault(t, TaskletFault{"__fault", "__fault_arg", messages});
  for (const LibraryOperand& op : ops) {
    const std::string c = connector(op);
    const bool value = squeezed(op).empty() && !op.incoming;
    Subset all = value                 ? element(op, {})
                 : op.desc.is_scalar() ? Subset({Range::index(sym::Expr(0))})
                                       : Subset::full(op.desc.shape);
    if (op.incoming) {
      t.in_connectors[c] = DataType{op.desc.dtype.base, 1, {}};
      st.add_edge(st.add_access(op.name).id(), "", t.id(), c, Memlet::simple(op.name, all));
    } else {
      t.out_connectors[c] = DataType{op.desc.dtype.base, value ? 0 : 1, {}};
      st.add_edge(t.id(), c, st.add_access(op.name).id(), "", Memlet::simple(op.name, all));
    }
  }
  for (const char* f : {"_fault", "_fault_arg"}) {
    const std::string c = std::string("_") + f;
    t.out_connectors[c] = DataType{ScalarType::Int64, 0, {}};
    st.add_edge(t.id(), c, st.add_access(f).id(), "",
                Memlet::simple(f, Subset({Range::index(sym::Expr(0))})));
  }
  return inner;
}

}  // namespace weir::transforms::detail
