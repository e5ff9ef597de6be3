// The scaling benchmark: a generated field-view program composing N stencils (N distinct
// field operators called in sequence over a pool of fields, one SDFG state each) goes through
// the frontend, lowering, the optimization pipeline and code generation in a child process per
// N; time per stage and peak memory (the child's VmHWM) are recorded, and the growth exponent of each
// stage's time in N.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace weir::bench {

/// The generated source for `n` stencils (valid gt4py field-view Python).
std::string chain_source(int n);

/// Runs one child per N (`exe scaling-child N OUT.json`) and returns
/// {"points": [...], "exponents": {...}}; prints a table. Sets `failed` when a child fails.
nlohmann::json run_scaling_benchmarks(const std::string& exe, const std::vector<int>& ns, bool& failed);

/// The child's work: measures the stages for `n` stencils and writes JSON to `out`. Returns
/// the process exit code.
int scaling_child(int n, const std::string& out);

}  // namespace weir::bench
