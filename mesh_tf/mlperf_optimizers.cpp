#include "mesh_tf/mlperf_optimizers.hpp"

#include <cmath>

namespace tpusim::mtf {
namespace {

// |x| per slice along `stacked` (every dim when it is empty): a reduce_sum, hence an allreduce over the mesh
// dims that split the dims it sums.
Tensor l2_norm(const Tensor& x, const Shape& stacked, const std::string& name) {
  return sqrt(reduce_sum(square(x), stacked, name + "_squared"), name);
}

// numerator / denominator where both norms are positive, else 1, as the sources' nested tf.where. A select
// would compute both branches, so the denominator gets 1 added where the ratio is not used: no 0/0 there.
Tensor guarded_ratio(Graph& graph, const Tensor& w_norm, const Tensor& other_norm, const Tensor& numerator,
                     const Tensor& denominator, const std::string& name) {
  const Tensor zero = graph.fill(Shape{}, 0);
  const Tensor used = mul(greater(w_norm, zero), greater(other_norm, zero), name + "_used");
  const Tensor unused = add_scalar(neg(used), 1);
  return add(mul(used, div(numerator, add(denominator, unused))), unused, name);
}

// state <- decay * state + fresh (the momentum accumulator), assigned; returns the new state.
Tensor accumulate(const Tensor& state, double decay, const Tensor& fresh) {
  const Tensor next = add(scale(state, decay), fresh);
  assign(state, next, state.name() + "/update");
  return next;
}

// state <- decay * state + (1 - decay) * fresh (Adam's moments), assigned; returns the new state.
Tensor moving_average(const Tensor& state, double decay, const Tensor& fresh) {
  return accumulate(state, decay, scale(fresh, 1 - decay));
}

}  // namespace

bool skips_layer_adaptation(const Tensor& variable, const Shape& stacked) {
  return variable.shape().rank() - stacked.rank() <= 1;
}

Tensor momentum_update(const std::string&, const Tensor& var, const Tensor& grad,
                       const OptimizerConfig& config, const SlotFactory& slot) {
  const Tensor accum = accumulate(slot("momentum", var.shape()), config.momentum, grad);
  return sub(var, scale(accum, config.learning_rate));
}

Tensor lars_update(Graph& graph, const std::string& name, const Tensor& var, const Tensor& grad,
                   const OptimizerConfig& config, const SlotFactory& slot, const Shape& stacked) {
  const Tensor accum = slot("momentum", var.shape());
  // The learning rate sits inside the accumulator (LARSOptimizer applies momentum with a rate of 1 to the
  // already scaled step), so a change of rate or ratio does not rescale the velocity already gathered.
  Tensor step;
  if (skips_layer_adaptation(var, stacked)) {
    step = scale(grad, config.learning_rate);
  } else {
    const double wd = config.lars_weight_decay;
    const Tensor w_norm = l2_norm(var, stacked, name + "/lars_weight_norm");
    const Tensor g_norm = l2_norm(grad, stacked, name + "/lars_grad_norm");
    const Tensor denominator = add_scalar(add(g_norm, scale(w_norm, wd)), config.lars_epsilon);
    const Tensor trust = guarded_ratio(graph, w_norm, g_norm, scale(w_norm, config.lars_eta), denominator,
                                       name + "/lars_trust_ratio");
    step = mul(scale(trust, config.learning_rate), add(grad, scale(var, wd)));
  }
  return sub(var, accumulate(accum, config.momentum, step));
}

Tensor lamb_update(Graph& graph, const std::string& name, const Tensor& var, const Tensor& grad,
                   const OptimizerConfig& config, const SlotFactory& slot, const Shape& stacked) {
  const Tensor step = slot("step", Shape{});
  const Tensor t = add_scalar(step, 1);
  assign(step, t);
  const Tensor m = moving_average(slot("m", var.shape()), config.beta1, grad);
  const Tensor v = moving_average(slot("v", var.shape()), config.beta2, square(grad));
  // Bias correction 1 / (1 - beta^t), with beta^t = exp(t ln beta) as Adam's above.
  const Tensor m_hat = div(m, add_scalar(neg(exp(scale(t, std::log(config.beta1)))), 1));
  const Tensor v_hat = div(v, add_scalar(neg(exp(scale(t, std::log(config.beta2)))), 1));
  Tensor update = div(m_hat, add_scalar(sqrt(v_hat), config.lamb_epsilon));
  if (skips_layer_adaptation(var, stacked)) return sub(var, scale(update, config.learning_rate));
  update = add(update, scale(var, config.lamb_weight_decay));
  const Tensor w_norm = l2_norm(var, stacked, name + "/lamb_weight_norm");
  const Tensor u_norm = l2_norm(update, stacked, name + "/lamb_update_norm");
  const Tensor trust = guarded_ratio(graph, w_norm, u_norm, w_norm, u_norm, name + "/lamb_trust_ratio");
  return sub(var, mul(scale(trust, config.learning_rate), update));
}

}  // namespace tpusim::mtf
