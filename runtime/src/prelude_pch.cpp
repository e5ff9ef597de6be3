#include "prelude_pch.h"

#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "sha256.h"

namespace weir::runtime::detail {
namespace fs = std::filesystem;

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
    if (fs::is_regular_file(fs::path(header.string() + ".gch"), ec)) return header;
    // Built in a private directory and renamed into place: readers never see a partial PCH.
    std::ostringstream tag;
    tag << ".tmp." << ::getpid() << "." << std::hash<std::thread::id>{}(std::this_thread::get_id());
    const fs::path tmp = dir.string() + tag.str();
    fs::create_directories(tmp);
    {
      std::ofstream out(tmp / "weir_prelude.h");
      out << headers;
    }
    std::vector<std::string> argv{settings.compiler};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const char* a : {"-x", "c++-header", "-o"}) argv.push_back(a);
    argv.push_back((tmp / "weir_prelude.h.gch").string());
    argv.push_back((tmp / "weir_prelude.h").string());
    ProcessOutput r = invoke(argv);
    if (r.exit_code != 0 || !fs::is_regular_file(tmp / "weir_prelude.h.gch", ec)) {
      fs::remove_all(tmp, ec);
      return {};
    }
    fs::rename(tmp, dir, ec);
    if (ec) fs::remove_all(tmp, ec);  // another process installed it first
    return fs::is_regular_file(fs::path(header.string() + ".gch"), ec) ? header : fs::path();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace weir::runtime::detail
