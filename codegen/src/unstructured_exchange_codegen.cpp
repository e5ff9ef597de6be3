// weir's UnstructuredHaloExchange library node (weir/distributed/unstructured_exchange.h has its
// connectors) as non-blocking MPI: the rank checks the lists it was given (every peer a rank of
// the communicator other than itself, the counts summing to the lists' lengths, every row inside
// the array), packs the rows each peer needs into one send buffer (peer after peer, in list
// order), posts one MPI_Irecv and one MPI_Isend per peer with rows to exchange on the node's
// communicator (`_comm`), waits for all of them (MPI_Waitall) and unpacks the received rows into
// its halo rows. A row is everything after the array's first dimension. A list that fails a
// check stops every rank (MPI_Abort) with the rank's message: the peers would otherwise wait for
// messages that never come.
#include <tuple>

#include "blas_operand.h"
#include "library_gen.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

constexpr const char* kCls = "UnstructuredHaloExchange";

// Writes the pieces of one exchange into `w`: the array `a` (its rows), the lists `p` (peers:
// rank, rows sent, rows received), `s` (rows sent) and `r` (rows received).
struct RowWriter {
  Writer& w;
  const BlasOperand &a, &p, &s, &r;
  std::string T, label;

  std::string list(const BlasOperand& o, const std::vector<sym::Expr>& idx) const {
    return o.loc.binding->cpp + "[" + linear_offset(*o.loc.binding->desc, idx) + "]";
  }
  std::string peer(const std::string& k, int c) const {
    return list(p, {sym::Expr::symbol(k), sym::Expr(c)});
  }
  std::string extent(const BlasOperand& o, std::size_t d) const {
    return sym_cpp(o.loc.binding->desc->shape[d]);
  }

  // `cond` stops every rank with `what` (a printf format whose arguments follow in `args`).
  void fail_if(const std::string& cond, const std::string& what, const std::string& args) {
    w.line("if (" + cond + ") { fprintf(stderr, \"weir: error: " +
           c_escape(std::string(kCls) + " '" + label + "' of '" + a.loc.data + "'") + " on rank %d: " + what +
           "\\n\", __ux_rank" + args + "); MPI_Abort(__hx_comm, 1); }");
  }

  // The sizes, and the lists checked before anything is sent.
  void check_lists() {
    w.line("const int64_t __ux_rows = " + extent(a, 0) + ";");
    std::string row = "int64_t(1)";
    for (std::size_t d = 1; d < a.loc.binding->desc->shape.size(); ++d) row += " * (" + extent(a, d) + ")";
    w.line("const int64_t __ux_row = " + row + ";");
    w.line("const int64_t __ux_np = " + extent(p, 0) + ", __ux_ns = " + extent(s, 0) +
           ", __ux_nr = " + extent(r, 0) + ";");
    w.line("int64_t __ux_sent = 0, __ux_received = 0, __ux_most = 0;");
    w.open("for (int64_t __ux_p = 0; __ux_p < __ux_np; ++__ux_p) {");
    w.line("const int64_t __ux_q = " + peer("__ux_p", 0) + ", __ux_cs = " + peer("__ux_p", 1) +
           ", __ux_cr = " + peer("__ux_p", 2) + ";");
    fail_if("__ux_q < 0 || __ux_q >= __hx_size || __ux_q == __ux_rank",
            "peer %lld (entry %lld of the peers) is not another rank of the communicator of %d ranks",
            ", static_cast<long long>(__ux_q), static_cast<long long>(__ux_p), __hx_size");
    fail_if(
        "__ux_cs < 0 || __ux_cr < 0", "negative row counts %lld and %lld for peer %lld",
        ", static_cast<long long>(__ux_cs), static_cast<long long>(__ux_cr), static_cast<long long>(__ux_q)");
    w.line("__ux_sent += __ux_cs;");
    w.line("__ux_received += __ux_cr;");
    w.line("if (__ux_cs > __ux_most) __ux_most = __ux_cs;");
    w.line("if (__ux_cr > __ux_most) __ux_most = __ux_cr;");
    w.close();
    fail_if("__ux_sent != __ux_ns || __ux_received != __ux_nr",
            "the peers' counts add up to %lld rows sent and %lld received, but the lists hold %lld and %lld",
            ", static_cast<long long>(__ux_sent), static_cast<long long>(__ux_received), "
            "static_cast<long long>(__ux_ns), static_cast<long long>(__ux_nr)");
    for (const auto& [o, name] : {std::make_pair(&s, "send"), std::make_pair(&r, "receive")}) {
      const std::string e = list(*o, {sym::Expr::symbol("__ux_i")});
      w.open("for (int64_t __ux_i = 0; __ux_i < " + extent(*o, 0) + "; ++__ux_i) {");
      fail_if(e + " < 0 || " + e + " >= __ux_rows",
              std::string("entry %lld of the ") + name + " list, row %lld, is outside the array's %lld rows",
              ", static_cast<long long>(__ux_i), static_cast<long long>(" + e +
                  "), static_cast<long long>(__ux_rows)");
      w.close();
    }
    // MPI counts are int: a message above INT_MAX bytes is refused rather than truncated.
    w.line("const int64_t __ux_bytes = __ux_most * __ux_row * static_cast<int64_t>(sizeof(" + T + "));");
    fail_if(
        "__ux_bytes > std::numeric_limits<int>::max()",
        "a message of %lld bytes is larger than one MPI message can carry (INT_MAX bytes); use more ranks",
        ", static_cast<long long>(__ux_bytes)");
  }

