// Internal interfaces of the CUDA code generator (cuda_codegen.cpp, cuda_kernels.cpp,
// cuda_prelude.cpp), on top of the CPU generator's shared walk (codegen_internal.h).
#pragma once

#include "codegen_internal.h"

namespace weir::codegen::detail {

/// What goes before the common prelude: WEIR_HD, the CUDA runtime (or the emulation header),
/// device-side faults, device allocation and atomics.
const char* cuda_prelude_head_text();
/// What goes after it: the stream, checked launches and copies, device buffers, grid sizes.
const char* cuda_prelude_tail_text();

/// Whether `s` is memory of the device (host code reaches it only through the CUDA runtime).
bool is_device_storage(StorageType s);
/// Whether generated host code launches kernels or moves device memory (it then ends with a
/// stream synchronisation).
bool uses_device(const std::string& host_code);

}  // namespace weir::codegen::detail
