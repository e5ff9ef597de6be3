// GPU validation (validate_gpu.cpp): what may run where. Each rule is broken once in a hand-built
// SDFG and must be reported with its code and the element (SDFG, state, node or edge); the
// same graphs with the right storage or schedule must validate; DaCe's GPU stages validate.
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "corpus.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using sym::Expr;

namespace {

std::string all_text(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) s += d.str() + "\n";
  return s;
}

std::vector<Diagnostic> with_code(const std::vector<Diagnostic>& ds, const std::string& code) {
  std::vector<Diagnostic> out;
  for (const auto& d : ds)
    if (d.code == code) out.push_back(d);
  return out;
}

/// k(A[N], B[N]): state "main", map "m" over i in 0:N with schedule `s` running B[i] = 2 * A[i].
/// Ids: A 0, B 1, entry 2, exit 3, tasklet 4.
struct Kernel {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("k");
  SDFGState* st = nullptr;
  NodeId entry = 0, tasklet = 0;
  explicit Kernel(StorageType a, StorageType b, ScheduleType s = ScheduleType::GPU_Device) {
    sdfg->add_symbol("N");
    sdfg->add_array("A", ScalarType::Float64, {Expr::symbol("N")}).storage = a;
    sdfg->add_array("B", ScalarType::Float64, {Expr::symbol("N")}).storage = b;
    sdfg->arg_names = {"A", "B"};
    st = &sdfg->add_state("main", true);
    NodeId an = st->add_access("A").id(), bn = st->add_access("B").id();
    auto& me = st->add_map("m", {"i"}, Subset::parse("0:N"), s);
    entry = me.id();
    tasklet = st->add_tasklet("twice", CodeBlock{"y = 2 * x", Language::Python}, {"x"}, {"y"}).id();
    auto in = st->add_memlet_path({an, entry, tasklet}, Memlet::simple("A", Subset::parse("i")), "", "x");
    auto out = st->add_memlet_path({tasklet, me.exit, bn}, Memlet::simple("B", Subset::parse("i")), "y", "");
    st->edge(in.front()).memlet = Memlet::simple("A", Subset::parse("0:N"));
    st->edge(out.back()).memlet = Memlet::simple("B", Subset::parse("0:N"));
  }
};

/// t(A[N], s): state "main" where tasklet "get" (node 2) reads A[0] into s.
struct HostTasklet {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("t");
  SDFGState* st = nullptr;
  NodeId tasklet = 0;
  explicit HostTasklet(StorageType a) {
    sdfg->add_symbol("N");
    sdfg->add_array("A", ScalarType::Float64, {Expr::symbol("N")}).storage = a;
    sdfg->add_array("C", ScalarType::Float64, {Expr(1)}).storage = StorageType::CPU_Heap;
    st = &sdfg->add_state("main", true);
    NodeId an = st->add_access("A").id(), cn = st->add_access("C").id();
    tasklet = st->add_tasklet("get", CodeBlock{"y = x", Language::Python}, {"x"}, {"y"}).id();
    st->add_edge(an, "", tasklet, "x", Memlet::simple("A", Subset::parse("0")));
    st->add_edge(tasklet, "y", cn, "", Memlet::simple("C", Subset::parse("0")));
  }
};

}  // namespace

TEST_CASE("gpu validation: a kernel reading a CPU_Heap array is an error at the map", "[validate][gpu]") {
  Kernel k(StorageType::CPU_Heap, StorageType::GPU_Global);
  auto ds = with_code(validate(*k.sdfg), "gpu-host-data-in-kernel");
  INFO(all_text(validate(*k.sdfg)));
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].where.sdfg == "k");
  CHECK(ds[0].where.block_path == "main");
  CHECK(ds[0].where.node == static_cast<long>(k.entry));
  CHECK(ds[0].message == "map entry 'm' (node 2) (GPU_Device) reads 'A', which is in host memory (CPU_Heap)");
  // Written host data is reported as a write.
  Kernel w(StorageType::GPU_Global, StorageType::CPU_Heap);
  auto dw = with_code(validate(*w.sdfg), "gpu-host-data-in-kernel");
  REQUIRE(dw.size() == 1);
  CHECK_THAT(dw[0].message, Catch::Contains("writes 'B', which is in host memory (CPU_Heap)"));
}

