// The two-layer model of the Mesh-TensorFlow paper, trained for a few steps on a simulated TPU v2 slice:
// real fp32 numerics on every virtual core, every collective through the simulated interconnect.
//
//   two_layer_example [topology] [mesh] [layout]      (defaults: tpu-v2-32 rows:4;cols:8
//   batch:rows;hidden:cols)
//
// Exit status: 0 success, 2 bad input (unknown topology, illegal layout, mesh size mismatch).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "mesh_tf/optimizer.hpp"
#include "mesh_tf/random.hpp"
#include "sim/simulator.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"

using namespace tpusim;
using namespace tpusim::mtf;

int main(int argc, char** argv) {
  const std::string topology_spec = argc > 1 ? argv[1] : "tpu-v2-32";
  const std::string mesh_text = argc > 2 ? argv[2] : "rows:4;cols:8";
  const std::string layout_text = argc > 3 ? argv[3] : "batch:rows;hidden:cols";
  try {
    const Dimension batch("batch", 256), io("io", 512), hidden("hidden", 2048);
    Graph g(/*seed=*/42);
    const Tensor x = g.input("x", {batch, io});
    const Tensor target = g.input("target", {batch, io});
    const Tensor w = g.variable("w", {io, hidden}, Initializer::normal(1 / std::sqrt(512.0f)));
    const Tensor v = g.variable("v", {hidden, io}, Initializer::normal(1 / std::sqrt(2048.0f)));
    const Tensor h = relu(einsum({x, w}, Shape{batch, hidden}, "h"));
    const Tensor y = einsum({h, v}, Shape{batch, io}, "y");
    const Tensor loss = reduce_mean(square(sub(y, target)), Shape{}, "loss");
    Optimizer::adam(1e-3).minimize(g, loss);

    const auto topology = topo::topology_from_spec(topology_spec);
    sim::Simulator simulator(topology);
    Executor executor(g, MeshShape::parse(mesh_text), LayoutRules::parse(layout_text), &simulator);
    // Data: x ~ N(0, 1), target = tanh(x) reversed along io (a fixed function the model can learn).
    std::vector<float> xs(batch.size * io.size), ts(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(standard_normal(7, i));
    for (std::int64_t b = 0; b < batch.size; ++b) {
      for (std::int64_t j = 0; j < io.size; ++j)
        ts[b * io.size + j] = std::tanh(xs[b * io.size + io.size - 1 - j]);
    }
    executor.feed(x, xs);
    executor.feed(target, ts);

    std::cout << fmt::format("two-layer model: batch {} io {} hidden {} ({} parameters), Adam\n", batch.size,
                             io.size, hidden.size, 2 * io.size * hidden.size);
    std::cout << fmt::format("topology {} ({}), mesh {}, layout {}\n", topology.name(), topology.shape(),
                             mesh_text, layout_text);
    std::cout << fmt::format("mapping: {}\n", executor.mapping().note());
    StepResult last;
    for (int step = 0; step < 5; ++step) {
      last = executor.run({loss});
      std::cout << fmt::format("step {}  loss {:.6f}  simulated step time {}\n", step, last.loss,
                               format_duration(last.timeline.step_time_s));
    }
    std::cout << "\nper-step counters (per core):\n" << executor.counters().summary();
    std::cout << "\ntimeline of the last step (longest entries):\n" << last.timeline.summary(12);
    return 0;
  } catch (const InputError& error) {
    std::fprintf(stderr, "two_layer_example: error: %s\n", error.what());
    return 2;
  }
}
