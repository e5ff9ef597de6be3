// SourceFile line table and SourceError formatting (the frontend names it FrontendError).
#include "pycode_test_util.h"

using namespace weir::pycode;

TEST_CASE("SourceFile splits lines and normalises line endings", "[parser][source]") {
  SourceFile f("a.py", "\xEF\xBB\xBFx = 1\r\ny = 2\rz = 3\n");
  CHECK(f.path() == "a.py");
  CHECK(f.text() == "x = 1\ny = 2\nz = 3\n");
  CHECK(f.line_count() == 3);
  CHECK(f.line(1) == "x = 1");
  CHECK(f.line(2) == "y = 2");
  CHECK(f.line(3) == "z = 3");
  CHECK(f.line(4).empty());
  CHECK(f.line_offset(2) == 6);

  SourceFile no_newline("b.py", "a\nb");
  CHECK(no_newline.line_count() == 2);
  CHECK(no_newline.line(2) == "b");
  SourceFile copy = no_newline;
  CHECK(copy == no_newline);
  CHECK_FALSE(SourceFile().valid());
}

TEST_CASE("SourceFile::load reads files and reports missing ones", "[parser][source]") {
  SourceFile f = SourceFile::load(weir::pycode::test::data_path("lap.py"));
  CHECK(f.line(1) == "import gt4py.next as gtx");
  CHECK_THROWS_AS(SourceFile::load("/nonexistent/dir/x.py"), weir::Error);
}

TEST_CASE("FrontendError shows location, source line and caret", "[parser][source]") {
  SourceFile f("k.py", "def f():\n\treturn a $ b\n");
  SourceError e(SourceLocation{f, 2, 11}, "invalid character");
  CHECK(std::string(e.what()) ==
        "k.py:2:11: error: invalid character\n"
        "\treturn a $ b\n"
        "\t         ^");
  CHECK(e.message() == "invalid character");
  CHECK(e.location().str() == "k.py:2:11");

  // Columns count characters, not bytes: the caret lines up after non-ASCII text.
  SourceFile u("u.py", "s = \"\xC3\xA9\xC3\xA9\" $\n");
  SourceError e2(SourceLocation{u, 1, 10}, "x");
  CHECK(std::string(e2.what()).substr(std::string(e2.what()).rfind('\n') + 1) == "         ^");

  SourceError unknown(SourceLocation{}, "no location");
  CHECK(std::string(unknown.what()) == "<unknown>: error: no location");
}
