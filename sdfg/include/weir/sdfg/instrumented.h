// The `instrument` attribute (DaCe's InstrumentationType on states, maps and code nodes) and the
// list of elements whose code is timed: what code generation wraps in timers and what a profile
// report names (docs/adr/0048-profiling.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weir/sdfg/errors.h"
#include "weir/sdfg/sdfg.h"

namespace weir {

/// The attribute's key, as DaCe writes it on SDFGState, MapEntry (the map's property), Tasklet,
/// NestedSDFG and library nodes. On the memlet of a copy between two access nodes it is weir's
/// extension (DaCe has no per-copy instrumentation and ignores the key).
inline constexpr const char* kInstrumentAttribute = "instrument";
/// DaCe's InstrumentationType.Timer: wall time on the host's steady clock. The only type weir
/// generates code for; DaCe's "No_Instrumentation" (or no attribute) means none.
inline constexpr const char* kTimerInstrument = "Timer";

/// The instrumentation type of `attrs` ("" when none or "No_Instrumentation"). Throws IRError
/// at `where` when the value is not a string.
std::string instrument_of(const UnknownAttributes& attrs, const ElementRef& where = {});
/// Sets the type ("Timer"); "" removes the attribute.
void set_instrument(UnknownAttributes& attrs, const std::string& type);

/// What a timed element is (the report's `kind`).
enum class TimedKind : std::uint8_t { State, Map, Library, NestedSDFG, Copy };
/// "state", "map", "library", "nested_sdfg", "copy".
const char* to_string(TimedKind k);

/// One element whose `instrument` is Timer. `cfg_id` is the index of the state's region in
/// cfg_list(root), `state_id` the state's block id there (DaCe's report fields); `node` the node
/// id (kNoNode for a state or a copy), `edge` the copy's edge id (else ~0).
struct TimedElement {
  TimedKind kind = TimedKind::State;
  const SDFG* sdfg = nullptr;
  const SDFGState* state = nullptr;
  std::size_t cfg_id = 0;
  BlockId state_id = kNoBlock;
  NodeId node = kNoNode;
  EdgeId edge = ~EdgeId{0};
  /// The state's, node's or map's label; a copy's "SRC -> DST".
  std::string label;
};

/// The elements of `root` (nested SDFGs included) whose `instrument` is Timer, in a fixed order:
/// regions in cfg_list order, their states by block id, each state before its nodes (by id), then
/// its copies (by edge id). A map counts at its entry; a copy is an edge between two access
/// nodes. Code generation numbers its timers by this order. Throws IRError for a non-string
/// value (instrument_of); other types than Timer are not listed.
std::vector<TimedElement> timed_elements(const SDFG& root);

}  // namespace weir
