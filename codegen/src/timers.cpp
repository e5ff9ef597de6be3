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

void emit_timed(std::size_t slot, const Writer& code, Writer& w, bool per_thread) {
  w.open(per_thread ? "{  // timed (instrument: Timer) on this thread's accumulators"
                    : "{  // timed (instrument: Timer)");
  w.line("const int64_t weir_timer_start = weir_profile_now();");
  w.append(code);
  const std::string k = std::to_string(slot);
  if (per_thread)
    w.line("weir_profile_record(weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, " + k +
           "), weir_timer_start);");
  else
    w.line("weir_profile_record(weir_profile_slots[" + k + "], weir_timer_start);");
  w.close();
}

std::string timed_line(std::size_t slot, const std::string& code, bool per_thread) {
  const std::string k = std::to_string(slot);
  return "{ const int64_t weir_timer_start = weir_profile_now(); " + code + " weir_profile_record(" +
         (per_thread ? "weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, " + k + ")"
                     : "weir_profile_slots[" + k + "]") +
         ", weir_timer_start); }";
}

std::string timer_globals(std::size_t slots) {
  const std::string n = std::to_string(slots);
  // The per-thread rows of the timers inside map scopes (weir_profile.h), allocated by weir_run.
  return std::string(prelude::weir_profile_h) + "WEIR_PROGRAM_STATE weir_profile_slot weir_profile_slots[" +
         n +
         "];\nWEIR_PROGRAM_STATE weir_profile_slot* weir_profile_rows;\n"
         "WEIR_PROGRAM_STATE int64_t weir_profile_rows_allocated;\n"
         // Freed when the library is unloaded (one owner program-wide, as the pointer).
         "struct weir_profile_rows_owner {\n  ~weir_profile_rows_owner() { std::free(weir_profile_rows); "
         "weir_profile_rows = nullptr; }\n};\n"
         "WEIR_PROGRAM_STATE weir_profile_rows_owner weir_profile_rows_owned;\n"
         "constexpr int64_t weir_profile_row_stride = " +
         n + " + 3;\n";
}

std::string timer_clear() {
  return "weir_profile_choose_clock();\n"
         "std::memset(weir_profile_slots, 0, sizeof weir_profile_slots);\n"
         "if (!weir_profile_clear_rows(weir_profile_rows, weir_profile_rows_allocated, "
         "weir_profile_threads(), "
         "weir_profile_row_stride)) return weir_fail(\"weir_run: cannot allocate the per-thread timers\");";
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
  w.line("extern \"C\" const char* weir_profile_clock_info(void) { return weir_profile_clock_json(); }");
  w.open("extern \"C\" int weir_profile_read(int64_t* out, int64_t slots) {");
  w.line("if (out == nullptr || slots != " + n + ") return weir_fail(\"weir_profile_read: the program has " +
         n + " timed elements\");");
  // Ticks to nanoseconds at the rate measured since the program's first call (weir_profile.h).
  w.line("const double ns_per_tick = weir_profile_calibrate();");
  w.open("for (int64_t k = 0; k < " + n + "; ++k) {");
  w.line(
      "const weir_profile_slot s = weir_profile_to_ns(weir_profile_merged(weir_profile_slots[k], "
      "weir_profile_rows, weir_profile_rows_allocated, weir_profile_row_stride, k), ns_per_tick);");
  w.line("out[3 * k] = s.executions;");
  w.line("out[3 * k + 1] = s.ns;");
  w.line("out[3 * k + 2] = s.first_start_ns;");
  w.close();
  w.line("return 0;");
  w.close();
  w.blank();
  return w.str();
}

}  // namespace weir::codegen::detail
