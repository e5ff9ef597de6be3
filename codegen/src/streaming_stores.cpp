// Streaming stores out of a sequential innermost map (docs/adr/0041, "streaming stores"). A
// stencil that gathers its inputs and writes each output point once moves, with ordinary
// stores, every output cache line three times: read from memory before the first write to it
// (write-allocate), then written back. Where the innermost map writes a row of an output
// contiguously (the K loop of a field-view stencil writing out[cell, K]), its loop runs in blocks
// of weir_stream_block points that compute the row into a buffer on the stack (the vectorized
// loop stores there, in L1), and each block's row is copied to the output with non-temporal
// stores, which write whole lines without reading them (codegen/prelude/weir_stream.h). Each
// thread fences its streamed stores once, after its last iteration of the enclosing parallel
// loop. Values are the same; a run-time test keeps ordinary stores for small outputs and short
// rows, and the map that fences chooses per call between streamed and plain stores from its
// measured times (emit_map_choosing_stores: which kind pays depends on the machine; docs/adr/0041,
// "session 34").
#include "streaming_stores.h"

#include "parallel_map_gen.h"
#include "stream_gen.h"

#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "weir/sdfg/streaming_choice.h"
#include "weir/sdfg/thread_choice.h"

namespace weir::codegen::detail {

namespace {

bool is_code(const Node& n) {
  return n.kind() == NodeKind::Tasklet || n.kind() == NodeKind::NestedSDFG || n.kind() == NodeKind::Library;
}

/// Host memory a thread's stores reach as the caller's (not a device, not a register).
bool host_memory(StorageType s) {
  return s == StorageType::Default || s == StorageType::CPU_Heap || s == StorageType::CPU_Pinned;
}

/// Whether `subset` of an array of `rank` dimensions is one element with `param` (+ a constant)
/// in the last dimension and no use of `param` in the others.
bool row_element(const Subset& subset, std::size_t rank, const std::string& param) {
  if (subset.dims() != rank || rank == 0 || !subset.is_single_element()) return false;
  for (std::size_t d = 0; d + 1 < rank; ++d)
    if (subset[d].start.free_symbols().count(param)) return false;
  const sym::Expr& last = subset[rank - 1].start;
  return last.free_symbols().count(param) && !(last - sym::Expr::symbol(param)).free_symbols().count(param);
}

/// The line that opens a streamed nest's plain loop (emit_streamed_nest, store_kind_copy).
const char* const kPlainStores =
    "if (!weir_stores_streamed) {  // plain stores: the rows straight to the outputs";

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

bool is_zero(const sym::Expr& e) { return e.is_integer() && e.value() == 0; }

/// The elements of the last dimension, of extent `extent`, that `range` of the map's parameter
/// `param` leaves unwritten through `last` (the parameter plus a constant): before the row and
/// after it. Both 0: the row is the whole dimension, so the rows of consecutive iterations of
/// the enclosing map are adjacent and only the ends of a thread's part of the array hold partial
/// cache lines. A row with an unwritten halo in that dimension (heat3d's u_new[1:-1, 1:-1, 1:-1])
/// starts and ends inside a cache line with a gap to the next row, whose plain stores cost more
/// than the streamed lines save unless the row is long (docs/adr/0041, "session 30").
std::pair<sym::Expr, sym::Expr> row_gaps(const Range& range, const std::string& param, const sym::Expr& last,
                                         const sym::Expr& extent) {
  const sym::Expr offset = last - sym::Expr::symbol(param);
  return {range.start + offset, extent - 1 - (range.end + offset)};
}

/// Whether one of `exprs` uses a symbol that frames_[from..] define (their parameters and
/// dynamic range inputs): then its value is not known before the loops of frames_[from].
bool uses_frames(const std::vector<const sym::Expr*>& exprs, const std::vector<Frame>& frames,
                 std::size_t from) {
  for (const sym::Expr* e : exprs) {
    const std::set<std::string> fs = e->free_symbols();
    for (std::size_t f = from; f < frames.size(); ++f)
      for (const auto& [name, type] : frames[f].symbols)
        if (fs.count(name)) return true;
  }
  return false;
}

}  // namespace

Writer store_kind_copy(const Writer& code, bool streamed) { return code.folded(kPlainStores, !streamed); }

bool streaming_off(const MapInfo& m, const ElementRef& where) {
  try {
    const std::optional<bool> allowed = recorded_streaming_stores(m);
    return allowed && !*allowed;
  } catch (const std::invalid_argument& ex) {
    throw CodegenError(where, std::string("map attribute ") + ex.what());
  }
}

const StreamedRow* StreamPlan::row(NodeId tasklet, const std::string& data, const Subset& subset) const {
  for (const StreamedRow& r : rows)
    if (r.tasklet == tasklet && r.data == data && r.subset == subset) return &r;
  return nullptr;
}

std::vector<StreamedRow> streamable_rows(const SDFG& sdfg, const SDFGState& st, const MapEntry& e,
                                         const std::vector<NodeId>& nodes) {
  const MapInfo& m = *e.map;
  if (m.params.size() != 1 || m.range.dims() != 1 || !is_one(m.range[0].step)) return {};
  const std::string& param = m.params[0];
  // How the scope touches each container: writes by code nodes, every other use a read.
  std::map<std::string, int> writes;
  std::set<std::string> reads;
  for (NodeId n : nodes) {
    if (n == e.exit) continue;
    for (EdgeId x : st.out_edges(n)) {
      const DataflowEdge& edge = st.edge(x);
      if (edge.memlet.is_empty()) continue;
      if (is_code(st.node(n)))
        ++writes[edge.memlet.data];
      else
        reads.insert(edge.memlet.data);
    }
  }
  std::vector<StreamedRow> rows;
  for (EdgeId x : st.in_edges(e.exit)) {
    const DataflowEdge& edge = st.edge(x);
    const Memlet& mm = edge.memlet;
    if (st.node(edge.src).kind() != NodeKind::Tasklet || mm.is_empty() || !mm.wcr.empty() || mm.dynamic)
      continue;
    if (st.out_edges_by_connector(edge.src, edge.src_conn).size() != 1) continue;
    auto it = sdfg.arrays.find(mm.data);
    if (it == sdfg.arrays.end()) continue;
    const DataDescriptor& d = it->second;
    if (d.kind != DataKind::Array || d.transient || d.may_alias || !host_memory(d.storage) ||
        d.strides.size() != d.shape.size() || d.strides.empty() || !is_one(d.strides.back()))
      continue;
    if (writes[mm.data] != 1 || reads.count(mm.data) || !row_element(mm.subset, d.shape.size(), param))
      continue;
    auto [head, tail] = row_gaps(m.range[0], param, mm.subset[d.shape.size() - 1].start, d.shape.back());
    rows.push_back({edge.src, mm.data, mm.subset, head, tail, {}, {}, {}});
  }
  return rows;
}

StreamPlan StreamGen::plan_streaming(const MapEntry& e, const std::vector<NodeId>& nodes) {
  StreamPlan plan;
  // The CPU's threads only (a CUDA kernel's stores are the device's), and not in a nested SDFG
  // called by a parallel loop of its caller: its threads' fence would be in another function.
  if (!g_.opts.streaming_stores || g_.sg.prog.target.parallel_scopes_on_device() || g_.sg.in_parallel)
    return plan;
  // A row of a nest (the K loop inside the loop over cells or columns), whose rows the fence after
  // the enclosing map covers at once; the frames end with this map's own frame.
  if (g_.frames_.size() < 2) return plan;
  // A map of the nest (this one included) recorded "streaming stores off" (cpu-schedules'
  // `streaming_stores=false`, a choice `weir tune` searches).
  for (const Frame& f : g_.frames_)
    if (f.streaming_off) return plan;
  // MapVectorization's lane and remainder maps keep their constant trip counts.
  if (e.map->extra.find("weir_vector_remainder")) return plan;
  if (const std::string* lanes = e.map->extra.find("weir_vectorize"); lanes && *lanes != "true") return plan;
  plan.rows = streamable_rows(g_.sg.sdfg, g_.st, e, nodes);
  if (plan.rows.empty()) return plan;
  plan.param = e.map->params[0];
  plan.block_start = g_.fresh("__weir_k");
  plan.block_end = g_.fresh("__weir_k");
  for (StreamedRow& r : plan.rows) {
    r.buffer = g_.fresh("__weir_row");
    r.target = g_.fresh("__weir_to");
    r.wanted = g_.fresh("__weir_stream");
  }
  // The fence: after the loops of the innermost enclosing parallel map (each thread, before its
  // barrier), else after the outermost enclosing map (one thread; once, not per row).
  const int pf = g_.parallel_frame();
  plan.fence_at = pf >= 0 ? g_.frames_[static_cast<std::size_t>(pf)].entry : g_.frames_.front().entry;
  return plan;
}

std::string StreamGen::streamed_element(const Tasklet& t, const Location& loc) {
  if (!g_.stream_ || loc.data.empty()) return {};
  const StreamedRow* r = g_.stream_->row(t.id(), loc.data, loc.subset);
  if (!r) return {};
  g_.stream_->used.insert(loc.data);
  return r->target + "[" + cpp_ident(g_.stream_->param) + " - " + g_.stream_->block_start + "]";
}

void StreamGen::emit_streamed_nest(const StreamPlan& plan, const MapInfo& m,
                                   const std::function<void(const MapInfo&, Writer&)>& nest, Writer& w) {
  const Range& r = m.range[0];
  const std::string start = sym_cpp(r.start), end = sym_cpp(r.end), extent = sym_cpp(r.end - r.start + 1);
  const std::string &k0 = plan.block_start, &k1 = plan.block_end;
  std::string names;
  for (const StreamedRow& row : plan.rows)
    if (plan.used.count(row.data)) names += (names.empty() ? "'" : ", '") + row.data + "'";
  if (g_.opts.emit_comments)
    w.line("// streaming stores of " + names +
           " (rows written once: computed into buffers, stored without reading their lines first; "
           "docs/adr/0041)");
  for (const StreamedRow& row : plan.rows) {
    if (!plan.used.count(row.data)) continue;
    const DataDescriptor& d = g_.sg.sdfg.arrays.at(row.data);
    const std::string size = "static_cast<int64_t>(sizeof(" + std::string(cpp_name(d.dtype.base)) + "))";
    // Whether the row is its whole last dimension: `true`, `false` (a constant halo) or the test
    // of symbolic gaps at run time; then where the loop's first row starts, whose alignment
    // decides with the row's length whether its ends are partial cache lines.
    std::string whole;
    for (const sym::Expr* gap : {&row.head, &row.tail}) {
      if (is_zero(*gap)) continue;
      if (gap->is_integer()) {
        whole = "false";
        break;
      }
      whole += (whole.empty() ? "" : " && ") + ("(" + sym_cpp(*gap) + ") == 0");
    }
    const Location first = g_.location(row.data, row.subset.subs({{plan.param, r.start}}));
    note_gate(plan, row, r, whole.empty() ? "true" : whole);
    w.line("[[maybe_unused]] const bool " + row.wanted +
           " = weir_stores_streamed && weir_stream_wanted(static_cast<int64_t>(" + sym_cpp(d.total_size) +
           ") * " + size + ", static_cast<int64_t>(" + extent + ") * " + size + ", " +
           (whole.empty() ? "true" : whole) + ", " + first.pointer() + ");");
  }
  // In the copy of plain stores, one loop over the whole range writes straight to the outputs, as
  // without streaming: the blocks, buffers and per-block calls of the streamed path cost 10-15% on
  // laplacian's rows of 80 doubles (docs/adr/0041, "session 35"). The streamed copy has only the
  // blocked loop (a row its test keeps plain is written through the row pointer): each copy
  // compiles one loop of the body (`weir_stores_streamed` is a constant there; "session 38").
  w.open(kPlainStores);
  w.line("const int64_t " + k0 + " = " + start + ";");
  for (const StreamedRow& row : plan.rows) {
    if (!plan.used.count(row.data)) continue;
    const Location first = g_.location(row.data, row.subset.subs({{plan.param, r.start}}));
    w.line(std::string(cpp_name(first.type)) + "* const " + row.target + " = " + first.pointer() + ";");
  }
  nest(m, w);
  w.dedent();
  w.line("} else {");
  w.indent();
  w.open("for (int64_t " + k0 + " = " + start + "; " + k0 + " <= " + end + "; " + k0 +
         " += weir_stream_block) {");
  w.line("const int64_t " + k1 + " = weir_min<int64_t, int64_t>(" + k0 + " + (weir_stream_block - 1), " +
         end + ");");
  // The loop writes each row through a pointer: to the buffer where the row streams, else
  // straight to the output (then weir_stream_store has nothing to copy).
  for (const StreamedRow& row : plan.rows) {
    if (!plan.used.count(row.data)) continue;
    const std::string T(cpp_name(g_.sg.sdfg.arrays.at(row.data).dtype.base));
    const Location at = g_.location(row.data, row.subset.subs({{plan.param, sym::Expr::symbol(k0)}}));
    w.line("alignas(64) " + T + " " + row.buffer + "[weir_stream_block];");
    w.line(T + "* const " + row.target + " = " + row.wanted + " ? " + row.buffer + " : " + at.pointer() +
           ";");
  }
  MapInfo blocked = m;
  blocked.range = Subset({Range(sym::Expr::symbol(k0), sym::Expr::symbol(k1))});
  nest(blocked, w);
  for (const StreamedRow& row : plan.rows) {
    if (!plan.used.count(row.data)) continue;
    const Location at = g_.location(row.data, row.subset.subs({{plan.param, sym::Expr::symbol(k0)}}));
    const std::string T(cpp_name(at.type));
    w.line("weir_stream_store(" + at.pointer() + ", " + row.target + ", (" + k1 + " - " + k0 +
           " + 1) * static_cast<int64_t>(sizeof(" + T + ")), " + row.wanted + ");");
  }
  w.close();
  w.close();
  note_streams();
}

void StreamGen::note_gate(const StreamPlan& plan, const StreamedRow& row, const Range& r,
                          const std::string& whole) {
  const DataDescriptor& d = g_.sg.sdfg.arrays.at(row.data);
  const sym::Expr extent = r.end - r.start + 1;
  std::size_t fence = 0;
  while (fence < g_.frames_.size() && g_.frames_[fence].entry != plan.fence_at) ++fence;
  std::vector<std::string>& gates = g_.stream_gates_[plan.fence_at];
  if (uses_frames({&d.total_size, &extent, &row.head, &row.tail}, g_.frames_, fence)) {
    gates.emplace_back("true");
    return;
  }
  const std::string size = "static_cast<int64_t>(sizeof(" + std::string(cpp_name(d.dtype.base)) + "))";
  gates.push_back("weir_stream_may(static_cast<int64_t>(" + sym_cpp(d.total_size) + ") * " + size +
                  ", static_cast<int64_t>(" + sym_cpp(extent) + ") * " + size + ", " + whole + ")");
}

void StreamGen::emit_map_choosing_stores(const MapEntry& e, Writer& w) {
  Writer loops;
  // The copies share the statics of the code inside (a parallel choice's measured times, a
  // CBLAS call site's): collected while it is emitted (an enclosing map's collection kept).
  std::vector<BlockStatics::Declared> declared;
  const bool collects = g_.statics_.collecting == nullptr;
  if (collects) g_.statics_.collecting = &declared;
  try {
    g_.emit_map(e, loops);
  } catch (...) {
    if (collects) g_.statics_.collecting = nullptr;
    throw;
  }
  if (collects) g_.statics_.collecting = nullptr;
  // No fence, or the map chose in its parallel branch (StateGen::emit_map): emitted once.
  if (!g_.stream_fences_.count(e.id()) || g_.stores_chosen_.count(e.id())) return w.append(loops);
  emit_store_choice(e, declared, loops, w);
}

void StreamGen::emit_thread_choice(const MapEntry& e, const ThreadsVerdict& threads, bool fence,
                                   const std::function<void(Writer&)>& parallel,
                                   const std::function<void(Writer&)>& sequential, Writer& w) {
  const bool flat = threads.choice == ThreadChoice::Measured;
  if (!fence)
    return ParallelMapGen::emit_measured_choice(g_.statics_, threads.points, flat, parallel, sequential, w);
  // The store kind is chosen in the parallel branch, around its two copies, and the one-thread
  // branch stores plainly: three copies of the body instead of four, of which the one-thread
  // path is one (docs/adr/0041, "session 38").
  g_.stores_chosen_.insert(e.id());
  auto chosen = [&](Writer& out) {
    Writer copy;
    parallel(copy);
    const std::vector<BlockStatics::Declared> declared =
        g_.statics_.collecting ? *g_.statics_.collecting : std::vector<BlockStatics::Declared>{};
    emit_store_choice(e, declared, copy, out);
  };
  auto plain = [&](Writer& out) {
    out.line("[[maybe_unused]] constexpr bool weir_stores_streamed = false;  // one thread: plain stores");
    Writer code;
    sequential(code);
    out.append(store_kind_copy(code, false));
  };
  // A program of one OpenMP thread always takes the one-thread branch: where the map may stream,
  // it runs the parallel branch's store choice on its one thread (weir_stream_one_thread).
  ParallelMapGen::emit_measured_choice(g_.statics_, threads.points, flat, chosen, plain, w,
                                       "weir_stream_one_thread(weir_points)");
}

void StreamGen::emit_store_choice(const MapEntry& e, const std::vector<BlockStatics::Declared>& declared,
                                  Writer& loops, Writer& w) {
  // Per map (a block-scope static shared by the threads that call the program), per point of
  // its leading dimensions, so that calls of other sizes compare.
  w.open("{  // streamed or plain stores: the kind measured faster on this machine (docs/adr/0041)");
  w.line(g_.statics_.declare("static", "weir_store_times", "weir_store_times_"));
  Writer shared;
  g_.statics_.share(declared, loops, shared);
  w.append(shared);
  // A call in which no row can stream (the sizes known before the loops) runs the plain copy
  // and is not timed: the choice compares calls that could stream.
  std::set<std::string> seen;
  std::string may;
  for (const std::string& gate : g_.stream_gates_[e.id()]) {
    if (gate == "true") {
      may.clear();
      break;
    }
    if (seen.insert(gate).second) may += (may.empty() ? "" : " || ") + gate;
  }
  const std::string choose = "weir_stream_choose(weir_store_times_, weir_stream_forced())";
  if (may.empty()) {
    w.line("const bool weir_stores_streamed = " + choose + ";");
  } else {
    w.line("const bool weir_stores_may = " + may + ";");
    w.line("const bool weir_stores_streamed = weir_stores_may && " + choose + ";");
  }
  w.line("const double weir_stores_points = static_cast<double>(" + sym_cpp(leading_points(*e.map)) + ");");
  w.line("const double weir_stores_t0 = weir_stream_now();");
  // Each copy sees the choice as a constant: a parallel region's body is outlined into a function
  // of its own, which would read the run-time value through the region's shared data.
  for (const bool streamed : {true, false}) {
    w.open(streamed ? "if (weir_stores_streamed) {"
                    : "else {  // the same code: its streamed path drops out");
    w.line(std::string("[[maybe_unused]] constexpr bool weir_stores_streamed = ") +
           (streamed ? "true;" : "false;"));
    w.append(store_kind_copy(loops, streamed));
    w.close();
  }
  w.line(std::string("if (") + (may.empty() ? "" : "weir_stores_may && ") +
         "weir_stores_points > 0) weir_stream_ran(weir_store_times_, weir_stores_streamed, "
         "(weir_stream_now() - weir_stores_t0) / weir_stores_points);");
  w.close();
}

}  // namespace weir::codegen::detail
