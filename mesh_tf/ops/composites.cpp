// Ops built from primitives: the softmax family and layer norm. Their gradients and their communication
// follow from the primitives.
#include <fmt/format.h>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

std::string sub_name(const std::string& name, const char* suffix) {
  return name.empty() ? "" : name + "_" + suffix;
}

}  // namespace

Tensor reduce_logsumexp(const Tensor& x, const std::string& reduced_dim, const std::string& name) {
  const Shape out = x.shape().minus({reduced_dim});
  x.dim(reduced_dim);
  const Tensor m = stop_gradient(reduce_max(x, out, sub_name(name, "max")));
  const Tensor sum = reduce_sum(exp(sub(x, m)), out, sub_name(name, "sum"));
  return add(log(sum), m, name);
}

Tensor softmax(const Tensor& x, const std::string& dim, const std::string& name) {
  x.dim(dim);
  const Shape out = x.shape().minus({dim});
  const Tensor m = stop_gradient(reduce_max(x, out, sub_name(name, "max")));
  const Tensor e = exp(sub(x, m));
  return div(e, reduce_sum(e, out, sub_name(name, "sum")), name);
}

Tensor log_softmax(const Tensor& x, const std::string& dim, const std::string& name) {
  return sub(x, reduce_logsumexp(x, dim, sub_name(name, "lse")), name);
}

Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels, const std::string& vocab_dim,
                             const std::string& name) {
  same_graph({logits, labels}, "softmax_cross_entropy");
  logits.dim(vocab_dim);
  if (labels.shape() != logits.shape()) {
    throw InputError(
        fmt::format("softmax_cross_entropy '{}': labels '{}' {} must have the shape of logits '{}' {}", name,
                    labels.name(), labels.shape().to_string(), logits.name(), logits.shape().to_string()));
  }
  const Shape out = logits.shape().minus({vocab_dim});
  const Tensor lse = reduce_logsumexp(logits, vocab_dim, sub_name(name, "lse"));
  const Tensor target = reduce_sum(mul(labels, logits), out, sub_name(name, "target"));
  return sub(lse, target, name);
}

namespace {

// (x - mean) * rsqrt(var + eps) * scale + bias, the statistics of shape `stats` (the dims they keep) and
// scale and bias of shape [dim] (invalid = none). The variance is the mean of (x - mean)^2 (two passes over
// x, one after the other) or E[x^2] - E[x]^2 (two sums over x that need not wait for each other).
Tensor normalize(const char* what, const Tensor& x, const Shape& stats, const Dimension& dim,
                 const Tensor& scale_t, const Tensor& bias, double epsilon, bool two_pass_variance,
                 const std::string& name) {
  for (const Tensor* p : {&scale_t, &bias}) {
    if (p->valid() && p->shape() != Shape({dim})) {
      throw InputError(fmt::format("{} '{}': '{}' has shape {} but must be [{}]", what, name, p->name(),
                                   p->shape().to_string(), dim.to_string()));
    }
  }
  const Tensor mean = reduce_mean(x, stats, sub_name(name, "mean"));
  const Tensor centered = sub(x, mean);
  const Tensor variance = two_pass_variance
                              ? reduce_mean(square(centered), stats, sub_name(name, "var"))
                              : sub(reduce_mean(square(x), stats, sub_name(name, "var")), square(mean));
  Tensor y = mul(centered, rsqrt(add_scalar(variance, epsilon)));
  if (scale_t.valid()) y = mul(y, scale_t);
  if (bias.valid()) y = add(y, bias);
  return y;
}

}  // namespace

Tensor layer_norm(const Tensor& x, const std::string& dim, const Tensor& scale_t, const Tensor& bias,
                  double epsilon, const std::string& name) {
  const Dimension& d = x.dim(dim);
  return normalize("layer_norm", x, x.shape().minus({dim}), d, scale_t, bias, epsilon, true, name);
}

// RMSNorm (Zhang and Sennrich 2019): one sum over x, no centring.
Tensor rms_norm(const Tensor& x, const std::string& dim, const Tensor& scale_t, double epsilon,
                const std::string& name) {
  const Dimension& d = x.dim(dim);
  if (scale_t.valid() && scale_t.shape() != Shape({d})) {
    throw InputError(fmt::format("rms_norm '{}': '{}' has shape {} but must be [{}]", name, scale_t.name(),
                                 scale_t.shape().to_string(), d.to_string()));
  }
  const Tensor mean_square = reduce_mean(square(x), x.shape().minus({dim}), sub_name(name, "mean_square"));
  const Tensor y = mul(x, rsqrt(add_scalar(mean_square, epsilon)));
  return scale_t.valid() ? mul(y, scale_t, name) : y;
}

// The statistics are sums over the batch and spatial dims, so split ones are allreduced by the einsums. The
// variance is E[x^2] - E[x]^2, as XLA's batch-norm expander computes it (xla/service/batchnorm_expander.cc):
// both sums read x and can be computed in one pass (multi-output fusion, fusion.hpp).
Tensor batch_norm(const Tensor& x, const Tensor& scale_t, const Tensor& bias, double epsilon,
                  const std::string& name, const std::vector<std::string>& groups) {
  if (x.shape().rank() < 2) {
    throw InputError(
        fmt::format("batch_norm '{}': '{}' {} needs channels (its last dim) and a dim to average over", name,
                    x.name(), x.shape().to_string()));
  }
  const Dimension& channels = x.shape()[x.shape().rank() - 1];
  std::vector<Dimension> kept;
  for (const auto& group : groups) {
    if (group == channels.name)
      throw InputError(fmt::format("batch_norm '{}': the channels '{}' cannot also be a group", name, group));
    kept.push_back(x.dim(group));
  }
  kept.push_back(channels);
  return normalize("batch_norm", x, Shape(kept), channels, scale_t, bias, epsilon, false, name);
}

}  // namespace tpusim::mtf
