// Lowering counts exactly the communication the paper tabulates for the two-layer example.
#include <catch2/catch.hpp>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/battery.hpp"
#include "tests/mesh_tf/two_layer.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;
using tpusim::sim::CollectiveKind;

namespace {

const std::int64_t b = 64, d_io = 32, d_h = 128;

Counters count(const std::string& mesh, const std::string& rules) {
  auto t = two_layer_example(b, d_io, d_h);
  ExecutionOptions options;
  options.numerics = false;
  options.outputs = {t.y, t.grads[0], t.grads[1], t.grads[2]};  // as an optimizer would consume them
  Executor executor(*t.graph, MeshShape::parse(mesh), LayoutRules::parse(rules), nullptr, options);
  return executor.counters();
}

}  // namespace

TEST_CASE("data parallel two-layer step allreduces both weight gradients") {
  for (const int n : {2, 4, 8}) {
    const auto c = count("all:" + std::to_string(n), "batch:all");
    CHECK(c.collectives.size() == 2);
    CHECK(c.elements(CollectiveKind::allreduce, {"all"}) == static_cast<std::uint64_t>(2 * d_io * d_h));
    CHECK(c.by_key().at("allreduce/all/einsum") == static_cast<std::uint64_t>(2 * d_io * d_h));
  }
}

TEST_CASE("model parallel two-layer step allreduces y and dx") {
  for (const int n : {2, 4, 8}) {
    const auto c = count("all:" + std::to_string(n), "hidden:all");
    CHECK(c.collectives.size() == 2);
    CHECK(c.elements(CollectiveKind::allreduce, {"all"}) == static_cast<std::uint64_t>(2 * b * d_io));
  }
}

TEST_CASE("mixed two-layer layout splits activations over cols and gradients over rows") {
  for (const auto& [r, c] : std::vector<std::pair<int, int>>{{2, 2}, {2, 4}, {4, 2}, {4, 8}}) {
    const auto counters =
        count("rows:" + std::to_string(r) + ";cols:" + std::to_string(c), "batch:rows;hidden:cols");
    CHECK(counters.collectives.size() == 4);
    CHECK(counters.elements(CollectiveKind::allreduce, {"cols"}) ==
          static_cast<std::uint64_t>(2 * b * d_io / r));
    CHECK(counters.elements(CollectiveKind::allreduce, {"rows"}) ==
          static_cast<std::uint64_t>(2 * d_io * d_h / c));
  }
}

TEST_CASE("counts flops per core and slice bytes of every tensor") {
  const auto c = count("rows:2;cols:4", "batch:rows;hidden:cols");
  double einsum_flops = 0;
  for (const auto& op : c.ops) {
    if (op.kind == OpKind::einsum) einsum_flops += op.flops_per_core;
  }
  // Forward x.w and h.v, backward dh, dw, dv, dx: six matmuls of 2*b*d_io*d_h over 8 cores.
  CHECK(einsum_flops == Approx(6.0 * 2 * b * d_io * d_h / 8));
  bool saw_w = false;
  for (const auto& t : c.tensors) {
    if (t.name == "w") {
      saw_w = true;
      CHECK(t.slice_bytes_per_core == static_cast<std::uint64_t>(d_io * d_h / 4 * 4));
      CHECK(t.is_variable);
      CHECK(t.layout == "[io:32, hidden:128 @cols]");
    }
    if (t.name == "x") CHECK(t.kept_for_backward);
    if (t.name == "y") CHECK_FALSE(t.kept_for_backward);
  }
  CHECK(saw_w);
  CHECK(c.variable_bytes_per_core() == static_cast<std::uint64_t>(2 * d_io * d_h / 4 * 4));
  CHECK(c.summary().find("allreduce/cols/einsum") != std::string::npos);
}

TEST_CASE("partial sums of a gradient are added before one allreduce") {
  Graph g;
  const Dimension batch("batch", 16), io("io", 8), hidden("hidden", 12);
  const Tensor x = g.input("x", {batch, io});
  const Tensor z = g.input("z", {batch, io});
  const Tensor w = g.variable("w", {io, hidden}, Initializer::normal(0.1f));
  // w is used twice: its gradient is the sum of two batch-summed einsums, each a partial sum over the mesh.
  const Tensor y = add(einsum({x, w}, Shape{batch, hidden}), einsum({z, w}, Shape{batch, hidden}));
  const Tensor loss = reduce_sum(square(y), Shape{batch}, "per_example");
  const auto grads = gradients({loss}, {g.fill(loss.shape(), 1)}, {w});
  ExecutionOptions options;
  options.numerics = false;
  options.outputs = {grads[0]};
  Executor executor(g, MeshShape::parse("all:4"), LayoutRules::parse("batch:all"), nullptr, options);
  const auto& c = executor.counters();
  REQUIRE(c.collectives.size() == 1);
  CHECK(c.collectives[0].elements_per_core == static_cast<std::uint64_t>(8 * 12));
  CHECK(c.collectives[0].key() == "allreduce/all/binary");
}

