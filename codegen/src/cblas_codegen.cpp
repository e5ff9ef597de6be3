// BLAS library nodes as CBLAS calls: DaCe's OpenBLAS / MKL / cBLAS implementations of MatMul,
// Dot, Gemm and Gemv, chosen by the node's `implementation` (ADR 0015). One call where the
// operands are float32/float64 matrices with one unit-stride dimension (row- or column-major,
// any leading dimension) and vectors with a positive stride; anything else, and nodes inside a
// parallel scope (CBLAS runs its own threads), keeps the loop nest of blas_codegen.cpp.
#include <algorithm>
#include <optional>

#include "blas_operand.h"
#include "library_gen.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }
// CBLAS walks a dimension forwards from the pointer: a subset step must be a positive constant.
bool forward(const sym::Expr& step) { return step.is_integer() && step.value() > 0; }

std::string lower(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// A matrix operand as CBLAS (row-major) sees it: the stored matrix is the operand itself
/// (`transposed` false, unit stride along columns) or its transpose (column-major storage).
struct StoredMatrix {
  std::string ptr;
  std::string rows, cols;  // of the stored matrix
  std::string ld;          // its leading dimension, at least max(1, cols) as CBLAS requires
  bool transposed = false;
};

std::optional<StoredMatrix> stored_matrix(const BlasOperand& op) {
  if (op.rank() != 2 || op.loc.data.empty() || op.loc.binding->scalar) return std::nullopt;
  for (std::size_t k = 0; k < 2; ++k)
    if (!forward(op.loc.subset[op.dims[k]].step)) return std::nullopt;
  StoredMatrix m;
  m.ptr = op.loc.pointer();
  std::string r = sym_cpp(op.extent(0)), c = sym_cpp(op.extent(1)), ld;
  if (is_one(op.stride(1))) {
    m.rows = r, m.cols = c, ld = sym_cpp(op.stride(0));
  } else if (is_one(op.stride(0))) {
    m.rows = c, m.cols = r, ld = sym_cpp(op.stride(1)), m.transposed = true;
  } else {
    return std::nullopt;
  }
  // A single row (or column) may have any stride along the other dimension; CBLAS checks it.
  m.ld = "std::max<int64_t>({int64_t(" + ld + "), int64_t(" + m.cols + "), int64_t(1)})";
  return m;
}

/// The pointer and increment (stride times step) of a vector operand.
std::optional<std::pair<std::string, std::string>> stored_vector(const BlasOperand& op) {
  if (op.rank() != 1 || op.loc.data.empty() || op.loc.binding->scalar) return std::nullopt;
  if (!forward(op.loc.subset[op.dims[0]].step)) return std::nullopt;
  return std::make_pair(op.loc.pointer(), sym_cpp(op.stride(0)));
}

std::string trans(bool t) { return t ? "CblasTrans" : "CblasNoTrans"; }
std::string as_int(const std::string& e) { return "static_cast<int>(" + e + ")"; }

}  // namespace

bool LibraryGen::wants_cblas(const LibraryNode& n) {
  std::string impl = lower(n.implementation);
  return impl == "openblas" || impl == "mkl" || impl == "cblas";
}

bool LibraryGen::emit_cblas(const BlasCall& c, Writer& w) {
  if (g_.in_parallel()) return false;
  const BlasOperand &out = *c.out, &a = *c.a, &b = *c.b;
  ScalarType t = out.loc.type;
  if (t != ScalarType::Float64 && t != ScalarType::Float32) return false;
  for (const BlasOperand* op : {&a, &b, c.add})
    if (op->present && op->loc.type != t) return false;
  const std::string p = t == ScalarType::Float64 ? "cblas_d" : "cblas_s";
  const std::string T(cpp_name(t));
  std::string alpha = "static_cast<" + T + ">(" + c.alpha + ")";
  bool accumulate = c.add->present && c.beta != "0";
  std::string beta = accumulate ? "static_cast<" + T + ">(" + c.beta + ")" : T + "(0)";
  std::vector<std::string> call;

  if (c.cls == "Dot" || (c.cls == "MatMul" && a.rank() == 1 && b.rank() == 1)) {
    auto x = stored_vector(a), y = stored_vector(b);
    if (!x || !y || out.rank() != 0 || out.loc.data.empty()) return false;
    call = {out.at({}) + " = " + p + "dot(" + as_int(sym_cpp(c.kext)) + ", " + x->first + ", " +
            as_int(x->second) + ", " + y->first + ", " + as_int(y->second) + ");"};
  } else if ((c.cls == "MatMul" && a.rank() == 2 && b.rank() == 2) || c.cls == "Gemm") {
    auto ma = stored_matrix(a), mb = stored_matrix(b), mc = stored_matrix(out);
    if (!ma || !mb || !mc || mc->transposed) return false;
    call = {p + "gemm(CblasRowMajor, " + trans(ma->transposed != c.trans_a) + ", " +
            trans(mb->transposed != c.trans_b) + ", " + as_int(sym_cpp(c.oext[0])) + ", " +
            as_int(sym_cpp(c.oext[1])) + ", " + as_int(sym_cpp(c.kext)) + ", " + alpha + ", " + ma->ptr +
            ", " + as_int(ma->ld) + ", " + mb->ptr + ", " + as_int(mb->ld) + ", " + beta + ", " + mc->ptr +
            ", " + as_int(mc->ld) + ");"};
  } else if (c.cls == "MatMul" || c.cls == "Gemv") {
    // y = op(M) v: MatMul's matrix @ vector, vector @ matrix (= M^T v), or Gemv's transA.
    bool vec_first = c.cls == "MatMul" && a.rank() == 1;
    const BlasOperand& mat = vec_first ? b : a;
    const BlasOperand& vec = vec_first ? a : b;
    auto m = stored_matrix(mat);
    auto v = stored_vector(vec), y = stored_vector(out);
    if (!m || !v || !y) return false;
    bool tr = m->transposed != (vec_first || c.trans_a);
    call = {p + "gemv(CblasRowMajor, " + trans(tr) + ", " + as_int(m->rows) + ", " + as_int(m->cols) + ", " +
            alpha + ", " + m->ptr + ", " + as_int(m->ld) + ", " + v->first + ", " + as_int(v->second) + ", " +
            beta + ", " + y->first + ", " + as_int(y->second) + ");"};
  } else {
    return false;  // Ger, Transpose, batched MatMul: loops
  }

  sg.prog.link_libraries.insert("blas");
  if (c.cls != "Dot" && !(c.cls == "MatMul" && a.rank() == 1 && b.rank() == 1))
    note_algorithm();  // the matrices' leading dimensions (stored_matrix)
  if (g_.opts.emit_comments) w.line("// " + c.cls + " as a CBLAS call");
  w.open("{");
  // beta * add: CBLAS updates its output in place, so a separate addend is copied there first.
  if (accumulate && (c.add->loc.data != out.loc.data || c.add->loc.subset != out.loc.subset)) {
    std::vector<std::string> vars;
    for (std::size_t d = 0; d < c.oext.size(); ++d) {
      vars.push_back(g_.loop_var("__bc", d));
      w.open("for (int64_t " + vars[d] + " = 0; " + vars[d] + " < " + sym_cpp(c.oext[d]) + "; ++" + vars[d] +
             ") {");
    }
    w.line(out.at(vars) + " = " + c.add->at(vars) + ";");
    for (std::size_t d = 0; d < c.oext.size(); ++d) w.close();
  }
  for (const auto& l : call) w.line(l);
  w.close();
  return true;
}

}  // namespace weir::codegen::detail
