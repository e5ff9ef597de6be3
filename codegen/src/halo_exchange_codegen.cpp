// weir's HaloExchange library node (weir/distributed/halo_exchange.h has its attributes) as
// non-blocking MPI: per decomposed axis, in order (so that the corners arrive with the second
// axis), the rank packs the strips its lower and upper neighbours need into buffers, posts
// MPI_Irecv for its own halo strips and MPI_Isend for the packed ones on the node's communicator (`_comm`),
// waits for all four (MPI_Waitall) and unpacks. A missing neighbour (the edge of the grid) is MPI_PROC_NULL:
// its messages complete at once and nothing is unpacked from it. Ranks sit in a row-major grid (the last axis
// fastest). The strips span the whole local array along the other axes. A node with `phase` "start" only
// packs and posts the first axis split over several ranks (its requests and buffers in a file-scope struct
// named by `overlap`); the node with `phase` "wait" and the same `overlap` waits for them, unpacks and
// exchanges the remaining axes whole (HaloExchangeOverlap puts the interior computation between the two).
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

// The attributes of one HaloExchange node, one entry per decomposed axis.
struct HaloAttributes {
  std::vector<std::int64_t> axes, grid, flo, fhi, wlo, whi;
};

// Writes the pieces of an exchange: the checks every phase makes, and per axis the setup,
// posting the messages (pack, MPI_Irecv, MPI_Isend) and completing them (MPI_Waitall, unpack).
// `bufs`/`caps`/`reqs` name the arrays that hold buffers and requests: static locals for a whole
// exchange, the members of the overlap's file-scope struct for a start and its wait.
struct HaloWriter {
  Writer& w;
  const DataDescriptor& desc;
  const HaloAttributes& a;
  std::string T, base, label, array;
  std::int64_t grid_size = 1;

  std::string stride(std::size_t q) const {
    std::int64_t s = 1;
    for (std::size_t k = q + 1; k < a.grid.size(); ++k) s *= a.grid[k];
    return std::to_string(s);
  }

  void check_initialized() {
    // Run outside `weir run --decompose` (an SDFG file run on its own), MPI is not initialized.
    w.line("int __hx_init = 0;");
    w.line("MPI_Initialized(&__hx_init);");
    w.line("if (!__hx_init) weir_throw(\"%s\", \"" +
           c_escape("HaloExchange '" + label + "' of '" + array +
                    "' runs only on MPI ranks (weir run FILE.py::NAME --decompose I,J under mpirun)") +
           "\");");
  }

  // The rank and the world's size on `__hx_comm` (declared in between), checked against the grid.
  void rank_and_size() {
    w.line("int __hx_rank = 0, __hx_size = 0;");
    w.line("MPI_Comm_rank(__hx_comm, &__hx_rank);");
    w.line("MPI_Comm_size(__hx_comm, &__hx_size);");
    w.line(
        "if (__hx_size != " + std::to_string(grid_size) + ") { fprintf(stderr, \"weir: error: " +
        c_escape("HaloExchange '" + label + "' was generated for " + std::to_string(grid_size) + " ranks") +
        ", not %d\\n\", __hx_size); MPI_Abort(__hx_comm, 1); }");
  }

