// What `weir run` reports and writes: a summary of every output (min, max, mean, NaNs,
// checksum) and the outputs as .npy files in --out.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/signature.h"

namespace weir::cli {

/// Fails early (before compiling) when `out` cannot become a directory of outputs: makes and
/// removes a probe directory in its nearest existing ancestor, which must be a directory.
/// Throws weir::Error "cannot write --out DIR: ...".
void check_output_dir(const std::filesystem::path& out);

/// Prints the summary of each array the program writes (and the values of written scalars) to
/// stdout; returns the arrays by name, in call order.
std::vector<std::pair<std::string, const runtime::Field*>> print_outputs(const runtime::Signature& sig,
                                                                         const runtime::Arguments& args);

/// Writes the outputs into a temporary directory, then moves them into place, so `out` gets
/// files only when every one could be written. Throws weir::Error when an output would
/// overwrite one of `inputs`.
void write_outputs(const std::filesystem::path& out,
                   const std::vector<std::pair<std::string, const runtime::Field*>>& outputs,
                   const std::vector<std::filesystem::path>& inputs);

}  // namespace weir::cli
