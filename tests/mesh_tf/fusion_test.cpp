// Fusion (fusion.hpp) against hand-computed HBM bytes and times on one core: the elementwise chains of
// FusionPolicy::loop, and XLA's fusions (FusionPolicy::xla): matmul epilogues, duplicated cheap producers and
// sibling reductions.
#include "mesh_tf/fusion.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"

using namespace tpusim::mtf;

namespace {

constexpr double kPeak_flops = 22.5e12, kHbm_Bps = 350e9, kOverhead_s = 1e-6;
constexpr double kMiB = 1 << 20;

struct OpFigures {
  double bytes = 0, flops = 0, time_s = 0;
};

// Each op's figures after lowering `g` on one core of the hand device under `fusion`.
std::map<std::string, OpFigures> run_graph(Graph& g, const std::vector<Tensor>& outputs,
                                           FusionPolicy fusion) {
  ExecutionOptions options;
  options.numerics = false;
  options.fusion = fusion;
  options.outputs = outputs;
  const DeviceModel v2 = DeviceModel::tpu_v2_core();
  options.device = DeviceModel("hand", kPeak_flops, kHbm_Bps, v2.hbm_bytes(), kOverhead_s);
  Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  executor.run();
  std::map<std::string, OpFigures> out;
  for (const auto& op : executor.counters().ops)
    out[op.name] = {op.hbm_bytes_per_core, op.flops_per_core, op.time_s};
  return out;
}

// relu -> scale -> add (with a second input) -> sum over b, fp32 [1024 x 1024] tensors (4 MiB each), and
// optionally the relu's result read a second time (by an extra add) or asked for as an output.
std::map<std::string, OpFigures> run_chain(FusionPolicy fusion, bool relu_read_twice, bool relu_is_output) {
  Graph g(1);
  const Dimension a("a", 1024), b("b", 1024);
  const Tensor x = g.input("x", {a, b}), x2 = g.input("x2", {a, b});
  const Tensor y = relu(x, "relu");
  const Tensor z = scale(y, 2.0, "scale");
  const Tensor w = add(z, x2, "add");
  const Tensor s = reduce_sum(w, Shape{a}, "sum");
  std::vector<Tensor> outputs{s};
  if (relu_read_twice) outputs.push_back(add(y, x2, "second_reader"));
  if (relu_is_output) outputs.push_back(y);
  return run_graph(g, outputs, fusion);
}

double roofline_s(double flops, double bytes) { return std::max(flops / kPeak_flops, bytes / kHbm_Bps); }

}  // namespace

TEST_CASE("loop fusion: an elementwise chain into a reduction reads its inputs and writes its result once") {
  const auto fused = run_chain(FusionPolicy::loop, false, false);
  const auto unfused = run_chain(FusionPolicy::none, false, false);
  // By hand, fused: relu reads x (its result stays on chip); scale moves nothing; add reads x2; the sum
  // writes its 4 KiB row sums. Unfused every op reads its inputs and writes its result.
  CHECK(fused.at("relu").bytes == 4 * kMiB);
  CHECK(fused.at("scale").bytes == 0);
  CHECK(fused.at("add").bytes == 4 * kMiB);
  CHECK(fused.at("sum").bytes == 4096);
  CHECK(unfused.at("relu").bytes == 8 * kMiB);
  CHECK(unfused.at("scale").bytes == 8 * kMiB);
  CHECK(unfused.at("add").bytes == 12 * kMiB);
  CHECK(unfused.at("sum").bytes == 4 * kMiB + 4096);
  // Times: each op's roofline on the bytes it still moves; the 1 us overhead once, on the fusion's last op.
  CHECK(fused.at("relu").time_s == Approx(roofline_s(fused.at("relu").flops, 4 * kMiB)).epsilon(1e-12));
  CHECK(fused.at("scale").time_s == Approx(1024.0 * 1024 / kPeak_flops).epsilon(1e-12));  // FLOP rate
  CHECK(fused.at("add").time_s == Approx(roofline_s(fused.at("add").flops, 4 * kMiB)).epsilon(1e-12));
  CHECK(fused.at("sum").time_s ==
        Approx(kOverhead_s + roofline_s(fused.at("sum").flops, 4096)).epsilon(1e-12));
  for (const auto& [name, op] : unfused) {
    if (op.bytes == 0) continue;  // the inputs: no step
    INFO(name);
    CHECK(op.time_s == Approx(kOverhead_s + roofline_s(op.flops, op.bytes)).epsilon(1e-12));
  }
  double fused_s = 0, unfused_s = 0;
  for (const auto& [name, op] : fused) fused_s += op.time_s;
  for (const auto& [name, op] : unfused) unfused_s += op.time_s;
  CHECK(fused_s < 0.3 * unfused_s);
}