  // Opens the block of axis q: neighbours, the part's size (checked), the strips' sizes.
  void open_axis(std::size_t q) {
    const std::size_t ax = static_cast<std::size_t>(a.axes[q]), nd = desc.shape.size();
    const std::string g = std::to_string(a.grid[q]), s = stride(q);
    w.open("{  // axis " + std::to_string(ax));
    w.line("const int __hx_c = (__hx_rank / " + s + ") % " + g + ";");
    w.line("const int __hx_lower = __hx_c > 0 ? __hx_rank - " + s + " : MPI_PROC_NULL;");
    w.line("const int __hx_upper = __hx_c < " + g + " - 1 ? __hx_rank + " + s + " : MPI_PROC_NULL;");
    w.line("const int64_t __hx_part = " + sym_cpp(desc.shape[ax]) + " - " +
           std::to_string(a.flo[q] + a.fhi[q]) + ";");
    // With halos no wider than the frames (checked when generated) the strips lie inside the
    // array for any part of 0 points or more. A rank with neighbours on both sides sends the
    // first and last points of its part, which must then be at least as wide as the widest halo
    // (else it would send halo points it has not received yet); a rank at the grid's edge sends
    // its part and the global frame it holds, so a thinner part is right there (the attributes
    // may come from an SDFG file, not from --decompose: both are checked at run time).
    const std::int64_t widest = std::max(a.wlo[q], a.whi[q]);
    w.line(
        "if (__hx_part < 0 || (__hx_part < " + std::to_string(widest) +
        " && __hx_lower != MPI_PROC_NULL && __hx_upper != MPI_PROC_NULL)) { fprintf(stderr, \"weir: error: " +
        c_escape("HaloExchange '" + label + "' of '" + array + "' along axis " + std::to_string(ax) +
                 ": the local part between the frames") +
        " is %lld points, narrower than its halo of " + std::to_string(widest) +
        " points on a rank with neighbours on both sides (or below 0)\\n\", static_cast<long "
        "long>(__hx_part)); "
        "MPI_Abort(__hx_comm, 1); }");
    std::string other = "int64_t(1)";
    for (std::size_t d = 0; d < nd; ++d)
      if (d != ax) other += " * (" + sym_cpp(desc.shape[d]) + ")";
    w.line("const int64_t __hx_other = " + other + ";");
    // Buffers: to lower (its upper halo, width_hi), to upper (width_lo), from lower, from upper.
    // Messages are counted in bytes as an int: a strip above INT_MAX bytes is refused rather
    // than truncated.
    w.line("const int64_t __hx_nlo = " + std::to_string(a.wlo[q]) +
           " * __hx_other, __hx_nhi = " + std::to_string(a.whi[q]) + " * __hx_other;");
    w.line(
        "const int64_t __hx_widest = (__hx_nlo > __hx_nhi ? __hx_nlo : __hx_nhi) * "
        "static_cast<int64_t>(sizeof(" +
        T + "));");
    w.line("if (__hx_widest > std::numeric_limits<int>::max()) { fprintf(stderr, \"weir: error: " +
           c_escape("HaloExchange '" + label + "' of '" + array + "' along axis " + std::to_string(ax)) +
           ": a strip of %lld bytes is larger than one MPI message can carry (INT_MAX bytes); use more "
           "ranks\\n\", static_cast<long long>(__hx_widest)); MPI_Abort(__hx_comm, 1); }");
  }

  // The four buffers live as long as the program (grown on demand): an exchange in a time loop
  // allocates nothing after its first call.
  void buffers(const std::string& bufs, const std::string& caps) {
    w.open("for (int __hx_b = 0; __hx_b < 4; ++__hx_b) {");
    w.line("const int64_t __hx_n = (__hx_b == 0 || __hx_b == 3 ? __hx_nhi : __hx_nlo) + 1;");
    w.line("if (" + caps + "[__hx_b] >= __hx_n) continue;");
    w.line("delete[] " + bufs + "[__hx_b];");
    w.line(bufs + "[__hx_b] = new (std::nothrow) " + T + "[__hx_n];");
    w.line(caps + "[__hx_b] = " + bufs + "[__hx_b] ? __hx_n : 0;");
    w.line("if (!" + bufs + "[__hx_b]) { fprintf(stderr, \"weir: error: " +
           c_escape("HaloExchange '" + label + "': out of memory for its buffers") +
           "\\n\"); MPI_Abort(__hx_comm, 1); }");
    w.close();
  }

