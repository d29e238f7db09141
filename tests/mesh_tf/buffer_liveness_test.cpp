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

constexpr std::uint64_t kLivenessMiB = 1 << 20, kRow = 4096;

}  // namespace

TEST_CASE("buffer liveness: without fusion the peak is the input and two intermediates at once") {
  // Step 0 relu: x, relu's result. Step 1 exp reads relu: x, relu, exp. Step 2 sum reads exp: x, exp, sum.
  const LiveMemory memory = chain(FusionPolicy::none);
  CHECK(memory.source_bytes == kLivenessMiB);
  CHECK(memory.peak_bytes == 3 * kLivenessMiB);
  CHECK(memory.peak_step == 1);
}

TEST_CASE("buffer liveness: fused intermediates have no buffer") {
  // relu and exp fuse into the sum: only x and the sum's result are ever in HBM.
  const LiveMemory memory = chain(FusionPolicy::xla);
  CHECK(memory.peak_bytes == kLivenessMiB + kRow);
}

TEST_CASE(
    "buffer liveness: a duplicated value has no buffer, and what it is computed from lives to its last "
    "copy") {
  // Steps in order: 0 matmul z = x.w (read by sum0 and by relu, so written), 1 sum0, 2 relu (duplicated into
  // its readers), 3 sum1 (sibling of sum0: one pass), 4 exp t (an output, so its own kernel), 5 mul(relu, t)
  // (fused into sum2, computing relu again from z), 6 sum2. z lives to step 5, where t is live too: the peak
  // is x (1 MiB) and w (256 KiB), z and t (1 MiB each) and the rows of sum0 and sum1 (4 KiB each, outputs).
  // Had z ended where relu's own step stands, the peak would hold only one of z and t.
  Graph g(1);
  const Dimension a("a", 1024), b("b", 256), c("c", 256);
  const Tensor x = g.input("x", {a, b}), w = g.input("w", {b, c});
  const Tensor z = einsum({x, w}, Shape{a, c}, "matmul");
  const Tensor sum0 = reduce_sum(z, Shape{a}, "sum0");
  const Tensor y = relu(z, "relu");
  const Tensor sum1 = reduce_sum(y, Shape{a}, "sum1");
  const Tensor t = exp(g.input("x2", {a, c}), "exp");
  const Tensor sum2 = reduce_sum(mul(y, t, "mul"), Shape{a}, "sum2");
  ExecutionOptions options;
  options.numerics = false;
  options.fusion = FusionPolicy::xla;
  options.outputs = {sum0, sum1, sum2, t};
  const Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  const LiveMemory memory = executor.live_memory();
  CHECK(memory.source_bytes == 2 * kLivenessMiB + kLivenessMiB / 4);  // x, x2, w
  CHECK(memory.peak_bytes == memory.source_bytes + 2 * kLivenessMiB + 2 * kRow);
}
