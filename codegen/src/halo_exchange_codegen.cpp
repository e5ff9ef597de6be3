// weir's HaloExchange library node (weir/distributed/halo_exchange.h has its attributes) as
// non-blocking MPI: per decomposed axis, in order (so that the corners arrive with the second
// axis), the rank packs the strips its lower and upper neighbours need into buffers, posts
// MPI_Irecv for its own halo strips and MPI_Isend for the packed ones on its communicator, waits
// for all four (MPI_Waitall) and unpacks. A missing neighbour (the edge of the grid) is
// MPI_PROC_NULL: its messages complete at once and nothing is unpacked from it. Ranks sit in a
// row-major grid (the last axis fastest). The strips span the whole local array along the
// other axes. The communicator comes in on the connector `_comm` (its Fortran handle,
// MPI_Comm_c2f, an argument of every call: ADR 0057 "communicators"); a node without it (an SDFG
// file written before it existed) uses MPI_COMM_WORLD.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "blas_operand.h"
#include "library_gen.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

std::vector<std::int64_t> int_list(const LibraryNode& n, const std::string& key, const ElementRef& where) {
  const std::string* text = n.extra.find(key);
  nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!j.is_array())
    throw CodegenError(where, "HaloExchange attribute '" + key + "' must be a list of integers");
  std::vector<std::int64_t> v;
  for (const auto& x : j) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0)
      throw CodegenError(where,
                         "HaloExchange attribute '" + key + "' must be a list of non-negative integers");
    v.push_back(x.get<std::int64_t>());
  }
  return v;
}

/// Where a strip goes: the array `desc` (C++ name `base`), the decomposed axis `ax`, and the
/// buffer `buf` it is packed into or unpacked from.
struct Strip {
  const DataDescriptor& desc;
  const std::string& base;
  std::size_t ax;
  std::string buf;
};

/// A loop nest over the strip [from, from + width) along the axis, whole along the others,
/// copying between the array and the buffer (packing when `pack`).
void emit_strip(Writer& w, const Strip& s, const std::string& from, std::int64_t width, bool pack) {
  const DataDescriptor& desc = s.desc;
  const std::string &base = s.base, &buf = s.buf;
  const std::size_t ax = s.ax, nd = desc.shape.size();
  w.open("{");
  w.line("int64_t __hx_k = 0;");
  std::vector<sym::Expr> idx;
  for (std::size_t d = 0; d < nd; ++d) {
    const std::string v = "__hx_i" + std::to_string(d);
    idx.push_back(sym::Expr::symbol(v));
    if (d == ax)
      w.open("for (int64_t " + v + " = " + from + "; " + v + " < " + from + " + " + std::to_string(width) +
             "; ++" + v + ") {");
    else
      w.open("for (int64_t " + v + " = 0; " + v + " < " + sym_cpp(desc.shape[d]) + "; ++" + v + ") {");
  }
  const std::string elem = base + "[" + linear_offset(desc, idx) + "]";
  w.line(pack ? buf + "[__hx_k++] = " + elem + ";" : elem + " = " + buf + "[__hx_k++];");
  for (std::size_t d = 0; d < nd; ++d) w.close();
  w.close();
}

