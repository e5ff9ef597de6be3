// CPU schedules and vectorization hints for auto_optimize (DaCe's auto_optimize sets
// CPU_Multicore on outermost maps; the innermost unit-stride loop is left for SIMD).
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// The map attribute (MapInfo::extra key, value `true`) that asks the CPU code generator for
/// `#pragma omp simd` on the map's innermost loop. A weir extension: DaCe ignores unknown keys.
inline constexpr const char* kVectorizeAttribute = "weir_vectorize";

/// Pass "cpu-schedules". In every state of the SDFG and of the SDFGs nested in it:
///  * with `l2_tiling` (default false: not measured to pay yet, docs/adr/0059), first: a top-level stencil
///  map of three or more
///    dimensions whose reuse window (the planes of the arrays it reads at constant offsets along
///    its first parameter I, which one thread keeps while it sweeps I) exceeds half of the L2
///    cache (`l2_bytes`, 0: the machine's, sysconf then sysfs) runs J (its second parameter) tile
///    by tile: `[I, J, K]` becomes `[tile_J, I]` (J's range in steps of T) around `[J, K]`, T the
///    even split of J into the fewest tiles whose window fits; with symbolic sizes T is an
///    expression evaluated when the map runs (one tile where the window fits then); sizes known
///    here whose window fits leave the map alone (docs/adr/0059, session 37);
///  * top-level maps with the Default schedule become CPU_Multicore (OpenMP), maps nested in
///    a parallel map with Default become Sequential; the top-level maps of an SDFG nested
///    outside any map count as top-level, those of one nested inside a map (at any depth) as
///    nested (Sequential: no OpenMP team inside another);
///  * with `split_innermost`, a top-level CPU_Multicore map of two or more dimensions whose
///    last parameter indexes the last (contiguous) dimension of some container it accesses is
///    split: the last dimension becomes a Sequential map directly inside (so OpenMP collapses
///    the outer dimensions and the compiler sees a plain unit-stride inner loop);
///  * every top-level CPU_Multicore map of two or more dimensions (after the split) with
///    `collapse` 1 gets `collapse` = its number of leading dimensions whose iterations write
///    disjoint elements of every write-conflict output (conflict_free_prefix,
///    weir/sdfg/dependence.h), when that is two or more: OpenMP distributes them (the code
///    generator follows the attribute, as DaCe's, ADR 0028);
///  * the write-conflict-resolved writes of tasklets in a top-level CPU_Multicore map that its
///    distributed parameters (the first `collapse`) separate, into a container of the SDFG that
///    is no view, get `wcr_nonatomic` (DaCe's Memlet property: a plain update, no atomic); every
///    other tasklet's WCR write has it cleared (the code generator decides; ADR 0034);
///  * every top-level CPU_Multicore map records whether it runs on one thread, on many, or as
///    measured at run time (kThreadsAttribute and kPointsAttribute, weir/sdfg/thread_choice.h):
///    the code generator reads the record; every other map has it cleared (ADR 0034);
///  * with `vectorize`, every innermost Sequential map whose parameter indexes a contiguous
///    dimension as `param + c`, with no write-conflict resolution, nested SDFG or library node
///    in its body, gets the kVectorizeAttribute hint;
///  * with `omp_schedule` ("static", "dynamic", "guided", optionally ",CHUNK": "dynamic,16"),
///    every top-level CPU_Multicore map without write-conflict resolution in its scope records
///    that OpenMP schedule (kOmpScheduleAttribute, weir/sdfg/omp_schedule.h), which the code
///    generator adds to its `#pragma omp for`; maps with reductions keep OpenMP's static default
///    (under a dynamic schedule a float reduction's rounding would vary from run to run). Empty
///    (the default): nothing recorded. A value that is no schedule throws TransformError;
///  * with `streaming_stores` false, every top-level map records "streaming stores off"
///    (kStreamingStoresAttribute, weir/sdfg/streaming_choice.h): the code generator then writes
///    no row inside it with streaming stores (docs/adr/0041). True (the default): nothing
///    recorded, the code generator decides per row;
///  * with `blas`, MatMul, Dot, Gemm and Gemv library nodes without an implementation (here and
///    in nested SDFGs) get "OpenBLAS", as DaCe's auto_optimize selects its fast BLAS.
/// Returns the number of maps and library nodes changed.
class CpuSchedules final : public Pass {
 public:
  CpuSchedules();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
