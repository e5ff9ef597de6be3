// .npy reading and writing. Format: magic "\x93NUMPY", major and minor version bytes, header
// length (uint16 LE for 1.x, uint32 LE for 2.x/3.x), a Python dict literal header
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and ending in
// '\n', then the raw data.
#include "weir/runtime/npy.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "weir/runtime/errors.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/output_file.h"

namespace weir::runtime {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::size_t kMaxHeaderBytes = 10000;

struct DtypeInfo {
  char kind;  // f, i, u, b
  std::size_t size;
  ScalarType type;
};

constexpr DtypeInfo kDtypes[] = {
    {'f', 8, ScalarType::Float64},   {'f', 4, ScalarType::Float32}, {'i', 8, ScalarType::Int64},
    {'i', 4, ScalarType::Int32},     {'i', 2, ScalarType::Int16},   {'i', 1, ScalarType::Int8},
    {'u', 8, ScalarType::UInt64},    {'u', 4, ScalarType::UInt32},  {'u', 2, ScalarType::UInt16},
    {'u', 1, ScalarType::UInt8},     {'b', 1, ScalarType::Bool},    {'c', 16, ScalarType::Complex128},
    {'c', 8, ScalarType::Complex64}, {'f', 2, ScalarType::Float16},
};

[[noreturn]] void fail(const std::string& origin, const std::string& msg) {
  throw NpyError(origin + ": " + msg);
}

// A value of the header dict.
struct HeaderValue {
  enum class Kind { String, Bool, Tuple, Other } kind = Kind::Other;
  std::string str;
  bool boolean = false;
  std::vector<std::int64_t> tuple;
};

// A parser for the Python literal subset NumPy writes in headers.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& origin) : t_(text), origin_(origin) {}

  std::map<std::string, HeaderValue> parse() {
    std::map<std::string, HeaderValue> d;
    skip();
    expect('{');
    skip();
    while (peek() != '}') {
      std::string key = string_literal();
      skip();
      expect(':');
      skip();
      d[key] = value();
      skip();
      if (peek() == ',') {
        ++p_;
        skip();
      } else if (peek() != '}') {
        bad("expected ',' or '}'");
      }
    }
    ++p_;
    skip();
    if (p_ != t_.size()) bad("unexpected text after the header dict");
    return d;
  }

 private:
  std::string_view t_;
  const std::string& origin_;
  std::size_t p_ = 0;

  [[noreturn]] void bad(const std::string& what) {
    fail(origin_, "corrupt .npy header (" + what + " at offset " + std::to_string(p_) + " of '" +
                      std::string(t_.substr(0, 200)) + "')");
  }
  char peek() {
    if (p_ >= t_.size()) bad("unexpected end");
    return t_[p_];
  }
  void skip() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  void expect(char c) {
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++p_;
  }
  std::string string_literal() {
    char q = peek();
    if (q != '\'' && q != '"') bad("expected a string");
    ++p_;
    std::string s;
    while (peek() != q) {
      if (t_[p_] == '\\') ++p_;
      s += peek();
      ++p_;
    }
    ++p_;
    return s;
  }
  std::int64_t integer() {
    std::size_t start = p_;
    while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    if (p_ == start) bad("expected an integer");
    std::int64_t v = 0;
    for (std::size_t i = start; i < p_; ++i) {
      if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) bad("integer too large");
      v = v * 10 + (t_[i] - '0');
    }
    if (p_ < t_.size() && (t_[p_] == 'L' || t_[p_] == 'l')) ++p_;  // Python 2 longs
    return v;
  }
  HeaderValue value() {
    HeaderValue v;
    char c = peek();
    if (c == '\'' || c == '"') {
      v.kind = HeaderValue::Kind::String;
      v.str = string_literal();
    } else if (t_.substr(p_, 4) == "True") {
      v.kind = HeaderValue::Kind::Bool;
      v.boolean = true;
      p_ += 4;
    } else if (t_.substr(p_, 5) == "False") {
      v.kind = HeaderValue::Kind::Bool;
      p_ += 5;
    } else if (c == '(') {
      v.kind = HeaderValue::Kind::Tuple;
      ++p_;
      skip();
      while (peek() != ')') {
        v.tuple.push_back(integer());
        skip();
        if (peek() == ',') {
          ++p_;
          skip();
        } else if (peek() != ')') {
          bad("expected ',' or ')' in the shape");
        }
      }
      ++p_;
    } else if (c == '[' || c == '{') {
      // Structured dtypes: skip the nested literal, reported as unsupported by the caller.
      int depth = 0;
      do {
        char x = peek();
        if (x == '[' || x == '{' || x == '(') ++depth;
        if (x == ']' || x == '}' || x == ')') --depth;
        if (x == '\'' || x == '"') {
          string_literal();
          continue;
        }
        ++p_;
      } while (depth > 0);
    } else {
      bad("unexpected value");
    }
    return v;
  }
};