TEST_CASE("loop fusion: a result read twice, or asked for, goes to HBM") {
  for (const bool twice : {true, false}) {
    INFO((twice ? "read twice" : "an output"));
    const auto ops = run_chain(FusionPolicy::loop, twice, !twice);
    CHECK(ops.at("relu").bytes == 8 * kMiB);     // writes its result
    CHECK(ops.at("scale").bytes == 4 * kMiB);    // reads it, its own result fused into the add
    CHECK(ops.at("relu").time_s > kOverhead_s);  // the end of a fusion: its overhead paid
    if (twice) CHECK(ops.at("second_reader").bytes == 12 * kMiB);
  }
}

TEST_CASE("xla fusion: the chain is one kernel, timed as one roofline with one overhead") {
  const auto ops = run_chain(FusionPolicy::xla, false, false);
  // By hand: the kernel reads x and x2 (4 MiB each) and writes the 4 KiB row sums; its compute is the four
  // ops' 1M operations each at the peak rate (this device has no units); all of it charged to the sum.
  for (const char* member : {"relu", "scale", "add"}) {
    INFO(member);
    CHECK(ops.at(member).bytes == 0);
    CHECK(ops.at(member).time_s == 0);
  }
  CHECK(ops.at("sum").bytes == 8 * kMiB + 4096);
  const double compute_s = 4.0 * 1024 * 1024 / kPeak_flops;
  CHECK(ops.at("sum").time_s == Approx(kOverhead_s + std::max(compute_s, (8 * kMiB + 4096) / kHbm_Bps)));
}

TEST_CASE("xla fusion: a cheap producer read twice is computed again in each reader") {
  const auto ops = run_chain(FusionPolicy::xla, true, false);
  // relu reads one tensor and costs no transcendental: each reader reads x instead of relu's result.
  CHECK(ops.at("relu").bytes == 0);
  CHECK(ops.at("sum").bytes == 8 * kMiB + 4096);      // x (for its copy of relu) and x2
  CHECK(ops.at("second_reader").bytes == 12 * kMiB);  // x, x2 and its own result, an output
  // Asked for as an output, relu's result is written by its own kernel and read by the chain.
  const auto output = run_chain(FusionPolicy::xla, false, true);
  CHECK(output.at("relu").bytes == 8 * kMiB);
  CHECK(output.at("sum").bytes == 8 * kMiB + 4096);
}

TEST_CASE("xla fusion: a per-channel rsqrt does not stop the large cheap op it feeds from being duplicated") {
  // y = x * rsqrt(v), as batch norm scales: the rsqrt runs on 1024 elements, the multiply on 1M. Read by two
  // sums, y is computed again in each (sibling sums, then one pass): the pass reads x (4 MiB) and v (4 KiB)
  // and writes the two 4 KiB rows. An exp over the 1M elements read twice is expensive: written once.
  for (const bool large_transcendental : {false, true}) {
    INFO("exp on the large tensor: " << large_transcendental);
    Graph g(1);
    const Dimension a("a", 1024), b("b", 1024);
    const Tensor x = g.input("x", {a, b}), v = g.input("v", {b});
    const Tensor y = large_transcendental ? exp(x, "y") : mul(x, rsqrt(v, "rsqrt"), "y");
    const Tensor s1 = reduce_sum(y, Shape{a}, "s1");
    const Tensor s2 = reduce_sum(scale(y, 2.0, "scale"), Shape{a}, "s2");
    const auto ops = run_graph(g, {s1, s2}, FusionPolicy::xla);
    if (!large_transcendental) {
      CHECK(ops.at("y").bytes == 0);
      CHECK(ops.at("s1").bytes + ops.at("s2").bytes == 4 * kMiB + 4096 + 2 * 4096);
    } else {
      CHECK(ops.at("y").bytes == 8 * kMiB);                                  // reads x, writes y
      CHECK(ops.at("s1").bytes + ops.at("s2").bytes == 4 * kMiB + 2 * 4096);  // one pass over y
    }
  }
}