TEST_CASE("gpu validation: device storage, pinned memory and host scalars read by value are fine",
          "[validate][gpu]") {
  CHECK(all_text(validate(*Kernel(StorageType::GPU_Global, StorageType::GPU_Global).sdfg)) == "");
  CHECK(all_text(validate(*Kernel(StorageType::CPU_Pinned, StorageType::GPU_Global).sdfg)) == "");
  // The same map on the host with host data.
  CHECK(all_text(validate(
            *Kernel(StorageType::CPU_Heap, StorageType::Default, ScheduleType::CPU_Multicore).sdfg)) == "");
  // A scalar argument read inside the kernel: passed by value.
  Kernel k(StorageType::GPU_Global, StorageType::GPU_Global);
  k.sdfg->add_scalar("alpha", ScalarType::Float64);
  NodeId al = k.st->add_access("alpha").id();
  Tasklet& t = *k.st->node(k.tasklet).as<Tasklet>();
  t.in_connectors["a"] = std::nullopt;
  t.code.code = "y = a * x";
  k.st->add_memlet_path({al, k.entry, k.tasklet}, Memlet::simple("alpha", Subset::parse("0")), "", "a");
  CHECK(all_text(validate(*k.sdfg)) == "");
}

TEST_CASE("gpu validation: a kernel writing a host scalar is an error", "[validate][gpu]") {
  Kernel k(StorageType::GPU_Global, StorageType::GPU_Global);
  k.sdfg->add_scalar("s", ScalarType::Float64, true);
  NodeId s = k.st->add_access("s").id();
  Tasklet& t = *k.st->node(k.tasklet).as<Tasklet>();
  t.out_connectors["z"] = std::nullopt;
  t.code.code = "y = 2 * x\nz = x";
  MapEntry& me = *k.st->node(k.entry).as<MapEntry>();
  k.st->add_memlet_path({k.tasklet, me.exit, s},
                        Memlet::simple("s", Subset::parse("0"), "lambda a, b: a + b"), "z", "");
  auto ds = with_code(validate(*k.sdfg), "gpu-host-data-in-kernel");
  INFO(all_text(validate(*k.sdfg)));
  REQUIRE(ds.size() == 1);
  CHECK_THAT(ds[0].message, Catch::Contains("writes 's', a host scalar (Default)"));
  // In GPU memory it may be written.
  k.sdfg->data("s").storage = StorageType::GPU_Global;
  CHECK(all_text(validate(*k.sdfg)) == "");
}

TEST_CASE("gpu validation: a default-storage argument is host memory to a kernel", "[validate][gpu]") {
  Kernel k(StorageType::Default, StorageType::GPU_Global);
  auto ds = with_code(validate(*k.sdfg), "gpu-host-data-in-kernel");
  REQUIRE(ds.size() == 1);
  CHECK_THAT(
      ds[0].message,
      Catch::Contains("reads 'A', which is in host memory (storage Default argument outside the kernel)"));
}

TEST_CASE("gpu validation: a host tasklet reading GPU_Global data is an error at the tasklet",
          "[validate][gpu]") {
  HostTasklet h(StorageType::GPU_Global);
  auto ds = with_code(validate(*h.sdfg), "gpu-device-data-on-host");
  INFO(all_text(validate(*h.sdfg)));
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].where.node == static_cast<long>(h.tasklet));
  CHECK(ds[0].where.block_path == "main");
  CHECK(ds[0].message ==
        "tasklet 'get' (node 2) runs on the host but reads 'A', which is in GPU memory (GPU_Global): "
        "put it in a GPU_Device map or copy the data to the host");
  CHECK(all_text(validate(*HostTasklet(StorageType::CPU_Heap).sdfg)) == "");
}

TEST_CASE("gpu validation: a CPU map reading GPU_Global data is an error at its tasklet", "[validate][gpu]") {
  Kernel k(StorageType::GPU_Global, StorageType::CPU_Heap, ScheduleType::CPU_Multicore);
  auto ds = with_code(validate(*k.sdfg), "gpu-device-data-on-host");
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].where.node == static_cast<long>(k.tasklet));
  CHECK_THAT(ds[0].message, Catch::Contains("reads 'A', which is in GPU memory"));
}

TEST_CASE("gpu validation: copies between host and device containers are host code's job",
          "[validate][gpu]") {
  SDFG g("c");
  g.add_symbol("N");
  g.add_array("A", ScalarType::Float64, {Expr::symbol("N")}).storage = StorageType::CPU_Heap;
  g.add_array("gA", ScalarType::Float64, {Expr::symbol("N")}, true).storage = StorageType::GPU_Global;
  SDFGState& st = g.add_state("copy", true);
  NodeId a = st.add_access("A").id(), b = st.add_access("gA").id(), c = st.add_access("A").id();
  st.add_edge(a, "", b, "", Memlet::simple("A", Subset::parse("0:N")));
  st.add_edge(b, "", c, "", Memlet::simple("gA", Subset::parse("0:N")));
  CHECK(all_text(validate(g)) == "");
}

