// Whether what a write to a transient leaves can never be read, because writes that always
// follow it cover every read of the transient (internal to DeadDataflowElimination).
#pragma once

#include <optional>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms::detail {

/// `written` is a sink access node of a transient T in state `st` of `region` (T's only access
/// node in `st`). Returns nothing when the values written there can never be read: `st` leads
/// through a chain of states (each the only successor of the one before, over an unconditional
/// edge, and it the only predecessor of each) that write T without reading it, and every read of
/// T anywhere in `sdfg` (every state, nested regions included) lies inside one of those writes:
/// bounds that differ from the write's by integer constants, written exactly (a copy, a tasklet's
/// single element, or a map's element at its parameters plus constants over a unit-step range).
/// Otherwise the reason as text to append to "container 'T' is read elsewhere in the SDFG":
/// empty when no such write follows at all, else " (at T[...], which the N write(s) that always
/// follow do not cover)" or what hides a read's subset.
std::optional<std::string> overwritten_before_read(const SDFG& sdfg, const ControlFlowRegion& region,
                                                   const SDFGState& st, const AccessNode& written);

/// Whether no value of the container `T` of `sdfg` outlives the state that writes it: every
/// access node of T anywhere in `sdfg` that is read (has out-edges) is written in its own state
/// (in-edges whose exact writes, as above, cover every subset read from it), or is read only by
/// nested SDFGs (through map entries) inside which the same holds for the connector's container.
/// T must not be named in `sdfg`'s control flow. Then a sink write of T is never read: DaCe's
/// frontend reuses one transient (`divided`, a temporary of each level of a scan) in several
/// loops, each level writing it before reading it.
bool read_only_where_written(const SDFG& sdfg, const std::string& T);

}  // namespace weir::transforms::detail