  // Buffers and requests live as long as the program, grown on demand: an exchange in a time
  // loop allocates nothing after its first call.
  void buffers() {
    w.line("static " + T + "* __ux_buf[2] = {nullptr, nullptr};");
    w.line("static int64_t __ux_cap[2] = {0, 0};");
    w.line("static MPI_Request* __ux_req = nullptr;");
    w.line("static int64_t __ux_rcap = 0;");
    w.open("for (int __ux_b = 0; __ux_b < 2; ++__ux_b) {");
    w.line("const int64_t __ux_n = (__ux_b == 0 ? __ux_ns : __ux_nr) * __ux_row + 1;");
    w.line("if (__ux_cap[__ux_b] >= __ux_n) continue;");
    w.line("delete[] __ux_buf[__ux_b];");
    w.line("__ux_buf[__ux_b] = new (std::nothrow) " + T + "[__ux_n];");
    w.line("__ux_cap[__ux_b] = __ux_buf[__ux_b] ? __ux_n : 0;");
    fail_if("!__ux_buf[__ux_b]", "out of memory for its buffers", "");
    w.close();
    w.open("if (__ux_rcap < 2 * __ux_np + 1) {");
    w.line("delete[] __ux_req;");
    w.line("__ux_req = new (std::nothrow) MPI_Request[2 * __ux_np + 1];");
    w.line("__ux_rcap = __ux_req ? 2 * __ux_np + 1 : 0;");
    fail_if("!__ux_req", "out of memory for its requests", "");
    w.close();
  }

  // Copies every row of list `o` between the array and buffer `buf` (packing when `pack`).
  void rows(const BlasOperand& o, const std::string& buf, bool pack) {
    const std::size_t nd = a.loc.binding->desc->shape.size();
    w.open("{");
    w.line("int64_t __ux_k = 0;");
    w.open("for (int64_t __ux_i = 0; __ux_i < " + extent(o, 0) + "; ++__ux_i) {");
    w.line("const int64_t __ux_r = " + list(o, {sym::Expr::symbol("__ux_i")}) + ";");
    std::vector<sym::Expr> idx{sym::Expr::symbol("__ux_r")};
    for (std::size_t d = 1; d < nd; ++d) {
      const std::string v = "__ux_j" + std::to_string(d);
      idx.push_back(sym::Expr::symbol(v));
      w.open("for (int64_t " + v + " = 0; " + v + " < " + extent(a, d) + "; ++" + v + ") {");
    }
    const std::string elem = a.loc.binding->cpp + "[" + linear_offset(*a.loc.binding->desc, idx) + "]";
    w.line(pack ? buf + "[__ux_k++] = " + elem + ";" : elem + " = " + buf + "[__ux_k++];");
    for (std::size_t d = 1; d < nd; ++d) w.close();
    w.close();
    w.close();
  }

