// Rematerialization (mesh_tf/rematerialization.hpp) against a hand computation: which value is computed
// again, where the peak of live buffers moves, and the time the recomputation adds.
#include "mesh_tf/rematerialization.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"

using namespace tpusim::mtf;

namespace {

constexpr std::uint64_t kRematMiB = 1 << 20, kRematRow = 4096;

}  // namespace

namespace {

// Ops each their own kernel (no fusion), fp32 [1024, 256] tensors of 1 MiB, on a device with `hbm_bytes`:
//   0 a = relu(x), 1 s1 = sum(a), 2 b = exp(x), 3 c = exp(b), 4 s2 = sum(c), 5 d = a * x, 6 s3 = sum(d)
// with the three row sums (4 KiB each) as outputs. Held as assigned, the peak is at step 3: x, a, b, c and
// s1's row. a is not read between steps 1 and 5.
struct RematRun {
  LiveMemory memory;
  std::map<std::string, double> time_s;
};

// Timing only, each op its own kernel (no fusion), on a device of `hbm_bytes`.
RematRun run_by_hand(const Graph& g, std::vector<Tensor> outputs, RematerializationPolicy policy,
                     std::uint64_t hbm_bytes) {
  ExecutionOptions options;
  options.numerics = false;
  options.fusion = FusionPolicy::none;
  options.rematerialization = policy;
  options.outputs = std::move(outputs);
  options.device = DeviceModel("hand", 22.5e12, 350e9, hbm_bytes, 0);
  Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  executor.run();
  RematRun run{executor.live_memory(), {}};
  for (const auto& op : executor.counters().ops) run.time_s[op.name] = op.time_s;
  return run;
}

RematRun remat_chain(std::uint64_t hbm_bytes) {
  Graph g(1);
  const Dimension a_dim("a", 1024), b_dim("b", 256);
  const Tensor x = g.input("x", {a_dim, b_dim});
  const Tensor a = relu(x, "a");
  const Tensor s1 = reduce_sum(a, Shape{a_dim}, "s1");
  const Tensor c = exp(exp(x, "b"), "c");
  const Tensor s2 = reduce_sum(c, Shape{a_dim}, "s2");
  const Tensor s3 = reduce_sum(mul(a, x, "d"), Shape{a_dim}, "s3");
  return run_by_hand(g, {s1, s2, s3}, RematerializationPolicy::xla, hbm_bytes);
}

}  // namespace

TEST_CASE("rematerialization: a value held across the peak is computed again for its later reader") {
  const RematRun held = remat_chain(8 * kRematMiB);  // fits: nothing changes
  CHECK(held.memory.peak_bytes == 4 * kRematMiB + kRematRow);
  CHECK(held.memory.peak_step == 3);
  CHECK(held.memory.rematerialization.values == 0);
  // Under 3.5 MiB: a is dropped after step 1 and computed again (relu's time) in the kernel of step 5. The
  // peak moves to step 5: x, a, d, and the rows of s1 and s2.
  const RematRun fitted = remat_chain(3 * kRematMiB + kRematMiB / 2);
  CHECK(fitted.memory.rematerialization.values == 1);
  CHECK(fitted.memory.rematerialization.recompute_s == Approx(held.time_s.at("a")));
  CHECK(fitted.memory.peak_bytes == 4 * kRematMiB - kRematMiB + 2 * kRematRow);
  CHECK(fitted.memory.peak_step == 5);
  CHECK(fitted.time_s.at("d") == Approx(held.time_s.at("d") + held.time_s.at("a")));
  CHECK(fitted.time_s.at("a") == held.time_s.at("a"));
  // Under 2.5 MiB no choice fits (x, b and c are all needed at step 3): left as assigned.
  const RematRun unfit = remat_chain(2 * kRematMiB + kRematMiB / 2);
  CHECK(unfit.memory.rematerialization.values == 0);
  CHECK(unfit.memory.peak_bytes == 4 * kRematMiB + kRematRow);
  CHECK(unfit.time_s.at("d") == held.time_s.at("d"));
}

TEST_CASE("rematerialization: policies by name") {
  CHECK(rematerialization_policies().parse("xla") == RematerializationPolicy::xla);
  CHECK(rematerialization_policies().parse("none") == RematerializationPolicy::none);
}

