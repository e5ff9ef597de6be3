// A field-view program whose cpu run stops in a bounds check with a source location, for the
// tests of source locations at load time (ADR 0061): copy.py's `ident(f, out=out)` stands at
// line 9, column 5 (plus the comment lines written above it); with f of 4 points and out of 6
// the check fails: "FILE:9:5: 'f' is read over I: [0, 6), outside its domain I: [0, 4)".
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace weir::test {

inline const std::string kCopyProgram =
    "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
    "I = gtx.Dimension('I')\n@gtx.field_operator\n"
    "def ident(f: Field[[I], float64]) -> Field[[I], float64]:\n    return f\n"
    "@gtx.program\ndef copy(f: Field[[I], float64], out: Field[[I], float64]):\n"
    "    ident(f, out=out)\n";

/// Writes DIR/copy.py (DIR created) with `comments` comment lines above the program; its path.
inline std::filesystem::path write_copy_program(const std::filesystem::path& dir, int comments = 0) {
  std::filesystem::create_directories(dir);
  std::ofstream out(dir / "copy.py");
  for (int k = 0; k < comments; ++k) out << "# a comment line added above the program\n";
  out << kCopyProgram;
  return dir / "copy.py";
}

/// The head of the failed bounds check's message with the call at `file`:`line`.
inline std::string copy_bounds_head(const std::filesystem::path& file, int line) {
  return file.string() + ":" + std::to_string(line) +
         ":5: 'f' is read over I: [0, 6), outside its domain I: [0, 4)\n";
}

}  // namespace weir::test