  // One MPI_Irecv and one MPI_Isend per peer with rows to exchange (tag 200), then MPI_Waitall.
  void messages() {
    const std::string bytes = "static_cast<int>(sizeof(" + T + ") * __ux_row * ";  // checked
    w.line("int __ux_nreq = 0;");
    w.line("int64_t __ux_os = 0, __ux_or = 0;");
    w.open("for (int64_t __ux_p = 0; __ux_p < __ux_np; ++__ux_p) {");
    w.line("const int __ux_q = static_cast<int>(" + peer("__ux_p", 0) + ");");
    w.line("const int64_t __ux_cs = " + peer("__ux_p", 1) + ", __ux_cr = " + peer("__ux_p", 2) + ";");
    w.line("if (__ux_cr > 0) MPI_Irecv(__ux_buf[1] + __ux_or * __ux_row, " + bytes +
           "__ux_cr), MPI_BYTE, __ux_q, 200, __hx_comm, &__ux_req[__ux_nreq++]);");
    w.line("if (__ux_cs > 0) MPI_Isend(__ux_buf[0] + __ux_os * __ux_row, " + bytes +
           "__ux_cs), MPI_BYTE, __ux_q, 200, __hx_comm, &__ux_req[__ux_nreq++]);");
    w.line("__ux_os += __ux_cs;");
    w.line("__ux_or += __ux_cr;");
    w.close();
    w.line("MPI_Waitall(__ux_nreq, __ux_req, MPI_STATUSES_IGNORE);");
  }
};

}  // namespace

void LibraryGen::emit_unstructured_exchange(const LibraryNode& n, Writer& w) {
  ElementRef where = g_.ref(n);
  BlasOperand in = blas_operand(n, "_in", true), out = blas_operand(n, "_out", false);
  if (!in.present || !out.present || in.loc.data.empty() || in.loc.data != out.loc.data ||
      in.loc.binding->scalar || in.loc.binding->desc->shape.empty())
    throw CodegenError(where,
                       std::string(kCls) +
                           " needs one array (of at least one dimension) on connector '_in' and the same "
                           "array on '_out'");
  const BlasOperand peers = blas_operand(n, "_peers", true), send = blas_operand(n, "_send", true),
                    recv = blas_operand(n, "_recv", true);
  for (const auto& [o, conn, nd] : {std::make_tuple(&peers, "_peers", 2), std::make_tuple(&send, "_send", 1),
                                    std::make_tuple(&recv, "_recv", 1)}) {
    const bool ok = o->present && !o->loc.data.empty() && !o->loc.binding->scalar &&
                    o->loc.binding->desc->shape.size() == static_cast<std::size_t>(nd) &&
                    o->loc.type == ScalarType::Int32 &&
                    (nd == 1 || o->loc.binding->desc->shape[1] == sym::Expr(3));
    if (!ok)
      throw CodegenError(where, std::string(kCls) + " of '" + in.loc.data + "': connector '" + conn +
                                    "' must read an int32 array of shape " +
                                    (nd == 2 ? "(peers, 3)" : "(rows,)") +
                                    " (weir/distributed/unstructured_exchange.h)");
  }
  sg.prog.link_libraries.insert("mpi");
  RowWriter u{w, in, peers, send, recv, std::string(cpp_name(in.loc.type)), n.label};
  if (g_.opts.emit_comments)
    w.line("// " + std::string(kCls) + " " + n.label + " (node " + std::to_string(n.id()) + ") of '" +
           in.loc.data + "': pack rows, MPI_Irecv/MPI_Isend per peer, MPI_Waitall, unpack");
  w.open("{");
  w.line("int __hx_init = 0;");
  w.line("MPI_Initialized(&__hx_init);");
  w.line("if (!__hx_init) weir_throw(\"%s\", \"" +
         c_escape(std::string(kCls) + " '" + n.label + "' of '" + in.loc.data +
                  "' runs only on MPI ranks (weir run FILE.py::NAME --parts DIR under mpirun)") +
         "\");");
  declare_communicator(n, in.loc.data, w);
  w.line("int __ux_rank = 0, __hx_size = 0;");
  w.line("MPI_Comm_rank(__hx_comm, &__ux_rank);");
  w.line("MPI_Comm_size(__hx_comm, &__hx_size);");
  w.line("const double __hx_t0 = MPI_Wtime();");
  u.check_lists();
  u.buffers();
  u.rows(send, "__ux_buf[0]", true);
  u.messages();
  u.rows(recv, "__ux_buf[1]", false);
  w.line("static const bool __hx_report = std::getenv(\"WEIR_HALO_TIMES\") != nullptr;");
  w.line("if (__hx_report) fprintf(stderr, \"weir: halo-exchange " + c_escape(n.label) +
         " rank %d: %.9f s\\n\", __ux_rank, MPI_Wtime() - __hx_t0);");
  w.close();
}

}  // namespace weir::codegen::detail