void byteswap(unsigned char* data, std::size_t count, std::size_t item) {
  for (std::size_t i = 0; i < count; ++i) std::reverse(data + i * item, data + (i + 1) * item);
}

std::uint32_t read_le(std::string_view b, std::size_t at, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

}  // namespace

std::optional<std::string> npy_descr(ScalarType t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return std::string(d.size == 1 ? "|" : "<") + d.kind + std::to_string(d.size);
  return std::nullopt;
}

Field parse_npy(std::string_view bytes, const std::string& origin, const Allocator& allocator) {
  if (bytes.size() < kMagicLen + 2 || bytes.substr(0, kMagicLen) != std::string_view(kMagic, kMagicLen))
    fail(origin, bytes.empty() ? "empty file, not a .npy file"
                               : "not a .npy file (no \\x93NUMPY magic at the start)");
  int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3)
    fail(origin, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                     " (weir reads 1.0, 2.0 and 3.0)");
  std::size_t len_bytes = major == 1 ? 2 : 4;
  std::size_t header_start = kMagicLen + 2 + len_bytes;
  if (bytes.size() < header_start) fail(origin, "truncated: the file ends inside the .npy preamble");
  std::size_t header_len = read_le(bytes, kMagicLen + 2, len_bytes);
  // NumPy's own reader refuses longer headers (numpy.lib.format, max_header_size) as unsafe;
  // the parser's memory stays bounded whatever a 2.0 header's 32-bit length claims.
  if (header_len > kMaxHeaderBytes)
    fail(origin, "corrupt .npy header: " + std::to_string(header_len) + " bytes, more than the limit of " +
                     std::to_string(kMaxHeaderBytes) + " (NumPy's max_header_size)");
  if (bytes.size() < header_start + header_len)
    fail(origin, "truncated: the header says " + std::to_string(header_len) +
                     " bytes but the file ends after " + std::to_string(bytes.size() - header_start));
  std::string_view header = bytes.substr(header_start, header_len);
  auto dict = HeaderParser(header, origin).parse();
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!dict.count(key)) fail(origin, std::string("corrupt .npy header: no '") + key + "' key");
  const auto& descr = dict["descr"];
  if (descr.kind != HeaderValue::Kind::String)
    fail(origin, "unsupported dtype: structured arrays (a list 'descr') are not supported");
  if (dict["fortran_order"].kind != HeaderValue::Kind::Bool)
    fail(origin, "corrupt .npy header: 'fortran_order' is not a bool");
  if (dict["fortran_order"].boolean)
    fail(origin, "Fortran-order arrays are not supported; save a C-order array (numpy.ascontiguousarray(a))");
  if (dict["shape"].kind != HeaderValue::Kind::Tuple)
    fail(origin, "corrupt .npy header: 'shape' is not a tuple");

  const std::string& ds = descr.str;
  const DtypeInfo* info = nullptr;
  bool swap = false;
  if (ds.size() >= 3 && std::string("<>|=").find(ds[0]) != std::string::npos) {
    std::size_t size = 0;
    try {
      size = std::stoul(ds.substr(2));
    } catch (const std::exception&) {
    }
    for (const auto& d : kDtypes)
      if (d.kind == ds[1] && d.size == size && std::to_string(size) == ds.substr(2)) info = &d;
    if (info && ds[0] == '>' && info->size > 1) swap = true;
    if (info && ds[0] == '|' && info->size > 1) info = nullptr;
  }
  if (!info)
    fail(origin, "unsupported dtype '" + ds +
                     "' (weir reads bool, int8-64, uint8-64, float16-64, complex64 and complex128: '|b1', "
                     "'|i1', '<i2', "
                     "'<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', '<f4', '<f8', '<c8', '<c16')");

  // The data size the shape claims, checked before allocating (a hostile shape overflows it).
  // As NumPy, the nonzero extents of an empty array must give a representable size too.
  std::uint64_t bytes_needed = info->size;
  bool empty = false;
  for (auto n : dict["shape"].tuple) {
    if (n < 0)
      fail(origin, "corrupt .npy header: negative extent in shape " + shape_str(dict["shape"].tuple));
    if (n == 0) {
      empty = true;
      continue;
    }
    if (bytes_needed >
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / static_cast<std::uint64_t>(n))
      fail(origin,
           "corrupt .npy header: shape " + shape_str(dict["shape"].tuple) + " has more bytes than any array");
    bytes_needed *= static_cast<std::uint64_t>(n);
  }
  if (empty) bytes_needed = 0;
  // (Before allocating: a small file must not make weir allocate what its header claims.)
  if (bytes.size() - (header_start + header_len) < bytes_needed)
    fail(origin, "truncated: " + std::string(to_string(info->type)) + " " + shape_str(dict["shape"].tuple) +
                     " needs " + std::to_string(bytes_needed) + " bytes of data, the file has " +
                     std::to_string(bytes.size() - (header_start + header_len)));
  Field f = [&] {
    try {
      return allocator.allocate(info->type, dict["shape"].tuple);
    } catch (const std::exception& e) {
      fail(origin, std::string("cannot allocate the array: ") + e.what());
    }
  }();
  std::size_t data_start = header_start + header_len;
  std::size_t have = bytes.size() - data_start;
  if (have < f.nbytes())
    fail(origin, "truncated: " + f.describe() + " needs " + std::to_string(f.nbytes()) +
                     " bytes of data, the file has " + std::to_string(have));
  if (have > f.nbytes())
    fail(origin, "corrupt: " + std::to_string(have - f.nbytes()) + " bytes after the data of " +
                     f.describe() + " (not a single .npy array)");
  std::memcpy(f.data(), bytes.data() + data_start, f.nbytes());
  // A complex number is two floats, each in the file's byte order.
  if (swap) {
    bool cplx = info->kind == 'c';
    byteswap(static_cast<unsigned char*>(f.data()), static_cast<std::size_t>(f.size()) * (cplx ? 2 : 1),
             cplx ? info->size / 2 : info->size);
  }
  if (info->type == ScalarType::Bool) {
    auto* b = static_cast<unsigned char*>(f.data());
    for (std::int64_t i = 0; i < f.size(); ++i) b[i] = b[i] != 0;
  }
  return f;
}

