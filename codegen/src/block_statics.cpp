// Block-scope statics declared once for code emitted more than once (block_statics.h).
#include "block_statics.h"

namespace weir::codegen::detail {

std::string BlockStatics::declare(const std::string& qualifiers, const std::string& type,
                                  const std::string& name) {
  Declared d{qualifiers, type, name};
  if (collecting != nullptr) collecting->push_back(d);
  return d.line();
}

void BlockStatics::share(const std::vector<Declared>& declared, Writer& code, Writer& hoisted) {
  std::size_t from = 0;
  for (const Declared& d : declared) {
    const std::string name = "weir_shared_" + std::to_string(shared);
    const std::size_t at = code.replace_line(from, d.line(), d.type + "& " + d.name + " = " + name + ";");
    if (at == Writer::npos) continue;
    hoisted.line(d.qualifiers + " " + d.type + " " + name + ";");
    ++shared;
    from = at + 1;
  }
}

}  // namespace weir::codegen::detail
