// Lowering of type-checked field-view definitions (the typed IR of type_checker.h) to SDFGs.
//
// Every program call becomes one state holding one map over the call's output domain; the
// called field operator, and every operator it calls, is inlined into the map's single
// tasklet (intermediate values are scalar temporaries of the tasklet code, shifted uses of an
// intermediate are recomputed at the shifted point). A scan operator call adds an init state
// and a LoopRegion over its axis before the state that uses it; neighbour reads go through
// connectivity tables, neighbour reductions are unrolled. See docs/adr/0008-frontend-lowering.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weir/frontend/typed_ir.h"
#include "weir/sdfg/sdfg.h"

namespace weir::frontend {

struct LoweringOptions {
  /// Name of the SDFG; empty: the definition's name.
  std::string sdfg_name;
  /// Schedule of the maps the lowering creates.
  ScheduleType map_schedule = ScheduleType::Default;
  /// Max neighbours per connectivity (offset name -> entries per row; the second extent of its
  /// table). Adds to / overrides the conventional counts (E2V 2, E2C 2, C2E 3, C2V 3, V2E 6,
  /// V2C 6, V2V 6, C2E2C 3, C2E2CO 4, E2C2V 4, E2C2E 4, E2C2EO 5, C2E2C2E 9, C2E2C2E2C 9).
  std::map<std::string, std::int64_t> max_neighbors;
};

/// Lowers a @program, or a @field_operator called directly (its result becomes the argument
/// `__out`, or `__out_0`, `__out_1`, ... for a tuple), to a new SDFG. Every call builds a fresh
/// SDFG from the typed IR: nothing is cached, and changing a returned SDFG never affects a
/// later lowering.
///
/// Conventions: each field parameter `f` over dims (I, J, K) is a non-transient Array of shape
/// [__f_I_size, __f_J_size, __f_K_size] (int64 symbols), indexed from 0 at the start of its
/// domain; a local dimension's extent is its connectivity's neighbour count (a constant). Map
/// parameters are named `__<dim>` (`__I`). A scalar parameter used in a `domain=` bound is a
/// symbol of its dtype, any other scalar parameter a Scalar container. Every connectivity an
/// unstructured shift uses is an int32 Array named after the offset, shape
/// [__<OFFSET>_rows, max neighbours] (-1: no neighbour). `arg_names` are the parameters in
/// order, then the connectivity tables by name. Scan operators become a LoopRegion over the
/// scan axis (see docs/adr/0008-frontend-lowering.md).
///
/// Throws FrontendError at the construct's location: "not supported yet by the SDFG lowering:
/// <what>" for what is not lowered (a shifted use of a scan result, outputs over a local
/// dimension, a scan operator lowered by itself), and "the number of neighbours of 'X' is not
/// known" for a connectivity without a default or `max_neighbors` entry.
std::unique_ptr<SDFG> lower_to_sdfg(const TypedDefinition& def, const LoweringOptions& options = {});

/// One line per output of a program's calls that the lowering computes into a temporary and
/// then copies to the output, because the call reads that field at a point another point writes
/// (docs/adr/0043; `weir run --verbose`): "call of '_op' at FILE:L:C computes 'w' into a
/// temporary and then copies it to 'w': it reads 'w' at another point (FILE:L:C)".
std::vector<std::string> out_copy_notes(const TypedDefinition& def);

}  // namespace weir::frontend
