// The helper code a generated CUDA translation unit has around the common prelude: the text of
// codegen/prelude/weir_cuda_head.h and weir_cuda_tail.h, embedded at build time.
#include "cuda_codegen_internal.h"
#include "prelude_files.h"

namespace weir::codegen::detail {

const char* cuda_prelude_head_text() { return prelude::weir_cuda_head_h; }

const char* cuda_prelude_tail_text() { return prelude::weir_cuda_tail_h; }

}  // namespace weir::codegen::detail