TEST_CASE("xla fusion: a matmul takes the relu that alone reads its result into its output") {
  Graph g(1);
  const Dimension m("m", 1024), k("k", 512), n("n", 256);
  const Tensor a = g.input("a", {m, k}), b = g.input("b", {k, n});
  const Tensor y = relu(einsum({a, b}, Shape{m, n}, "matmul"), "relu");
  const auto ops = run_graph(g, {y}, FusionPolicy::xla);
  // The matmul's [m, n] result never reaches HBM: the kernel reads a (2 MiB) and b (0.5 MiB) and writes the
  // relu's result (1 MiB); the matmul's 2*m*k*n FLOPs at the peak rate bound it.
  CHECK(ops.at("matmul").bytes == 0);
  CHECK(ops.at("relu").bytes == 3.5 * kMiB);
  const double matmul_s = 2.0 * 1024 * 512 * 256 / kPeak_flops;
  CHECK(ops.at("relu").time_s == Approx(kOverhead_s + std::max(matmul_s, 3.5 * kMiB / kHbm_Bps)));
}

TEST_CASE("xla fusion: two sums over one tensor read it once") {
  Graph g(1);
  const Dimension a("a", 1024), b("b", 1024);
  const Tensor x = g.input("x", {a, b});
  const Tensor sum = reduce_sum(x, Shape{a}, "sum");
  const Tensor sum_of_squares = reduce_sum(square(x, "square"), Shape{a}, "sum_of_squares");
  const auto ops = run_graph(g, {sum, sum_of_squares}, FusionPolicy::xla);
  // One pass over x (4 MiB) writing both 4 KiB results, charged to the later sum.
  CHECK(ops.at("sum").bytes + ops.at("square").bytes == 0);
  CHECK(ops.at("sum_of_squares").bytes == 4 * kMiB + 2 * 4096);
}

TEST_CASE("xla fusion: a sum that another sum over the same tensor feeds, through a chain of kernels, reads it again") {
  // s2 reads x times a row computed from s1 by 8 scalings, each its own kernel (asked for as an output, so
  // written): fusing s1 and s2 into one pass would need s2's input before it exists. Each pass reads x
  // (4 MiB); s1 writes its 4 KiB row, s2 reads the row t (4 KiB, the multiply fused into it) and writes its
  // own. Without the chain (s2 reading x times s1 directly) the multiply still reads s1: again two passes.
  for (const int links : {0, 8}) {
    INFO("kernels between the sums: " << links);
    Graph g(1);
    const Dimension a("a", 1024), b("b", 1024);
    const Tensor x = g.input("x", {a, b});
    const Tensor s1 = reduce_sum(x, Shape{a}, "s1");
    std::vector<Tensor> outputs{s1};
    Tensor t = s1;
    for (int k = 0; k < links; ++k) {
      t = scale(t, 2.0, "link_" + std::to_string(k));
      outputs.push_back(t);
    }
    const Tensor s2 = reduce_sum(mul(x, t, "weighted"), Shape{b}, "s2");
    outputs.push_back(s2);
    const auto ops = run_graph(g, outputs, FusionPolicy::xla);
    CHECK(ops.at("s1").bytes == 4 * kMiB + 4096);
    CHECK(ops.at("weighted").bytes == 0);
    CHECK(ops.at("s2").bytes == 4 * kMiB + 4096 + 4096);
  }
}

TEST_CASE("fusion: policies by name") {
  CHECK(fusion_policies().parse("xla") == FusionPolicy::xla);
  CHECK(fusion_policies().parse("loop") == FusionPolicy::loop);
  CHECK(fusion_policies().parse("none") == FusionPolicy::none);
  CHECK(fusion_policies().names() == std::vector<std::string>{"xla", "loop", "none"});
}
