// libFuzzer target: SDFG JSON text through the loader, the validator and a save/reload round
// trip. Whatever loads must validate or not without crashing, and what loads must save and
// load back as the same SDFG (sdfg_difference empty).
#include "fuzz_support.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

using namespace weir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_located_errors([&] {
    std::unique_ptr<SDFG> sdfg = sdfg_from_json_text(fuzz::as_text(data, size), "fuzz.sdfg");
    (void)validate(*sdfg);
    std::string saved = sdfg_to_json_text(*sdfg);
    std::unique_ptr<SDFG> again;
    try {
      again = sdfg_from_json_text(saved, "saved.sdfg");
    } catch (const Error& e) {
      fuzz::require(false, std::string("the saved SDFG does not load: ") + e.what());
    }
    std::string diff = sdfg_difference(*sdfg, *again);
    fuzz::require(diff.empty(), "the saved SDFG loads as a different one: " + diff);
  });
  return 0;
}
