// Pass instrumentations: installation, print-after and timing (see the header).
#include "weir/transforms/instrumentation.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "weir/sdfg/serialize.h"
#include "weir/transforms/pipeline.h"

namespace weir::transforms {

namespace {
thread_local std::vector<PassInstrumentation*> installed_list;
}  // namespace

PassInstrumentation::PassInstrumentation() { installed_list.push_back(this); }

PassInstrumentation::~PassInstrumentation() {
  auto it = std::find(installed_list.begin(), installed_list.end(), this);
  if (it != installed_list.end()) installed_list.erase(it);
}

void PassInstrumentation::before_pass(const Pass&, const SDFG&) {}
void PassInstrumentation::after_pass(const Pass&, const SDFG&, std::size_t, double) {}
void PassInstrumentation::after_failed_pass(const Pass&) {}

const std::vector<PassInstrumentation*>& PassInstrumentation::installed() { return installed_list; }

bool is_pipeline(const Pass& pass) { return dynamic_cast<const Pipeline*>(&pass) != nullptr; }

PrintAfter::PrintAfter(std::set<std::string> names, bool all, std::ostream& out)
    : names_(std::move(names)), all_(all), out_(out) {}

void PrintAfter::after_pass(const Pass& pass, const SDFG& sdfg, std::size_t, double) {
  const std::string& name = pass.name();
  std::size_t run = ++runs_[name];
  if (names_.count(name)) seen_.insert(name);
  if (!names_.count(name) && !(all_ && !is_pipeline(pass))) return;
  out_ << "// SDFG after pass '" << name << "' (run " << run << ")\n" << sdfg_to_json_text(sdfg, 1) << "\n";
  out_.flush();
}

std::vector<std::string> PrintAfter::unseen() const {
  std::vector<std::string> out;
  for (const auto& n : names_)
    if (!seen_.count(n)) out.push_back(n);
  return out;
}

void PassTiming::after_pass(const Pass& pass, const SDFG&, std::size_t changes, double wall_ms) {
  if (is_pipeline(pass)) return;
  auto it = std::find_if(rows_.begin(), rows_.end(), [&](const Row& r) { return r.pass == pass.name(); });
  if (it == rows_.end()) it = rows_.insert(rows_.end(), Row{pass.name()});
  ++it->runs;
  it->applications += changes;
  it->wall_ms += wall_ms;
}

void PassTiming::report(std::ostream& out) const {
  double total = 0;
  std::size_t runs = 0, apps = 0, width = 5;
  for (const Row& r : rows_) {
    total += r.wall_ms;
    runs += r.runs;
    apps += r.applications;
    width = std::max(width, r.pass.size());
  }
  auto line = [&](const std::string& name, std::size_t n, std::size_t a, double ms) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "  %5zu  %12zu  %10.3f  %6.1f%%\n", n, a, ms,
                  total > 0 ? 100.0 * ms / total : 0.0);
    out << name << std::string(width - name.size(), ' ') << buf;
  };
  out << "pass" << std::string(width - 4, ' ') << "   runs  applications     wall ms    share\n";
  for (const Row& r : rows_) line(r.pass, r.runs, r.applications, r.wall_ms);
  line("total", runs, apps, total);
}

}  // namespace weir::transforms
