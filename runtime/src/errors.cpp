#include "weir/runtime/errors.h"

#include <sstream>
#include <vector>

namespace weir::runtime {
namespace {

// Whether a line of compiler output reports a failure: a diagnostic ("error", "fatal") or the
// system's reason a tool stopped (the linker's "final link failed: No space left on device" has
// no "error" in it, and the "collect2: error" line after it says nothing of the cause).
bool is_failure_line(const std::string& l) {
  for (const char* w : {"error", "fatal", "failed", "No space left", "Disk quota", "Killed",
                        "Cannot allocate memory", "Read-only file system", "Permission denied"})
    if (l.find(w) != std::string::npos) return true;
  return false;
}

// The lines a reader needs first: failure lines and the two after each (the compiler's source
// excerpt and caret), at most 12; all of the output if it has no such line.
std::string first_error_lines(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::string> picked;
  constexpr std::size_t kMax = 12;
  for (std::size_t i = 0; i < lines.size() && picked.size() < kMax; ++i) {
    if (!is_failure_line(lines[i])) continue;
    for (std::size_t k = i; k < lines.size() && k < i + 3 && picked.size() < kMax; ++k)
      picked.push_back(lines[k]);
    i += 2;
  }
  if (picked.empty())
    for (std::size_t i = 0; i < lines.size() && i < kMax; ++i) picked.push_back(lines[i]);
  std::string out;
  for (const auto& l : picked) out += "\n  " + l;
  if (lines.size() > picked.size())
    out += "\n  ... (" + std::to_string(lines.size() - picked.size()) + " more lines of compiler output)";
  return out;
}

std::string compile_message(const std::string& program, const std::string& command, int exit_code,
                            const std::string& output, const std::string& source) {
  std::string compiler = command.substr(0, command.find(' '));
  std::string m = "compiling program '" + program + "' failed: " + compiler + " exited with code " +
                  std::to_string(exit_code) + "\ngenerated source: " + source +
                  " (its comments name the SDFG state, node and memlet each part was generated from)";
  if (output.empty())
    m += "\n  (the compiler printed nothing)";
  else
    m += first_error_lines(output);
  return m;
}

}  // namespace

CompileError::CompileError(std::string program, std::string command, int exit_code,
                           std::string compiler_output, std::string source_path)
    : RuntimeError(compile_message(program, command, exit_code, compiler_output, source_path)),
      program_(std::move(program)),
      command_(std::move(command)),
      exit_code_(exit_code),
      output_(std::move(compiler_output)),
      source_path_(std::move(source_path)) {}

CompileError CompileError::with_source_path(std::string path) const {
  return CompileError(program_, command_, exit_code_, output_, std::move(path));
}

}  // namespace weir::runtime
