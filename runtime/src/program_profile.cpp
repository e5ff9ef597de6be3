// Reading a compiled program's timers (see the header).
#include "weir/runtime/program_profile.h"

#include <dlfcn.h>

#include <nlohmann/json.hpp>

#include "weir/codegen/program_abi.h"
#include "weir/runtime/errors.h"

namespace weir::runtime {

ProgramProfile::ProgramProfile(const std::filesystem::path& library) : library_(library.string()) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(library, ec);
  void* h = dlopen(abs.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) throw LoadError("cannot read the timers of " + library_ + ": the program is not loaded");
  dl_ = std::shared_ptr<void>(h, [](void* p) { dlclose(p); });
  auto elements = reinterpret_cast<codegen::ProfileElementsFn>(dlsym(h, codegen::kSymProfileElements));
  read_ = dlsym(h, codegen::kSymProfileRead);
  clock_ = dlsym(h, codegen::kSymProfileClockInfo);
  if (!elements || !read_)
    throw LoadError("cannot read the timers of " + library_ +
                    ": it has no timed elements (compiled without the instrument-timers pass)");
  const char* text = elements();
  nlohmann::json j = nlohmann::json::parse(text ? text : "", nullptr, false);
  if (!j.is_array()) throw LoadError(library_ + ": weir_profile_elements() is not a JSON array");
  try {
    for (const auto& e : j)
      elements_.push_back({e.at("kind").get<std::string>(), e.at("label").get<std::string>(),
                           e.at("cfg_id").get<long>(), e.at("state_id").get<long>(), e.at("id").get<long>(),
                           e.at("edge").get<long>()});
  } catch (const nlohmann::json::exception& x) {
    throw LoadError(library_ + ": weir_profile_elements() lists an element without " + x.what());
  }
}

ProgramProfile::~ProgramProfile() = default;

std::vector<ElementSample> ProgramProfile::read() const {
  const auto n = static_cast<std::int64_t>(elements_.size());
  std::vector<std::int64_t> raw(static_cast<std::size_t>(3 * n));
  if (reinterpret_cast<codegen::ProfileReadFn>(read_)(raw.data(), n) != 0)
    throw ProgramError(library_ + ": weir_profile_read refused " + std::to_string(n) + " elements");
  std::vector<ElementSample> out(elements_.size());
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = {raw[3 * k], raw[3 * k + 1], raw[3 * k + 2]};
  return out;
}

TimerClock ProgramProfile::clock() const {
  if (clock_ == nullptr) return {};
  const char* text = reinterpret_cast<codegen::ProfileClockInfoFn>(clock_)();
  const nlohmann::json j = nlohmann::json::parse(text ? text : "", nullptr, false);
  TimerClock c;
  if (!j.is_object() || !j.contains("clock") || !j["clock"].is_string() || !j.contains("ticks_per_second") ||
      !j["ticks_per_second"].is_number())
    throw LoadError(library_ + ": weir_profile_clock_info() is not {\"clock\", \"ticks_per_second\"}: " +
                    std::string(text ? text : "(null)"));
  c.name = j["clock"].get<std::string>();
  c.ticks_per_second = j["ticks_per_second"].get<double>();
  return c;
}

}  // namespace weir::runtime