TEST_CASE("gpu validation: thread-block maps only inside kernels, CPU maps only outside", "[validate][gpu]") {
  Kernel tb(StorageType::GPU_Global, StorageType::GPU_Global, ScheduleType::GPU_ThreadBlock);
  auto ds = with_code(validate(*tb.sdfg), "gpu-threadblock-outside-kernel");
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].where.node == static_cast<long>(tb.entry));
  CHECK(ds[0].message ==
        "map entry 'm' (node 2) has schedule GPU_ThreadBlock but is not inside a GPU_Device map "
        "(thread-block maps run inside kernels)");

  // A kernel map around an inner map: GPU_ThreadBlock inside is fine, CPU_Multicore is not.
  auto nested = [](ScheduleType inner) {
    auto g = std::make_unique<SDFG>("n");
    g->add_symbol("N");
    g->add_array("A", ScalarType::Float64, {Expr::symbol("N"), Expr(32)}).storage = StorageType::GPU_Global;
    g->add_array("B", ScalarType::Float64, {Expr::symbol("N"), Expr(32)}).storage = StorageType::GPU_Global;
    SDFGState& st = g->add_state("main", true);
    NodeId a = st.add_access("A").id(), b = st.add_access("B").id();
    auto& outer = st.add_map("blocks", {"i"}, Subset::parse("0:N"), ScheduleType::GPU_Device);
    auto& in = st.add_map("threads", {"j"}, Subset::parse("0:32"), inner);
    NodeId t = st.add_tasklet("t", CodeBlock{"y = x + 1", Language::Python}, {"x"}, {"y"}).id();
    auto p =
        st.add_memlet_path({a, outer.id(), in.id(), t}, Memlet::simple("A", Subset::parse("i, j")), "", "x");
    auto q =
        st.add_memlet_path({t, in.exit, outer.exit, b}, Memlet::simple("B", Subset::parse("i, j")), "y", "");
    st.edge(p[0]).memlet = Memlet::simple("A", Subset::parse("0:N, 0:32"));
    st.edge(p[1]).memlet = Memlet::simple("A", Subset::parse("i, 0:32"));
    st.edge(q[1]).memlet = Memlet::simple("B", Subset::parse("i, 0:32"));
    st.edge(q[2]).memlet = Memlet::simple("B", Subset::parse("0:N, 0:32"));
    return g;
  };
  CHECK(all_text(validate(*nested(ScheduleType::GPU_ThreadBlock))) == "");
  CHECK(all_text(validate(*nested(ScheduleType::Sequential))) == "");
  auto bad = validate(*nested(ScheduleType::CPU_Multicore));
  auto dc = with_code(bad, "gpu-cpu-schedule-in-kernel");
  INFO(all_text(bad));
  REQUIRE(dc.size() == 1);
  CHECK(dc[0].where.node == 4);
  CHECK(dc[0].message == "map entry 'threads' (node 4) has schedule CPU_Multicore inside a GPU kernel");
}

TEST_CASE("gpu validation: control flow cannot read GPU memory", "[validate][gpu]") {
  SDFG g("cf");
  g.add_scalar("flag", ScalarType::Int32, true).storage = StorageType::GPU_Global;
  SDFGState& a = g.add_state("a", true);
  SDFGState& b = g.add_state("b");
  InterstateEdge cond;
  cond.condition = CodeBlock{"flag > 0", Language::Python};
  EdgeId e = g.add_edge(a.id(), b.id(), cond).id;
  auto ds = with_code(validate(g), "gpu-device-data-in-control-flow");
  INFO(all_text(validate(g)));
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].where.edge == static_cast<long>(e));
  CHECK(ds[0].message ==
        "the interstate edge's condition reads 'flag', which is in GPU memory (GPU_Global): host "
        "control flow cannot read it (copy it to a host container first)");
  // A loop condition too, inside a LoopRegion.
  SDFG l("lp");
  l.add_array("n", ScalarType::Int64, {Expr(1)}, true).storage = StorageType::GPU_Global;
  LoopRegion& loop = l.add_loop("loop", "k", "k = 0", "k < n[0]", "k = k + 1");
  loop.add_state("body", true);
  auto dl = with_code(validate(l), "gpu-device-data-in-control-flow");
  REQUIRE(dl.size() == 1);
  CHECK(dl[0].where.block_path == "loop");
  CHECK_THAT(dl[0].message, Catch::StartsWith("the loop's condition reads 'n'"));
}

