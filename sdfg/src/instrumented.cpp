// The `instrument` attribute and the timed elements of an SDFG (see the header).
#include "weir/sdfg/instrumented.h"

#include "weir/sdfg/cfg_list.h"
#include "weir/sdfg/errors.h"

namespace weir {

std::string instrument_of(const UnknownAttributes& attrs, const ElementRef& where) {
  const std::string* text = attrs.find(kInstrumentAttribute);
  if (!text || *text == "null") return {};
  // JSON text of an enum name: a quoted word without escapes.
  if (text->size() < 2 || text->front() != '"' || text->back() != '"' ||
      text->find('\\') != std::string::npos)
    throw IRError(where,
                  "attribute 'instrument' is " + *text +
                      ", not an instrumentation type name (DaCe's InstrumentationType, e.g. \"Timer\")");
  std::string type = text->substr(1, text->size() - 2);
  return type == "No_Instrumentation" ? std::string() : type;
}

void set_instrument(UnknownAttributes& attrs, const std::string& type) {
  if (type.empty())
    attrs.erase(kInstrumentAttribute);
  else
    attrs.set(kInstrumentAttribute, "\"" + type + "\"");
}

const char* to_string(TimedKind k) {
  switch (k) {
    case TimedKind::State: return "state";
    case TimedKind::Map: return "map";
    case TimedKind::Library: return "library";
    case TimedKind::NestedSDFG: return "nested_sdfg";
    case TimedKind::Copy: return "copy";
  }
  return "?";
}

namespace {

ElementRef where_in(const SDFGState& st, long node = -1, long edge = -1) {
  ElementRef r;
  if (const SDFG* s = st.sdfg()) r.sdfg = s->name;
  r.block_path = st.path().empty() ? st.label : st.path();
  r.node = node;
  r.edge = edge;
  return r;
}

bool timed(const UnknownAttributes& attrs, const ElementRef& where) {
  return instrument_of(attrs, where) == kTimerInstrument;
}

}  // namespace

std::vector<TimedElement> timed_elements(const SDFG& root) {
  std::vector<TimedElement> out;
  const std::vector<ControlFlowRegion*> regions = cfg_list(root);
  for (std::size_t cfg = 0; cfg < regions.size(); ++cfg)
    for (ControlFlowBlock* b : regions[cfg]->blocks()) {
      const auto* st = b->as<SDFGState>();
      if (!st) continue;
      TimedElement base;
      base.sdfg = st->sdfg();
      base.state = st;
      base.cfg_id = cfg;
      base.state_id = st->id();
      if (timed(st->extra, where_in(*st))) {
        TimedElement e = base;
        e.label = st->label;
        out.push_back(e);
      }
      for (const Node* n : st->nodes()) {
        TimedKind kind;
        if (n->kind() == NodeKind::MapEntry)
          kind = TimedKind::Map;
        else if (n->kind() == NodeKind::Library)
          kind = TimedKind::Library;
        else if (n->kind() == NodeKind::NestedSDFG)
          kind = TimedKind::NestedSDFG;
        else
          continue;
        if (!timed(n->extra, where_in(*st, n->id()))) continue;
        TimedElement e = base;
        e.kind = kind;
        e.node = n->id();
        e.label = kind == TimedKind::Map ? n->as<MapEntry>()->map->label : n->label;
        out.push_back(e);
      }
      for (const DataflowEdge* d : st->edges()) {
        const auto* src = st->node(d->src).as<AccessNode>();
        const auto* dst = st->node(d->dst).as<AccessNode>();
        if (!src || !dst || !timed(d->memlet.extra, where_in(*st, -1, d->id))) continue;
        TimedElement e = base;
        e.kind = TimedKind::Copy;
        e.edge = d->id;
        e.label = src->data + " -> " + dst->data;
        out.push_back(e);
      }
    }
  return out;
}

}  // namespace weir
