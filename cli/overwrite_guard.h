// Refusing to write over a command's own input: `-o`, `--html` and `--out` never replace a file
// the command reads (issue 16: `weir sdfg x.py::p -o x.py` replaced the source with JSON).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace weir::cli {

/// True when `a` and `b` are one existing file: the same st_dev and st_ino, so that a link or
/// another spelling of the path counts, and two files of one name in different places do not.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

/// Throws UsageError (exit 2) when `written` is one of `inputs`:
///   "GIVEN: would overwrite the input file IN; choose another output NOUN"
/// `given` is the option as the user wrote it ("-o x.py", "--out results"); `noun` "file" or
/// "directory". An output that does not exist yet, a FIFO or /dev/stdout (unless it is an
/// input) passes.
void refuse_overwriting_input(const std::string& given, const std::filesystem::path& written,
                              const std::vector<std::filesystem::path>& inputs,
                              const std::string& noun = "file");

/// Throws UsageError (exit 2) when `written` ends in .py: weir writes no output (an SDFG, a page,
/// a report) to a name of Python source, which may be a program it read or one it did not
/// (`weir view x.sdfg --html x.py`, `weir convert x.sdfg -o x.py` replaced the source the SDFG
/// was lowered from):
///   "GIVEN: a .py file holds Python source; write the WHAT to another file"
void refuse_python_source_output(const std::string& given, const std::filesystem::path& written,
                                 const std::string& what);

/// Throws UsageError (exit 2) when file `written` cannot be written where it is named: it is a
/// directory, or its folder does not exist or is not a directory. Called before the work whose
/// result it receives (a run with --profile, an optimization), not after it:
///   "GIVEN: no such directory 'DIR' (weir creates no folders for it)"
void refuse_unwritable_output(const std::string& given, const std::filesystem::path& written);

}  // namespace weir::cli
