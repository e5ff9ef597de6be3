// Maps on the CPU: the loop nest of a map scope, with OpenMP where it runs in parallel (one
// thread or many as cpu-schedules recorded, weir/sdfg/thread_choice.h), per-thread partials and
// private copies of reductions (parallel_reduction.cpp, parallel_privatization.cpp) and the
// hoisted invariant part of a sequential innermost nest (loop_hoisting.cpp) and its streamed
// output rows (streaming_stores.cpp).
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "loop_hoisting.h"
#include "parallel_map_gen.h"
#include "simd_width.h"
#include "state_codegen.h"
#include "stream_gen.h"
#include "weir/codegen/python_to_cpp.h"
#include "weir/sdfg/omp_schedule.h"
#include "weir/sdfg/thread_choice.h"
#include "weir/sdfg/whole_body_timer.h"

namespace weir::codegen::detail {

namespace {

/// The sign of each dimension's step where it is known (nullopt: tested at run time); refuses
/// tiled ranges and a step of 0 (errors at `where`).
std::vector<std::optional<int>> step_signs(const MapInfo& m, const ElementRef& where) {
  const auto& ranges = m.range.ranges();
  std::vector<std::optional<int>> sign(ranges.size());
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const Range& r = ranges[d];
    if (!(r.tile.is_integer() && r.tile.value() == 1))
      throw CodegenError(where, "tiled map ranges are not supported");
    if (r.step.is_integer() && r.step.value() == 0) throw CodegenError(where, "map range with step 0");
    sign[d] = r.step.sign_if_symbols_nonnegative();
    if (sign[d] && *sign[d] == 0) sign[d] = std::nullopt;
  }
  return sign;
}

/// collapse(n) of a parallel map, as DaCe's CPU code generator: the map's `collapse` attribute
/// (1, its default: the outermost dimension only, the inner loops left plain for the compiler to
/// vectorize), limited to the leading dimensions whose steps have a known sign and whose bounds
/// do not depend on earlier parameters; 0 (not parallel) where the first step's sign is unknown.
/// Passes that want more set the attribute (cpu-schedules, docs/adr/0028).
int collapsed_dims(const MapInfo& m, const std::vector<std::optional<int>>& sign) {
  if (!sign[0]) return 0;
  const auto& ranges = m.range.ranges();
  int collapse = 1;
  std::size_t wanted = m.collapse > 1 ? static_cast<std::size_t>(m.collapse) : 1;
  for (std::size_t d = 1; d < std::min(wanted, ranges.size()) && sign[d]; ++d) {
    std::set<std::string> fs = ranges[d].start.free_symbols();
    fs.merge(ranges[d].end.free_symbols());
    fs.merge(ranges[d].step.free_symbols());
    bool dep = false;
    for (std::size_t k = 0; k < d; ++k) dep = dep || fs.count(m.params[k]);
    if (dep) break;
    ++collapse;
  }
  return collapse;
}

/// The comment before a map's loops: `// map label[i=0:N, ...] (schedule)`.
std::string map_comment(const MapInfo& m) {
  const auto& ranges = m.range.ranges();
  std::string desc = "// map " + m.label + "[";
  for (std::size_t d = 0; d < ranges.size(); ++d)
    desc += (d ? ", " : "") + m.params[d] + "=" + range_text(ranges[d]);
  desc += "]";
  if (m.schedule != ScheduleType::Default) desc += " (" + std::string(to_string(m.schedule)) + ")";
  return desc;
}

/// A map's loops: its dimensions with their step signs, how many OpenMP distributes, whether
/// the innermost loop gets `#pragma omp simd` (with `simdlen(simdlen)` when positive: the lanes
/// of MapVectorization, a loop of that constant trip count; else with
/// `WEIR_SIMD_FULL(full.element_bytes)` when positive: every lane of the target's widest registers
/// for elements of that many bytes, simd_width.h; where `full.shifted` too, a loop of long rows
/// gets `WEIR_SIMD_HALF`, chosen at run time), and whether each thread that ran them fences its streaming
/// stores after them (`fence`: a map inside streams rows).
struct LoopNest {
  const MapInfo& map;
  const std::vector<std::optional<int>>& sign;
  int collapse = 0;
  bool simd = false;
  int simdlen = 0;
  ContiguousLoop full;
  bool fence = false;
  /// The timer slot of the node that is the whole body (chunk_timer_slot): timed once per thread
  /// around the loops (emit_loop_nest) instead of around each execution.
  std::optional<std::size_t> chunk;
  /// " schedule(dynamic, 16)" from the map's weir_omp_schedule, or empty.
  std::string schedule;
  /// Set on the two versions emit_shifted_rows makes of a `full.shifted` loop (one loop each).
  bool versioned = false;
};

/// Opens the block of a chunk timer around a loop nest: one clock read per thread before its share
/// of the loops (and one after, record_chunk_timer), recording the executions it counted. Where the
/// loops are parallel in a region of their own, the block is that `#pragma omp parallel` region.
void open_chunk_timer(std::size_t slot, Writer& out) {
  const std::string k = std::to_string(slot);
  out.open("{  // timed (instrument: Timer) slot " + k +
           ": once per thread around the loops it is the body of");
  out.line("const int64_t weir_chunk_start_" + k + " = weir_profile_now();");
  out.line("int64_t weir_chunk_executions_" + k + " = 0;");
}

/// The record of the chunk timer open_chunk_timer opened (weir_profile_record_chunk), after this
/// thread's share of the loops; the caller closes the block.
void record_chunk_timer(std::size_t slot, Writer& out) {
  const std::string k = std::to_string(slot);
  out.line("weir_profile_record_chunk(weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, " +
           k + "), weir_chunk_start_" + k + ", weir_chunk_executions_" + k + ");");
}

void emit_loop_nest(const LoopNest& n, bool omp, bool in_region, const Writer& body, Writer& out);

/// The sequential one-dimensional SIMD loop `n` of contiguous accesses at shifted offsets
/// (simd_width.h) around `body`, in two versions chosen by its trip count at run time: long rows
/// with half the lanes of AVX-512 registers (`WEIR_SIMD_HALF`: 512-bit accesses off a line
/// boundary each span two lines), short rows with all of them (`WEIR_SIMD_FULL`: fewer loop
/// iterations). The prelude's `weir_simd_long_row` is false where the target has no AVX-512, so
/// the compiler keeps only the second version there.
void emit_shifted_rows(const LoopNest& n, const Writer& body, Writer& out) {
  const Range& r = n.map.range.ranges().front();
  const std::string trip = sym_cpp(r.end - r.start + sym::Expr(1));
  LoopNest half = n, full = n;
  half.versioned = full.versioned = true;
  full.full.shifted = false;
  out.open("if (weir_simd_long_row(" + trip + ", " + std::to_string(n.full.element_bytes) +
           ")) {  // long rows read at shifted offsets: 256-bit vectors");
  emit_loop_nest(half, false, false, body, out);
  out.dedent();
  out.line("} else {");
  out.indent();
  emit_loop_nest(full, false, false, body, out);
  out.close();
}

/// The loops of `n` around `body`: with the OpenMP pragma where `omp` (`#pragma omp for` inside
/// a `#pragma omp parallel` region of partials where `in_region`), without it otherwise. With
/// `n.fence`, each thread runs weir_stream_fence() after its iterations, and with `n.chunk` it
/// records its chunk timer (fence first, so the record covers it): parallel loops of their own
/// become `#pragma omp parallel` around `#pragma omp for nowait` and that work (the region's end
/// is the barrier), loops in a region are `nowait` with a barrier after it, others do it after
/// the loops.
void emit_loop_nest(const LoopNest& n, bool omp, bool in_region, const Writer& body, Writer& out) {
  const auto& ranges = n.map.range.ranges();
  if (n.simd && n.simdlen == 0 && n.full.element_bytes > 0 && n.full.shifted && !n.versioned && !omp &&
      !n.fence && !n.chunk && ranges.size() == 1) {
    emit_shifted_rows(n, body, out);
    return;
  }
  // Work each thread does after its share of the loops: the fence of its streamed rows, the
  // record of a chunk timer. Parallel loops then end without a barrier (`nowait`): in a
  // `#pragma omp parallel` region of their own, whose end is the barrier, or, inside a region,
  // followed by the `#pragma omp barrier` the plain `#pragma omp for` had.
  const bool after = n.fence || n.chunk.has_value();
  const bool region = omp && !in_region && after;
  if (region) out.line("#pragma omp parallel");
  if (n.chunk)
    open_chunk_timer(*n.chunk, out);
  else if (region)
    out.open("{");
  if (omp)
    out.line(std::string(in_region || region ? "#pragma omp for" : "#pragma omp parallel for") +
             (n.collapse > 1 ? " collapse(" + std::to_string(n.collapse) + ")" : std::string()) + n.schedule +
             (after ? " nowait" : ""));
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const Range& r = ranges[d];
    std::string p = cpp_ident(n.map.params[d]);
    std::string end = sym_cpp(r.end), step = sym_cpp(r.step);
    std::string cond;
    if (!n.sign[d])
      cond = "(" + step + " > 0) ? (" + p + " <= " + end + ") : (" + p + " >= " + end + ")";
    else
      cond = p + (*n.sign[d] > 0 ? " <= " : " >= ") + end;
    std::string inc;
    if (r.step.is_integer() && r.step.value() == 1)
      inc = "++" + p;
    else if (r.step.is_integer() && r.step.value() == -1)
      inc = "--" + p;
    else
      inc = p + " += " + step;
    if (d + 1 == ranges.size() && n.simd)
      out.line(n.simdlen > 0              ? "#pragma omp simd simdlen(" + std::to_string(n.simdlen) + ")"
               : n.full.element_bytes > 0 ? std::string("#pragma omp simd ") +
                                                (n.full.shifted ? "WEIR_SIMD_HALF(" : "WEIR_SIMD_FULL(") +
                                                std::to_string(n.full.element_bytes) + ")"
                                          : "#pragma omp simd");
    out.open("for (int64_t " + p + " = " + sym_cpp(r.start) + "; " + cond + "; " + inc + ") {");
  }
  out.append(body);
  if (n.chunk) out.line("++weir_chunk_executions_" + std::to_string(*n.chunk) + ";");
  for (std::size_t d = 0; d < ranges.size(); ++d) out.close();
  if (n.fence)
    out.line("weir_stream_fence();  // this thread's streamed rows reach memory before others read them");
  if (n.chunk) record_chunk_timer(*n.chunk, out);
  if (omp && in_region && after) out.line("#pragma omp barrier");
  if (n.chunk || region) out.close();
}

