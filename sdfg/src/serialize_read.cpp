// Loading DaCe JSON into the IR. Every failure is a located SdfgLoadError: the file, the JSON
// path and the SDFG element (state, node) being read. Unknown attributes are kept verbatim.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "json_reader.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/json_limits.h"
#include "weir/sdfg/library_implementations.h"
#include "weir/sdfg/names.h"
#include "weir/sdfg/omp_schedule.h"
#include "weir/sdfg/private_attributes.h"
#include "weir/sdfg/reduction_choice.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/streaming_choice.h"
#include "weir/sdfg/thread_choice.h"
#include "weir/sdfg/written_by_weir.h"

namespace weir {
namespace {

using detail::json;
using detail::JsonCursor;

/// Keys DaCe derives on save; they are recomputed when weir saves, so they are not kept.
const std::set<std::string> kDerivedMemletKeys = {"src_subset", "dst_subset", "num_accesses"};

void keep_unknown(const JsonCursor& attrs, const std::set<std::string>& known, UnknownAttributes& out,
                  const std::set<std::string>& drop = {}) {
  if (!attrs.is_object()) return;
  for (const auto& [k, v] : attrs.object()) {
    if (known.count(k) || drop.count(k)) continue;
    // weir's own attributes: `_meta_weir_x` (or an older file's `weir_x`) kept as `weir_x`.
    const std::string key = attribute_key_in_memory(k);
    // The mark of weir's own code exists in memory only (written_by_weir.h): a file cannot claim it.
    if (key == kWrittenByWeirAttribute)
      attrs.at(k.c_str()).fail("'" + k +
                               "' is reserved for code weir writes in memory; a file cannot set it");
    out.set(key, v.dump());
  }
}

template <class Enum, class Parse>
Enum read_enum(const JsonCursor& c, Parse parse, const char* what) {
  auto s = c.string();
  auto e = parse(s);
  if (!e) c.fail(std::string("unknown ") + what + " '" + s + "'");
  return *e;
}

DataType read_dtype(const JsonCursor& c) {
  const json& v = c.value();
  if (v.is_string()) {
    auto s = v.get<std::string>();
    auto t = scalar_type_from_string(s);
    if (!t) c.fail("unknown dtype '" + s + "'");
    return DataType::scalar(*t);
  }
  if (v.is_object() && v.value("type", "") == "pointer" && v.contains("dtype")) {
    DataType inner = read_dtype(c.at("dtype"));
    if (!inner.raw_json.empty()) return DataType{ScalarType::Void, 0, v.dump()};
    inner.pointer_depth += 1;
    return inner;
  }
  // Structs, vectors, opaque types: kept as written.
  return DataType{ScalarType::Void, 0, v.dump()};
}

// Names that reach generated C++ (containers, symbols, connectors, map parameters, loop variables,
// interstate assignments, the labels DaCe requires to be identifiers) are refused at load, at
// their JSON path, with the validator's words (it reports the same for SDFGs built in memory).
void require_identifier(const JsonCursor& at, const std::string& name, const std::string& what) {
  if (!is_identifier(name)) at.fail(what + " '" + name + "' is not a valid identifier");
}

ConnectorMap read_connectors(const JsonCursor& attrs, const char* key) {
  ConnectorMap out;
  if (!attrs.has(key)) return out;
  auto c = attrs.at(key);
  for (const auto& [name, v] : c.object()) {
    require_identifier(c.member(name), name, "connector");
    if (v.is_null())
      out.emplace(name, std::nullopt);
    else
      out.emplace(name, read_dtype(c.member(name)));
  }
  return out;
}

Subset read_subset(const JsonCursor& c) {
  auto type = c.at("type").string();
  if (type == "Range") {
    std::vector<Range> ranges;
    auto rs = c.at("ranges");
    rs.array();
    for (std::size_t i = 0; i < rs.size(); ++i) {
      auto r = rs.index(i);
      ranges.emplace_back(r.at("start").expr(), r.at("end").expr(), r.at("step").expr(), r.at("tile").expr());
    }
    return Subset(std::move(ranges));
  }
  if (type == "Indices") {
    std::vector<Range> ranges;
    auto is = c.at("indices");
    is.array();
    for (std::size_t i = 0; i < is.size(); ++i) ranges.push_back(Range::index(is.index(i).expr()));
    return Subset(std::move(ranges), /*written_as_indices=*/true);
  }
  c.at("type").fail("unsupported subset type '" + type + "' (expected Range or Indices)");
}

std::vector<sym::Expr> read_expr_list(const JsonCursor& c) {
  std::vector<sym::Expr> out;
  c.array();
  for (std::size_t i = 0; i < c.size(); ++i) out.push_back(c.index(i).expr());
  return out;
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  std::unique_ptr<SDFG> read_sdfg(const json& root) {
    JsonCursor c(root, &file_, "", "");
    return read_sdfg(c, /*top=*/true, "");
  }

 private:
  std::string file_;

  std::unique_ptr<SDFG> read_sdfg(const JsonCursor& c, bool top, const std::string& outer_name) {
    c.object();
    auto type = c.at("type").string();
    if (type != "SDFG") c.at("type").fail("expected type 'SDFG', found '" + type + "'");
    if (top) c.at("dace_version").string();  // required by DaCe's loader, and so by weir
    auto attrs = c.at("attributes");
    auto name = attrs.at("name").string();
    require_identifier(attrs.at("name"), name, "SDFG name");
    std::string qual = outer_name.empty() ? name : outer_name + "/" + name;
    auto sdfg = std::make_unique<SDFG>(name);
    if (c.has("label")) sdfg->label = c.at("label").string();
    JsonCursor sc = c.with_element("SDFG '" + qual + "'");
    attrs = sc.at("attributes");
    if (c.has("dace_version")) sdfg->dace_version = c.at("dace_version").string();

    if (attrs.has("arg_names")) {
      auto a = attrs.at("arg_names");
      a.array();
      for (std::size_t i = 0; i < a.size(); ++i) sdfg->arg_names.push_back(a.index(i).string());
    }
    if (attrs.has("symbols")) {
      auto s = attrs.at("symbols");
      for (const auto& [k, v] : s.object()) {
        require_identifier(s.member(k), k, "symbol name");
        sdfg->symbols[k] = read_dtype(s.member(k));
      }
    }
    if (attrs.has("_arrays")) {
      auto arrs = attrs.at("_arrays");
      for (const auto& [k, v] : arrs.object()) {
        require_identifier(arrs.member(k).with_element(sc.element()), k, "data container name");
        sdfg->arrays.emplace(
            k, read_descriptor(arrs.member(k).with_element(sc.element() + ", container '" + k + "'")));
      }
    }
    read_frame_code(attrs, "global_code", sdfg->global_code, sdfg->extra);
    read_frame_code(attrs, "init_code", sdfg->init_code, sdfg->extra);
    read_frame_code(attrs, "exit_code", sdfg->exit_code, sdfg->extra);
    if (attrs.has("using_explicit_control_flow"))
      sdfg->using_explicit_control_flow = attrs.at("using_explicit_control_flow").boolean();
    else
      sdfg->using_explicit_control_flow = false;
    keep_unknown(attrs,
                 {"name", "arg_names", "symbols", "_arrays", "global_code", "init_code", "exit_code",
                  "using_explicit_control_flow"},
                 sdfg->extra, /*drop=*/{"hash"});

    read_region_body(sc, *sdfg, *sdfg, qual, "");
    sdfg->relink_nested();
    return sdfg;
  }

  void read_frame_code(const JsonCursor& attrs, const char* key, CodeBlock& out, UnknownAttributes& extra) {
    if (!attrs.has(key)) return;
    auto c = attrs.at(key);
    const json& v = c.value();
    // DaCe keeps {location: code}; weir models the "frame" location and keeps anything else raw.
    if (v.is_object() && v.size() == 1 && v.contains("frame")) {
      out = c.at("frame").code();
    } else if (v.is_object() && v.empty()) {
      out.code.clear();
    } else {
      extra.set(key, v.dump());
    }
  }

  DataDescriptor read_descriptor(const JsonCursor& c) {
    DataDescriptor d;
    d.type_name = c.at("type").string();
    const std::string& t = d.type_name;
    if (t == "Scalar")
      d.kind = DataKind::Scalar;
    else if (t == "Array")
      d.kind = DataKind::Array;
    else if (t == "View" || t == "ArrayView")
      d.kind = DataKind::View;
    else if (t == "ArrayReference")
      d.kind = DataKind::Reference;
    else if (t == "Stream")
      d.kind = DataKind::Stream;
    else {
      // A descriptor class weir (and current DaCe) does not know, such as the old
      // "Reference": kept verbatim so that saving loses nothing; the validator reports it.
      d.kind = DataKind::Unknown;
      if (c.has("attributes")) keep_unknown(c.at("attributes"), {}, d.extra);
      return d;
    }
    auto a = c.at("attributes");
    // DaCe leaves out properties at their default; dtype's is int32.
    d.dtype = a.has("dtype") ? read_dtype(a.at("dtype")) : DataType::scalar(ScalarType::Int32);
    if (a.has("shape"))
      d.shape = read_expr_list(a.at("shape"));
    else if (d.kind == DataKind::Scalar)
      d.shape = {sym::Expr(1)};
    else
      a.at("shape");  // fails: required
    if (a.has("strides"))
      d.strides = read_expr_list(a.at("strides"));
    else
      d.strides = DataDescriptor::row_major_strides(d.shape);
    if (a.has("offset"))
      d.offset = read_expr_list(a.at("offset"));
    else
      d.offset.assign(d.shape.size(), sym::Expr(0));
    if (a.has("total_size"))
      d.total_size = a.at("total_size").expr();
    else {
      sym::Expr n(1);
      for (const auto& s : d.shape) n = n * s;
      d.total_size = n;
    }
    if (a.has("start_offset")) d.start_offset = a.at("start_offset").expr();
    if (a.has("alignment")) d.alignment = static_cast<int>(a.at("alignment").integer());
    if (a.has("transient")) d.transient = a.at("transient").boolean();
    if (a.has("optional")) d.optional = a.at("optional").boolean();
    if (a.has("may_alias")) d.may_alias = a.at("may_alias").boolean();
    if (a.has("storage"))
      d.storage = read_enum<StorageType>(a.at("storage"), storage_type_from_string, "storage type");
    if (a.has("lifetime"))
      d.lifetime = read_enum<AllocationLifetime>(a.at("lifetime"), allocation_lifetime_from_string,
                                                 "allocation lifetime");
    if (a.has("buffer_size")) d.buffer_size = a.at("buffer_size").expr();
    keep_unknown(a,
                 {"dtype", "shape", "strides", "offset", "total_size", "start_offset", "alignment",
                  "transient", "optional", "may_alias", "storage", "lifetime", "buffer_size"},
                 d.extra);
    return d;
  }

  // Blocks, start block and interstate edges of a region (SDFG, LoopRegion, branch body).
  // `path` is the label path of the region ("" for the SDFG itself), used in element names.
  void read_region_body(const JsonCursor& c, ControlFlowRegion& region, SDFG& sdfg, const std::string& qual,
                        const std::string& path) {
    auto nodes = c.at("nodes");
    nodes.array();
    std::set<std::string> taken;  // the blocks' labels, so that a default label is not one of them
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (const json& b = nodes.index(i).value();
          b.is_object() && b.contains("label") && b["label"].is_string())
        taken.insert(b["label"].get<std::string>());
    for (std::size_t i = 0; i < nodes.size(); ++i)
      region.add_block(read_block(nodes.index(i), sdfg, qual, path, default_label("block", i, taken)));
    auto count = static_cast<long long>(nodes.size());
    // Newer files say start_block, older ones start_state; null means "the unique source".
    const char* start_key =
        c.has("start_block") ? "start_block" : (c.has("start_state") ? "start_state" : nullptr);
    // DaCe uses the index only where the region has no unique source block, and leaves it stale
    // when simplification removes blocks: an index out of range is an error only where it counts.
    long long stale_start = -1;
    if (start_key) {
      auto s = c.at(start_key);
      long long idx = s.index_value();
      if (idx < 0 || idx >= count)
        stale_start = idx;
      else
        region.set_start_block(static_cast<BlockId>(idx));
    }
    read_region_edges(c, region, count);
    if (stale_start < 0) return;
    long long sources = 0;
    for (long long b = 0; b < count; ++b) sources += region.in_edges(static_cast<BlockId>(b)).empty() ? 1 : 0;
    if (sources != 1)
      c.at(start_key).fail("start block " + std::to_string(stale_start) + " does not exist (" +
                           std::to_string(count) + " blocks)");
  }

  // The interstate edges of a region whose `count` blocks are read.
  void read_region_edges(const JsonCursor& c, ControlFlowRegion& region, long long count) {
    if (!c.has("edges")) return;
    auto edges = c.at("edges");
    edges.array();
    for (std::size_t i = 0; i < edges.size(); ++i) {
      auto e = edges.index(i).with_element(c.element() + ", interstate edge " + std::to_string(i));
      long long src = e.at("src").index_value(), dst = e.at("dst").index_value();
      if (src < 0 || src >= count)
        e.at("src").fail("edge source " + std::to_string(src) + " does not exist (" + std::to_string(count) +
                         " blocks)");
      if (dst < 0 || dst >= count)
        e.at("dst").fail("edge destination " + std::to_string(dst) + " does not exist (" +
                         std::to_string(count) + " blocks)");
      InterstateEdge ie;
      auto data = e.at("attributes").at("data");
      auto dt = data.at("type").string();
      if (dt != "InterstateEdge") data.at("type").fail("expected type 'InterstateEdge', found '" + dt + "'");
      if (data.has("attributes")) {
        auto a = data.at("attributes");
        if (a.has("condition")) ie.condition = a.at("condition").code();
        if (a.has("assignments")) {
          for (const auto& [k, v] : a.at("assignments").object()) {
            require_identifier(a.at("assignments").member(k), k, "interstate assignment target");
            ie.assignments.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
          }
        }
        keep_unknown(a, {"condition", "assignments"}, ie.extra);
      }
      region.add_edge(static_cast<BlockId>(src), static_cast<BlockId>(dst), std::move(ie));
    }
  }

  static std::string join_path(const std::string& parent, const std::string& label) {
    return parent.empty() ? label : parent + "/" + label;
  }

  // A label a file leaves out (DaCe writes one for every block and node; files written by hand
  // or cut down may not): `<kind>_<index>`, made unique among `taken`, so that what loads is
  // valid where labels must be identifiers and saves and loads back as the same SDFG.
  static std::string default_label(const std::string& kind, std::size_t index, std::set<std::string>& taken) {
    std::string l = kind + "_" + std::to_string(index);
    while (taken.count(l)) l += "_";
    taken.insert(l);
    return l;
  }

  std::unique_ptr<ControlFlowBlock> read_block(const JsonCursor& c0, SDFG& sdfg, const std::string& qual,
                                               const std::string& parent_path, const std::string& fallback) {
    c0.object();
    auto type = c0.at("type").string();
    std::string label = c0.has("label") ? c0.at("label").string() : fallback;
    std::string path = join_path(parent_path, label);
    auto element = [&](const char* kind) { return "SDFG '" + qual + "', " + kind + " '" + path + "'"; };
    if (type == "SDFGState") {
      auto c = c0.with_element(element("state"));
      if (c0.has("label")) require_identifier(c.at("label"), label, "state label");
      auto st = std::make_unique<SDFGState>(label);
      read_state(c, *st, sdfg, qual);
      if (c.has("attributes")) keep_unknown(c.at("attributes"), {}, st->extra);
      return st;
    }
    if (type == "LoopRegion") {
      auto c = c0.with_element(element("loop"));
      auto loop = std::make_unique<LoopRegion>(label);
      auto a = c.at("attributes");
      // null (a while loop) is DaCe's None: no variable, no init or update statement.
      auto present = [&](const char* k) { return a.has(k) && !a.at(k).value().is_null(); };
      if (present("loop_variable")) {
        loop->loop_variable = a.at("loop_variable").string();
        if (!loop->loop_variable.empty())
          require_identifier(a.at("loop_variable"), loop->loop_variable, "loop variable");
      }
      if (present("init_statement")) loop->init_statement = a.at("init_statement").code();
      if (a.has("loop_condition") && !a.at("loop_condition").value().is_null())
        loop->loop_condition = a.at("loop_condition").code();
      if (present("update_statement")) loop->update_statement = a.at("update_statement").code();
      if (a.has("inverted")) loop->inverted = a.at("inverted").boolean();
      if (a.has("update_before_condition"))
        loop->update_before_condition = a.at("update_before_condition").boolean();
      keep_unknown(a,
                   {"loop_variable", "init_statement", "loop_condition", "update_statement", "inverted",
                    "update_before_condition"},
                   loop->extra);
      read_region_body(c, *loop, sdfg, qual, path);
      return loop;
    }
    // DaCe 2.0's subclasses of ControlFlowRegion that execute as a plain region: a call of a
    // Python function (FunctionCallRegion, its `arguments` map kept), a `with dace.named` block
    // (NamedRegion), and a region of arbitrary gotos (UnstructuredControlFlow).
    if (type == "ControlFlowRegion" || type == "FunctionCallRegion" || type == "NamedRegion" ||
        type == "UnstructuredControlFlow") {
      auto c = c0.with_element(element("region"));
      auto r = std::make_unique<ControlFlowRegion>(label);
      if (type != "ControlFlowRegion") r->dace_class = type;
      if (c.has("attributes")) keep_unknown(c.at("attributes"), {}, r->extra);
      read_region_body(c, *r, sdfg, qual, path);
      return r;
    }
    if (type == "ConditionalBlock") {
      auto c = c0.with_element(element("conditional"));
      auto cb = std::make_unique<ConditionalBlock>(label);
      // DaCe writes `branches` beside `attributes`; accept it inside too.
      JsonCursor br = c.has("branches") ? c.at("branches") : c.at("attributes").at("branches");
      br.array();
      for (std::size_t i = 0; i < br.size(); ++i) {
        auto b = br.index(i);
        b.array();
        if (b.size() != 2) b.fail("a branch must be [condition or null, region]");
        std::optional<CodeBlock> cond;
        if (!b.index(0).value().is_null()) cond = b.index(0).code();
        auto body_c = b.index(1);
        body_c.object();
        std::string blabel = body_c.has("label") ? body_c.at("label").string() : "";
        auto& body = cb->add_branch(cond, blabel);
        if (body_c.has("attributes")) keep_unknown(body_c.at("attributes"), {}, body.extra);
        read_region_body(body_c, body, sdfg, qual, join_path(path, blabel));
      }
      if (c.has("attributes")) keep_unknown(c.at("attributes"), {"branches"}, cb->extra);
      return cb;
    }
    if (type == "BreakBlock" || type == "ContinueBlock" || type == "ReturnBlock") {
      BlockKind k = type == "BreakBlock"      ? BlockKind::Break
                    : type == "ContinueBlock" ? BlockKind::Continue
                                              : BlockKind::Return;
      auto b = std::make_unique<ControlTransferBlock>(k, label);
      if (c0.has("attributes")) keep_unknown(c0.at("attributes"), {}, b->extra);
      return b;
    }
    c0.at("type").fail("unknown control-flow block type '" + type + "'");
  }

  void read_state(const JsonCursor& c, SDFGState& st, SDFG& sdfg, const std::string& qual) {
    auto nodes = c.at("nodes");
    nodes.array();
    const std::string& state_el = c.element();
    std::vector<long long> exit_entry(nodes.size(), -1);  // MapExit index -> its entry index
    std::set<std::string> taken;  // default labels given so far (node labels need not be unique)
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      auto nc0 = nodes.index(i);
      nc0.object();
      std::string t = nc0.has("type") ? nc0.value()["type"].dump() : "?";
      std::string lbl =
          nc0.has("label") && nc0.value()["label"].is_string() ? nc0.value()["label"].get<std::string>() : "";
      auto nc = nc0.with_element(state_el + ", node " + std::to_string(i) + " (" +
                                 (nc0.has("type") && nc0.value()["type"].is_string()
                                      ? nc0.value()["type"].get<std::string>()
                                      : "?") +
                                 (lbl.empty() ? "" : " '" + lbl + "'") + ")");
      auto node = read_node(nc, sdfg, qual, default_label("node", i, taken));
      if (node->kind() == NodeKind::MapExit) {
        if (nc.has("scope_entry")) exit_entry[i] = nc.at("scope_entry").index_value();
      }
      st.add_node(std::move(node));
    }
    // Link map exits to entries: by the exit's scope_entry, else by an entry's scope_exit.
    auto count = static_cast<long long>(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      auto* entry = st.node(static_cast<NodeId>(i)).as<MapEntry>();
      if (!entry) continue;
      auto nc = nodes.index(i);
      if (!nc.has("scope_exit")) continue;
      long long x = nc.at("scope_exit").index_value();
      if (x >= 0 && x < count && exit_entry[x] < 0) exit_entry[x] = static_cast<long long>(i);
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      auto* exit = st.node(static_cast<NodeId>(i)).as<MapExit>();
      if (!exit) continue;
      auto nc = nodes.index(i).with_element(state_el + ", node " + std::to_string(i) + " (MapExit '" +
                                            exit->label + "')");
      long long e = exit_entry[i];
      if (e < 0) nc.fail("map exit has no scope_entry");
      if (e >= count) nc.at("scope_entry").fail("scope entry " + std::to_string(e) + " does not exist");
      auto* entry = st.node(static_cast<NodeId>(e)).as<MapEntry>();
      if (!entry) nc.at("scope_entry").fail("scope entry " + std::to_string(e) + " is not a MapEntry");
      if (entry->exit != kNoNode && entry->exit != i)
        nc.at("scope_entry")
            .fail("map entry " + std::to_string(e) + " already has exit " + std::to_string(entry->exit));
      exit->map = entry->map;
      exit->entry = static_cast<NodeId>(e);
      entry->exit = static_cast<NodeId>(i);
    }

    auto edges = c.at("edges");
    edges.array();
    for (std::size_t i = 0; i < edges.size(); ++i) {
      auto e = edges.index(i).with_element(state_el + ", edge " + std::to_string(i));
      e.object();
      long long src = e.at("src").index_value(), dst = e.at("dst").index_value();
      if (src < 0 || src >= count)
        e.at("src").fail("edge source node " + std::to_string(src) + " does not exist (" +
                         std::to_string(count) + " nodes)");
      if (dst < 0 || dst >= count)
        e.at("dst").fail("edge destination node " + std::to_string(dst) + " does not exist (" +
                         std::to_string(count) + " nodes)");
      auto connector = [&](const char* key) -> std::string {
        if (!e.value().is_object() || !e.value().contains(key))
          e.fail(std::string("missing required key '") + key + "'");
        const json& v = e.value()[key];
        if (v.is_null()) return {};
        if (!v.is_string()) e.at(key).fail("expected a connector name or null");
        return v.get<std::string>();
      };
      std::string sc = connector("src_connector"), dc = connector("dst_connector");
      Memlet m = read_memlet(e.at("attributes").at("data"));
      st.add_edge(static_cast<NodeId>(src), std::move(sc), static_cast<NodeId>(dst), std::move(dc),
                  std::move(m));
    }
  }

