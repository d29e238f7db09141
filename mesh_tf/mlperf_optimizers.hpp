#pragma once
// The update rules of the optimizers Google's MLPerf TPU submissions trained with, built from mesh_tf ops so
// that lowering counts their FLOPs, slots and collectives like any other op (Optimizer::update_one calls
// them; each returns the variable's new value, the caller assigns it). Defaults are in OptimizerConfig:
//
// - momentum: TensorFlow's MomentumOptimizer without Nesterov (tf.train.MomentumOptimizer, the kernel
//   ApplyMomentum): the accumulator adds the gradient to momentum times itself, the variable moves by the
//   learning rate times the accumulator. Momentum 0.9 is the MLPerf ResNet default (the `momentum` flag of
//   resnet_main.py in mlcommons/training_results_v0.5 and _v0.6, Google/...). Those ResNet runs that used
//   plain momentum set use_nesterov=True; this is the non-Nesterov form.
// - lars: You, Gitman & Ginsburg, "Large Batch Training of Convolutional Networks" (arXiv 1708.03888), as
//   TensorFlow's LARSOptimizer (tensorflow/contrib/opt/python/training/lars_optimizer.py) computes it and the
//   MLPerf v0.6 ResNet code configures it (mlcommons/training_results_v0.6,
//   Google/benchmarks/resnet/implementations/tpu-v3-*-resnet/resnet/lars_util.py): per variable a trust
//   ratio eta * |w| / (|g| + wd * |w| + epsilon), 1 when either norm is 0; the momentum accumulates the
//   learning rate times that ratio times (g + wd * w), and the variable moves by the accumulator. eta 0.001
//   and epsilon 0 are LARSOptimizer's defaults, which lars_util.py keeps (the v3-512 and v3-2048 runs passed
//   --lars_epsilon=1e-05); wd 1e-4 is resnet_main.py's weight_decay default (the v3-32 and v3-128 runs
//   passed 2e-4). A skipped variable gets the plain rule: the accumulator adds lr * g, no weight decay.
// - lamb: You et al., "Large Batch Optimization for Deep Learning: Training BERT in 76 minutes" (arXiv
//   1904.00962), as Google's MLPerf v0.7 BERT code has it (mlcommons/training_results_v0.7,
//   Google/benchmarks/bert/implementations/bert-research-TF-tpu-v4-*/lamb_optimizer.py, configured in
//   optimization.py there): Adam's moments m and v with bias correction (that file divides by 1 - beta^t;
//   the paper's version without it is left commented out there), r = m_hat / (sqrt(v_hat) + epsilon) +
//   wd * w, and the variable moves by lr * (|w| / |r|) * r, the ratio 1 when either norm is 0. beta1 0.9,
//   beta2 0.999, epsilon 1e-6 and wd 0.01 are optimization.py's values (the tpu-v4 run scripts pass the
//   same). A skipped variable gets neither weight decay nor the ratio: bias-corrected Adam with epsilon
//   outside the root.
//
// The norms are reduce_sums over the whole variable (to a scalar, or to its `stacked` dims when it stacks
// several layers: Optimizer::stack_layers_along), so a variable split over mesh dims (by its layout or by
// weight-update sharding) gets the allreduce of its partial sums from the lowering.
#include <functional>
#include <string>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/optimizer.hpp"

namespace tpusim::mtf {

// Creates the zero-initialised slot variable "<var>/<suffix>" and records it as optimizer state.
using SlotFactory = std::function<Tensor(const std::string& suffix, const Shape& shape)>;

// Whether LARS and LAMB leave `variable` out of weight decay and of the trust ratio. The MLPerf code decides
// by name: LARS skips names containing "batch_normalization" or "bias", LAMB names matching "LayerNorm",
// "layer_norm" or "bias". In ResNet-50 and BERT those are exactly the variables of rank 1 (batch- and
// layer-norm scales and offsets, biases), while every kernel and embedding has rank 2 or more; tpusim's
// models name them differently ("stem/scale" is a batch-norm scale), so the rank is the rule that carries
// over: rank 0 or 1 is skipped, not counting the `stacked` dims (those of a variable's shape that stack
// layers: a stacked layer-norm scale [stage, d_model] is each layer's [d_model]).
bool skips_layer_adaptation(const Tensor& variable, const Shape& stacked = Shape{});

// `name` is the variable's name (its ops are named after it); `variable` may be its update shard.
Tensor momentum_update(const std::string& name, const Tensor& variable, const Tensor& grad,
                       const OptimizerConfig& config, const SlotFactory& slot);
// `stacked`: the dims of the variable's shape that stack layers, along which each norm is kept per slice.
Tensor lars_update(Graph& graph, const std::string& name, const Tensor& variable, const Tensor& grad,
                   const OptimizerConfig& config, const SlotFactory& slot, const Shape& stacked = Shape{});
Tensor lamb_update(Graph& graph, const std::string& name, const Tensor& variable, const Tensor& grad,
                   const OptimizerConfig& config, const SlotFactory& slot, const Shape& stacked = Shape{});

}  // namespace tpusim::mtf
