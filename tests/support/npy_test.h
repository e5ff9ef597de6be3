// A tiny .npy reader and flat-JSON reader for tests (the production reader is the runtime's).
// Supports little-endian '<f8', '<f4', '<i8', '<i4' and '|b1', C order, format versions 1-3.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace weir::test {

struct NpyArray {
  std::string descr;  // "<f8", ...
  std::vector<std::size_t> shape;
  std::size_t item_size = 0;        // bytes per element
  std::vector<unsigned char> data;  // raw little-endian elements, C order
  std::size_t size() const { return item_size ? data.size() / item_size : 0; }
  /// Element i as a double (any supported dtype).
  double at(std::size_t i) const;
};

/// Reads a .npy file; FAILs the current test on anything unsupported or malformed.
NpyArray read_npy(const std::filesystem::path& p);

/// Reads a flat JSON object of numbers ({"N": 64, "x": 0.5}) as name -> number text.
std::map<std::string, std::string> read_flat_json(const std::filesystem::path& p);

}  // namespace weir::test
