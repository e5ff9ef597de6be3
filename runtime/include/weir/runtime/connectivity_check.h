// Checks of connectivity tables before a field-view program runs: their entries are indices
// the generated code reads through without a bounds check (indirect, dynamic reads), so an
// entry outside the indexed dimension would read out of bounds (docs/adr/0005).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"

namespace weir {
class SDFG;
}

namespace weir::runtime {

/// Checks every table of `connectivities` present in `args` (one pass over each): an entry must
/// be -1 (no neighbour) or in [0, extent of dimension `to`), that extent being the smallest
/// extent along `to` of the other array arguments (a field `f` over `to` has the size symbol
/// `__f_<to>_size` in `sig`). Tables over a dimension no argument has, and tables of a dtype
/// other than int32/int64 or not 2-d (binding reports those), are not checked. Throws
/// ArgumentError "connectivity 'C2E2CO': entry [3, 1] = 100000000 is outside Cell (size 24)".
void check_connectivities(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                          const Arguments& args);

/// Checks that every array argument over a local dimension (`V2EDim`) is exactly as wide along
/// it as the connectivity table whose neighbours that dimension counts (its columns), as the
/// compiled backends require (they fix the neighbour count when they lower the program). `sig`
/// is a field-view signature (field_view_signature: a field `f` over `d` has the size symbol
/// `__f_<d>_size`). Arguments and tables not given are left to the other checks. Throws
/// ArgumentError
///   "argument 'wgt': expected float64 array of shape (50, 5), got float64 (50, 6)\n
///     'wgt' is over V2EDim, which has one entry per column of connectivity table 'V2E' (5)"
void check_local_dimension_widths(const std::vector<ConnectivityParameter>& connectivities,
                                  const Signature& sig, const Arguments& args);

/// Calls `fn` with the int64 tables of `connectivities` in `args` swapped for int32 copies where
/// `sig` takes int32 (entries that do not fit: ArgumentError), and puts the caller's tables back
/// afterwards, also when `fn` throws.
void with_int32_tables(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                       Arguments& args, const std::function<void()>& fn);

/// The connectivity tables an SDFG's lowering recorded (its attribute `weir_connectivities`,
/// written by frontend::lower_to_sdfg), so that an SDFG run as a file checks its tables as the
/// field-view program would; empty for other SDFGs. Throws ArgumentError for a malformed record.
std::vector<ConnectivityParameter> recorded_connectivities(const SDFG& sdfg);

/// `program`, whose run() first checks its connectivity tables with check_connectivities.
/// Tables passed as int64 where the program takes int32 (the lowering declares int32 tables;
/// the README promises both) run through an int32 copy; the caller's table is left as it was.
/// A -1 read by a direct shift (`v(E2V[1])`) is caught by the generated code's index checks,
/// at the points the program reads (docs/adr/0014).
std::shared_ptr<Program> with_connectivity_checks(std::shared_ptr<Program> program,
                                                  std::vector<ConnectivityParameter> connectivities);

/// The program with_connectivity_checks wrapped (`program` itself when it is no such wrapper),
/// for callers that time the compiled code alone on inputs valid by construction (benchmarks).
std::shared_ptr<Program> without_connectivity_checks(const std::shared_ptr<Program>& program);

}  // namespace weir::runtime
