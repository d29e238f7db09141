#pragma once
// One operation of a Graph: its kind, inputs and output, and the attributes of its kind as one typed
// alternative of a variant (a slice has a begin and a size, a shift an offset and a wrap flag; nothing is
// shared by position). What each kind means, how it lowers and what its gradient is: op_table.hpp.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sim/collective.hpp"  // sim::ReduceOp: one reduction operator for ops and collectives
#include "topologies/support/check.hpp"

namespace tpusim::mtf {

enum class OpKind {
  input,
  variable,
  fill,
  random_mask,
  einsum,         // 1 or 2 inputs, named contraction with batch dims and broadcasting
  binary,         // elementwise with broadcasting to the output shape
  unary,          // elementwise
  scalar_affine,  // x * scale + offset
  reduce,         // max over the dims missing from the output (sums are einsums)
  reshape,        // also renames; may change the layout (allconcat/alltoall/allsplit)
  shift,
  concat,
  slice,
  pad,
  cumsum,
  one_hot,
  argmax_one_hot,
  stop_gradient,
  assign,
  conv,                  // windows of an image times a filter (ops/conv.cpp)
  conv_transpose,        // conv's adjoint in the image
  conv_filter_gradient,  // conv's adjoint in the filter
  pool,                  // max or average over windows (ops/pool.cpp)
  pool_gradient,
  causal_mask,  // [query, key]: 0 where a query position may attend to a key position, -1e9 where not
  rotate_half,  // rotary embeddings' rotation of the halves of one dim (ops/rotary.cpp)
  count  // not a kind: how many there are (new kinds go above it; op_table.cpp has a row for each)
};
constexpr int kOpKindCount = static_cast<int>(OpKind::count);

enum class BinaryOp { add, sub, mul, div, maximum, minimum, equal, greater, count };  // count: as OpKind
constexpr int kBinaryOpCount = static_cast<int>(BinaryOp::count);
enum class UnaryOp {
  neg,
  relu,
  step,
  gelu,
  gelu_grad,
  exp,
  log,
  tanh,
  sqrt,
  rsqrt,
  square,
  reciprocal,
  sigmoid,
  cast,
  count  // not an op: how many there are (new ops go above it; ops/unary.cpp has a row for each)
};
constexpr int kUnaryOpCount = static_cast<int>(UnaryOp::count);
enum class Phase { forward, backward, update };
enum class Padding { same, valid };
enum class PoolKind { max, average };

const char* to_string(OpKind kind);
const char* to_string(BinaryOp op);
const char* to_string(UnaryOp op);

struct Initializer {
  enum class Kind { zeros, constant, normal, uniform };
  Kind kind = Kind::zeros;
  float value = 0;  // constant value, normal stddev, or uniform half-width
  static Initializer zeros() { return {Kind::zeros, 0}; }
  static Initializer constant(float value) { return {Kind::constant, value}; }
  static Initializer normal(float stddev) { return {Kind::normal, stddev}; }
  static Initializer uniform(float half_width) { return {Kind::uniform, half_width}; }
};

// The attributes of each kind (kinds without any hold NoAttributes).
struct NoAttributes {};
struct VariableAttributes {
  Initializer init;
  std::uint64_t seed = 0;  // from the variable's name and the graph's seed
};
struct FillAttributes {
  float value = 0;
};
struct RandomMaskAttributes {
  double keep_probability = 1;
  std::uint64_t seed = 0;
};
struct BinaryAttributes {
  BinaryOp op = BinaryOp::add;
};
struct UnaryAttributes {
  UnaryOp op = UnaryOp::neg;
};
struct AffineAttributes {
  double scale = 1, offset = 0;
};
struct ReduceAttributes {
  sim::ReduceOp op = sim::ReduceOp::max;
};
struct ShiftAttributes {
  std::string dim;
  std::int64_t offset = 0;
  bool wrap = false;
};
struct ConcatAttributes {
  std::string dim;
};
struct SliceAttributes {
  std::string dim;
  std::int64_t begin = 0, size = 0;
};
struct PadAttributes {
  std::string dim;
  std::int64_t before = 0, after = 0;
};
struct CumsumAttributes {
  std::string dim;
  bool exclusive = false;
  bool reverse = false;  // from the last element towards the first
};
struct OneHotAttributes {
  std::string dim;  // appended to the ids' shape
  float on = 1, off = 0;
};
struct ArgmaxAttributes {
  std::string dim;
};
// A rename of weight sharding's (weight_sharding.hpp) outside the update phase: a fully sharded variable's
// gather before its readers (all-gathered), and its gradient's way back into the shard (reduce-scattered).
struct ReshapeAttributes {
  bool weight_sharding = false;
};
struct RotateHalfAttributes {
  std::string dim;
};
struct AssignAttributes {
  int target = -1;  // the variable tensor id
};
// Per spatial dim of the image (the n dims before its last): output row o reads image rows
// [o * stride - pad_before, o * stride - pad_before + window), rows outside the image being padding.
struct WindowAttributes {
  std::vector<std::int64_t> window, strides, pad_before;
  Padding padding = Padding::same;
  PoolKind pool = PoolKind::max;  // pool and pool_gradient only
};
using OpAttributes =
    std::variant<NoAttributes, VariableAttributes, FillAttributes, RandomMaskAttributes, BinaryAttributes,
                 UnaryAttributes, AffineAttributes, ReduceAttributes, ShiftAttributes, ConcatAttributes,
                 SliceAttributes, PadAttributes, CumsumAttributes, OneHotAttributes, ArgmaxAttributes,
                 AssignAttributes, WindowAttributes, ReshapeAttributes, RotateHalfAttributes>;

struct OpNode {
  int id = 0;
  OpKind kind = OpKind::fill;
  std::string name;         // unique, e.g. "einsum_3" or the user's name
  std::vector<int> inputs;  // tensor ids
  int output = -1;          // tensor id (every op has one output; assign outputs the new value)
  Phase phase = Phase::forward;
  // The layer (a checkpointed segment of the forward pass, graph.hpp's CheckpointScope) this op belongs to,
  // -1 for none: what rematerialization `layers` computes again before the layer's backward pass.
  int checkpoint = -1;
  // The fused attention kernel (attention_kernel.hpp) that computes this op, its forward or its backward
  // pass by the op's phase; -1 for none.
  int attention_kernel = -1;
  OpAttributes attributes;
  std::vector<std::string> unsplittable;  // dims this op forbids splitting (legality)

  // The attributes of this op's kind; asking for another kind's is a bug in tpusim.
  template <class Attributes>
  const Attributes& get() const {
    const Attributes* found = std::get_if<Attributes>(&attributes);
    TPUSIM_CHECK(found != nullptr);
    return *found;
  }
};

}  // namespace tpusim::mtf
