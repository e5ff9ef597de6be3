// Internal interfaces of the CUDA code generator (cuda_codegen.cpp, cuda_kernels.cpp,
// cuda_prelude.cpp), on top of the CPU generator's shared walk (codegen_internal.h).
#pragma once

#include <functional>

#include "codegen_internal.h"
#include "weir/sdfg/state_uses.h"

namespace weir::codegen::detail {

/// What goes before the common prelude: WEIR_HD, the CUDA runtime (or the emulation header),
/// device-side faults, device allocation and atomics.
const char* cuda_prelude_head_text();
/// What goes after it: the stream, checked launches and copies, device buffers, grid sizes.
const char* cuda_prelude_tail_text();

/// Whether `s` is memory of the device (host code reaches it only through the CUDA runtime).
bool is_device_storage(StorageType s);
/// Whether state `st` of `sdfg`, as CUDA host code, may launch kernels or move device memory (it
/// then ends with a stream synchronisation): it has a GPU_Device map or its uses (state_uses)
/// include a container in device memory. From the IR, not the generated text.
bool uses_device(const SDFG& sdfg, const SDFGState& st, const StateUses& uses);

/// The array arguments of `sdfg` in device memory (non-transient, device storage), in arglist
/// order (cuda_host_arguments.cpp).
std::vector<std::string> device_array_arguments(const SDFG& sdfg);
/// weir_run's checks that every device array argument is a device pointer (CUDA host code,
/// after the arguments are bound).
void emit_device_argument_checks(Writer& w, const SDFG& sdfg);
/// The `weir_run_host` entry point (program_abi.h) when `sdfg` has device array arguments:
/// device copies of host arrays around weir_run. `symbol_binding(s)` declares symbol `s` from
/// `args`.
void emit_run_host(Writer& entry, const SDFG& sdfg, const SdfgGen& g, const std::vector<std::string>& arglist,
                   const std::function<std::string(const std::string&)>& symbol_binding);

}  // namespace weir::codegen::detail
