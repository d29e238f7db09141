// Shape manipulation, indices, randomness and updates: argument checks and graph nodes.
#include <fmt/format.h>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/op_checks.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Graph& same_graph(const std::vector<Tensor>& tensors, const std::string& op_name) {
  Graph* graph = nullptr;
  for (const auto& t : tensors) {
    if (!t.valid()) throw InputError(fmt::format("{}: an input is an empty Tensor handle", op_name));
    if (graph && &t.graph() != graph)
      throw InputError(fmt::format("{}: inputs belong to different graphs", op_name));
    graph = &t.graph();
  }
  if (!graph) throw InputError(fmt::format("{}: needs at least one input", op_name));
  return *graph;
}

Tensor reshape(const Tensor& x, const Shape& output, const std::string& name) {
  if (output.num_elements() != x.shape().num_elements()) {
    throw InputError(fmt::format("reshape '{}': '{}' {} has {} elements but the new shape {} has {}", name,
                                 x.name(), x.shape().to_string(), x.shape().num_elements(),
                                 output.to_string(), output.num_elements()));
  }
  OpNode op;
  op.kind = OpKind::reshape;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), output, x.dtype(), name);
}

Tensor rename(const Tensor& x, const std::string& old_name, const std::string& new_name,
              const std::string& name) {
  std::vector<Dimension> dims = x.shape().dims();
  const int i = x.shape().index_of(old_name);
  if (i < 0) x.dim(old_name);  // throws naming the tensor
  dims[i] = Dimension(new_name, dims[i].size);
  return reshape(x, Shape(dims), name);
}

Tensor shift(const Tensor& x, const std::string& dim, std::int64_t offset, bool wrap,
             const std::string& name) {
  const auto& d = x.dim(dim);
  if (offset <= -d.size || offset >= d.size) {
    throw InputError(fmt::format("shift '{}': offset {} along '{}' of size {} must be smaller than the size",
                                 name, offset, dim, d.size));
  }
  OpNode op;
  op.kind = OpKind::shift;
  op.dim = dim;
  op.begin = offset;
  op.flag = wrap;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

Tensor concat(const std::vector<Tensor>& xs, const std::string& dim, const std::string& name) {
  Graph& graph = same_graph(xs, "concat");
  const Shape rest = xs[0].shape().minus({dim});
  std::int64_t total = 0;
  for (const auto& x : xs) {
    total += x.dim(dim).size;
    const Shape others = x.shape().minus({dim});
    if (!others.is_subset_of(rest) || !rest.is_subset_of(others)) {
      throw InputError(fmt::format("concat '{}': '{}' {} and '{}' {} differ in dimensions other than '{}'",
                                   name, xs[0].name(), xs[0].shape().to_string(), x.name(),
                                   x.shape().to_string(), dim));
    }
  }
  // Inputs are matched by dimension name, as everywhere in the language: one whose dims come in another
  // order is transposed to the first input's order, because the local kernel copies blocks in memory order.
  const int axis = xs[0].shape().index_of(dim);
  OpNode op;
  op.kind = OpKind::concat;
  op.dim = dim;
  op.unsplittable = {dim};
  for (const auto& x : xs) {
    std::vector<Dimension> order = xs[0].shape().dims();
    order[axis] = x.dim(dim);
    const Shape aligned(order);
    op.inputs.push_back(x.shape() == aligned ? x.id() : einsum({x}, aligned).id());
  }
  std::vector<Dimension> dims = xs[0].shape().dims();
  dims[axis] = Dimension(dim, total);
  return graph.add_op(std::move(op), Shape(dims), xs[0].dtype(), name);
}

Tensor slice(const Tensor& x, const std::string& dim, std::int64_t begin, std::int64_t size,
             const std::string& name) {
  const auto& d = x.dim(dim);
  if (begin < 0 || size < 1 || begin + size > d.size) {
    throw InputError(fmt::format("slice '{}': [{}, {}) is outside dimension {} of '{}'", name, begin,
                                 begin + size, d.to_string(), x.name()));
  }
  std::vector<Dimension> dims = x.shape().dims();
  dims[x.shape().index_of(dim)] = Dimension(dim, size);
  OpNode op;
  op.kind = OpKind::slice;
  op.dim = dim;
  op.begin = begin;
  op.amount = size;
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), Shape(dims), x.dtype(), name);
}

