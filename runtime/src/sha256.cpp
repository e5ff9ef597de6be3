#include "sha256.h"

#include <openssl/evp.h>

#include <cstdio>
#include <vector>

#include "weir/runtime/errors.h"

namespace weir::runtime::detail {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw RuntimeError("OpenSSL: cannot initialize SHA-256");
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256::update(std::string_view bytes) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size()) != 1)
    throw RuntimeError("OpenSSL: SHA-256 update failed");
}

void Sha256::field(std::string_view bytes) {
  std::string len = std::to_string(bytes.size()) + ":";
  update(len);
  update(bytes);
}

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &n) != 1)
    throw RuntimeError("OpenSSL: SHA-256 failed");
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < n; ++i) {
    s += digits[md[i] >> 4];
    s += digits[md[i] & 15];
  }
  return s;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

std::string sha256_file_hex(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw RuntimeError("cannot read " + path.string());
  Sha256 h;
  std::vector<char> buf(1 << 16);
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) h.update(std::string_view(buf.data(), n));
  bool err = std::ferror(f);
  std::fclose(f);
  if (err) throw RuntimeError("read error on " + path.string());
  return h.hex();
}

}  // namespace weir::runtime::detail