TEST_CASE("softmax and embedding over a split vocab allreduce max sum and the lookup over model") {
  auto p = split_vocab_softmax(4);  // batch 32, d_model 16, vocab 32
  ExecutionOptions options;
  options.numerics = false;
  Executor executor(*p.graph, MeshShape::parse("batch:4;model:8"),
                    LayoutRules::parse("batch:batch;vocab:model"), nullptr, options);
  const auto& c = executor.counters();
  std::uint64_t max_elements = 0, lookup_elements = 0, lse_sum_elements = 0;
  for (const auto& r : c.collectives) {
    if (r.reduce == tpusim::sim::ReduceOp::max) {
      CHECK(r.mesh_dims == std::vector<std::string>{"model"});
      max_elements += r.elements_per_core;
    }
    if (r.tensor == "embedded") lookup_elements += r.elements_per_core;
    const bool forward = c.ops[r.op].phase == Phase::forward;
    if (forward && r.reduce == tpusim::sim::ReduceOp::sum && r.tensor != "embedded" && r.tensor != "loss") {
      lse_sum_elements += r.elements_per_core;  // the softmax normaliser (and the target logit) per example
    }
  }
  CHECK(max_elements == 32 / 4);          // [b/r] over model
  CHECK(lse_sum_elements == 2 * 32 / 4);  // [b/r] over model: sum of exp and the target logit
  CHECK(lookup_elements == 32 / 4 * 16);  // [b/r, d_model] over model
}

TEST_CASE("moe dispatch and combine move tokens with alltoalls") {
  auto p = moe_dispatch_program(1);
  ExecutionOptions options;
  options.numerics = false;
  Executor executor(*p.graph, MeshShape::parse("batch:4;model:2"),
                    LayoutRules::parse("group:batch;experts:batch;d_ff:model"), nullptr, options);
  const auto& c = executor.counters();
  int alltoalls = 0;
  for (const auto& r : c.collectives) {
    CHECK(r.kind != CollectiveKind::allgather);
    if (r.kind == CollectiveKind::alltoall) {
      ++alltoalls;
      CHECK(r.mesh_dims == std::vector<std::string>{"batch"});
      // [experts, group, capacity, d_model] = 8 x 8 x 4 x 8 elements over 4 cores of batch
      CHECK(r.elements_per_core == 8u * 8 * 4 * 8 / 4);
    }
  }
  CHECK(alltoalls == 4);  // dispatch and combine, forward and backward
}

TEST_CASE("bf16 activations take 2 bytes in HBM and on the wire and are allreduced in fp32 above 8 cores") {
  for (const int n : {8, 16}) {
    Graph g;
    const Dimension batch("batch", 64), io("io", 32), hidden("hidden", 64);
    const Tensor x = g.input("x", {batch, io}, DType::bfloat16);
    const Tensor w = g.variable("w", {io, hidden}, Initializer::normal(0.1f));
    const Tensor h = einsum({x, cast(w, DType::bfloat16)}, Shape{batch, hidden}, "h");
    const Tensor y = einsum({h, cast(w, DType::bfloat16)}, Shape{batch, io}, "y");
    ExecutionOptions options;
    options.numerics = false;
    options.outputs = {y};
    Executor executor(g, MeshShape::parse("all:" + std::to_string(n)), LayoutRules::parse("hidden:all"),
                      nullptr, options);
    const auto& c = executor.counters();
    REQUIRE(c.collectives.size() == 1);
    CHECK(c.collectives[0].element_bytes == (n > 8 ? 4u : 2u));
    CHECK(c.tensors[h.id()].slice_bytes_per_core == static_cast<std::uint64_t>(64 * 64 / n * 2));
    CHECK(c.tensors[w.id()].slice_bytes_per_core == static_cast<std::uint64_t>(32 * 64 / n * 4));
  }
}