Tensor pad(const Tensor& x, const std::string& dim, std::int64_t before, std::int64_t after,
           const std::string& name) {
  const auto& d = x.dim(dim);
  if (before < 0 || after < 0) throw InputError(fmt::format("pad '{}': padding must be non-negative", name));
  std::vector<Dimension> dims = x.shape().dims();
  dims[x.shape().index_of(dim)] = Dimension(dim, d.size + before + after);
  OpNode op;
  op.kind = OpKind::pad;
  op.dim = dim;
  op.begin = before;
  op.amount = after;
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), Shape(dims), x.dtype(), name);
}

std::vector<Tensor> split(const Tensor& x, const std::string& dim, const std::vector<std::int64_t>& sizes,
                          const std::string& name) {
  std::int64_t total = 0;
  for (const auto size : sizes) total += size;
  if (total != x.dim(dim).size) {
    throw InputError(fmt::format("split '{}': sizes add up to {} but dimension '{}' of '{}' has size {}",
                                 name, total, dim, x.name(), x.dim(dim).size));
  }
  std::vector<Tensor> parts;
  std::int64_t begin = 0;
  for (const auto size : sizes) {
    parts.push_back(slice(x, dim, begin, size, name));
    begin += size;
  }
  return parts;
}

Tensor one_hot(const Tensor& ids, const Dimension& dim, float on, float off, const std::string& name) {
  if (ids.shape().contains(dim.name)) {
    throw InputError(
        fmt::format("one_hot '{}': ids '{}' already have a dimension '{}'", name, ids.name(), dim.name));
  }
  OpNode op;
  op.kind = OpKind::one_hot;
  op.dim = dim.name;
  op.scale = on;
  op.offset = off;
  op.inputs = {ids.id()};
  std::vector<Dimension> dims = ids.shape().dims();
  dims.push_back(dim);
  return ids.graph().add_op(std::move(op), Shape(dims), DType::float32, name);
}

Tensor argmax_one_hot(const Tensor& x, const std::string& dim, const std::string& name) {
  x.dim(dim);
  OpNode op;
  op.kind = OpKind::argmax_one_hot;
  op.dim = dim;
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

namespace {
Tensor cumsum_op(const Tensor& x, const std::string& dim, bool exclusive, bool reverse,
                 const std::string& name) {
  x.dim(dim);
  OpNode op;
  op.kind = OpKind::cumsum;
  op.dim = dim;
  op.flag = exclusive;
  op.reverse = reverse;
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}
}  // namespace

Tensor cumsum(const Tensor& x, const std::string& dim, bool exclusive, const std::string& name) {
  return cumsum_op(x, dim, exclusive, false, name);
}
Tensor reverse_cumsum(const Tensor& x, const std::string& dim, bool exclusive, const std::string& name) {
  return cumsum_op(x, dim, exclusive, true, name);
}

Tensor gather(const Tensor& table, const Tensor& ids, const std::string& vocab_dim, const std::string& name) {
  same_graph({table, ids}, "gather");
  const Dimension& vocab = table.dim(vocab_dim);
  const Tensor hot = one_hot(ids, vocab, 1, 0, name.empty() ? "" : name + "_one_hot");
  const Tensor hot_cast = table.dtype() == DType::float32 ? hot : cast(hot, table.dtype());
  const Shape out = ids.shape().union_with(table.shape().minus({vocab_dim}));
  return einsum({hot_cast, table}, out, name);
}

Tensor dropout(const Tensor& x, double keep_probability, std::uint64_t seed, const std::string& name) {
  if (!(keep_probability > 0 && keep_probability <= 1)) {
    throw InputError(
        fmt::format("dropout '{}': keep probability {} must be in (0, 1]", name, keep_probability));
  }
  if (keep_probability == 1) return x;
  OpNode op;
  op.kind = OpKind::random_mask;
  op.scale = keep_probability;
  op.seed = seed ^ (x.graph().seed() * 0x9E3779B97F4A7C15ull);
  const Tensor mask =
      x.graph().add_op(std::move(op), x.shape(), x.dtype(), name.empty() ? "" : name + "_mask");
  return mul(x, mask, name);
}

Tensor assign(const Tensor& variable, const Tensor& value, const std::string& name) {
  same_graph({variable, value}, "assign");
  if (variable.graph().producer(variable).kind != OpKind::variable) {
    throw InputError(fmt::format("assign '{}': '{}' is not a variable", name, variable.name()));
  }
  if (variable.shape() != value.shape()) {
    throw InputError(fmt::format("assign '{}': value {} does not match variable '{}' {}", name,
                                 value.shape().to_string(), variable.name(), variable.shape().to_string()));
  }
  OpNode op;
  op.kind = OpKind::assign;
  op.target = variable.id();
  op.inputs = {value.id()};
  return variable.graph().add_op(std::move(op), value.shape(), variable.dtype(), name);
}

}  // namespace tpusim::mtf
