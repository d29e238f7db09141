// Gradients from autodiff agree with central finite differences, on one core and on a 2x2 mesh.
#include <catch2/catch.hpp>
#include <cmath>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/liveness.hpp"
#include "mesh_tf/random.hpp"
#include "tests/mesh_tf/battery.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

void check_finite_differences(TestProgram program, const std::string& mesh_text, const std::string& layout) {
  const auto mesh = MeshShape::parse(mesh_text);
  Executor executor(*program.graph, mesh, rules_for(layout, mesh), nullptr);
  for (const auto& [input, values] : program.feeds) executor.feed(input, values);
  const auto base = executor.run(program.fetches).fetched;
  const auto variables = program.graph->variables();
  // fetches: loss, forward outputs, then one gradient per variable (and dx last for programs with an "x").
  std::size_t grad_index = 0;
  for (std::size_t i = 0; i < program.fetches.size(); ++i) {
    if (program.fetches[i].graph().producer(program.fetches[i]).phase == Phase::backward) {
      grad_index = i;
      break;
    }
  }
  REQUIRE(grad_index > 0);
  const double eps = 2e-3;
  for (std::size_t v = 0; v < variables.size(); ++v) {
    const auto original = executor.variable_value(variables[v]);
    const auto& grad = base[grad_index + v];
    REQUIRE(grad.size() == original.size());
    for (int probe = 0; probe < 3; ++probe) {
      const std::size_t i = static_cast<std::size_t>(uniform01(99 + v, probe) * original.size());
      auto plus = original, minus = original;
      plus[i] += static_cast<float>(eps);
      minus[i] -= static_cast<float>(eps);
      executor.set_variable_value(variables[v], plus);
      const double loss_plus = executor.run({program.fetches[0]}).loss;
      executor.set_variable_value(variables[v], minus);
      const double loss_minus = executor.run({program.fetches[0]}).loss;
      executor.set_variable_value(variables[v], original);
      const double numeric = (loss_plus - loss_minus) / (2 * eps);
      INFO(program.name << " on " << mesh_text << ": d loss / d " << variables[v].name() << "[" << i << "]");
      CHECK(grad[i] == Approx(numeric).margin(3e-4).epsilon(3e-2));
    }
  }
}

}  // namespace

TEST_CASE("gradients match finite differences on one core") {
  check_finite_differences(two_layer_mlp(), "", "");
  check_finite_differences(attention(), "", "");
  check_finite_differences(split_vocab_softmax(), "", "");
  check_finite_differences(norm_shift_concat(), "", "");
  check_finite_differences(moe_dispatch_program(), "", "");
  check_finite_differences(conv_net(), "", "");
}

TEST_CASE("gradients match finite differences on a 2x2 mesh") {
  check_finite_differences(two_layer_mlp(), "a:2;b:2", "batch:a;hidden:b");
  check_finite_differences(attention(), "a:2;b:2", "batch:a;heads:b");
  check_finite_differences(split_vocab_softmax(), "a:2;b:2", "batch:a;vocab:b");
  check_finite_differences(norm_shift_concat(), "a:2;b:2", "batch:a;length:b");
  check_finite_differences(moe_dispatch_program(), "a:2;b:2", "group:a;experts:a;d_ff:b");
  check_finite_differences(conv_net(), "a:2;b:2", "h:a;w:b");
  check_finite_differences(conv_net(), "a:2;b:2", "mid:a;h:b");
}

TEST_CASE("autodiff builds only gradients that a requested gradient reads") {
  // The battery asks for the gradients of every variable (and of the input x): no backward op may be dead,
  // in particular none for the one-hot of an embedding lookup, the labels, or the MoE dispatch mask.
  TestProgram programs[] = {two_layer_mlp(),        attention(), split_vocab_softmax(), norm_shift_concat(),
                            moe_dispatch_program(), conv_net()};
  for (auto& program : programs) {
    INFO(program.name);
    CHECK(dead_op_names(*program.graph, program.fetches, Phase::backward) == std::vector<std::string>{});
  }
}

TEST_CASE("the gradient of an embedding lookup builds nothing for the ids or their one-hot") {
  Graph g;
  const Dimension batch("batch", 4), vocab("vocab", 8), d("d", 2);
  const Tensor ids = g.input("ids", {batch});
  const Tensor table = g.variable("table", {vocab, d}, Initializer::normal(1));
  const Tensor loss = reduce_sum(square(gather(table, ids, "vocab")), Shape{});
  const int forward_ops = static_cast<int>(g.ops().size());
  const auto grads = gradients(loss, {table});
  // seed; square: dy * (2x) = scale and mul; reduce_sum: broadcast einsum; gather: d table = einsum of
  // d embedded with the one-hot. Nothing for the ids, the one-hot or its equality mask.
  std::vector<std::string> kinds;
  for (int id = forward_ops; id < static_cast<int>(g.ops().size()); ++id) {
    CHECK(g.op(id).phase == Phase::backward);
    kinds.push_back(to_string(g.op(id).kind));
  }
  CHECK(kinds == std::vector<std::string>{"fill", "einsum", "scalar_affine", "binary", "einsum"});
  CHECK(dead_op_names(g, grads, Phase::backward) == std::vector<std::string>{});
}

TEST_CASE("the seed of the backward pass is a backward-phase constant") {
  Graph g;
  const Dimension n("n", 4);
  const Tensor w = g.variable("w", {n}, Initializer::normal(1));
  const Tensor loss = reduce_sum(square(w), Shape{});
  gradients(loss, {w});
  CHECK(g.phase() == Phase::forward);
  for (const auto& op : g.ops()) {
    if (op.kind == OpKind::fill) CHECK(op.phase == Phase::backward);
  }
}
