// Sources: inputs fed per step, variables, constants and dropout's random masks. None passes a gradient.
#include <fmt/format.h>

#include <algorithm>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "mesh_tf/random.hpp"
#include "mesh_tf/random_bits.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

void check_unique_source(const Graph& graph, const std::string& name) {
  for (const auto& op : graph.ops()) {
    if ((op.kind == OpKind::input || op.kind == OpKind::variable) && op.name == name) {
      throw InputError(fmt::format("graph already has an input or variable called '{}'", name));
    }
  }
}

}  // namespace

Tensor Graph::input(const std::string& name, const Shape& shape, DType dtype) {
  check_unique_source(*this, name);
  Dimension(name, 1);  // validates the name
  OpNode op;
  op.kind = OpKind::input;
  return add_op(std::move(op), shape, dtype, name);
}

Tensor Graph::variable(const std::string& name, const Shape& shape, Initializer init, DType dtype) {
  check_unique_source(*this, name);
  if (name.empty()) throw InputError("a variable needs a name");
  OpNode op;
  op.kind = OpKind::variable;
  // The seed of a variable depends on its name, not on creation order, so initial values are reproducible.
  std::uint64_t h = 1469598103934665603ull ^ seed_;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  op.attributes = VariableAttributes{init, h};
  const std::string dim =
      variable_sharding_ && phase_ == Phase::forward ? variable_sharding_->dim_to_shard(shape) : "";
  if (dim.empty()) return add_op(std::move(op), shape, dtype, name);
  // Stored sharded: the renamed dim keeps its size and place, so the row-major values are the same.
  const std::string shard = WeightSharding::shard_name(dim);
  if (std::find(sharded_variable_dims_.begin(), sharded_variable_dims_.end(), dim) ==
      sharded_variable_dims_.end())
    sharded_variable_dims_.push_back(dim);
  std::vector<Dimension> dims = shape.dims();
  for (auto& d : dims)
    if (d.name == dim) d = Dimension(shard, d.size);
  const Tensor stored = add_op(std::move(op), Shape(dims), dtype, name);
  return weight_sharding_reshape(stored, shape, name + "/gather");
}

Tensor Graph::fill(const Shape& shape, float value, DType dtype) {
  OpNode op;
  op.kind = OpKind::fill;
  op.attributes = FillAttributes{value};
  return add_op(std::move(op), shape, dtype, "");
}

Tensor causal_mask(Graph& graph, const Dimension& query, const Dimension& key, const std::string& name) {
  if (query.name == key.name) {
    throw InputError(fmt::format("causal_mask '{}': the query and key dims must differ, both are '{}'", name,
                                 query.name));
  }
  OpNode op;
  op.kind = OpKind::causal_mask;
  return graph.add_op(std::move(op), Shape{query, key}, DType::float32, name);
}

Tensor dropout(const Tensor& x, double keep_probability, std::uint64_t seed, const std::string& name) {
  if (!(keep_probability > 0 && keep_probability <= 1)) {
    throw InputError(
        fmt::format("dropout '{}': keep probability {} must be in (0, 1]", name, keep_probability));
  }
  if (keep_probability == 1) return x;
  OpNode op;
  op.kind = OpKind::random_mask;
  op.attributes = RandomMaskAttributes{keep_probability, seed ^ (x.graph().seed() * 0x9E3779B97F4A7C15ull)};
  // Held as XLA holds TensorFlow's dropout mask (random_uniform >= rate, a PRED; nn_ops.py dropout_v2): one
  // byte per element, its widening cast to x's type and the 1/keep scale computed again wherever it is read
  // (instruction_fusion.cc duplicates widening converts always). The numbers stay fp32, 0 or 1/keep.
  const Tensor mask =
      x.graph().add_op(std::move(op), x.shape(), DType::pred, name.empty() ? "" : name + "_mask");
  return mul(x, mask, name);
}

namespace ops {

void lower_source(Lowerer& lowerer, const OpNode& op) {
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const int out = lowerer.new_value(t.id, t.name, lowerer.rule_layout(t.id, op.unsplittable), t.dtype);
  lowerer.set_result(op, out);
  if (op.kind == OpKind::input || op.kind == OpKind::variable) return;  // data held by the executor
  const Value& o = lowerer.value(out);
  const std::int64_t elems = o.layout.slice_elements();
  const int slices = o.num_slices;
  if (op.kind == OpKind::fill) {
    const float fill_value = op.get<FillAttributes>().value;
    lowerer.add_compute(op, op.name, {}, out, 0,
                        [=](Store& s) { s[out].assign(elems * slices, fill_value); });
    return;
  }
  const Value vo = o;
  const MeshShape mesh = lowerer.mesh();
  if (op.kind == OpKind::causal_mask) {
    // A compare and a select per element, from the slice's offsets along the two dims.
    lowerer.add_compute(op, op.name, {}, out, 2.0 * static_cast<double>(elems), [=](Store& s) {
      s[out].resize(elems * slices);
      const std::int64_t keys = vo.layout.slice_sizes()[1];
      for (int key = 0; key < slices; ++key) {
        const auto coords = vo.coords_of_key(key, mesh);
        const std::int64_t query0 = vo.offset(0, coords), key0 = vo.offset(1, coords);
        float* dst = s[out].data() + key * elems;
        for (std::int64_t i = 0; i < elems; ++i)
          dst[i] = key0 + i % keys <= query0 + i / keys ? 0.0f : -1e9f;
      }
    });
    return;
  }
  // random_mask: 1/keep with probability keep, keyed by the global element index.
  const double keep = op.get<RandomMaskAttributes>().keep_probability;
  const std::uint64_t seed = op.get<RandomMaskAttributes>().seed;
  // One FLOP per element in the counters (the select), and ThreeFry's bits and the uniform conversion beside
  // it on the vector unit (random_bits.hpp).
  Lowerer::LocalWork work(static_cast<double>(elems));
  work.extra_vector_ops = static_cast<double>(elems) * (kRandomMaskVectorOps - 1);
  lowerer.add_compute(op, op.name, {}, out, work, [=](Store& s) {
    s[out].resize(elems * slices);
    const Shape& shape = vo.layout.shape();
    const int rank = shape.rank();
    for (int key = 0; key < slices; ++key) {
      const auto coords = vo.coords_of_key(key, mesh);
      std::vector<std::int64_t> index(rank, 0);
      float* dst = s[out].data() + key * elems;
      for (std::int64_t i = 0; i < elems; ++i) {
        std::int64_t global = 0;
        for (int d = 0; d < rank; ++d) global = global * shape[d].size + vo.offset(d, coords) + index[d];
        dst[i] =
            uniform01(seed, static_cast<std::uint64_t>(global)) < keep ? static_cast<float>(1 / keep) : 0.0f;
        for (int d = rank - 1; d >= 0; --d) {
          if (++index[d] < vo.layout.slice_sizes()[d]) break;
          index[d] = 0;
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace tpusim::mtf
