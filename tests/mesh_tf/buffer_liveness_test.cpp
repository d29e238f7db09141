// Live buffers per core against hand computations: a buffer lives from its definition to its last read, and
// a value fusion keeps on chip has none.
#include "mesh_tf/buffer_liveness.hpp"

#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"

using namespace tpusim::mtf;

namespace {

// x [1024, 256] fp32 (1 MiB) -> relu -> exp -> sum over b -> [1024] (4 KiB), the sum kept as the output.
LiveMemory chain(FusionPolicy fusion) {
  Graph g(1);
  const Dimension a("a", 1024), b("b", 256);
  const Tensor x = g.input("x", {a, b});
  const Tensor s = reduce_sum(exp(relu(x, "relu"), "exp"), Shape{a}, "sum");
  ExecutionOptions options;
  options.numerics = false;
  options.fusion = fusion;
  options.outputs = {s};
  const Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  return executor.live_memory();
}

constexpr std::uint64_t kMiB = 1 << 20, kRow = 4096;

}  // namespace

TEST_CASE("buffer liveness: without fusion the peak is the input and two intermediates at once") {
  // Step 0 relu: x, relu's result. Step 1 exp reads relu: x, relu, exp. Step 2 sum reads exp: x, exp, sum.
  const LiveMemory memory = chain(FusionPolicy::none);
  CHECK(memory.source_bytes == kMiB);
  CHECK(memory.peak_bytes == 3 * kMiB);
  CHECK(memory.peak_step == 1);
}

TEST_CASE("buffer liveness: fused intermediates have no buffer") {
  // relu and exp fuse into the sum: only x and the sum's result are ever in HBM.
  const LiveMemory memory = chain(FusionPolicy::xla);
  CHECK(memory.peak_bytes == kMiB + kRow);
}
