// Binding sets of orchestration functions (see orchestration_flow.h).
#include "orchestration_flow.h"

#include <algorithm>

namespace weir::frontend::detail {

int BindingTable::intern(const Binding& b) {
  auto it = std::find(all.begin(), all.end(), b);
  if (it != all.end()) return static_cast<int>(it - all.begin());
  all.push_back(b);
  return static_cast<int>(all.size() - 1);
}

std::map<const OStmt*, std::string> alloc_slots(const Orchestration& o) {
  std::map<const OStmt*, std::string> out;
  std::set<std::string> used;
  for (const TParam& p : o.params) used.insert(p.name);
  std::function<void(const std::vector<OStmt>&)> walk = [&](const std::vector<OStmt>& body) {
    for (const OStmt& s : body) {
      if (s.kind == OStmt::Kind::Alloc) {
        std::string n = s.targets[0];
        for (int k = 1; used.count(n); ++k) n = s.targets[0] + "_" + std::to_string(k);
        used.insert(n);
        out[&s] = n;
      }
      walk(s.body);
      walk(s.orelse);
    }
  };
  walk(o.body);
  return out;
}

BindingFlow::BindingFlow(const Orchestration& o, BindingTable& table)
    : o_(o), table_(table), allocs_(alloc_slots(o)) {}

int BindingFlow::initial() const {
  Binding b;
  for (const TParam& p : o_.params)
    if (p.type.is_field()) b[p.name] = p.name;
  return table_.intern(b);
}

std::set<int> BindingFlow::step(const OStmt& s, const std::set<int>& in) const {
  std::set<int> out;
  for (int id : in) {
    Binding b = table_.all[static_cast<std::size_t>(id)];
    if (s.kind == OStmt::Kind::Bind) {
      std::vector<std::string> slots;
      for (const auto& src : s.sources) slots.push_back(src.empty() ? std::string() : b.at(src));
      for (std::size_t i = 0; i < s.targets.size(); ++i) {
        if (slots[i].empty())
          b.erase(s.targets[i]);
        else
          b[s.targets[i]] = slots[i];
      }
    } else if (s.kind == OStmt::Kind::Alloc) {
      b[s.targets[0]] = allocs_.at(&s);
    }
    out.insert(table_.intern(b));
  }
  return out;
}

std::set<int> BindingFlow::loop_head(const OStmt& loop, const std::set<int>& in, std::set<int>* brk,
                                     const Visit& visit) const {
  std::set<int> head = in;
  while (true) {
    std::set<int> b, c;
    std::set<int> end = run(loop.body, head, &b, &c, visit);
    std::set<int> next = head;
    next.insert(end.begin(), end.end());
    next.insert(c.begin(), c.end());
    if (next == head) {
      if (brk) brk->insert(b.begin(), b.end());
      return head;
    }
    head = std::move(next);
  }
}

std::set<int> BindingFlow::run(const std::vector<OStmt>& body, std::set<int> cur, std::set<int>* brk,
                               std::set<int>* cont, const Visit& visit) const {
  for (const OStmt& s : body) {
    if (cur.empty()) break;  // unreachable after break/continue
    if (visit) visit(s, cur);
    switch (s.kind) {
      case OStmt::Kind::Bind:
      case OStmt::Kind::Alloc: cur = step(s, cur); break;
      case OStmt::Kind::If: {
        std::set<int> a = run(s.body, cur, brk, cont, visit);
        std::set<int> b = run(s.orelse, cur, brk, cont, visit);
        a.insert(b.begin(), b.end());
        cur = std::move(a);
        break;
      }
      case OStmt::Kind::For:
      case OStmt::Kind::While: {
        std::set<int> b;
        cur = loop_head(s, cur, &b, visit);
        cur.insert(b.begin(), b.end());
        break;
      }
      case OStmt::Kind::Break:
        if (brk) brk->insert(cur.begin(), cur.end());
        cur.clear();
        break;
      case OStmt::Kind::Continue:
        if (cont) cont->insert(cur.begin(), cur.end());
        cur.clear();
        break;
      case OStmt::Kind::Call:
      case OStmt::Kind::Assign:
      case OStmt::Kind::Reduce: break;
    }
  }
  return cur;
}

std::vector<std::string> written_slots(const Orchestration& o) {
  BindingTable t;
  BindingFlow flow(o, t);
  std::set<std::string> slots;
  flow.run(o.body, {flow.initial()}, nullptr, nullptr, [&](const OStmt& s, const std::set<int>& cur) {
    if (s.kind != OStmt::Kind::Call) return;
    for (const ProgramCall& pc : s.callee->calls)
      for (const auto& out : pc.outs)
        for (std::size_t i = 0; i < s.callee->params.size(); ++i)
          if (s.callee->params[i].name == out.name)
            for (int id : cur) slots.insert(t.all[static_cast<std::size_t>(id)].at(s.args[i].field));
  });
  std::vector<std::string> out;
  for (const TParam& p : o.params)
    if (slots.count(p.name)) out.push_back(p.name);
  return out;
}

}  // namespace weir::frontend::detail
