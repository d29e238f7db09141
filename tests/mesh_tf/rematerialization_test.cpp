// Rematerialization (mesh_tf/rematerialization.hpp) against a hand computation: which value is computed
// again, where the peak of live buffers moves, and the time the recomputation adds.
#include "mesh_tf/rematerialization.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"

using namespace tpusim::mtf;

namespace {

constexpr std::uint64_t kMiB = 1 << 20, kRow = 4096;

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

RematRun remat_chain(std::uint64_t hbm_bytes) {
  Graph g(1);
  const Dimension a_dim("a", 1024), b_dim("b", 256);
  const Tensor x = g.input("x", {a_dim, b_dim});
  const Tensor a = relu(x, "a");
  const Tensor s1 = reduce_sum(a, Shape{a_dim}, "s1");
  const Tensor c = exp(exp(x, "b"), "c");
  const Tensor s2 = reduce_sum(c, Shape{a_dim}, "s2");
  const Tensor s3 = reduce_sum(mul(a, x, "d"), Shape{a_dim}, "s3");
  ExecutionOptions options;
  options.numerics = false;
  options.fusion = FusionPolicy::none;
  options.rematerialization = RematerializationPolicy::xla;
  options.outputs = {s1, s2, s3};
  options.device = DeviceModel("hand", 22.5e12, 350e9, hbm_bytes, 0);
  Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  executor.run();
  RematRun run{executor.live_memory(), {}};
  for (const auto& op : executor.counters().ops) run.time_s[op.name] = op.time_s;
  return run;
}

}  // namespace

TEST_CASE("rematerialization: a value held across the peak is computed again for its later reader") {
  const RematRun held = remat_chain(8 * kMiB);  // fits: nothing changes
  CHECK(held.memory.peak_bytes == 4 * kMiB + kRow);
  CHECK(held.memory.peak_step == 3);
  CHECK(held.memory.rematerialized_values == 0);
  // Under 3.5 MiB: a is dropped after step 1 and computed again (relu's time) in the kernel of step 5. The
  // peak moves to step 5: x, a, d, and the rows of s1 and s2.
  const RematRun fitted = remat_chain(3 * kMiB + kMiB / 2);
  CHECK(fitted.memory.rematerialized_values == 1);
  CHECK(fitted.memory.recompute_s == Approx(held.time_s.at("a")));
  CHECK(fitted.memory.peak_bytes == 4 * kMiB - kMiB + 2 * kRow);
  CHECK(fitted.memory.peak_step == 5);
  CHECK(fitted.time_s.at("d") == Approx(held.time_s.at("d") + held.time_s.at("a")));
  CHECK(fitted.time_s.at("a") == held.time_s.at("a"));
  // Under 2.5 MiB no choice fits (x, b and c are all needed at step 3): left as assigned.
  const RematRun unfit = remat_chain(2 * kMiB + kMiB / 2);
  CHECK(unfit.memory.rematerialized_values == 0);
  CHECK(unfit.memory.peak_bytes == 4 * kMiB + kRow);
  CHECK(unfit.time_s.at("d") == held.time_s.at("d"));
}

TEST_CASE("rematerialization: policies by name") {
  CHECK(rematerialization_policies().parse("xla") == RematerializationPolicy::xla);
  CHECK(rematerialization_policies().parse("none") == RematerializationPolicy::none);
}