// The four buffers of one axis of HaloExchange `label` (element type `T`): to the lower
// neighbour (its upper halo, __hx_nhi elements), to the upper one (__hx_nlo), from the lower,
// from the upper; `__hx_sl`, `__hx_su`, `__hx_rl`, `__hx_ru` point at them. They live as long as
// the program (static, grown on demand): an exchange in a time loop allocates nothing after its
// first call.
void emit_halo_buffers(const std::string& label, const std::string& T, Writer& w) {
  w.line("static " + T + "* __hx_buf[4] = {nullptr, nullptr, nullptr, nullptr};");
  w.line("static int64_t __hx_cap[4] = {0, 0, 0, 0};");
  w.open("for (int __hx_b = 0; __hx_b < 4; ++__hx_b) {");
  w.line("const int64_t __hx_n = (__hx_b == 0 || __hx_b == 3 ? __hx_nhi : __hx_nlo) + 1;");
  w.line("if (__hx_cap[__hx_b] >= __hx_n) continue;");
  w.line("delete[] __hx_buf[__hx_b];");
  w.line("__hx_buf[__hx_b] = new (std::nothrow) " + T + "[__hx_n];");
  w.line("__hx_cap[__hx_b] = __hx_buf[__hx_b] ? __hx_n : 0;");
  w.line("if (!__hx_buf[__hx_b]) { fprintf(stderr, \"weir: error: " +
         c_escape("HaloExchange '" + label + "': out of memory for its buffers") +
         "\\n\"); MPI_Abort(__hx_comm, 1); }");
  w.close();
  w.line(T + "* __hx_sl = __hx_buf[0];");
  w.line(T + "* __hx_su = __hx_buf[1];");
  w.line(T + "* __hx_rl = __hx_buf[2];");
  w.line(T + "* __hx_ru = __hx_buf[3];");
}

}  // namespace

// Declares `__hx_comm`: the communicator of HaloExchange `n` (of array `data`), read from its
// connector `_comm` (an integer scalar holding a Fortran handle), else MPI_COMM_WORLD (an SDFG
// file written before the connector existed).
void LibraryGen::declare_communicator(const LibraryNode& n, const std::string& data, Writer& w) {
  BlasOperand comm = blas_operand(n, "_comm", true);
  if (!comm.present) {
    w.line("MPI_Comm __hx_comm = MPI_COMM_WORLD;");
    return;
  }
  if (comm.loc.data.empty() || !comm.loc.binding->scalar ||
      (comm.loc.type != ScalarType::Int64 && comm.loc.type != ScalarType::Int32))
    throw CodegenError(
        g_.ref(n),
        "HaloExchange connector '_comm' must read an int32 or int64 scalar (the communicator's "
        "MPI_Comm_c2f handle)");
  w.line("MPI_Comm __hx_comm = MPI_Comm_f2c(static_cast<MPI_Fint>(" + comm.at({}) + "));");
  // Open MPI answers a handle that is no communicator's with a null pointer, not MPI_COMM_NULL.
  w.line("bool __hx_null = __hx_comm == MPI_COMM_NULL;");
  w.line("#ifdef OPEN_MPI");
  w.line("__hx_null = __hx_null || __hx_comm == nullptr;");
  w.line("#endif");
  w.line("if (__hx_null) weir_throw(\"%s\", \"" +
         c_escape("HaloExchange '" + n.label + "' of '" + data +
                  "': the communicator is MPI_COMM_NULL or no communicator's handle (pass MPI_Comm_c2f of a "
                  "communicator)") +
         "\");");
}

