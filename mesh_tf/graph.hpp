#pragma once
// The program builder: a Graph of named-dimension tensors and operations, written once and run under any mesh
// and layout.
//
// How to build a model and run a training step:
//
//   mtf::Graph g(/*seed=*/1);
//   Dimension batch("batch", 64), io("io", 128), hidden("hidden", 512);
//   Tensor x = g.input("x", {batch, io});                        // fed per step (numerics) or shape-only
//   Tensor w = g.variable("w", {io, hidden}, Initializer::normal(0.05));
//   Tensor v = g.variable("v", {hidden, io}, Initializer::normal(0.05));
//   Tensor h = relu(einsum({x, w}, Shape{batch, hidden}));       // named contraction over io
//   Tensor y = einsum({h, v}, Shape{batch, io});
//   Tensor loss = reduce_mean(square(sub(y, x)), Shape{});       // scalar
//   Optimizer::adam(0.01).minimize(g, loss);                     // builds gradients + variable updates
//
//   sim::Simulator simulator(topo::preset("ring-8"));            // one per process
//   Executor exec(g, MeshShape::parse("rows:2;cols:4"), LayoutRules::parse("batch:rows;hidden:cols"),
//                 &simulator, ExecutionOptions{});               // lowers; see execution.hpp
//   exec.feed(x, data);                                          // full tensor, row-major
//   StepResult r = exec.run({loss});                             // numerics + simulated timeline
//
// Every op function checks its arguments and throws InputError naming the op, tensor and dimension. Each op
// family (builders, lowering, gradient) lives in one file under mesh_tf/ops/; op_table.hpp lists them. Ops
// come in phases: forward (default), backward (built by autodiff.hpp) and update (built by optimizer.hpp);
// memory accounting uses the phases to find the activations kept for the backward pass.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "mesh_tf/attention_kernel.hpp"
#include "mesh_tf/dimension.hpp"
#include "mesh_tf/op_node.hpp"
#include "mesh_tf/shape.hpp"
#include "mesh_tf/weight_sharding.hpp"

namespace tpusim::mtf {

class Graph;

// A handle to one tensor of a graph (cheap to copy).
class Tensor {
 public:
  Tensor() = default;
  Tensor(Graph* graph, int id) : graph_(graph), id_(id) {}
  bool valid() const { return graph_ != nullptr; }
  Graph& graph() const;
  int id() const { return id_; }
  const Shape& shape() const;
  const std::string& name() const;
  DType dtype() const;
  const Dimension& dim(const std::string& name) const;  // InputError naming the tensor if absent
  bool operator==(const Tensor& other) const { return graph_ == other.graph_ && id_ == other.id_; }

 private:
  Graph* graph_ = nullptr;
  int id_ = -1;
};

struct TensorNode {
  int id = 0;
  std::string name;
  Shape shape;
  DType dtype = DType::float32;
  int producer = -1;  // op id
};

class Graph {
 public:
  // The most elements a tensor may have on the whole pod (2^48): its logical size, which a timing-only run
  // never materialises (cores hold slices, bounded below). It keeps logical counts from 64-bit overflow: a
  // parameter count sums at most about 20,000 such tensors (two stacks of 1000 layers, under ten variables a
  // layer: below 2^63), byte sizes of whole tensors (8 bytes an element at most) stay under 2^51, and FLOPs
  // are summed in double.
  static constexpr std::int64_t kMaxTensorElements = std::int64_t(1) << 48;
  // The most elements one core's slice of a tensor may have (2^40, 4 TiB of fp32, far beyond any core's
  // memory): what lowering materialises per core, checked when a layout gives the slice (make_value). Per-core
  // sums of bytes (8 bytes an element, at most 2^20 values a program) stay under 2^63.
  static constexpr std::int64_t kMaxSliceElements = std::int64_t(1) << 40;

