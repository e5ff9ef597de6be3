// `weir view --set NAME=N`: the symbol values the page's static overlays (bytes moved, FLOPs,
// intensity) are evaluated with, named as `weir run --set` names them for the same SDFG.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::cli {

/// The values of `sets` (each "NAME=INTEGER", as given) for `sdfg`'s symbols: a NAME that is a
/// symbol of the SDFG sets it; a NAME that is a dimension of its fields (`I` for the size
/// symbols `__q_I_size`, `__out_I_size`) sets every size symbol along it, and the rows of the
/// connectivity tables on it (`Edge` for `__E2V_rows`, as the lowering recorded them), as `weir
/// run --set I=64` sizes every field along I (a symbol given by its own name wins). Throws UsageError
/// (targets.h) for a value that is not an integer, a name that is neither (listing the symbols
/// and dimensions, with the closest name), a negative extent (a dimension or a size symbol), and
/// a name given twice.
std::map<std::string, long long> view_symbol_values(const SDFG& sdfg, const std::vector<std::string>& sets);

}  // namespace weir::cli
