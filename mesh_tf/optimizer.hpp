#pragma once
// Optimizers build the gradient and update ops of a training step into the graph (Phase::update). Slot
// variables (Adam moments, Adafactor factored second moments, momentum accumulators) are ordinary variables
// named "<var>/<slot>", so they are sliced by the same layout rules as their variable. Momentum, LARS and
// LAMB, the optimizers of Google's MLPerf TPU submissions, are in mlperf_optimizers.hpp with their sources.
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/weight_sharding.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

struct OptimizerConfig {
  enum class Kind { sgd, adam, adafactor, momentum, lars, lamb };
  Kind kind = Kind::sgd;
  double learning_rate = 0.01;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // adam; lamb's moments decay with beta1 and beta2 too
  double decay = 0.8;                                 // adafactor second-moment decay
  double epsilon1 = 1e-30, clipping_threshold = 1.0;  // adafactor
  // The MLPerf submissions' values (mlperf_optimizers.hpp cites where each comes from).
  double momentum = 0.9;                                                // momentum, lars
  double lars_eta = 0.001, lars_weight_decay = 1e-4, lars_epsilon = 0;  // lars trust ratio
  double lamb_weight_decay = 0.01, lamb_epsilon = 1e-6;                 // lamb
};

class Optimizer {
 public:
  explicit Optimizer(OptimizerConfig config);
  static Optimizer sgd(double learning_rate);
  static Optimizer adam(double learning_rate);
  static Optimizer adafactor(double learning_rate);
  static Optimizer momentum(double learning_rate);
  static Optimizer lars(double learning_rate);
  static Optimizer lamb(double learning_rate);
  // The optimizer names: "sgd" | "adam" | "adafactor" | "momentum" | "lars" | "lamb".
  static const NameTable<OptimizerConfig::Kind>& kinds();
  // InputError listing the valid names.
  static OptimizerConfig::Kind parse_kind(const std::string& text);

  // Builds grads of `loss` for every variable (or `variables` if given) and their update ops. Returns the
  // gradients, in the order of the variables. Slot variables are listed by slot_variables().
  std::vector<Tensor> minimize(Graph& graph, const Tensor& loss, std::vector<Tensor> variables = {});
  // Update ops for given gradients (e.g. computed with gradients(ys, grad_ys, xs)).
  void apply(Graph& graph, const std::vector<Tensor>& variables, const std::vector<Tensor>& grads);
  const std::vector<Tensor>& slot_variables() const { return slots_; }
  // Shards the updates apply() builds from now on (weight_sharding.hpp, mode `update`): a variable with a
  // dim to shard has its gradient reduce-scattered, its update computed on its shard, and the new value
  // all-gathered. (Under `full` the variables are stored sharded instead, Graph::shard_variables, and
  // their updates need nothing from the optimizer.)
  void shard_updates(WeightSharding sharding) { sharding_ = std::move(sharding); }
  // The rules to lower with: the sharding's, plus "d_shard:<axis>" for every dim a shard renamed
  // (InputError when a shard dim's name has a rule already).
  LayoutRules sharded_rules() const;
  const OptimizerConfig& config() const { return config_; }
  // Dims that stack independent layers in one variable (a pipeline's `stage`: slice s of a [stage, ...]
  // variable is another layer's weight). Every statistic an update takes over a whole variable (Adafactor's
  // update RMS and its choice to factor, the LARS and LAMB norms and their rank rule) is then taken per slice
  // along them, so a stacked variable trains as its layers would apart, as praxis vectorises its optimizers
  // over a stacked layer's repeat dims.
  void stack_layers_along(std::vector<std::string> dims) { stacked_dims_ = std::move(dims); }

 private:
  Tensor update_one(Graph& graph, const std::string& name, const Tensor& variable, const Tensor& grad);
  OptimizerConfig config_;
  std::vector<Tensor> slots_;
  std::optional<WeightSharding> sharding_;
  std::vector<std::string> sharded_dims_;  // distinct, in first-use order
  std::vector<std::string> stacked_dims_;
};

}  // namespace tpusim::mtf
