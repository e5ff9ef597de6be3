// weir's Allreduce library node (weir/distributed/global_reductions.h has its attributes): the
// scalar each rank reduced over the points it owns, combined over the node's communicator
// (`_comm`) by one MPI_Allreduce in place. max and min give every rank the value one rank
// computes, a NaN on any rank being the result as in NumPy (floats: a pair of value and NaN flag
// reduced together); a sum adds the ranks' partial sums in MPI's order (equal within rounding).
#include "blas_operand.h"
#include "library_gen.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

// The MPI datatype of a reduced scalar, "" for a type MPI_Allreduce is not generated for.
std::string mpi_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float64: return "MPI_DOUBLE";
    case ScalarType::Float32: return "MPI_FLOAT";
    case ScalarType::Int32: return "MPI_INT32_T";
    case ScalarType::Int64: return "MPI_INT64_T";
    default: return "";
  }
}

}  // namespace

void LibraryGen::emit_allreduce(const LibraryNode& n, Writer& w) {
  ElementRef where = g_.ref(n);
  BlasOperand in = blas_operand(n, "_in", true), out = blas_operand(n, "_out", false);
  if (!in.present || !out.present || in.loc.data.empty() || in.loc.data != out.loc.data ||
      !in.loc.binding->scalar)
    throw CodegenError(where, "Allreduce needs one scalar on connector '_in' and the same scalar on '_out'");
  const std::string* op_text = n.extra.find("op");
  const std::string op = op_text ? *op_text : std::string();
  const std::string mpi_op = op == "\"max\""   ? "MPI_MAX"
                             : op == "\"min\"" ? "MPI_MIN"
                             : op == "\"sum\"" ? "MPI_SUM"
                                               : "";
  if (mpi_op.empty())
    throw CodegenError(where, "Allreduce attribute 'op' must be \"max\", \"min\" or \"sum\", not " +
                                  (op.empty() ? std::string("missing") : op));
  const std::string type = mpi_type(in.loc.type);
  if (type.empty())
    throw CodegenError(where, "Allreduce of '" + in.loc.data + "': a " + std::string(to_string(in.loc.type)) +
                                  " scalar (float64, float32, int32 or int64 only)");
  sg.prog.link_libraries.insert("mpi");
  if (g_.opts.emit_comments)
    w.line("// Allreduce " + n.label + " (node " + std::to_string(n.id()) + ") of '" + in.loc.data +
           "': " + mpi_op + " over the communicator");
  w.open("{");
  w.line("int __ar_init = 0;");
  w.line("MPI_Initialized(&__ar_init);");
  w.line("if (!__ar_init) weir_throw(\"%s\", \"" +
         c_escape("Allreduce '" + n.label + "' of '" + in.loc.data +
                  "' runs only on MPI ranks (weir run FILE.py::NAME --decompose I,J under mpirun)") +
         "\");");
  declare_communicator(n, in.loc.data, w);
  const std::string T(cpp_name(in.loc.type));
  w.line(T + " __ar_value = " + in.at({}) + ";");
  const bool floating = in.loc.type == ScalarType::Float64 || in.loc.type == ScalarType::Float32;
  if (floating && op != "\"sum\"") {
    // NumPy's max/min propagate NaN; MPI_MAX/MPI_MIN leave it to the implementation. One
    // collective on a pair: the value (a NaN as the identity, so it loses) and a NaN flag
    // reduced the same way (1 under MPI_MAX, -1 under MPI_MIN), the result NaN when any rank
    // had one. A rank that holds the NaN keeps its own bits.
    const bool max = op == "\"max\"";
    w.line("const bool __ar_nan = __ar_value != __ar_value;");
    w.line(T + " __ar_pair[2] = {__ar_nan ? " + (max ? "-" : "") + "std::numeric_limits<" + T +
           ">::infinity() : __ar_value, __ar_nan ? " + T + "(" + (max ? "1" : "-1") + ") : " + T + "(0)};");
    w.line("MPI_Allreduce(MPI_IN_PLACE, __ar_pair, 2, " + type + ", " + mpi_op + ", __hx_comm);");
    w.line("if (__ar_pair[1] != " + T + "(0)) __ar_value = __ar_nan ? __ar_value : std::numeric_limits<" + T +
           ">::quiet_NaN();");
    w.line("else __ar_value = __ar_pair[0];");
  } else {
    w.line("MPI_Allreduce(MPI_IN_PLACE, &__ar_value, 1, " + type + ", " + mpi_op + ", __hx_comm);");
  }
  w.line(out.at({}) + " = __ar_value;");
  w.close();
}

}  // namespace weir::codegen::detail