/// `loops` twice where the hoisted code computed invariant conditions (LoopHoist::conditions):
/// where all of them hold, a version in which each is the constant `true` (a constexpr that
/// shadows its bool, so that the compiler folds `a if c else b` to `a`: the field-view lowering's
/// selects of missing neighbours leave a loop over complete neighbourhoods, docs/adr/0041), else
/// the loops as they are.
void emit_versioned(const std::vector<std::string>& conditions, Writer& w,
                    const std::function<void(Writer&)>& loops) {
  if (conditions.empty()) return loops(w);
  std::string all;
  for (const std::string& c : conditions) all += (all.empty() ? "" : " && ") + c;
  w.open("if (" + all + ") {  // every invariant condition holds: the loops with them folded");
  for (const std::string& c : conditions) w.line("[[maybe_unused]] constexpr bool " + c + " = true;");
  loops(w);
  w.dedent();
  w.line("} else {");
  w.indent();
  loops(w);
  w.close();
}

/// auto_optimize's SIMD hint on a map (MapInfo::extra "weir_vectorize"): "true", or the lane
/// count of MapVectorization's lane map ("8"); `on` is false without one (or for another value).
/// emit_map uses it on a sequential map, not where the body holds complex values: GCC gives each
/// addressable class-type local of an `omp simd` loop a per-lane array whose aggregate copies it
/// cannot vectorize, where the plain vectorizer splits std::complex locals into their parts first
/// (mandelbrot1's |z| < 2 map vectorized only without the pragma).
struct SimdHint {
  bool on = false;
  int lanes = 0;
};
SimdHint simd_hint(const MapInfo& m) {
  const std::string* hint = m.extra.find("weir_vectorize");
  SimdHint h;
  if (!hint) return h;
  if (!hint->empty() &&
      std::all_of(hint->begin(), hint->end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
    h.lanes = std::stoi(*hint);
  h.on = has_simd_hint(m);
  return h;
}

/// The schedule clause of a parallel map, " schedule(dynamic, 16)", from the attribute
/// cpu-schedules' `omp_schedule` records (weir/sdfg/omp_schedule.h); empty without it. A value
/// that is no schedule is an error at the map (it would otherwise reach the pragma's text).
std::string schedule_clause(const MapInfo& m, const ElementRef& where) {
  try {
    if (auto s = recorded_omp_schedule(m)) return " " + omp_schedule_clause(*s);
  } catch (const std::invalid_argument& ex) {
    throw CodegenError(where, std::string("map attribute ") + ex.what());
  }
  return {};
}

/// The element bytes of `WEIR_SIMD_FULL` for the SIMD loop of `e` (a loop of contiguous or
/// invariant accesses only: all the lanes of the target's registers, simd_width.h) and whether it
/// reads at shifted offsets; element bytes 0: none (also where `wanted` is false: no SIMD hint,
/// or MapVectorization's lanes).
ContiguousLoop full_lanes(bool wanted, const CodegenOptions& opts, const SDFG& sdfg, const SDFGState& st,
                          const MapEntry& e) {
  return wanted && opts.full_width_simd ? contiguous_simd_loop(sdfg, st, e).value_or(ContiguousLoop{})
                                        : ContiguousLoop{};
}

}  // namespace

bool StateGen::map_is_parallel(const MapInfo& m, const ElementRef& where) const {
  using S = ScheduleType;
  bool par = false;
  switch (m.schedule) {
    case S::Default: par = frames_.empty() && !sg.in_parallel; break;
    case S::CPU_Multicore:
    case S::CPU_Persistent: par = !in_parallel(); break;
    case S::GPU_Default:
    case S::GPU_Device:
    case S::GPU_Persistent:
      if (!opts.gpu_as_cpu)
        throw CodegenError(where,
                           "GPU schedule " + std::string(to_string(m.schedule)) + " (gpu_as_cpu is off)");
      par = !in_parallel();
      break;
    case S::GPU_ThreadBlock:
    case S::GPU_ThreadBlock_Dynamic:
      if (!opts.gpu_as_cpu)
        throw CodegenError(where,
                           "GPU schedule " + std::string(to_string(m.schedule)) + " (gpu_as_cpu is off)");
      break;
    case S::Sequential:
    case S::Unrolled:
    case S::SVE_Map: break;
    default:
      throw CodegenError(where, "map schedule " + std::string(to_string(m.schedule)) +
                                    " is not supported by the CPU code generator");
  }
  // Host threads are OpenMP's (off for CUDA host code: there kernels are the parallelism).
  return par && opts.openmp;
}

namespace {

/// Whether a memlet out of `nodes` (a map's scope) moves complex64/128 data (tasklet connectors
/// and scalars of std::complex type in the generated body).
bool moves_complex_values(const SDFG& sdfg, const SDFGState& st, const std::vector<NodeId>& nodes) {
  for (NodeId n : nodes)
    for (EdgeId id : st.out_edges(n)) {
      auto it = sdfg.arrays.find(st.edge(id).memlet.data);
      if (it != sdfg.arrays.end() &&
          (it->second.dtype.base == ScalarType::Complex64 || it->second.dtype.base == ScalarType::Complex128))
        return true;
    }
  return false;
}

/// C++ that is true when every container of `privs` is no larger than `points` (the map's
/// points, tested at run time); clears `privs` when a constant size is larger (never private).
std::string privatized_fit(std::vector<ParallelMapGen::Privatized>& privs, const sym::Expr& points) {
  std::string fits;
  for (const ParallelMapGen::Privatized& p : privs) {
    sym::Expr over = p.size - points;
    if (over.is_integer() && over.value() > 0) {
      privs.clear();
      return {};
    }
    // weir_le: a comparison of equal expressions would be a -Wtautological-compare warning.
    fits += (fits.empty() ? "weir_le(" : " && weir_le(") + sym_cpp(p.size) + ", " + sym_cpp(points) + ")";
  }
  return fits;
}

}  // namespace

std::optional<std::size_t> StateGen::chunk_timer_slot(const MapEntry& e) const {
  // The rule instrument-timers' bounded mode asks too (weir/sdfg/whole_body_timer.h). A transient
  // declared in this scope would be a second child, so the check below is the same rule's.
  const NodeId body = whole_body_timed_once(st, scopes_, e.id());
  if (device_code() || body == kNoNode || transients_by_scope_.count(e.id())) return std::nullopt;
  const Node& only = st.node(body);
  switch (only.kind()) {
    case NodeKind::MapEntry: return sg.prog.timer_slot(st, TimedKind::Map, only.id());
    case NodeKind::Library: return sg.prog.timer_slot(st, TimedKind::Library, only.id());
    case NodeKind::NestedSDFG: return sg.prog.timer_slot(st, TimedKind::NestedSDFG, only.id());
    default: return std::nullopt;
  }
}

void StateGen::declare_dynamic_inputs(const MapEntry& e, Frame& frame, Writer& pre) const {
  for (const auto& [c, ct] : e.in_connectors) {
    if (c.rfind("IN_", 0) == 0) continue;
    Location loc;
    ScalarType t = dynamic_input(e, c, loc);
    pre.line("const " + std::string(cpp_name(t)) + " " + cpp_ident(c) + " = " + loc.element() + ";");
    frame.symbols.push_back({c, t});
  }
}

void StateGen::emit_scope_in(const Frame& frame, Writer& w) {
  frames_.push_back(frame);
  emit_scope(frame.entry, w);
  frames_.pop_back();
}

namespace {

/// The frame of a map's body emitted a second time: with per-thread copies of `privs`
/// (parallel_privatization.cpp), or on one thread (`sequential`: the branch of a run-time choice
/// that needs no atomics).
Frame variant_frame(Frame f, const std::vector<ParallelMapGen::Privatized>& privs, bool sequential) {
  for (const ParallelMapGen::Privatized& p : privs) f.privatized.insert(p.data);
  if (sequential) {
    f.parallel = false;
    f.parallel_params.clear();
  }
  return f;
}

}  // namespace

void StateGen::emit_map(const MapEntry& e, Writer& w) {
  const MapInfo& m = *e.map;
  ElementRef where = ref(e);
  const auto& ranges = m.range.ranges();
  if (m.params.empty() || ranges.size() != m.params.size())
    throw CodegenError(where, "map has " + std::to_string(m.params.size()) + " parameters but " +
                                  std::to_string(ranges.size()) + " ranges");
  if (sg.prog.target.emit_map(*this, e, w)) return;  // a schedule the target emits itself (CUDA kernels)
  bool parallel = map_is_parallel(m, where);

  Frame frame;
  frame.entry = e.id();
  Writer pre;
  declare_dynamic_inputs(e, frame, pre);

  const std::vector<std::optional<int>> sign = step_signs(m, where);
  int collapse = parallel ? collapsed_dims(m, sign) : 0;
  parallel = collapse > 0;
  // One thread or many: cpu-schedules' verdict on the map, or the same analysis for maps it did
  // not schedule (weir/sdfg/thread_choice.h).
  ThreadsVerdict threads;
  if (parallel) threads = ParallelMapGen(*this).threads_verdict(e);
  if (threads.choice == ThreadChoice::One) {
    parallel = false;
    collapse = 0;
  }
  frame.parallel = parallel;
  frame.streaming_off = streaming_off(m, where);
  for (int d = 0; d < collapse; ++d) frame.parallel_params.push_back(m.params[static_cast<std::size_t>(d)]);
  for (const auto& p : m.params) frame.symbols.push_back({p, ScalarType::Int64});

  if (opts.emit_comments) w.line(map_comment(m));
  bool wrap = !pre.empty();
  if (wrap) {
    w.open("{");
    w.append(pre);
  }
  // Reductions of every iteration into one element: per-thread partials (parallel_reduction.cpp).
  auto outer_partials = std::move(partials_);
  partials_.clear();
  if (parallel) ParallelMapGen(*this).plan_partials(e);
  // Scatter reductions into small containers: per-thread copies (parallel_privatization.cpp).
  std::vector<ParallelMapGen::Privatized> privs;
  frames_.push_back(frame);
  // A sequential innermost loop nest: the invariant part of its tasklet runs once, before it.
  HoistPlan plan;
  const std::vector<NodeId> scope = scope_nodes(st, children_, e.id());
  plan.tasklet = parallel ? kNoNode : hoisted_tasklet(sg.sdfg, st, e, scope);
  std::optional<std::string> guard =
      plan.tasklet == kNoNode ? std::nullopt : hoisting_guard(e, sign, plan.loops);
  plan.entry = e.id();
  HoistPlan* outer_hoist = std::exchange(hoist_, guard ? &plan : nullptr);
  // Its output rows written once: through buffers and streaming stores (streaming_stores.cpp).
  StreamPlan stream = guard ? StreamGen(*this).plan_streaming(e, scope) : StreamPlan{};
  StreamPlan* outer_stream = std::exchange(stream_, stream.rows.empty() ? nullptr : &stream);
  // The map that is the whole body: timed once per thread around these loops.
  const std::optional<std::size_t> chunk = chunk_timer_slot(e);
  const NodeId outer_chunk = std::exchange(chunk_timed_, chunk ? children_.at(e.id()).front() : kNoNode);
  Writer body;
  FactRecorder body_facts;
  emit_scope(e.id(), body);
  hoist_ = outer_hoist;
  stream_ = outer_stream;
  const bool streams = !stream.used.empty();
  if (streams) stream_fences_.insert(stream.fence_at);
  CodeFacts bf = body_facts.finish();
  note(bf);
  // Only where the body updates something atomically (a write concurrent iterations may meet).
  if (parallel && partials_.empty() && bf.atomics) privs = ParallelMapGen(*this).plan_privatized(e);
  frames_.pop_back();
  // Copies cost threads x size elements: used where the containers are no larger than the map's
  // points (tested at run time; a constant size above them: never), else the atomic body.
  const std::string fits = privatized_fit(privs, leading_points(m));
  Writer private_body, sequential_body;
  if (!privs.empty()) emit_scope_in(variant_frame(frame, privs, false), private_body);
  bool partials = false;
  for (const auto& [key, p] : partials_) partials = partials || p.used;
  // Few points of symbolic count, or work per point unknown (a nested SDFG with loops, a library
  // node): chosen at run time from measured times (parallel_threshold.cpp, emit_measured_choice).
  const bool measured = parallel && (threads.choice == ThreadChoice::Measured ||
                                     threads.choice == ThreadChoice::MeasuredUnknownWork);
  // The branch that runs on one thread gets a body of its own without atomics.
  const bool own_sequential = measured && bf.atomics && !partials;
  if (own_sequential) emit_scope_in(variant_frame(frame, {}, true), sequential_body);
  chunk_timed_ = outer_chunk;
  // The loop nest around `body`, with the OpenMP pragma or without; `in_region`: inside a
  // `#pragma omp parallel` of the partials.
  const SimdHint simd = simd_hint(m);
  const bool vectorize = !parallel && opts.openmp && simd.on && !moves_complex_values(sg.sdfg, st, scope);
  const ContiguousLoop full = full_lanes(vectorize && simd.lanes == 0, opts, sg.sdfg, st, e);
  // Each thread fences what the maps inside streamed.
  const bool fence = stream_fences_.count(e.id()) > 0;  // (StreamGen::emit_map_choosing_stores)
  const LoopNest loop_nest{m,         sign,       collapse,
                           vectorize, simd.lanes, full,
                           fence,     chunk,      parallel ? schedule_clause(m, where) : ""};
  auto nest = [&](bool omp, Writer& out, bool in_region = false, const Writer* inner = nullptr) {
    emit_loop_nest(loop_nest, omp, in_region, inner ? *inner : body, out);
  };
  auto loops = [&](bool omp, Writer& out) {
    if (!partials) return nest(omp, out);
    ParallelMapGen(*this).emit_with_partials([&](bool in_r, Writer& o) { nest(in_r, o, in_r); }, omp, out);
  };
  auto parallel_branch = [&](Writer& out) {
    if (privs.empty()) return loops(true, out);
    out.open("if (" + fits + ") {");
    ParallelMapGen::emit_privatized(
        privs, [&](Writer& o) { nest(true, o, true, &private_body); }, out);
    out.dedent();
    out.line("} else {");
    out.indent();
    nest(true, out);
    out.close();
  };
  // A sequential map's loops: in blocks of buffered rows where it streams; a version with the
  // invariant conditions true where they all hold.
  auto sequential_loops = [&](Writer& out) {
    emit_versioned(plan.loops.conditions, out, [&](Writer& o) {
      if (!streams) return loops(false, o);
      auto block = [&](const MapInfo& b, Writer& bo) {
        emit_loop_nest(LoopNest{b, sign, 0, vectorize, simd.lanes, full, false, std::nullopt, ""}, false,
                       false, body, bo);
      };
      StreamGen(*this).emit_streamed_nest(stream, m, block, o);
    });
  };
  auto sequential_branch = [&](Writer& out) {
    if (own_sequential) return nest(false, out, false, &sequential_body);
    loops(false, out);
  };
  if (!parallel && guard && (!plan.declarations.empty() || !plan.loops.lines.empty())) {
    w.open("if (" + *guard + ") {  // the loops' invariant part, once");
    for (const auto& l : plan.declarations) w.line(l);
    for (const auto& l : plan.loops.lines) w.line(l);
    StreamGen(*this).emit_gather_prefetch(e, plan, w);
    sequential_loops(w);
    w.close();
  } else if (!parallel) {
    sequential_loops(w);
  } else if (measured) {
    // Few points or cheap ones: the loops without entering the OpenMP runtime, chosen from
    // measured times (parallel_threshold.cpp); with the store kind's choice where rows stream.
    StreamGen(*this).emit_thread_choice(e, threads, fence, parallel_branch, sequential_branch, w);
  } else {
    parallel_branch(w);
  }
  partials_ = std::move(outer_partials);
  if (wrap) w.close();
}

}  // namespace weir::codegen::detail
