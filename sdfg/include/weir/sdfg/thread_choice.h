// One thread or many for a parallel map: an OpenMP fork/join costs microseconds (30-40 us
// waking passive threads), more than a cheap loop of a few thousand points. The choice is made
// once, by the scheduling pass (cpu-schedules records it on the map as kThreadsAttribute and
// kPointsAttribute), and the CPU code generator only reads it; for maps without the record (an
// SDFG from DaCe or written by hand, a map the pass did not schedule) the code generator asks
// choose_threads itself, so both decide alike. ADR 0034.
#pragma once

#include <optional>

#include "weir/sdfg/nodes.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic.h"

namespace weir {

/// Points of a flat body (tasklets and copies) below which a parallel region costs more than it
/// gains: measured on 2 threads, a 3-point 1-D stencil map was faster in parallel from about
/// 16384 points with spinning threads; with passive threads (weir's default, loader.h) a
/// fork/join takes about as long as 32768 such points.
inline constexpr long long kMinParallelIterations = 32768;

/// The map attribute (MapInfo::extra, a JSON string) recording the choice: "many", "one",
/// "measured" or "measured_unknown_work" (ThreadChoice). A weir extension DaCe ignores.
inline constexpr const char* kThreadsAttribute = "weir_threads";
/// The map attribute (a JSON string, a symbolic expression) with the points a measured choice
/// divides its time by; present with the two measured choices only.
inline constexpr const char* kPointsAttribute = "weir_points";

/// How a parallel map runs.
enum class ThreadChoice {
  Many,                 ///< always on OpenMP's threads (many points, or a constant count >= the threshold)
  One,                  ///< always on one thread (a flat body of a constant count below the threshold)
  Measured,             ///< a flat body of symbolic size: chosen at run time from measured times per point
  MeasuredUnknownWork,  ///< work per point unknown (loops, library nodes): chosen at run time likewise
};

/// The choice and, for the measured ones, the points of one run (of the map and of the maps
/// nested in it for Measured; of the map's leading dimensions whose sizes do not depend on
/// earlier parameters for MeasuredUnknownWork).
struct ThreadsVerdict {
  ThreadChoice choice = ThreadChoice::Many;
  sym::Expr points{1};
};

/// The choice for map `e` of `st` run in parallel, whatever its schedule: its body is *flat* when it holds
/// tasklets, copies, nested maps whose sizes do not depend on the parameters around them, and nested SDFGs of
/// bounded work (acyclic, no loop, map or library node); flat bodies are counted in points, anything else is
/// MeasuredUnknownWork. Dynamic range inputs of inner maps make a body not flat. `tree`: the state's scope
/// tree (SDFGState::scope_tree, current). Never throws.
ThreadsVerdict choose_threads(const SDFGState& st, const ScopeTree& tree, const MapEntry& e);

/// The points of `m`'s leading dimensions whose sizes do not depend on earlier parameters (all
/// of them for a rectangular map): what a map runs, as far as it is known before it starts.
sym::Expr leading_points(const MapInfo& m);

/// Writes `v` into `m`'s kThreadsAttribute and kPointsAttribute (the latter erased where the
/// choice has no points).
void record_threads(MapInfo& m, const ThreadsVerdict& v);

/// Removes both attributes from `m`; true when one was there.
bool clear_threads(MapInfo& m);

/// The verdict recorded on `m`, nullopt when kThreadsAttribute is absent. Throws
/// std::invalid_argument naming the attribute and the value when it is not one of the four
/// choices, or when a measured choice lacks a parseable kPointsAttribute.
std::optional<ThreadsVerdict> recorded_threads(const MapInfo& m);

}  // namespace weir
