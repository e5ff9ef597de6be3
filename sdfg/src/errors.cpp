// Located errors: every IRError message starts with the element it is about.
#include "weir/sdfg/errors.h"

namespace weir {

std::string ElementRef::describe() const {
  std::string out;
  auto add = [&out](const std::string& part) {
    if (!out.empty()) out += ", ";
    out += part;
  };
  if (!sdfg.empty()) add("SDFG '" + sdfg + "'");
  if (!block_path.empty()) add("state '" + block_path + "'");
  if (node >= 0) {
    std::string n = "node " + std::to_string(node);
    if (!node_label.empty()) n += " ('" + node_label + "')";
    add(n);
  }
  if (edge >= 0) add("edge " + std::to_string(edge));
  return out;
}

namespace {
std::string located(const ElementRef& where, const std::string& message) {
  std::string d = where.describe();
  return d.empty() ? message : d + ": " + message;
}
}  // namespace

IRError::IRError(ElementRef where, const std::string& message)
    : Error(located(where, message)), where_(std::move(where)) {}

}  // namespace weir
