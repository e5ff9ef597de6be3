// Test support: .npy and flat JSON readers, part of the shared test library (weir_test_main).
#include "npy_test.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

namespace weir::test {

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) FAIL("cannot read " << p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The value text of 'key' in the header dict ({'descr': '<f8', 'fortran_order': False, ...}).
std::string dict_value(const std::string& header, const std::string& key) {
  auto k = header.find("'" + key + "'");
  if (k == std::string::npos) FAIL("npy header without '" << key << "': " << header);
  auto colon = header.find(':', k);
  std::size_t b = colon + 1;
  while (b < header.size() && header[b] == ' ') ++b;
  std::size_t e = b;
  if (header[b] == '\'') {
    e = header.find('\'', b + 1) + 1;
  } else if (header[b] == '(') {
    e = header.find(')', b) + 1;
  } else {
    while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  }
  return header.substr(b, e - b);
}

}  // namespace

double NpyArray::at(std::size_t i) const {
  const unsigned char* p = data.data() + i * item_size;
  if (descr == "<f8") {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (descr == "<f4") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (descr == "<i8") {
    long long v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  if (descr == "<i4") {
    int v;
    std::memcpy(&v, p, 4);
    return v;
  }
  return *p ? 1.0 : 0.0;  // |b1
}

NpyArray read_npy(const std::filesystem::path& path) {
  std::string raw = slurp(path);
  if (raw.size() < 10 || raw.compare(0, 6, "\x93NUMPY") != 0) FAIL(path.string() << " is not a .npy file");
  int major = static_cast<unsigned char>(raw[6]);
  std::size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(raw[8]) |
                 (static_cast<std::size_t>(static_cast<unsigned char>(raw[9])) << 8);
    offset = 10;
  } else {
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<std::size_t>(static_cast<unsigned char>(raw[8 + i])) << (8 * i);
    offset = 12;
  }
  std::string header = raw.substr(offset, header_len);
  NpyArray a;
  std::string descr = dict_value(header, "descr");
  a.descr = descr.substr(1, descr.size() - 2);
  if (a.descr == "<f8" || a.descr == "<i8")
    a.item_size = 8;
  else if (a.descr == "<f4" || a.descr == "<i4")
    a.item_size = 4;
  else if (a.descr == "|b1")
    a.item_size = 1;
  else
    FAIL(path.string() << ": unsupported dtype " << a.descr);
  if (dict_value(header, "fortran_order") != "False")
    FAIL(path.string() << ": Fortran order is not supported");
  std::string shape = dict_value(header, "shape");
  std::size_t count = 1;
  for (std::size_t i = 0; i < shape.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape[i]))) {
      std::size_t e = i;
      while (e < shape.size() && std::isdigit(static_cast<unsigned char>(shape[e]))) ++e;
      a.shape.push_back(std::stoull(shape.substr(i, e - i)));
      count *= a.shape.back();
      i = e;
    } else {
      ++i;
    }
  }
  std::size_t begin = offset + header_len;
  if (raw.size() - begin != count * a.item_size)
    FAIL(path.string() << ": " << raw.size() - begin << " data bytes, expected " << count * a.item_size);
  a.data.assign(raw.begin() + static_cast<std::ptrdiff_t>(begin), raw.end());
  return a;
}

std::map<std::string, std::string> read_flat_json(const std::filesystem::path& p) {
  std::string text = slurp(p);
  std::map<std::string, std::string> out;
  std::size_t i = 0;
  while ((i = text.find('"', i)) != std::string::npos) {
    std::size_t e = text.find('"', i + 1);
    std::string key = text.substr(i + 1, e - i - 1);
    std::size_t colon = text.find(':', e);
    std::size_t b = colon + 1;
    while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    std::size_t v = b;
    while (v < text.size() && text[v] != ',' && text[v] != '}' &&
           !std::isspace(static_cast<unsigned char>(text[v])))
      ++v;
    out[key] = text.substr(b, v - b);
    i = v;
  }
  return out;
}

}  // namespace weir::test