TEST_CASE(
    "rematerialization: random programs either fit their memory, paying exactly the time reported, or "
    "stay as they were") {
  std::mt19937 random(2026);
  int fitted = 0, unchanged = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // A random program of elementwise ops over [512, 64] fp32 tensors (128 KiB), each its own kernel, with
    // row sums of some of them as outputs.
    const int ops = 6 + static_cast<int>(random() % 10);
    const std::uint32_t seed = random();
    const auto run = [&](std::uint64_t hbm_bytes, RematerializationPolicy policy) {
      std::mt19937 shape(seed);
      Graph g(1);
      const Dimension a("a", 512), b("b", 64);
      std::vector<Tensor> values{g.input("x0", {a, b}), g.input("x1", {a, b})};
      std::vector<Tensor> outputs;
      for (int i = 0; i < ops; ++i) {
        const Tensor& p = values[shape() % values.size()];
        const Tensor& q = values[shape() % values.size()];
        switch (shape() % 4) {
          case 0:
            values.push_back(relu(p));
            break;
          case 1:
            values.push_back(exp(p));
            break;
          case 2:
            values.push_back(add(p, q));
            break;
          default:
            values.push_back(mul(p, q));
            break;
        }
        if (shape() % 3 == 0) outputs.push_back(reduce_sum(values.back(), Shape{a}));
      }
      outputs.push_back(reduce_sum(values.back(), Shape{a}));
      ExecutionOptions options;
      options.numerics = false;
      options.fusion = FusionPolicy::none;
      options.rematerialization = policy;
      options.outputs = outputs;
      options.device = DeviceModel("hand", 22.5e12, 350e9, hbm_bytes, 0);
      Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
      executor.run();
      double time_s = 0;
      for (const auto& op : executor.counters().ops) time_s += op.time_s;
      return std::make_pair(executor.live_memory(), time_s);
    };
    const auto [held, held_s] = run(kRematMiB << 10, RematerializationPolicy::none);
    // A memory between what the sources need and the held peak.
    const std::uint64_t floor = held.source_bytes;
    const std::uint64_t memory = floor + (held.peak_bytes - floor) * (30 + random() % 70) / 100;
    const auto [remat, remat_s] = run(memory, RematerializationPolicy::xla);
    INFO("trial " << trial << ": peak " << held.peak_bytes << " bytes held, memory " << memory);
    if (remat.rematerialization.values > 0) {
      ++fitted;
      CHECK(remat.peak_bytes <= memory);
      CHECK(remat.peak_bytes < held.peak_bytes);
      CHECK(remat_s == Approx(held_s + remat.rematerialization.recompute_s).epsilon(1e-12));
    } else {
      ++unchanged;
      CHECK(remat.peak_bytes == held.peak_bytes);
      CHECK(remat_s == held_s);
    }
  }
  // Both outcomes occur among these cases.
  CHECK(fitted > 0);
  CHECK(unchanged > 0);
}

namespace {

// Two checkpointed layers over 1 MiB fp32 tensors, each op its own kernel, with a backward pass written by
// hand (what autodiff would read):
//   forward   layer 0: 0 a0 = relu(x), 1 h1 = exp(a0)   layer 1: 2 a1 = relu(h1), 3 h2 = exp(a1)
//             4 s = row sums of h2 (no layer)
//   backward  5 g1 = h2 * a1, 6 g0 = g1 * a0, 7 out = row sums of g0
// with s and out as outputs. a0 and a1 are read by their own layer and by the backward pass: `layers` drops
// them and computes them again just before steps 6 and 5. h1 and h2 are what the layers hand on (read by a
// later forward op) and stay held.
RematRun remat_layers(RematerializationPolicy policy) {
  Graph g(1);
  const Dimension a_dim("a", 1024), b_dim("b", 256);
  const Tensor x = g.input("x", {a_dim, b_dim});
  Tensor a0, h1, a1, h2;
  {
    const CheckpointScope layer(g);
    a0 = relu(x, "a0");
    h1 = exp(a0, "h1");
  }
  {
    const CheckpointScope layer(g);
    a1 = relu(h1, "a1");
    h2 = exp(a1, "h2");
  }
  const Tensor s = reduce_sum(h2, Shape{a_dim}, "s");
  g.set_phase(Phase::backward);
  const Tensor g1 = mul(h2, a1, "g1");
  const Tensor g0 = mul(g1, a0, "g0");
  const Tensor out = reduce_sum(g0, Shape{a_dim}, "out");
  return run_by_hand(g, {s, out}, policy, 64 * kRematMiB);
}

}  // namespace

TEST_CASE(
    "rematerialization by layers: each layer holds what it reads and hands on, the rest is recomputed") {
  // Held: x throughout; a0 over steps 0-6, h1 1-2, a1 2-5, h2 3-5, s from 4, g1 5-6, g0 6-7, out at 7. The
  // peak is at step 5: x, a0, a1, h2, g1 and the row of s.
  const RematRun held = remat_layers(RematerializationPolicy::none);
  CHECK(held.memory.peak_bytes == 5 * kRematMiB + kRematRow);
  CHECK(held.memory.peak_step == 5);
  // By layers: a0 over 0-1 and again at 6, a1 over 2-3 and again at 5. Steps 5 and 6 then hold four
  // tensors and the row of s (x, a1, h2, g1; x, a0, g1, g0): the peak is at step 5, whatever the memory.
  const RematRun layers = remat_layers(RematerializationPolicy::layers);
  CHECK(layers.memory.rematerialization.values == 2);
  CHECK(layers.memory.peak_bytes == 4 * kRematMiB + kRematRow);
  CHECK(layers.memory.peak_step == 5);
  // Each layer's relu again, in the kernel of its first backward reader.
  CHECK(layers.memory.rematerialization.recompute_s ==
        Approx(held.time_s.at("a0") + held.time_s.at("a1")).epsilon(1e-12));
  CHECK(layers.time_s.at("g1") == Approx(held.time_s.at("g1") + held.time_s.at("a1")).epsilon(1e-12));
  CHECK(layers.time_s.at("g0") == Approx(held.time_s.at("g0") + held.time_s.at("a0")).epsilon(1e-12));
  for (const char* forward : {"a0", "h1", "a1", "h2", "s"})
    CHECK(layers.time_s.at(forward) == held.time_s.at(forward));
  CHECK(rematerialization_policies().parse("layers") == RematerializationPolicy::layers);
}
