// SDFG files on disk: plain or gzip-compressed (.sdfgz) JSON, written atomically.
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "weir/sdfg/input_file.h"
#include "weir/sdfg/output_file.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/source_files.h"

namespace weir {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The largest SDFG text read (after decompression): WEIR_MAX_SDFG_BYTES, default 256 MiB, so a
// small gzip bomb fails clearly instead of exhausting memory (reading peaks near twice the limit;
// the largest SDFG DaCe writes for npbench is 0.5 MB).
std::size_t max_sdfg_bytes() { return byte_limit("WEIR_MAX_SDFG_BYTES", std::size_t{256} << 20); }

// gzread passes uncompressed files through unchanged, so one reader serves both forms.
std::string read_file(const std::string& path) {
  // Regular files only, refused before reading: a FIFO would block forever, /dev/zero never end.
  InputFile in = open_input_file(path);
  if (in.directory) throw SdfgLoadError(path, "", "", "is a directory, not an SDFG file");
  if (in.fd < 0) throw SdfgLoadError(path, "", "", "cannot open: " + in.error);
  gzFile f = gzdopen(in.fd, "rb");
  if (!f) {
    ::close(in.fd);
    throw SdfgLoadError(path, "", "", std::string("cannot open: ") + std::strerror(errno));
  }
  const std::size_t limit = max_sdfg_bytes();
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit) {
      bool gz = gzdirect(f) == 0;
      gzclose(f);
      throw SdfgLoadError(path, "", "",
                          std::string(gz ? "decompressed size" : "size") + " exceeds the limit of " +
                              std::to_string(limit) + " bytes (set WEIR_MAX_SDFG_BYTES to raise it)");
    }
  }
  // A truncated gzip stream ends with n == 0 and Z_BUF_ERROR, corrupt data with n < 0.
  int err = Z_OK;
  std::string msg = gzerror(f, &err);
  bool gz = gzdirect(f) == 0;
  long offset = gz ? static_cast<long>(gzoffset(f)) : -1;
  gzclose(f);
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
    if (!gz) throw SdfgLoadError(path, "", "", "cannot read: " + msg);
    std::string what = err == Z_BUF_ERROR ? "truncated gzip data (unexpected end of file)"
                                          : "corrupt gzip data (" + msg + ")";
    throw SdfgLoadError(path, "", "", what + " at compressed byte " + std::to_string(offset));
  }
  return out;
}

// `text` as a gzip stream (what gzwrite writes), in memory.
std::string gzip_bytes(const std::string& text, const std::string& path) {
  if (text.size() > 0xffffffffu)
    throw Error("cannot write '" + path + "': too large to compress (over 4 GiB)");
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("cannot write '" + path + "': gzip compression failed to start");
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw Error("cannot write '" + path + "': gzip compression failed");
  return out;
}

}  // namespace

std::unique_ptr<SDFG> load_sdfg(const std::string& path) {
  std::string text = read_file(path);
  std::unique_ptr<SDFG> sdfg = sdfg_from_json_text(text, path);
  protect_source_files(text, path);  // a command's outputs never replace the SDFG's sources
  return sdfg;
}

void save_sdfg(const SDFG& sdfg, const std::string& path, const SaveOptions& options) {
  // Serialize (and compress) fully before touching the file system: a failure leaves nothing
  // behind. The file is replaced atomically, through a symbolic link to its target.
  std::string text = sdfg_to_json_text(sdfg, options.indent);
  bool compress = options.compress.value_or(ends_with(path, ".sdfgz"));
  if (compress) text = gzip_bytes(text, path);
  write_file_atomically(path, text);
}

SdfgLoadError::SdfgLoadError(std::string file, std::string json_path, std::string element,
                             std::string message)
    : Error(file + ": " + (json_path.empty() ? "" : json_path + ": ") +
            (element.empty() ? "" : element + ": ") + message),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      element_(std::move(element)),
      message_(std::move(message)) {}

SdfgLoadError::SdfgLoadError(const InvalidJsonError& e)
    : Error(e.what()), file_(e.origin()), json_path_("/"), message_("invalid JSON: " + e.problem()) {}

}  // namespace weir