  explicit Graph(std::uint64_t seed = 1);
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::uint64_t seed() const { return seed_; }
  // Sources. Names must be unique among inputs and variables (InputError otherwise).
  Tensor input(const std::string& name, const Shape& shape, DType dtype = DType::float32);
  Tensor variable(const std::string& name, const Shape& shape, Initializer init,
                  DType dtype = DType::float32);
  Tensor fill(const Shape& shape, float value, DType dtype = DType::float32);

  // Deques: adding ops never moves existing nodes, so references from shape() or dim() stay valid while a
  // model keeps building.
  const std::deque<OpNode>& ops() const { return ops_; }
  const std::deque<TensorNode>& tensors() const { return tensors_; }
  const OpNode& op(int id) const { return ops_.at(id); }
  const TensorNode& tensor(int id) const { return tensors_.at(id); }
  const OpNode& producer(const Tensor& t) const { return ops_.at(tensors_.at(t.id()).producer); }
  std::vector<Tensor> variables() const;  // in creation order
  std::vector<Tensor> inputs() const;
  Tensor find(const std::string& tensor_name) const;  // InputError with did-you-mean if absent

  // Fully sharded weights (weight_sharding.hpp, mode `full`): every forward-phase variable made from now on
  // that has a dim to shard is stored with it renamed d -> d_shard (same name, same initial values), and
  // variable() returns its gather "<name>/gather" for the model to read; autodiff gathers it again in the
  // backward pass. graph.variables() are the stored shards, which the optimizer updates in place.
  void shard_variables(WeightSharding sharding) { variable_sharding_ = std::move(sharding); }
  // The dims renamed so far, distinct, in first-use order; lower with variable_sharding()->rules_with() them.
  const std::vector<std::string>& sharded_variable_dims() const { return sharded_variable_dims_; }
  const std::optional<WeightSharding>& variable_sharding() const { return variable_sharding_; }

  // Removes the ops (and their output tensors) from id `first_op` on, which nothing may refer to any more:
  // autodiff builds a gradient rule again after it sees the rule read a fully sharded weight's gather.
  void discard_ops_from(int first_op);

  // New ops get this phase (autodiff and optimizers switch it while they build).
  void set_phase(Phase phase) { phase_ = phase; }
  Phase phase() const { return phase_; }

  // New forward ops belong to this checkpointed layer (-1: none); see CheckpointScope.
  int checkpoint() const { return checkpoint_; }

  // The fused attention kernels (attention_kernel.hpp), by OpNode::attention_kernel.
  const std::vector<AttentionKernel>& attention_kernels() const { return attention_kernels_; }
  // New ops belong to this kernel (-1: none): AttentionKernelScope sets it for the forward ops, autodiff for
  // their gradients.
  int attention_kernel() const { return attention_kernel_; }
  void set_attention_kernel(int kernel);

  // Low-level: appends an op with one output tensor. Op functions below validate before calling it; this
  // checks only the output's size (kMaxTensorElements).
  Tensor add_op(OpNode op, const Shape& output_shape, DType dtype, const std::string& name_hint);

 private:
  friend class CheckpointScope;
  friend class AttentionKernelScope;

  std::uint64_t seed_;
  Phase phase_ = Phase::forward;
  int checkpoint_ = -1;
  int checkpoints_ = 0;
  int attention_kernel_ = -1;
  std::vector<AttentionKernel> attention_kernels_;
  std::deque<OpNode> ops_;
  std::deque<TensorNode> tensors_;
  std::unordered_set<std::string> names_;
  std::optional<WeightSharding> variable_sharding_;
  std::vector<std::string> sharded_variable_dims_;
};

// A layer whose activations may be computed again rather than held for the backward pass (Chen et al. 2016,
// "Training Deep Nets with Sublinear Memory Cost"; Mesh-TensorFlow's recompute_grad, jax.checkpoint): the
// forward ops a model builds while a scope lives belong to one checkpoint, which rematerialization `layers`
// (rematerialization.hpp) recomputes from what the layer reads before its backward pass. Scopes do not nest.
class CheckpointScope {
 public:
  explicit CheckpointScope(Graph& graph);
  ~CheckpointScope() { graph_.checkpoint_ = -1; }
  CheckpointScope(const CheckpointScope&) = delete;
  CheckpointScope& operator=(const CheckpointScope&) = delete;

