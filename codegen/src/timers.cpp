// Timers around elements whose `instrument` is Timer (docs/adr/0048-profiling.md): their slots,
// the code around a timed element and the entry points that hand the slots to the runtime.
#include "codegen_internal.h"
#include "prelude_files.h"

namespace weir::codegen::detail {

Program::Program(const CodegenOptions& o, const SDFG& s, const TargetEmitter& t)
    : opts(o),
      top(s),
      target(t),
      timed(timed_elements(s)),
      entry_checked_tables(detail::entry_checked_tables(s, o, t)) {}

std::optional<std::size_t> Program::timer_slot(const SDFGState& st, TimedKind kind, std::uint32_t id) const {
  for (std::size_t k = 0; k < timed.size(); ++k) {
    const TimedElement& e = timed[k];
    if (e.state != &st || e.kind != kind) continue;
    if (kind == TimedKind::State || (kind == TimedKind::Copy ? e.edge : e.node) == id) return k;
  }
  return std::nullopt;
}

void emit_timed(std::size_t slot, const Writer& code, Writer& w) {
  w.open("{  // timed (instrument: Timer)");
  w.line("const int64_t weir_timer_start = weir_profile_now();");
  w.append(code);
  w.line("weir_profile_record(weir_profile_slots[" + std::to_string(slot) + "], weir_timer_start);");
  w.close();
}

std::string timed_line(std::size_t slot, const std::string& code) {
  return "{ const int64_t weir_timer_start = weir_profile_now(); " + code +
         " weir_profile_record(weir_profile_slots[" + std::to_string(slot) + "], weir_timer_start); }";
}

std::string timer_globals(std::size_t slots) {
  return std::string(prelude::weir_profile_h) + "WEIR_PROGRAM_STATE weir_profile_slot weir_profile_slots[" +
         std::to_string(slots) + "];\n";
}

std::string timer_entry_points(const std::vector<TimedElement>& timed) {
  std::string json = "[";
  for (std::size_t k = 0; k < timed.size(); ++k) {
    const TimedElement& e = timed[k];
    json += std::string(k ? "," : "") + "{\"kind\":\"" + to_string(e.kind) + "\",\"label\":\"" +
            json_escape(e.label) + "\",\"cfg_id\":" + std::to_string(e.cfg_id) +
            ",\"state_id\":" + std::to_string(e.state_id) +
            ",\"id\":" + (e.node == kNoNode ? std::string("-1") : std::to_string(e.node)) +
            ",\"edge\":" + (e.kind == TimedKind::Copy ? std::to_string(e.edge) : std::string("-1")) + "}";
  }
  json += "]";
  const std::string n = std::to_string(timed.size());
  Writer w;
  w.line("extern \"C\" const char* weir_profile_elements(void) { return \"" + c_escape(json) + "\"; }");
  w.open("extern \"C\" int weir_profile_read(int64_t* out, int64_t slots) {");
  w.line("if (out == nullptr || slots != " + n + ") return weir_fail(\"weir_profile_read: the program has " +
         n + " timed elements\");");
  w.open("for (int64_t k = 0; k < " + n + "; ++k) {");
  w.line("out[3 * k] = weir_profile_slots[k].executions;");
  w.line("out[3 * k + 1] = weir_profile_slots[k].ns;");
  w.line("out[3 * k + 2] = weir_profile_slots[k].first_start_ns;");
  w.close();
  w.line("return 0;");
  w.close();
  w.blank();
  return w.str();
}

}  // namespace weir::codegen::detail
