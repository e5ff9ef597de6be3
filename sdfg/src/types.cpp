// Enum <-> name tables. Names are DaCe's spellings (dtypes.py), so that files round-trip.
#include "weir/sdfg/types.h"

#include <array>
#include <cstddef>

namespace weir {
namespace {

// Finds `name` in a name table indexed by enum value. DaCe sometimes writes the qualified
// form ("StorageType.CPU_Heap"), so a "Class." prefix is ignored.
template <class E, std::size_t N>
std::optional<E> lookup(const std::array<std::string_view, N>& names, std::string_view name) {
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name.remove_prefix(dot + 1);
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, E e) {
  auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : std::string_view("<invalid>");
}

constexpr std::array<std::string_view, 15> kScalarNames = {
    "bool",   "int8",    "int16",   "int32",   "int64",     "uint8",      "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "complex64", "complex128", "void"};

constexpr std::array<std::string_view, 15> kScalarCpp = {
    "bool",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "_Float16",  // no standard C++20 half type; GCC/Clang extension
    "float",
    "double",
    "std::complex<float>",
    "std::complex<double>",
    "void"};

constexpr std::array<std::size_t, 15> kScalarSize = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16, 0};

constexpr std::array<std::string_view, 15> kStorageNames = {
    "Default",     "Register",    "CPU_Pinned", "CPU_Heap",       "CPU_ThreadLocal",    "GPU_Global",
    "GPU_Shared",  "FPGA_Global", "FPGA_Local", "FPGA_Registers", "FPGA_ShiftRegister", "SVE_Register",
    "Snitch_TCDM", "Snitch_L2",   "Snitch_SSR"};

constexpr std::array<std::string_view, 16> kScheduleNames = {"Default",
                                                             "Sequential",
                                                             "MPI",
                                                             "CPU_Multicore",
                                                             "CPU_Persistent",
                                                             "Unrolled",
                                                             "SVE_Map",
                                                             "GPU_Default",
                                                             "GPU_Device",
                                                             "GPU_ThreadBlock",
                                                             "GPU_ThreadBlock_Dynamic",
                                                             "GPU_Persistent",
                                                             "FPGA_Device",
                                                             "FPGA_Multi_Pumped",
                                                             "Snitch",
                                                             "Snitch_Multicore"};

constexpr std::array<std::string_view, 5> kLifetimeNames = {"Scope", "State", "Persistent", "Global",
                                                            "External"};

constexpr std::array<std::string_view, 5> kLanguageNames = {"Python", "CPP", "OpenCL", "SystemVerilog",
                                                            "MLIR"};

constexpr std::array<std::string_view, 2> kDeviceNames = {"CPU", "GPU"};

}  // namespace

std::string_view to_string(ScalarType t) { return name_of(kScalarNames, t); }

std::optional<ScalarType> scalar_type_from_string(std::string_view name) {
  // "dace.float64" / "numpy.float64" are accepted like the bare names.
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name.remove_prefix(dot + 1);
  // NumPy / Python aliases DaCe accepts as well.
  if (name == "float" || name == "float_" || name == "double") return ScalarType::Float64;
  if (name == "int" || name == "int_" || name == "intp") return ScalarType::Int64;
  if (name == "bool_" || name == "boolean") return ScalarType::Bool;
  if (name == "complex" || name == "complex_") return ScalarType::Complex128;
  if (name == "half") return ScalarType::Float16;
  return lookup<ScalarType>(kScalarNames, name);
}

std::size_t size_of(ScalarType t) {
  auto i = static_cast<std::size_t>(t);
  return i < kScalarSize.size() ? kScalarSize[i] : 0;
}

std::string_view cpp_name(ScalarType t) { return name_of(kScalarCpp, t); }

std::string_view to_string(StorageType s) { return name_of(kStorageNames, s); }
std::optional<StorageType> storage_type_from_string(std::string_view name) {
  return lookup<StorageType>(kStorageNames, name);
}

std::string_view to_string(ScheduleType s) { return name_of(kScheduleNames, s); }
std::optional<ScheduleType> schedule_type_from_string(std::string_view name) {
  return lookup<ScheduleType>(kScheduleNames, name);
}

std::string_view to_string(AllocationLifetime l) { return name_of(kLifetimeNames, l); }
std::optional<AllocationLifetime> allocation_lifetime_from_string(std::string_view name) {
  return lookup<AllocationLifetime>(kLifetimeNames, name);
}

std::string_view to_string(Language l) { return name_of(kLanguageNames, l); }
std::optional<Language> language_from_string(std::string_view name) {
  return lookup<Language>(kLanguageNames, name);
}

std::string_view to_string(DeviceType d) { return name_of(kDeviceNames, d); }

}  // namespace weir
