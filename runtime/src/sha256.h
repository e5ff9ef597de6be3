// SHA-256 digests (OpenSSL libcrypto), internal to the runtime layer: program-cache keys and
// manifest checks of cached libraries.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace weir::runtime::detail {

/// Incremental SHA-256; hex() finishes it.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  /// A length-prefixed field, so that ("ab","c") and ("a","bc") hash differently.
  void field(std::string_view bytes);
  /// 64 lowercase hex digits. The object cannot be updated afterwards.
  std::string hex();

 private:
  void* ctx_;
};

/// Hex SHA-256 of bytes.
std::string sha256_hex(std::string_view bytes);
/// Hex SHA-256 of a file's contents; throws RuntimeError if it cannot be read.
std::string sha256_file_hex(const std::filesystem::path& path);

}  // namespace weir::runtime::detail
