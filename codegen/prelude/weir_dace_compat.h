// The names trusted C++ written for DaCe's runtime uses (CPP tasklets and global code of SDFGs
// DaCe wrote: `dace::complex128 z = ...`, `dace::float64(x)`), given to user-written C++ only
// (prelude_headers, user_code). Written for weir from the names' meaning, DaCe's data types
// (dace/dtypes.py: complex64 and complex128 are std::complex of float and double, the others C's
// fixed-width types); not DaCe's headers. Embedded into generated code (cmake/embed_text.cmake).
#include <complex>
#include <cstdint>

namespace dace {
using bool_ = bool;
using int8 = std::int8_t;
using int16 = std::int16_t;
using int32 = std::int32_t;
using int64 = std::int64_t;
using uint8 = std::uint8_t;
using uint16 = std::uint16_t;
using uint32 = std::uint32_t;
using uint64 = std::uint64_t;
using float32 = float;
using float64 = double;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;
}  // namespace dace
