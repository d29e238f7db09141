#include "mesh_tf/optimizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/mlperf_optimizers.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
Optimizer::Optimizer(OptimizerConfig config) : config_(config) {
  if (!(config_.learning_rate > 0)) {
    throw InputError(fmt::format("optimizer: learning rate {} must be positive", config_.learning_rate));
  }
  if (!(config_.momentum >= 0 && config_.momentum < 1))
    throw InputError(fmt::format("optimizer: momentum {} must be in [0, 1)", config_.momentum));
  if (!(config_.lars_weight_decay >= 0 && config_.lamb_weight_decay >= 0 && config_.lars_eta > 0))
    throw InputError(
        "optimizer: weight decay must not be negative, and the LARS coefficient must be positive");
}

Optimizer Optimizer::sgd(double learning_rate) {
  return Optimizer({OptimizerConfig::Kind::sgd, learning_rate});
}
Optimizer Optimizer::adam(double learning_rate) {
  return Optimizer({OptimizerConfig::Kind::adam, learning_rate});
}
Optimizer Optimizer::adafactor(double learning_rate) {
  return Optimizer({OptimizerConfig::Kind::adafactor, learning_rate});
}
Optimizer Optimizer::momentum(double learning_rate) {
  return Optimizer({OptimizerConfig::Kind::momentum, learning_rate});
}
Optimizer Optimizer::lars(double learning_rate) {
  return Optimizer({OptimizerConfig::Kind::lars, learning_rate});
}
Optimizer Optimizer::lamb(double learning_rate) {
  return Optimizer({OptimizerConfig::Kind::lamb, learning_rate});
}

const NameTable<OptimizerConfig::Kind>& Optimizer::kinds() {
  using Kind = OptimizerConfig::Kind;
  static const NameTable<Kind> table("optimizer", {{"sgd", Kind::sgd},
                                                   {"adam", Kind::adam},
                                                   {"adafactor", Kind::adafactor},
                                                   {"momentum", Kind::momentum},
                                                   {"lars", Kind::lars},
                                                   {"lamb", Kind::lamb}});
  return table;
}

OptimizerConfig::Kind Optimizer::parse_kind(const std::string& text) { return kinds().parse(text); }

std::vector<Tensor> Optimizer::minimize(Graph& graph, const Tensor& loss, std::vector<Tensor> variables) {
  if (variables.empty()) variables = graph.variables();
  const auto grads = gradients(loss, variables);
  apply(graph, variables, grads);
  return grads;
}

void Optimizer::apply(Graph& graph, const std::vector<Tensor>& variables, const std::vector<Tensor>& grads) {
  if (variables.size() != grads.size()) throw InputError("optimizer: need one gradient per variable");
  const Phase saved = graph.phase();
  graph.set_phase(Phase::update);
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const Tensor& var = variables[i];
    const std::string dim = sharding_ ? sharding_->dim_to_shard(var.shape()) : "";
    if (dim.empty()) {
      const Tensor value = update_one(graph, var.name(), var, grads[i]);
      assign(var, cast(value, var.dtype()), var.name() + "/update");
      continue;
    }
    const std::string shard = WeightSharding::shard_name(dim);
    if (std::find(sharded_dims_.begin(), sharded_dims_.end(), dim) == sharded_dims_.end())
      sharded_dims_.push_back(dim);
    const Tensor var_shard = rename(var, dim, shard, var.name() + "/shard");
    const Tensor grad_shard = rename(grads[i], dim, shard, var.name() + "/grad_shard");
    const Tensor value = cast(update_one(graph, var.name(), var_shard, grad_shard), var.dtype());
    assign(var, rename(value, shard, dim, var.name() + "/gathered"), var.name() + "/update");
  }
  graph.set_phase(saved);
}

LayoutRules Optimizer::sharded_rules() const {
  return sharding_ ? sharding_->rules_with(sharded_dims_) : LayoutRules{};
}

