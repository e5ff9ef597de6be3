// libFuzzer target: the .npy reader (header, dtype, shape, data size). Whatever it accepts
// must write back to bytes that read as the same array.
#include <cstring>

#include "fuzz_support.h"
#include "weir/runtime/npy.h"

using namespace weir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_located_errors([&] {
    runtime::Field f = runtime::parse_npy(fuzz::as_text(data, size), "fuzz.npy");
    runtime::Field g = runtime::parse_npy(runtime::to_npy_bytes(f), "rewritten.npy");
    fuzz::require(g.shape() == f.shape() && g.dtype() == f.dtype() && g.nbytes() == f.nbytes() &&
                      std::memcmp(g.data(), f.data(), f.nbytes()) == 0,
                  "a .npy file read back differently after writing");
  });
  return 0;
}