void LibraryGen::emit_halo_exchange(const LibraryNode& n, Writer& w) {
  ElementRef where = g_.ref(n);
  BlasOperand in = blas_operand(n, "_in", true), out = blas_operand(n, "_out", false);
  if (!in.present || !out.present || in.loc.data.empty() || in.loc.data != out.loc.data ||
      in.loc.binding->scalar)
    throw CodegenError(where, "HaloExchange needs one array on connector '_in' and the same array on '_out'");
  const DataDescriptor& desc = *in.loc.binding->desc;
  const std::vector<std::int64_t> axes = int_list(n, "axes", where), grid = int_list(n, "grid", where),
                                  flo = int_list(n, "frame_lo", where), fhi = int_list(n, "frame_hi", where),
                                  wlo = int_list(n, "width_lo", where), whi = int_list(n, "width_hi", where);
  for (const auto* v : {&grid, &flo, &fhi, &wlo, &whi})
    if (v->size() != axes.size())
      throw CodegenError(where,
                         "HaloExchange attributes 'axes', 'grid', 'frame_lo', 'frame_hi', 'width_lo' and "
                         "'width_hi' must have one entry per axis");
  for (std::size_t q = 0; q < axes.size(); ++q) {
    if (axes[q] >= static_cast<std::int64_t>(desc.shape.size()) || grid[q] < 1)
      throw CodegenError(where, "HaloExchange axis " + std::to_string(axes[q]) + " of '" + in.loc.data +
                                    "' (or its rank count) is out of range");
    if (wlo[q] > flo[q] || whi[q] > fhi[q])
      throw CodegenError(where, "HaloExchange of '" + in.loc.data + "': a halo is wider than its frame");
  }
  sg.prog.link_libraries.insert("mpi");
  const std::string T(cpp_name(in.loc.type)), base = in.loc.binding->cpp;
  const std::size_t nd = desc.shape.size();
  std::int64_t grid_size = 1;
  for (auto g : grid) grid_size *= g;

  if (g_.opts.emit_comments)
    w.line("// HaloExchange " + n.label + " (node " + std::to_string(n.id()) + ") of '" + in.loc.data +
           "': MPI_Irecv/MPI_Isend/MPI_Waitall per axis");
  w.open("{");
  // Run outside `weir run --decompose` (an SDFG file run on its own), MPI is not initialized.
  w.line("int __hx_init = 0;");
  w.line("MPI_Initialized(&__hx_init);");
  w.line("if (!__hx_init) weir_throw(\"%s\", \"" +
         c_escape("HaloExchange '" + n.label + "' of '" + in.loc.data +
                  "' runs only on MPI ranks (weir run FILE.py::NAME --decompose I,J under mpirun)") +
         "\");");
  declare_communicator(n, in.loc.data, w);
  w.line("int __hx_rank = 0, __hx_size = 0;");
  w.line("MPI_Comm_rank(__hx_comm, &__hx_rank);");
  w.line("MPI_Comm_size(__hx_comm, &__hx_size);");
  w.line(
      "if (__hx_size != " + std::to_string(grid_size) + ") { fprintf(stderr, \"weir: error: " +
      c_escape("HaloExchange '" + n.label + "' was generated for " + std::to_string(grid_size) + " ranks") +
      ", not %d\\n\", __hx_size); MPI_Abort(__hx_comm, 1); }");
  // Time in the exchange (packing, messages, waiting, unpacking), per call: with
  // WEIR_HALO_TIMES set, every call prints its seconds on stderr (bench/mpi_scaling.py sums them).
  w.line("const double __hx_t0 = MPI_Wtime();");
  std::int64_t stride = grid_size;
  for (std::size_t q = 0; q < axes.size(); ++q) {
    stride /= grid[q];
    const std::size_t ax = static_cast<std::size_t>(axes[q]);
    const std::string g = std::to_string(grid[q]), s = std::to_string(stride),
                      tag = std::to_string(100 + 2 * q);
    const std::string tag_up = std::to_string(101 + 2 * q);
    w.open("{  // axis " + std::to_string(ax));
    w.line("const int __hx_c = (__hx_rank / " + s + ") % " + g + ";");
    w.line("const int __hx_lower = __hx_c > 0 ? __hx_rank - " + s + " : MPI_PROC_NULL;");
    w.line("const int __hx_upper = __hx_c < " + g + " - 1 ? __hx_rank + " + s + " : MPI_PROC_NULL;");
    w.line("const int64_t __hx_part = " + sym_cpp(desc.shape[ax]) + " - " + std::to_string(flo[q] + fhi[q]) +
           ";");
    // The strips lie inside the array only when the part between the frames is at least as wide
    // as the widest halo (the attributes may come from an SDFG file, not from --decompose).
    const std::int64_t widest = std::max(wlo[q], whi[q]);
    w.line("if (__hx_part < " + std::to_string(widest) + ") { fprintf(stderr, \"weir: error: " +
           c_escape("HaloExchange '" + n.label + "' of '" + in.loc.data + "' along axis " +
                    std::to_string(ax) + ": the local part between the frames") +
           " is %lld points, narrower than its halo of " + std::to_string(widest) +
           " points\\n\", static_cast<long long>(__hx_part)); MPI_Abort(__hx_comm, 1); }");
    std::string other = "int64_t(1)";
    for (std::size_t d = 0; d < nd; ++d)
      if (d != ax) other += " * (" + sym_cpp(desc.shape[d]) + ")";
    w.line("const int64_t __hx_other = " + other + ";");
    // Buffers: to lower (its upper halo, width_hi), to upper (width_lo), from lower, from upper.
    const std::string lo_n = std::to_string(wlo[q]) + " * __hx_other",
                      hi_n = std::to_string(whi[q]) + " * __hx_other";
    // The four buffers live as long as the program (static, grown on demand): an exchange in a
    // time loop allocates nothing after its first call. Messages are counted in bytes as an
    // int: a strip above INT_MAX bytes is refused rather than truncated.
    w.line("const int64_t __hx_nlo = " + lo_n + ", __hx_nhi = " + hi_n + ";");
    w.line(
        "const int64_t __hx_widest = (__hx_nlo > __hx_nhi ? __hx_nlo : __hx_nhi) * "
        "static_cast<int64_t>(sizeof(" +
        T + "));");
    w.line(
        "if (__hx_widest > std::numeric_limits<int>::max()) { fprintf(stderr, \"weir: error: " +
        c_escape("HaloExchange '" + n.label + "' of '" + in.loc.data + "' along axis " + std::to_string(ax)) +
        ": a strip of %lld bytes is larger than one MPI message can carry (INT_MAX bytes); use more "
        "ranks\\n\", static_cast<long long>(__hx_widest)); MPI_Abort(__hx_comm, 1); }");
    emit_halo_buffers(n.label, T, w);
    auto strip = [&](const std::string& buf, const std::string& from, std::int64_t width, bool pack) {
      emit_strip(w, {desc, base, ax, buf}, from, width, pack);
    };
    const std::string F = std::to_string(flo[q]);
    strip("__hx_sl", F, whi[q], true);
    strip("__hx_su", F + " + __hx_part - " + std::to_string(wlo[q]), wlo[q], true);
    const std::string bytes = "static_cast<int>(sizeof(" + T + ") * ";  // checked above
    w.line("MPI_Request __hx_req[4];");
    w.line("MPI_Irecv(__hx_rl, " + bytes + lo_n + "), MPI_BYTE, __hx_lower, " + tag +
           ", __hx_comm, &__hx_req[0]);");
    w.line("MPI_Irecv(__hx_ru, " + bytes + hi_n + "), MPI_BYTE, __hx_upper, " + tag_up +
           ", __hx_comm, &__hx_req[1]);");
    w.line("MPI_Isend(__hx_su, " + bytes + lo_n + "), MPI_BYTE, __hx_upper, " + tag +
           ", __hx_comm, &__hx_req[2]);");
    w.line("MPI_Isend(__hx_sl, " + bytes + hi_n + "), MPI_BYTE, __hx_lower, " + tag_up +
           ", __hx_comm, &__hx_req[3]);");
    w.line("MPI_Waitall(4, __hx_req, MPI_STATUSES_IGNORE);");
    w.open("if (__hx_lower != MPI_PROC_NULL) {");
    strip("__hx_rl", F + " - " + std::to_string(wlo[q]), wlo[q], false);
    w.close();
    w.open("if (__hx_upper != MPI_PROC_NULL) {");
    strip("__hx_ru", F + " + __hx_part", whi[q], false);
    w.close();
    w.close();
  }
  w.line("static const bool __hx_report = std::getenv(\"WEIR_HALO_TIMES\") != nullptr;");
  w.line("if (__hx_report) fprintf(stderr, \"weir: halo-exchange " + c_escape(n.label) +
         " rank %d: %.9f s\\n\", __hx_rank, MPI_Wtime() - __hx_t0);");
  w.close();
}

}  // namespace weir::codegen::detail
