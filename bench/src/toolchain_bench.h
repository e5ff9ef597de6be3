// The toolchain benchmarks: time of every stage from field-view source to a first call, for
// every program of the examples, and of loading, validating and saving the corpus SDFGs.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "kernel_cases.h"

namespace weir::bench {

/// Fast stages are repeated `repeats` times (median, min, max); compiling, loading the library
/// and the first call run once, compiling into a fresh program cache so the compiler really
/// runs. With `quick`, only the Laplacian example is compiled. Prints a table; returns
/// {"programs": [...], "sdfg_files": [...]}. Sets `failed` when a stage fails with something
/// other than "not supported yet".
nlohmann::json run_toolchain_benchmarks(const Paths& paths, int repeats, bool quick, bool& failed);

}  // namespace weir::bench
