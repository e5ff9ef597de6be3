// NumPy's .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
// reading and writing single arrays, so inputs and outputs can be prepared and checked with
// NumPy. Own implementation (Debian packages no standalone C++ .npy library; see ADR 0006).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "weir/runtime/allocator.h"
#include "weir/runtime/field.h"

namespace weir::runtime {

/// Reads a .npy file: format versions 1.0, 2.0 and 3.0; dtypes '<f8', '<f4', '<i8', '<i4',
/// '<i2', '|i1', '<u8', '<u4', '<u2', '|u1', '|b1' (big-endian '>' variants are byte-swapped,
/// '=' means native); C order only. Throws NpyError naming the file for an unreadable,
/// truncated or corrupt file, an unsupported dtype, or fortran_order True ("Fortran-order
/// arrays are not supported; save with numpy.ascontiguousarray").
Field read_npy(const std::filesystem::path& path, const Allocator& allocator = Allocator::cpu());

/// Parses the bytes of a .npy file; `origin` names it in errors. Throws NpyError as read_npy.
Field parse_npy(std::string_view bytes, const std::string& origin,
                const Allocator& allocator = Allocator::cpu());

/// The bytes of `field` as a .npy file: format 1.0 (2.0 if the header needs more than 65535
/// bytes), little-endian descr, fortran_order False, header padded so the data starts at a
/// multiple of 64 bytes (as NumPy writes). Throws NpyError for an unsupported dtype.
std::string to_npy_bytes(const Field& field);

/// Writes `field` to `path` (see to_npy_bytes), atomically as write_file_atomically() (through a
/// symbolic link at its target). Throws NpyError naming the file and the system's reason on failure.
void write_npy(const std::filesystem::path& path, const Field& field);

/// The little-endian .npy descr of a dtype ("<f8", "|b1"); nullopt for types .npy files in
/// weir cannot hold (void, float16, complex).
std::optional<std::string> npy_descr(ScalarType t);

}  // namespace weir::runtime
