// What a parallel CPU map adds around its loop nest (made per map by StateGen::emit_map): one
// thread or many (parallel_threshold.cpp), per-thread partials of reductions to one element
// (parallel_reduction.cpp) and per-thread copies of scattered reductions
// (parallel_privatization.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "state_codegen.h"
#include "weir/sdfg/thread_choice.h"

namespace weir::codegen::detail {

/// The OpenMP parts of a parallel map's code: reads the StateGen it works for (its frames,
/// bindings and scopes) and fills its partials (StateGen::partials_, which the map's tasklets
/// use).
class ParallelMapGen {
 public:
  explicit ParallelMapGen(StateGen& g) : g_(g) {}

  /// A container each thread reduces into a copy of its own.
  struct Privatized {
    std::string data;  // the container
    std::string op;    // compound operator of its WCR: + * & | ^
    ScalarType type;
    sym::Expr size;  // elements of its allocation (total_size)
  };

  // --- one thread or many (parallel_threshold.cpp) ----------------------------------------
  /// One thread or many for parallel map `e`: the verdict cpu-schedules recorded on it, else
  /// choose_threads' (weir/sdfg/thread_choice.h). A malformed record is a CodegenError at the map.
  ThreadsVerdict threads_verdict(const MapEntry& e) const;
  /// A map of unknown work: `parallel` or `sequential` loops, chosen at run time from the
  /// one-thread time per point the sequential branch measured at earlier calls.
  /// `flat`: a body whose points are a fair measure of work (tiny maps skip the measuring);
  /// the measured times a block-scope static declared through `statics` (block_statics.h).
  /// `parallel_anyway`: a C++ condition (of `weir_points`) under which the parallel branch runs
  /// where one thread was chosen, or "".
  static void emit_measured_choice(BlockStatics& statics, const sym::Expr& points, bool flat,
                                   const std::function<void(Writer&)>& parallel,
                                   const std::function<void(Writer&)>& sequential, Writer& w,
                                   const std::string& parallel_anyway = "");

  // --- reductions to one element (parallel_reduction.cpp) ----------------------------------
  /// Registers a Partial for each WCR output of a tasklet directly in the scope of map `e`
  /// whose element does not depend on the map's parameters; returns how many.
  std::size_t plan_partials(const MapEntry& e);
  /// The loops `nest` wrapped with the partials' declarations and their combination: in the
  /// parallel branch per thread (`#pragma omp parallel` + `omp for`, combined atomically), in the
  /// sequential one seeded with the element (the same order as without partials).
  void emit_with_partials(const std::function<void(bool, Writer&)>& nest, bool parallel, Writer& w) const;

  // --- scatter reductions into per-thread copies (parallel_privatization.cpp) --------------
  /// Containers parallel map `e` only updates with one reassociable WCR and never reads, when
  /// the map is the outermost parallel code (empty otherwise).
  std::vector<Privatized> plan_privatized(const MapEntry& e) const;
  /// `loops` (a `#pragma omp for` nest) inside a parallel region where each thread's `privs`
  /// are copies of its own, filled with the identity and combined into the containers after.
  static void emit_privatized(const std::vector<Privatized>& privs, const std::function<void(Writer&)>& loops,
                              Writer& w);

 private:
  StateGen& g_;
};

}  // namespace weir::codegen::detail