 private:
  Graph& graph_;
};

// ---- Contractions and reductions ----
// einsum: every output dim must come from an input or is broadcast; input dims missing from the output are
// summed. Inputs sharing a dim name must agree on its size (InputError naming both tensors otherwise).
Tensor einsum(const std::vector<Tensor>& inputs, const Shape& output, const std::string& name = "");
Tensor einsum(const std::vector<Tensor>& inputs, const std::vector<std::string>& output_dims,
              const std::string& name = "");
Tensor matmul(const Tensor& a, const Tensor& b, const std::string& name = "");  // sums the dims a and b share
Tensor reduce_sum(const Tensor& x, const Shape& output, const std::string& name = "");
Tensor reduce_mean(const Tensor& x, const Shape& output, const std::string& name = "");
Tensor reduce_max(const Tensor& x, const Shape& output, const std::string& name = "");
Tensor reduce_logsumexp(const Tensor& x, const std::string& reduced_dim, const std::string& name = "");
Tensor reduce_sum_over(const Tensor& x, const std::vector<std::string>& dims, const std::string& name = "");
Tensor broadcast(const Tensor& x, const Shape& output, const std::string& name = "");

// ---- Elementwise (binary ops broadcast both inputs to the union of their shapes) ----
Tensor add(const Tensor& a, const Tensor& b, const std::string& name = "");
Tensor sub(const Tensor& a, const Tensor& b, const std::string& name = "");
Tensor mul(const Tensor& a, const Tensor& b, const std::string& name = "");
Tensor div(const Tensor& a, const Tensor& b, const std::string& name = "");
Tensor maximum(const Tensor& a, const Tensor& b, const std::string& name = "");
Tensor minimum(const Tensor& a, const Tensor& b, const std::string& name = "");
Tensor equal(const Tensor& a, const Tensor& b, const std::string& name = "");    // 1/0, no gradient
Tensor greater(const Tensor& a, const Tensor& b, const std::string& name = "");  // 1/0, no gradient
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b, const Shape& output,
              const std::string& name = "");
Tensor scale(const Tensor& x, double factor, const std::string& name = "");
Tensor add_scalar(const Tensor& x, double offset, const std::string& name = "");
Tensor unary(UnaryOp op, const Tensor& x, const std::string& name = "");
Tensor neg(const Tensor& x, const std::string& name = "");
Tensor relu(const Tensor& x, const std::string& name = "");
Tensor gelu(const Tensor& x, const std::string& name = "");  // tanh approximation
Tensor exp(const Tensor& x, const std::string& name = "");
Tensor log(const Tensor& x, const std::string& name = "");
Tensor tanh(const Tensor& x, const std::string& name = "");
Tensor sqrt(const Tensor& x, const std::string& name = "");
Tensor rsqrt(const Tensor& x, const std::string& name = "");
Tensor square(const Tensor& x, const std::string& name = "");
Tensor sigmoid(const Tensor& x, const std::string& name = "");
Tensor cast(const Tensor& x, DType dtype, const std::string& name = "");
Tensor stop_gradient(const Tensor& x, const std::string& name = "");

// ---- Shape manipulation ----
// Same number of elements, same memory order; names may change. Changing which dims are split changes the
// layout: lowered to allsplit / allconcat / alltoall per mesh dimension.
Tensor reshape(const Tensor& x, const Shape& output, const std::string& name = "");
Tensor rename(const Tensor& x, const std::string& old_name, const std::string& new_name,
              const std::string& name = "");
// out[..., i, ...] = x[..., i - offset, ...]; zeros shifted in unless wrap. Along a split dim: a collective
// permute of the halo to the neighbour. |offset| must not exceed the slice size.
Tensor shift(const Tensor& x, const std::string& dim, std::int64_t offset, bool wrap = false,
             const std::string& name = "");