  // A library node's classpath, beside or inside its attributes; "" (as no classpath) if none.
  static std::string classpath(const JsonCursor& c, const JsonCursor& a) {
    if (c.has("classpath")) return c.at("classpath").string();
    return a.has("classpath") ? a.at("classpath").string() : "";
  }

  // `fallback`: the label of a tasklet, map or nested SDFG whose file gives none.
  std::unique_ptr<Node> read_node(const JsonCursor& c, SDFG& sdfg, const std::string& qual,
                                  const std::string& fallback) {
    auto type = c.at("type").string();
    std::string label = c.has("label") ? c.at("label").string() : "";
    JsonCursor a = c.has("attributes") ? c.at("attributes") : c;
    if (c.has("attributes")) a.object();
    // Tasklets and nested SDFGs: DaCe's label is the attribute; the node's copy is derived.
    auto identifier_label = [&](const char* what) {
      if (c.has("attributes") && a.has("label")) {
        label = a.at("label").string();
        require_identifier(a.at("label"), label, what);
      } else if (c.has("label")) {
        require_identifier(c.at("label"), label, what);
      } else {
        label = fallback;
      }
    };
    std::unique_ptr<Node> node;
    std::set<std::string> known = {"in_connectors", "out_connectors"};
    if (type == "AccessNode") {
      auto n = std::make_unique<AccessNode>(a.at("data").string());
      if (a.has("setzero")) n->setzero = a.at("setzero").boolean();
      known.insert({"data", "setzero"});
      node = std::move(n);
    } else if (type == "Tasklet") {
      if (!c.has("attributes") || !a.has("code")) c.fail("tasklet has no code");
      identifier_label("tasklet label");
      auto n = std::make_unique<Tasklet>(label, a.at("code").code());
      if (a.has("code_global")) n->code_global = a.at("code_global").code();
      if (a.has("code_init")) n->code_init = a.at("code_init").code();
      if (a.has("code_exit")) n->code_exit = a.at("code_exit").code();
      if (a.has("side_effects")) n->side_effects = a.at("side_effects").boolean();
      known.insert({"code", "code_global", "code_init", "code_exit", "side_effects", "label"});
      node = std::move(n);
    } else if (type == "MapEntry") {
      auto m = std::make_shared<MapInfo>();
      // The node's label is `name[params]` (map_node_label); without the attribute, its name part.
      m->label = a.has("label") ? a.at("label").string() : label.substr(0, label.find('['));
      if (!a.has("label") && !is_identifier(m->label)) m->label = fallback;
      auto ps = a.at("params");
      ps.array();
      for (std::size_t i = 0; i < ps.size(); ++i) {
        m->params.push_back(ps.index(i).string());
        require_identifier(ps.index(i), m->params.back(), "map parameter");
      }
      if (a.has("label")) require_identifier(a.at("label"), m->label, "map label");
      m->range = read_subset(a.at("range"));
      if (m->range.dims() != m->params.size())
        a.at("range").fail("map has " + std::to_string(m->params.size()) + " parameters but its range has " +
                           std::to_string(m->range.dims()) + " dimensions");
      if (a.has("schedule"))
        m->schedule = read_enum<ScheduleType>(a.at("schedule"), schedule_type_from_string, "schedule type");
      if (a.has("unroll")) m->unroll = a.at("unroll").boolean();
      if (a.has("collapse")) m->collapse = static_cast<int>(a.at("collapse").integer());
      if (a.has("gpu_block_size")) {
        auto g = a.at("gpu_block_size");
        g.array();
        for (std::size_t i = 0; i < g.size(); ++i)
          m->gpu_block_size.push_back(g.index(i).value().is_string() ? g.index(i).string()
                                                                     : g.index(i).value().dump());
      }
      known.insert({"label", "params", "range", "schedule", "unroll", "collapse", "gpu_block_size"});
      // cpu-schedules' SIMD hint, thread choice, OpenMP schedule, streaming-stores choice and
      // reduction verdicts are the map's (MapInfo::extra, which the writer puts here), not the
      // node's: the code generator reads them there. So are the markers of the remainder maps
      // MapVectorization and ScanFullBlocks make (their transformations refuse those maps again
      // by them), and the accesses a fusion removed whose bounds the map still checks
      // (checked_accesses.h), and MapTiling's divides_evenly promises the map checks
      // ("weir_tiles_divide", weir/transforms/map_tiling.h).
      for (const char* key :
           {"weir_vectorize", kThreadsAttribute, kPointsAttribute, kPartialsAttribute, kPrivatizedAttribute,
            "weir_vector_remainder", "weir_colblock_remainder", kCheckedAccessesAttribute,
            kOmpScheduleAttribute, kStreamingStoresAttribute, "weir_tiles_divide"})
        for (const std::string& spelling : {attribute_key_in_file(key), std::string(key)})
          if (a.has(spelling.c_str())) {  // `_meta_weir_x`, or an older file's `weir_x`
            m->extra.set(key, a.at(spelling.c_str()).value().dump());
            known.insert(spelling);
          }
      auto n = std::make_unique<MapEntry>(m);
      n->label = label;
      node = std::move(n);
    } else if (type == "MapExit") {
      // The map is shared with the entry, linked once all nodes are read.
      auto n = std::make_unique<MapExit>(std::make_shared<MapInfo>());
      node = std::move(n);
    } else if (type == "NestedSDFG") {
      identifier_label("nested SDFG label");
      auto inner = read_sdfg(a.at("sdfg"), /*top=*/false, qual);
      auto n = std::make_unique<NestedSDFGNode>(label, std::move(inner));
      if (a.has("symbol_mapping")) {
        auto sm = a.at("symbol_mapping");
        for (const auto& [k, v] : sm.object()) n->symbol_mapping[k] = sm.member(k).expr();
      }
      if (a.has("schedule"))
        n->schedule = read_enum<ScheduleType>(a.at("schedule"), schedule_type_from_string, "schedule type");
      known.insert({"sdfg", "symbol_mapping", "schedule", "label"});
      node = std::move(n);
    } else if (!classpath(c, a).empty() || type == "Reduce") {
      // A library node: known ones are modelled, others kept opaque with all attributes.
      auto n = std::make_unique<LibraryNode>(label, type);
      n->classpath = classpath(c, a);
      // weir wrote a Reduce as type "Reduce" without its class path before session 33: read
      // as DaCe writes it, so it is written back so.
      if (n->classpath.empty() && type == "Reduce") n->classpath = kDaceReduceClasspath;
      if (a.has("schedule"))
        n->schedule = read_enum<ScheduleType>(a.at("schedule"), schedule_type_from_string, "schedule type");
      if (a.has("implementation") && !a.at("implementation").value().is_null())
        n->implementation = a.at("implementation").string();
      // weir's own choice where DaCe has no such name for the node type (serialize_write).
      for (const char* key : {"weir_implementation", "_meta_weir_implementation"})
        if (a.has(key)) n->implementation = a.at(key).string();
      // `label` stays verbatim: a library node's attribute label is its name ("Reduce"),
      // not the node's label ("Reduce (Min), Axes: all").
      known.insert(
          {"classpath", "schedule", "implementation", "weir_implementation", "_meta_weir_implementation"});
      if (n->is_reduce()) {
        if (a.has("wcr")) n->wcr = a.at("wcr").string();
        if (a.has("axes") && !a.at("axes").value().is_null()) {
          std::vector<int> axes;
          auto ax = a.at("axes");
          ax.array();
          for (std::size_t i = 0; i < ax.size(); ++i) axes.push_back(static_cast<int>(ax.index(i).integer()));
          n->axes = axes;
        }
        if (a.has("identity")) {
          const json& v = a.at("identity").value();
          n->identity = v.dump();
        }
        known.insert({"wcr", "axes", "identity"});
      }
      node = std::move(n);
    } else {
      c.at("type").fail("unknown node type '" + type + "'");
    }
    node->label = label;
    if (c.has("attributes")) {
      node->in_connectors = read_connectors(a, "in_connectors");
      node->out_connectors = read_connectors(a, "out_connectors");
      keep_unknown(a, known, node->extra);
    }
    (void)sdfg;
    return node;
  }

