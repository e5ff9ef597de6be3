// The field-view corpus (tests/frontend/data/fvcorpus): one small program per construct and per
// type error, each headed by gt4py's documented decision and weir's (`# weir: accept` or
// `# weir: reject LINE:COL message`). weir must decide as recorded, at the recorded location,
// and every program where the two differ must be explained in docs/field-view-differences.md.
#include <filesystem>

#include "typecheck_test_util.h"

namespace fs = std::filesystem;
using namespace weir::frontend;
using namespace weir::frontend::test;

TEST_CASE("fv corpus: weir's decisions and their differences from gt4py are recorded",
          "[typecheck][corpus]") {
  fs::path dir = data_path("fvcorpus");
  std::string doc = read_text(std::string(WEIR_SOURCE_DIR) + "/docs/field-view-differences.md");
  int files = 0, differences = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".py" || e.path().filename() == "grid.py") continue;
    ++files;
    std::string name = e.path().stem().string();
    INFO(name);
    std::string text = read_text(e.path().string());
    std::istringstream lines(text);
    std::string gt, weir;
    std::getline(lines, gt);
    std::getline(lines, weir);
    REQUIRE(gt.rfind("# gt4py: ", 0) == 0);
    REQUIRE(weir.rfind("# weir: ", 0) == 0);
    bool gt_accepts = gt.substr(9, 6) == "accept";
    bool weir_accepts = weir.substr(8, 6) == "accept";
    ModuleLoader loader(LoaderOptions{{dir.string()}, false});
    TypeChecker tc;
    std::vector<FrontendError> errors;
    std::size_t defs = 0;
    try {
      ModuleCheck r = tc.check_all(loader.load_file(e.path().string()));
      errors = r.errors;
      defs = r.definitions;
    } catch (const FrontendError& err) {
      errors.push_back(err);
    }
    if (weir_accepts) {
      CHECK(errors.empty());
      CHECK(defs > 0);
      for (const FrontendError& err : errors) INFO(err.what());
    } else {
      REQUIRE_FALSE(errors.empty());
      std::istringstream want(weir.substr(15));
      std::uint32_t line = 0, column = 0;
      char colon = 0;
      std::string fragment;
      want >> line >> colon >> column;
      std::getline(want >> std::ws, fragment);
      INFO(errors[0].what());
      CHECK(errors[0].location().line == line);
      CHECK(errors[0].location().column == column);
      CHECK_THAT(errors[0].message(), Catch::Matchers::Contains(fragment));
    }
    if (gt_accepts != weir_accepts) {
      ++differences;
      CHECK_THAT(doc, Catch::Matchers::Contains("`" + name + "`"));
    }
  }
  CHECK(files >= 40);
  CHECK(differences == 2);  // program_scalar_expression_argument, nonascii_identifier
}