// concat/slice/pad/split forbid splitting their axis (InputError from the layout).
Tensor concat(const std::vector<Tensor>& xs, const std::string& dim, const std::string& name = "");
Tensor slice(const Tensor& x, const std::string& dim, std::int64_t begin, std::int64_t size,
             const std::string& name = "");
Tensor pad(const Tensor& x, const std::string& dim, std::int64_t before, std::int64_t after,
           const std::string& name = "");
std::vector<Tensor> split(const Tensor& x, const std::string& dim, const std::vector<std::int64_t>& sizes,
                          const std::string& name = "");

// ---- Indices, embeddings, randomness ----
// ids hold integer values (as floats). one_hot appends `dim` to the ids' shape.
Tensor one_hot(const Tensor& ids, const Dimension& dim, float on = 1, float off = 0,
               const std::string& name = "");
Tensor argmax_one_hot(const Tensor& x, const std::string& dim, const std::string& name = "");  // no gradient
// out[i] = sum of x[j] for j <= i (j < i if exclusive); reverse_cumsum sums j >= i (j > i if exclusive).
Tensor cumsum(const Tensor& x, const std::string& dim, bool exclusive = false, const std::string& name = "");
Tensor reverse_cumsum(const Tensor& x, const std::string& dim, bool exclusive = false,
                      const std::string& name = "");
// Embedding lookup = one_hot(ids, vocab) einsum table: over a split vocab, an allreduce of the output.
Tensor gather(const Tensor& table, const Tensor& ids, const std::string& vocab_dim,
              const std::string& name = "");
// [query, key]: 0 where key position <= query position, -1e9 where not, added to attention logits. Computed
// on the core from the positions (XLA's iota and compare, which fuse into the reader), so it is read from no
// HBM and needs no communication on any layout.
Tensor causal_mask(Graph& graph, const Dimension& query, const Dimension& key, const std::string& name = "");
// Rotary embeddings' rotation of the halves of `dim` (even size, kept whole): [-x[h:], x[:h]] (ops/rotary.cpp).
Tensor rotate_half(const Tensor& x, const std::string& dim, const std::string& name = "");
// Dropout with a counter-based mask keyed by the global element index: no communication, layout-invariant.
Tensor dropout(const Tensor& x, double keep_probability, std::uint64_t seed, const std::string& name = "");

// ---- Composites ----
Tensor softmax(const Tensor& x, const std::string& dim, const std::string& name = "");
Tensor log_softmax(const Tensor& x, const std::string& dim, const std::string& name = "");
// Per-example loss: logsumexp(logits) - sum(labels * logits) over `vocab_dim`; labels are one-hot or soft.
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels, const std::string& vocab_dim,
                             const std::string& name = "");
// (x - mean) * rsqrt(var + eps) * scale + bias over `dim`; scale/bias have shape [dim] (invalid = none).
Tensor layer_norm(const Tensor& x, const std::string& dim, const Tensor& scale, const Tensor& bias,
                  double epsilon = 1e-6, const std::string& name = "");
// x * rsqrt(mean(x^2) + eps) * scale over `dim` (RMSNorm); scale has shape [dim] (invalid = none).
Tensor rms_norm(const Tensor& x, const std::string& dim, const Tensor& scale, double epsilon = 1e-6,
                const std::string& name = "");

