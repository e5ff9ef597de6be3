// A precompiled header of the standard headers every generated CPU program includes (GCC), kept
// in the program cache: parsing them was about half of compiling a small program (ADR 0024).
#pragma once

#include <filesystem>
#include <string>

#include "weir/runtime/compiler.h"

namespace weir::runtime::detail {

/// The header to pass as `-include` when compiling a generated program with `settings` (its
/// `.gch` beside it), built on first use into <cache_root>/v1/pch/<key>/, the key hashing the
/// compiler's identity, the flags and `headers` (codegen::generated_headers()). Empty when there
/// is none: not GCC (clang reads PCHs differently), or building it failed. Never throws: the
/// header only saves time. GCC ignores a PCH built with other options and parses the header's
/// text instead, so a stale one changes nothing but the time; the library does not depend on it
/// (the program's cache key does not name it). Except that an interrupted compile
/// (CompileInterrupted) is thrown on, its temporary directory removed. Before building it
/// removes the temporaries of processes that are gone (a kill -9 during a build). The directory records the
/// .gch's size and SHA-256; one that differs (truncated by a full disk, changed), a header whose text differs
/// from `headers`, or files not the user's own (cache_trust.h) are moved aside and built again.
/// The process id a temporary in the cache is named with (`<hash>.tmp.<pid>.<thread>`,
/// `<hash>.stale.<pid>`); 0 when the name has none.
long stale_temporary_pid(const std::string& name);

/// Where the precompiled headers of the programs cached under `cache_root` are kept (the
/// `cache_root` to pass to prelude_pch): the directory WEIR_PCH_DIR names when it is set and not
/// empty, else `cache_root` itself. A setting for test runs (scripts/test.sh sets it; off by
/// default): each ctest entry has a program cache of its own, and without it each built its own
/// 19 MB header (docs/testing.md, "CI and its time"). The header is not part of a program's
/// cache key, so where it is kept changes no library, only the time.
std::filesystem::path prelude_pch_root(const std::filesystem::path& cache_root);

std::filesystem::path prelude_pch(const CompilerSettings& settings, const std::filesystem::path& cache_root,
                                  const std::string& headers, const CompilerInvocation& invoke = run_process);

}  // namespace weir::runtime::detail