Tensor Optimizer::update_one(Graph& graph, const std::string& name, const Tensor& var,
                             const Tensor& grad_in) {
  const Tensor grad = cast(grad_in, DType::float32);
  const double lr = config_.learning_rate;
  std::vector<std::string> per_layer_dims;  // the dims of one stacked layer: all but the stacked ones
  for (const auto& dim : var.shape().names()) {
    if (std::find(stacked_dims_.begin(), stacked_dims_.end(), dim) == stacked_dims_.end())
      per_layer_dims.push_back(dim);
  }
  const Shape stacked = var.shape().minus(per_layer_dims);
  auto slot = [&](const std::string& suffix, const Shape& shape) {
    const Tensor t = graph.variable(name + "/" + suffix, shape, Initializer::zeros());
    slots_.push_back(t);
    return t;
  };
  auto decayed = [&](const Tensor& state, double decay, const Tensor& fresh, const std::string& suffix) {
    const Tensor next = add(scale(state, decay), scale(fresh, 1 - decay));
    assign(state, next, state.name() + "/update");
    return next;
  };
  switch (config_.kind) {
    case OptimizerConfig::Kind::sgd:
      return sub(var, scale(grad, lr));
    case OptimizerConfig::Kind::adam: {
      const Tensor step = slot("step", Shape{});
      const Tensor t = add_scalar(step, 1);
      assign(step, t);
      const Tensor m = decayed(slot("m", var.shape()), config_.beta1, grad, "m");
      const Tensor v = decayed(slot("v", var.shape()), config_.beta2, square(grad), "v");
      // Bias correction sqrt(1 - beta2^t) / (1 - beta1^t), with beta^t = exp(t ln beta).
      const Tensor b1t = exp(scale(t, std::log(config_.beta1)));
      const Tensor b2t = exp(scale(t, std::log(config_.beta2)));
      const Tensor correction = div(sqrt(add_scalar(neg(b2t), 1)), add_scalar(neg(b1t), 1));
      const Tensor denom = add_scalar(sqrt(v), config_.epsilon);
      return sub(var, scale(mul(correction, div(m, denom)), lr));
    }
    case OptimizerConfig::Kind::adafactor: {
      // Factored second moments over the last two dims (Shazeer & Stern 2018), constant decay, update
      // clipping; a variable stacking layers is factored and clipped as each of its layers would be.
      const Shape& shape = var.shape();
      const Tensor g2 = add_scalar(square(grad), config_.epsilon1);
      Tensor update;
      if (shape.rank() - stacked.rank() >= 2) {
        const std::string rows = shape[shape.rank() - 2].name, cols = shape[shape.rank() - 1].name;
        const Tensor vr = decayed(slot("vr", shape.minus({cols})), config_.decay,
                                  reduce_mean(g2, shape.minus({cols})), "vr");
        const Tensor vc = decayed(slot("vc", shape.minus({rows})), config_.decay,
                                  reduce_mean(g2, shape.minus({rows})), "vc");
        const Tensor row_mean = reduce_mean(vr, shape.minus({rows, cols}));
        // Two factors, as Mesh-TensorFlow's AdafactorOptimizer.apply_grad computes them: the product vr * vc
        // of two second moments near epsilon1 (1e-30) underflows fp32 to 0, and 0 * rsqrt(0) is NaN for a
        // weight whose gradient is zero (an unused variable, an MoE expert that got no token).
        update = mul(mul(grad, rsqrt(div(vr, row_mean))), rsqrt(vc));
      } else {
        const Tensor v = decayed(slot("v", shape), config_.decay, g2, "v");
        update = mul(grad, rsqrt(v));
      }
      const Tensor rms = sqrt(reduce_mean(square(update), stacked));
      const Tensor clip = maximum(graph.fill(Shape{}, 1), scale(rms, 1 / config_.clipping_threshold));
      return sub(var, scale(div(update, clip), lr));
    }
    case OptimizerConfig::Kind::momentum:
      return momentum_update(name, var, grad, config_, slot);
    case OptimizerConfig::Kind::lars:
      return lars_update(graph, name, var, grad, config_, slot, stacked);
    case OptimizerConfig::Kind::lamb:
      return lamb_update(graph, name, var, grad, config_, slot, stacked);
  }
  return var;
}

}  // namespace tpusim::mtf