TEST_CASE("gpu validation: nested SDFGs keep their arguments' side and run in their caller's context",
          "[validate][gpu]") {
  // outer(A[N] on the GPU, B[N] on the GPU): a nested SDFG copies X -> Y.
  auto build = [](bool in_kernel, StorageType inner_storage) {
    auto inner = std::make_unique<SDFG>("inner");
    inner->add_symbol("N");
    inner->add_array("X", ScalarType::Float64, {Expr::symbol("N")}).storage = inner_storage;
    inner->add_array("Y", ScalarType::Float64, {Expr::symbol("N")}).storage = inner_storage;
    inner->add_array("tmp", ScalarType::Float64, {Expr::symbol("N")}, true).storage = StorageType::CPU_Heap;
    SDFGState& is = inner->add_state("s", true);
    NodeId x = is.add_access("X").id(), t = is.add_access("tmp").id(), y = is.add_access("Y").id();
    is.add_edge(x, "", t, "", Memlet::simple("X", Subset::parse("0:N")));
    is.add_edge(t, "", y, "", Memlet::simple("tmp", Subset::parse("0:N")));
    auto g = std::make_unique<SDFG>("outer");
    g->add_symbol("N");
    g->add_array("A", ScalarType::Float64, {Expr::symbol("N")}).storage = StorageType::GPU_Global;
    g->add_array("B", ScalarType::Float64, {Expr::symbol("N")}).storage = StorageType::GPU_Global;
    SDFGState& st = g->add_state("main", true);
    NodeId a = st.add_access("A").id(), b = st.add_access("B").id();
    std::map<std::string, Expr> syms{{"N", Expr::symbol("N")}};
    if (!in_kernel) {
      NodeId ns = st.add_nested_sdfg("call", std::move(inner), {"X"}, {"Y"}, syms).id();
      st.add_edge(a, "", ns, "X", Memlet::simple("A", Subset::parse("0:N")));
      st.add_edge(ns, "Y", b, "", Memlet::simple("B", Subset::parse("0:N")));
    } else {
      auto& me = st.add_map("one", {"i"}, Subset::parse("0:1"), ScheduleType::GPU_Device);
      NodeId ns = st.add_nested_sdfg("call", std::move(inner), {"X"}, {"Y"}, syms).id();
      st.add_memlet_path({a, me.id(), ns}, Memlet::simple("A", Subset::parse("0:N")), "", "X");
      st.add_memlet_path({ns, me.exit, b}, Memlet::simple("B", Subset::parse("0:N")), "Y", "");
    }
    return g;
  };
  // Host code: the nested SDFG's arguments must say GPU memory too.
  auto ds = validate(*build(false, StorageType::Default));
  auto dn = with_code(ds, "gpu-nested-storage");
  INFO(all_text(ds));
  REQUIRE(dn.size() == 2);
  CHECK(dn[0].where.node == 2);
  CHECK(dn[0].message ==
        "nested SDFG 'call' (node 2): its container 'X' (Default) is the outer container 'A' "
        "(GPU_Global): host and GPU memory differ, give both the same storage");
  CHECK(all_text(validate(*build(false, StorageType::GPU_Global))) == "");
  // In a kernel: the nested SDFG is device code, where its CPU_Heap transient cannot live.
  auto dk = validate(*build(true, StorageType::Default));
  auto dh = with_code(dk, "gpu-host-data-in-kernel");
  INFO(all_text(dk));
  REQUIRE(dh.size() == 1);
  CHECK(dh[0].where.sdfg == "outer/inner");
  CHECK(dh[0].where.block_path == "s");
  CHECK(dh[0].where.node == 1);
  CHECK_THAT(dh[0].message,
             Catch::Contains("inside a GPU kernel writes 'tmp', which is in host memory (CPU_Heap)"));
}

TEST_CASE("gpu validation: DaCe's GPU stages validate and do use the GPU", "[validate][gpu][corpus]") {
  int gpu_files = 0;
  for (const auto& f : weir::test::dace_corpus_files()) {
    std::string text = weir::test::read_text(f);
    if (text.find("GPU_Device") == std::string::npos) continue;
    ++gpu_files;
    INFO(f.string());
    auto sdfg = load_sdfg(f.string());
    CHECK(all_text(validate(*sdfg)) == "");
  }
  // hdiff, jacobi_2d, laplace2d (auto_optimized_gpu) and the doc samples gpu-notb, gpu-tb.
  CHECK(gpu_files == 5);
}
