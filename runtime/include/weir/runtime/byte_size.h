// Sizes of memory for messages: how many bytes an array needs, and how many this machine has.
#pragma once

#include <string>

namespace weir::runtime {

/// A number of bytes for messages, in decimal units with three significant digits: "80 TB",
/// "1.5 MB", "12 bytes".
std::string byte_size(long double bytes);

/// The memory this machine has (RAM and swap, in bytes), or 0 when it cannot be found out.
long double machine_memory();

}  // namespace weir::runtime
