#include "prelude_pch.h"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "cache_trust.h"
#include "sha256.h"
#include "weir/runtime/compile_interrupt.h"

namespace weir::runtime::detail {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSumsName = "weir_prelude.h.gch.sha256";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Whether `dir` holds the user's own, intact precompiled header of `headers`: the header's text,
// and the .gch's size and SHA-256 as recorded when it was built (a .gch truncated by a full disk
// or a crash made every later compile fail). A verified file is not hashed again by this process
// while its inode, size and time stay the same.
bool verified_pch(const fs::path& dir, const std::string& headers, uid_t uid) {
  const fs::path header = dir / "weir_prelude.h", gch = dir / "weir_prelude.h.gch", sums = dir / kSumsName;
  for (const fs::path& p : {dir, header, gch, sums})
    if (!check_trusted(p, uid)) return false;
  if (read_text(header) != headers) return false;
  std::istringstream recorded(read_text(sums));
  std::uintmax_t size = 0;
  std::string hash;
  if (!(recorded >> size >> hash)) return false;
  struct stat st {};
  if (::stat(gch.c_str(), &st) != 0 || static_cast<std::uintmax_t>(st.st_size) != size) return false;
  static std::mutex mu;
  static std::set<std::tuple<std::string, ino_t, off_t, std::int64_t>> verified;
  const auto id =
      std::make_tuple(gch.string(), st.st_ino, st.st_size,
                      static_cast<std::int64_t>(st.st_mtim.tv_nsec) + st.st_mtim.tv_sec * 1000000000LL);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (verified.count(id)) return true;
  }
  if (sha256_file_hex(gch) != hash) return false;
  std::lock_guard<std::mutex> lock(mu);
  verified.insert(id);
  return true;
}

// The temporaries in `pch` (`<hash>.tmp.<pid>.<thread>`, `<hash>.stale.<pid>`) of processes that
// are gone: a build killed (kill -9, a crash) before it could remove its own.
void remove_stale_temporaries(const fs::path& pch) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& e : fs::directory_iterator(pch, ec))
    if (stale_temporary_pid(e.path().filename().string()) > 0 &&
        process_is_gone(stale_temporary_pid(e.path().filename().string())))
      stale.push_back(e.path());
  for (const fs::path& p : stale) fs::remove_all(p, ec);
}

}  // namespace

long stale_temporary_pid(const std::string& name) {
  for (const char* tag : {".tmp.", ".stale."}) {
    const std::size_t at = name.find(tag);
    if (at == std::string::npos) continue;
    const std::size_t start = at + std::strlen(tag);
    std::size_t end = start;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == start || end - start > 9) return 0;
    return std::stol(name.substr(start, end - start));
  }
  return 0;
}

std::filesystem::path prelude_pch_root(const fs::path& cache_root) {
  const char* shared = std::getenv("WEIR_PCH_DIR");
  return shared && *shared ? fs::path(shared) : cache_root;
}

std::filesystem::path prelude_pch(const CompilerSettings& settings, const fs::path& cache_root,
                                  const std::string& headers, const CompilerInvocation& invoke) {
  try {
    std::vector<std::string> flags = settings.flags;
    if (settings.openmp) flags.push_back("-fopenmp");
    flags.push_back("-fPIC");
    const std::string id = compiler_identity(settings.compiler, flags);
    if (id.find("clang") != std::string::npos ||
        (id.find("GCC") == std::string::npos && id.find("Free Software Foundation") == std::string::npos))
      return {};
    Sha256 h;
    h.field("weir prelude pch v1");
    h.field(id);
    for (const auto& f : flags) h.field(f);
    h.field(headers);
    const fs::path dir = cache_root / "v1" / "pch" / h.hex();
    fs::path header = dir / "weir_prelude.h";
    std::error_code ec;
    // Only a cache of the user's own (CacheError otherwise: no header, the program's own build
    // then refuses the cache with the reason).
    const uid_t uid = ::geteuid();
    make_private_directories(cache_root, uid, /*follow=*/true);
    check_ancestors(cache_root, uid);
    make_private_directories(dir.parent_path().parent_path(), uid);
    make_private_directories(dir.parent_path(), uid);
    remove_stale_temporaries(dir.parent_path());
    if (fs::exists(fs::symlink_status(dir, ec))) {
      if (verified_pch(dir, headers, uid)) return header;
      // Truncated, changed or foreign: moved aside and built again (readers that opened the old
      // files keep them).
      const fs::path aside = dir.string() + ".stale." + std::to_string(::getpid());
      if (::rename(dir.c_str(), aside.c_str()) == 0) fs::remove_all(aside, ec);
    }
    // Built in a private directory and renamed into place: readers never see a partial PCH.
    std::ostringstream tag;
    tag << ".tmp." << ::getpid() << "." << std::hash<std::thread::id>{}(std::this_thread::get_id());
    const fs::path tmp = dir.string() + tag.str();
    fs::remove_all(tmp, ec);
    make_private_directories(tmp, uid);
    {
      std::ofstream out(tmp / "weir_prelude.h");
      out << headers;
    }
    std::vector<std::string> argv{settings.compiler};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const char* a : {"-x", "c++-header", "-o"}) argv.push_back(a);
    argv.push_back((tmp / "weir_prelude.h.gch").string());
    argv.push_back((tmp / "weir_prelude.h").string());
    ProcessOutput r;
    try {
      r = invoke(argv);
    } catch (const CompileInterrupted&) {
      fs::remove_all(tmp, ec);  // the interrupted build's own temporaries
      throw;
    }
    if (r.exit_code != 0 || !fs::is_regular_file(tmp / "weir_prelude.h.gch", ec)) {
      fs::remove_all(tmp, ec);
      return {};
    }
    {
      // What the precompiled header must be: checked before every use.
      std::ofstream out(tmp / kSumsName);
      out << fs::file_size(tmp / "weir_prelude.h.gch") << " " << sha256_file_hex(tmp / "weir_prelude.h.gch")
          << "\n";
    }
    make_private_tree(tmp, {});
    fs::rename(tmp, dir, ec);
    if (ec) fs::remove_all(tmp, ec);  // another process installed it first
    return verified_pch(dir, headers, uid) ? header : fs::path();
  } catch (const CompileInterrupted&) {
    throw;
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace weir::runtime::detail
