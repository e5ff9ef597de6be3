// A tasklet's declared fault: the `weir_fault` attribute as JSON (see the header).
#include "weir/sdfg/tasklet_fault.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace weir {

void declare_fault(Tasklet& t, const TaskletFault& f) {
  nlohmann::ordered_json j;
  j["code"] = f.code;
  if (!f.argument.empty()) j["argument"] = f.argument;
  j["messages"] = f.messages;
  t.extra.set(kTaskletFaultAttribute, j.dump());
}

std::optional<TaskletFault> declared_fault(const Tasklet& t) {
  const std::string* text = t.extra.find(kTaskletFaultAttribute);
  if (!text) return std::nullopt;
  const std::string what = std::string("attribute '") + kTaskletFaultAttribute + "'";
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object())
    throw std::invalid_argument(what +
                                " must be an object {\"code\": ..., \"argument\": ..., \"messages\": [...]}");
  TaskletFault f;
  auto code = j.find("code");
  if (code == j.end() || !code->is_string() || code->get<std::string>().empty())
    throw std::invalid_argument(what + " needs \"code\", the name of an integer output connector");
  f.code = code->get<std::string>();
  if (auto arg = j.find("argument"); arg != j.end()) {
    if (!arg->is_string()) throw std::invalid_argument(what + ": \"argument\" must be a connector's name");
    f.argument = arg->get<std::string>();
  }
  auto messages = j.find("messages");
  if (messages == j.end() || !messages->is_array() || messages->empty())
    throw std::invalid_argument(what + " needs \"messages\", a non-empty list of strings");
  for (const auto& m : *messages) {
    if (!m.is_string()) throw std::invalid_argument(what + ": every message must be a string");
    f.messages.push_back(m.get<std::string>());
    if (f.argument.empty() && f.messages.back().find("{}") != std::string::npos)
      throw std::invalid_argument(what + ": message " + std::to_string(f.messages.size()) +
                                  " shows \"{}\" but no \"argument\" connector is named");
  }
  return f;
}

}  // namespace weir