Field read_npy(const std::filesystem::path& path, const Allocator& allocator) {
  // Regular files only, refused before reading: a FIFO would block forever, /dev/zero never end.
  InputFile f = open_input_file(path.string());
  if (f.directory) fail(path.string(), "is a directory, not a .npy file");
  // (As every file weir reads: "PATH: cannot open: No such file or directory".)
  if (f.fd < 0) fail(path.string(), "cannot open: " + f.error);
  std::string bytes;
  bytes.reserve(f.size);  // one buffer of the file's size, not a doubling string's twice that
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(f.fd);
      fail(path.string(), std::string("read error: ") + std::strerror(err));
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  ::close(f.fd);
  return parse_npy(bytes, path.string(), allocator);
}

std::string to_npy_bytes(const Field& field) {
  auto descr = npy_descr(field.dtype());
  if (!descr) throw NpyError("cannot write " + field.describe() + " as .npy: unsupported dtype");
  std::string dict =
      "{'descr': '" + *descr + "', 'fortran_order': False, 'shape': " + shape_str(field.shape()) + ", }";
  // Pad with spaces so that preamble + header (ending in '\n') is a multiple of 64 bytes;
  // format 2.0 only when the header does not fit 1.0's 16-bit length.
  int major = 1;
  std::size_t preamble = kMagicLen + 2 + 2;
  auto padded = [&] { return (preamble + dict.size() + 1 + 63) / 64 * 64 - preamble; };
  if (padded() > 65535) {
    major = 2;
    preamble = kMagicLen + 2 + 4;
  }
  dict.append(padded() - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(major);
  out += '\0';
  std::size_t hl = dict.size();
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += static_cast<char>((hl >> (8 * i)) & 0xff);
  out += dict;
  out.append(static_cast<const char*>(field.data()), field.nbytes());
  return out;
}

void write_npy(const std::filesystem::path& path, const Field& field) {
  std::string bytes = to_npy_bytes(field);
  std::error_code dir_ec;
  if (std::filesystem::is_directory(path, dir_ec)) fail(path.string(), "cannot write: is a directory");
  try {
    // Replaced whole (through a symbolic link, at its target) or left as it was.
    write_file_atomically(path, bytes);
  } catch (const OutputFileError& e) {
    // The system's reason ("No space left on device"), not only that it failed.
    fail(path.string(), "cannot write: " + e.reason());
  }
}

}  // namespace weir::runtime
