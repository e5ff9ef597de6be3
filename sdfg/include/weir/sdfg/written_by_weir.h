// The mark of C++ that weir wrote itself (the library-expansion pass's CBLAS calls), which the
// code generator compiles without `trust_code` (docs/security.md). It lives in a tasklet's
// attributes under a reserved key that the SDFG loader refuses in a file and the writer leaves
// out, so it exists in memory only: no file can claim it, and a file written after the expansion
// holds the call as ordinary C++ (read back as the library node where it has DaCe's shape, ADR
// 0035).
#pragma once

#include "weir/sdfg/nodes.h"

namespace weir {

/// The reserved attribute key of the mark.
inline constexpr const char* kWrittenByWeirAttribute = "weir_written_by_weir";

/// Marks the code of `t` as weir's own (set by weir's passes only, on code they generate).
inline void mark_written_by_weir(Tasklet& t) { t.extra.set(kWrittenByWeirAttribute, "true"); }

/// Whether the code of `t` is weir's own: marked by mark_written_by_weir in this process.
inline bool written_by_weir(const Tasklet& t) { return t.extra.find(kWrittenByWeirAttribute) != nullptr; }

}  // namespace weir
