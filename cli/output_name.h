// A check of the file name a command writes an SDFG to (defined in targets.cpp).
#pragma once

#include <string>

namespace weir::cli {

/// Warns on stderr when `path`, where a command writes an SDFG (-o), does not end in .sdfg,
/// .sdfgz or .json ("-o out.npy" is a slip: the file would hold SDFG JSON).
void warn_sdfg_output_name(const std::string& path);

}  // namespace weir::cli
