// generate_cuda: the shared frame and dataflow walk (program_frame.cpp, dataflow_codegen.cpp)
// with the CUDA target; kernels are cuda_kernels.cpp, the runtime helpers cuda_prelude.cpp.
#include "weir/codegen/cuda_codegen.h"

#include "cuda_codegen_internal.h"

namespace weir::codegen {

namespace detail {

bool is_device_storage(StorageType s) { return s == StorageType::GPU_Global || s == StorageType::GPU_Shared; }

}  // namespace detail

GeneratedCode generate_cuda(const SDFG& sdfg, const CodegenOptions& options) {
  CodegenOptions o = options;
  o.openmp = false;     // host code is sequential; kernels are the parallelism
  o.gpu_as_cpu = true;  // GPU schedules and storage are accepted (as kernels and device memory)
  o.target = &cuda_target();
  return detail::generate_program(sdfg, o, detail::cuda_emitter());
}

}  // namespace weir::codegen