  Memlet read_memlet(const JsonCursor& c) {
    auto t = c.at("type").string();
    if (t != "Memlet") c.at("type").fail("expected type 'Memlet', found '" + t + "'");
    Memlet m;
    if (!c.has("attributes")) return m;  // empty memlet
    auto a = c.at("attributes");
    a.object();
    if (a.has("data")) m.data = a.at("data").string();
    if (!m.data.empty()) {
      if (!a.has("subset")) a.fail("memlet of '" + m.data + "' has no subset");
      m.subset = read_subset(a.at("subset"));
    } else if (a.has("subset")) {
      m.subset = read_subset(a.at("subset"));
    }
    if (a.has("other_subset")) m.other_subset = read_subset(a.at("other_subset"));
    if (a.has("volume"))
      m.volume = a.at("volume").expr();
    else if (a.has("num_accesses"))
      m.volume = a.at("num_accesses").expr();
    else
      m.volume = m.subset.num_elements();
    if (a.has("dynamic")) m.dynamic = a.at("dynamic").boolean();
    if (a.has("wcr")) m.wcr = a.at("wcr").string();
    if (a.has("wcr_nonatomic")) m.wcr_nonatomic = a.at("wcr_nonatomic").boolean();
    if (a.has("allow_oob")) m.allow_oob = a.at("allow_oob").boolean();
    if (a.has("is_data_src")) m.is_data_src = a.at("is_data_src").boolean();
    keep_unknown(a,
                 {"data", "subset", "other_subset", "volume", "dynamic", "wcr", "wcr_nonatomic", "allow_oob",
                  "is_data_src"},
                 m.extra, kDerivedMemletKeys);
    return m;
  }
};

}  // namespace

std::unique_ptr<SDFG> sdfg_from_json_text(std::string_view text, const std::string& origin) {
  // Files often given where an SDFG is read by mistake: say what they are.
  if (text.substr(0, 6) == "\x93NUMPY")
    throw SdfgLoadError(
        origin, "/", "",
        "a NumPy array (.npy, \\x93NUMPY magic), not an SDFG (.sdfg, .sdfgz); `weir run` takes "
        "arrays with --in NAME=FILE.npy or --in-dir DIR");
  json root;
  try {
    root = parse_json(text, origin);
  } catch (const InvalidJsonError& e) {
    throw SdfgLoadError(e);
  }
  if (!root.is_object())
    throw SdfgLoadError(origin, "/", "",
                        std::string("not an SDFG: expected a JSON object with \"type\": \"SDFG\", found ") +
                            (root.is_array() ? "an array (a transformation script is given to weir optimize "
                                               "--script)"
                                             : std::string("a ") + root.type_name()));
  return Reader(origin).read_sdfg(root);
}

}  // namespace weir