// ---- Convolutions and pooling (ops/conv.cpp, ops/pool.cpp) ----
// An image is [leading dims..., spatial dims..., channels]: the n dims before the last are spatial (n = 1, 2
// or 3 by the length of `strides`/`window`), the last holds the channels. A filter is [window dims...,
// in_channels, out_channels]: its first n dims give the window sizes (their names are the filter's own, e.g.
// "kh", "kw"; they cannot be split), in_channels is the image's channel dim and out_channels a dim the image
// lacks. The output keeps the image's dim names, the spatial sizes becoming
//   same:  ceil(size / stride), the window centred as TensorFlow does (pad_before = floor(total / 2));
//   valid: (size - window) / stride + 1, every window inside the image.
// A spatial dim split over a mesh dim keeps its split: each processor receives from its neighbours the rows
// its windows reach across its tile (halo exchange, collective permutes; one spatial dim after the other, so
// corners travel too), provided every tile reads the same window of rows (input size = stride x output size,
// as "same" padding gives when the stride divides the size). Otherwise that dim is gathered first. A tile
// smaller than its halo is an InputError. Contracted channels split over a mesh dim leave a partial sum,
// allreduced when needed, as einsum does.
const char* to_string(Padding padding);  // Padding: op_node.hpp
Tensor conv(const Tensor& x, const Tensor& filter, const std::vector<std::int64_t>& strides, Padding padding,
            const std::string& name = "");
// The adjoint of conv in x: dy in conv's output shape -> a tensor of `input_shape` (conv's gradient with
// respect to x, and the "transposed convolution" that upsamples by the stride).
Tensor conv_transpose(const Tensor& dy, const Tensor& filter, const Shape& input_shape,
                      const std::vector<std::int64_t>& strides, Padding padding,
                      const std::string& name = "");
// conv's gradient with respect to its filter (summed over leading dims and output positions).
Tensor conv_filter_gradient(const Tensor& x, const Tensor& dy, const Shape& filter_shape,
                            const std::vector<std::int64_t>& strides, Padding padding,
                            const std::string& name = "");
// Pooling over windows of the n spatial dims of x (same layout rules and halos as conv); the channels stay.
// avg_pool averages over the window's positions inside the image (padding is not counted, as TensorFlow).
Tensor max_pool(const Tensor& x, const std::vector<std::int64_t>& window,
                const std::vector<std::int64_t>& strides, Padding padding, const std::string& name = "");
Tensor avg_pool(const Tensor& x, const std::vector<std::int64_t>& window,
                const std::vector<std::int64_t>& strides, Padding padding, const std::string& name = "");
// Batch normalisation as in training: mean and variance of each channel (the last dim) over every other dim
// but `groups` (dims each entry of which has statistics of its own), allreduced over whichever of those dims
// are split; scale and bias have shape [channels].
Tensor batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, double epsilon = 1e-5,
                  const std::string& name = "", const std::vector<std::string>& groups = {});

// ---- Mixture of experts (top-1 routing with capacity, as Mesh-TensorFlow's MoE layer) ----
// tokens [group, position, d_model] with `group` split over the batch mesh dim; gate_logits [group, position,
// gate_experts] where gate_experts is an UNSPLIT dimension with as many entries as there are experts (its own
// name, since group and experts share a mesh dim). Dispatch computes expert_inputs [experts, group_x,
// capacity, d_model]: `experts` (split by the rules, e.g. experts:batch) takes over the mesh dim from `group`
// and group_x (named group + "_x") is unsplit, so the layout change is one alltoall. combine() reverses it.
struct MoeDispatch {
  Tensor expert_inputs;    // [experts, group_x, capacity, d_model]
  Tensor combine_weights;  // [group, position, gate_experts, capacity]
  std::string group_dim, gate_experts_dim, experts_dim;
};
MoeDispatch moe_dispatch(const Tensor& tokens, const Tensor& gate_logits, const std::string& group_dim,
                         const std::string& gate_experts_dim, const std::string& experts_dim,
                         const Dimension& capacity, const std::string& name = "moe");
// expert_outputs [experts, group_x, capacity, d_model] -> [group, position, d_model]
Tensor moe_combine(const MoeDispatch& dispatch, const Tensor& expert_outputs,
                   const std::string& name = "moe");

// ---- Updates ----
// variable <- value at the end of the step (all reads of the variable in the step see the old value).
Tensor assign(const Tensor& variable, const Tensor& value, const std::string& name = "");

}  // namespace tpusim::mtf