  // A loop nest over the strip [from, from + width) along axis q, whole along the others,
  // copying between the array and buffer `buf` (packing when `pack`).
  void strip(std::size_t q, const std::string& buf, const std::string& from, std::int64_t width, bool pack) {
    const std::size_t ax = static_cast<std::size_t>(a.axes[q]), nd = desc.shape.size();
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

  // Packs the two strips the neighbours need and posts MPI_Irecv x2, MPI_Isend x2 into `reqs`.
  void post(std::size_t q, const std::string& bufs, const std::string& reqs) {
    const std::string F = std::to_string(a.flo[q]), tag = std::to_string(100 + 2 * q),
                      tag_up = std::to_string(101 + 2 * q);
    strip(q, bufs + "[0]", F, a.whi[q], true);
    strip(q, bufs + "[1]", F + " + __hx_part - " + std::to_string(a.wlo[q]), a.wlo[q], true);
    const std::string bytes = "static_cast<int>(sizeof(" + T + ") * ";  // checked in open_axis
    w.line("MPI_Irecv(" + bufs + "[2], " + bytes + "__hx_nlo), MPI_BYTE, __hx_lower, " + tag +
           ", __hx_comm, &" + reqs + "[0]);");
    w.line("MPI_Irecv(" + bufs + "[3], " + bytes + "__hx_nhi), MPI_BYTE, __hx_upper, " + tag_up +
           ", __hx_comm, &" + reqs + "[1]);");
    w.line("MPI_Isend(" + bufs + "[1], " + bytes + "__hx_nlo), MPI_BYTE, __hx_upper, " + tag +
           ", __hx_comm, &" + reqs + "[2]);");
    w.line("MPI_Isend(" + bufs + "[0], " + bytes + "__hx_nhi), MPI_BYTE, __hx_lower, " + tag_up +
           ", __hx_comm, &" + reqs + "[3]);");
  }

  // MPI_Waitall on `reqs` (its seconds added to `waited` when given), then unpacks the halos.
  void complete(std::size_t q, const std::string& bufs, const std::string& reqs,
                const std::string& waited = {}) {
    const std::string F = std::to_string(a.flo[q]);
    if (!waited.empty()) w.line("const double __hx_tw = MPI_Wtime();");
    w.line("MPI_Waitall(4, " + reqs + ", MPI_STATUSES_IGNORE);");
    if (!waited.empty()) w.line(waited + " += MPI_Wtime() - __hx_tw;");
    w.open("if (__hx_lower != MPI_PROC_NULL) {");
    strip(q, bufs + "[2]", F + " - " + std::to_string(a.wlo[q]), a.wlo[q], false);
    w.close();
    w.open("if (__hx_upper != MPI_PROC_NULL) {");
    strip(q, bufs + "[3]", F + " + __hx_part", a.whi[q], false);
    w.close();
  }

  // A whole round of axis q: buffers static to this block, post, complete.
  void round(std::size_t q) {
    open_axis(q);
    w.line("static " + T + "* __hx_buf[4] = {nullptr, nullptr, nullptr, nullptr};");
    w.line("static int64_t __hx_cap[4] = {0, 0, 0, 0};");
    w.line("MPI_Request __hx_req[4];");
    buffers("__hx_buf", "__hx_cap");
    post(q, "__hx_buf", "__hx_req");
    complete(q, "__hx_buf", "__hx_req");
    w.close();
  }
};

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
    throw CodegenError(g_.ref(n),
                       n.class_name() +
                           " connector '_comm' must read an int32 or int64 scalar (the communicator's "
                           "MPI_Comm_c2f handle)");
  w.line("MPI_Comm __hx_comm = MPI_Comm_f2c(static_cast<MPI_Fint>(" + comm.at({}) + "));");
  // Open MPI answers a handle that is no communicator's with a null pointer, not MPI_COMM_NULL.
  w.line("bool __hx_null = __hx_comm == MPI_COMM_NULL;");
  w.line("#ifdef OPEN_MPI");
  w.line("__hx_null = __hx_null || __hx_comm == nullptr;");
  w.line("#endif");
  w.line("if (__hx_null) weir_throw(\"%s\", \"" +
         c_escape(n.class_name() + " '" + n.label + "' of '" + data +
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
  HaloAttributes a{int_list(n, "axes", where),     int_list(n, "grid", where),
                   int_list(n, "frame_lo", where), int_list(n, "frame_hi", where),
                   int_list(n, "width_lo", where), int_list(n, "width_hi", where)};
  for (const auto* v : {&a.grid, &a.flo, &a.fhi, &a.wlo, &a.whi})
    if (v->size() != a.axes.size())
      throw CodegenError(where,
                         "HaloExchange attributes 'axes', 'grid', 'frame_lo', 'frame_hi', 'width_lo' and "
                         "'width_hi' must have one entry per axis");
  for (std::size_t q = 0; q < a.axes.size(); ++q) {
    if (a.axes[q] >= static_cast<std::int64_t>(desc.shape.size()) || a.grid[q] < 1)
      throw CodegenError(where, "HaloExchange axis " + std::to_string(a.axes[q]) + " of '" + in.loc.data +
                                    "' (or its rank count) is out of range");
    if (a.wlo[q] > a.flo[q] || a.whi[q] > a.fhi[q])
      throw CodegenError(where, "HaloExchange of '" + in.loc.data + "': a halo is wider than its frame");
  }
  // A start (pack, post the first split axis) and its wait (MPI_Waitall, unpack, the other axes)
  // share `overlap` (HaloExchangeOverlap, docs/adr/0057 "overlap"); no phase: the whole exchange.
  const std::string* phase_text = n.extra.find("phase");
  const std::string phase = phase_text ? *phase_text : std::string();
  if (!phase.empty() && phase != "\"start\"" && phase != "\"wait\"")
    throw CodegenError(where, "HaloExchange attribute 'phase' must be \"start\" or \"wait\", not " + phase);
  std::string overlap;
  if (!phase.empty()) {
    const std::string* v = n.extra.find("overlap");
    if (!v || v->empty() || v->find_first_not_of("0123456789") != std::string::npos)
      throw CodegenError(where, "HaloExchange with a phase needs 'overlap', a non-negative integer");
    overlap = "__hx_ovl_" + *v;
  }
  sg.prog.link_libraries.insert("mpi");
  HaloWriter h{w, desc, a, std::string(cpp_name(in.loc.type)), in.loc.binding->cpp, n.label, in.loc.data};
  for (auto g : a.grid) h.grid_size *= g;
  // The first axis split over more than one rank is the one a start posts.
  std::size_t q0 = 0;
  while (q0 + 1 < a.grid.size() && a.grid[q0] == 1) ++q0;
  if (!overlap.empty()) {
    const std::string decl = "static struct { MPI_Request req[4]; " + h.T + "* buf[4]; int64_t cap[4]; " +
                             "double t_start, t_posted; int posted; } " + overlap + " = {};";
    if (std::find(sg.prog.global_code.begin(), sg.prog.global_code.end(), decl) == sg.prog.global_code.end())
      sg.prog.global_code.push_back(decl);
  }

  if (g_.opts.emit_comments)
    w.line("// HaloExchange " + n.label + " (node " + std::to_string(n.id()) + ") of '" + in.loc.data + "'" +
           (phase.empty() ? ": MPI_Irecv/MPI_Isend/MPI_Waitall per axis"
                          : ", " + phase + " of " + overlap + " (the interior runs in between)"));
  w.open("{");
  h.check_initialized();
  declare_communicator(n, in.loc.data, w);
  h.rank_and_size();
  // Time in the exchange (packing, messages, waiting, unpacking), per call: with
  // WEIR_HALO_TIMES set, every call prints its seconds on stderr (bench/mpi_scaling.py sums them);
  // a wait also prints the interior's seconds since its start and its time in MPI_Waitall.
  w.line("const double __hx_t0 = MPI_Wtime();");
  if (phase == "\"start\"") {
    h.open_axis(q0);
    h.buffers(overlap + ".buf", overlap + ".cap");
    h.post(q0, overlap + ".buf", overlap + ".req");
    w.close();
    w.line(overlap + ".posted = 1;");
    w.line(overlap + ".t_posted = MPI_Wtime();");
    w.line(overlap + ".t_start = " + overlap + ".t_posted - __hx_t0;");
    w.close();
    return;
  }
  if (phase == "\"wait\"") {
    // A wait without its start (an SDFG edited by hand) would wait on requests never posted.
    w.line("if (!" + overlap + ".posted) weir_throw(\"%s\", \"" +
           c_escape("HaloExchange '" + n.label + "' of '" + in.loc.data + "' (phase wait, overlap " +
                    overlap.substr(9) + ") runs before its start has posted the messages") +
           "\");");
    w.line(overlap + ".posted = 0;");
    w.line("const double __hx_interior = __hx_t0 - " + overlap + ".t_posted;");
    w.line("double __hx_waited = 0;");
    h.open_axis(q0);
    h.complete(q0, overlap + ".buf", overlap + ".req", "__hx_waited");
    w.close();
  }
  for (std::size_t q = 0; q < a.axes.size(); ++q)
    if (phase.empty() || q != q0) h.round(q);
  w.line("static const bool __hx_report = std::getenv(\"WEIR_HALO_TIMES\") != nullptr;");
  if (phase.empty())
    w.line("if (__hx_report) fprintf(stderr, \"weir: halo-exchange " + c_escape(n.label) +
           " rank %d: %.9f s\\n\", __hx_rank, MPI_Wtime() - __hx_t0);");
  else
    w.line("if (__hx_report) fprintf(stderr, \"weir: halo-exchange " + c_escape(n.label) +
           " rank %d: %.9f s; overlap: interior %.9f s while the messages flew, then %.9f s in "
           "MPI_Waitall\\n\", "
           "__hx_rank, " +
           overlap + ".t_start + MPI_Wtime() - __hx_t0, __hx_interior, __hx_waited);");
  w.close();
}

}  // namespace weir::codegen::detail
