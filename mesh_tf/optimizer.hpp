#pragma once
// Optimizers build the gradient and update ops of a training step into the graph (Phase::update). Slot
// variables (Adam moments, Adafactor factored second moments) are ordinary variables named
// "<var>/<slot>", so they are sliced by the same layout rules as their variable.
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

struct OptimizerConfig {
  enum class Kind { sgd, adam, adafactor };
  Kind kind = Kind::sgd;
  double learning_rate = 0.01;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // adam
  double decay = 0.8;                                 // adafactor second-moment decay
  double epsilon1 = 1e-30, clipping_threshold = 1.0;  // adafactor
};

class Optimizer {
 public:
  explicit Optimizer(OptimizerConfig config);
  static Optimizer sgd(double learning_rate);
  static Optimizer adam(double learning_rate);
  static Optimizer adafactor(double learning_rate);
  // The optimizer names: "sgd" | "adam" | "adafactor".
  static const NameTable<OptimizerConfig::Kind>& kinds();
  // InputError listing the valid names.
  static OptimizerConfig::Kind parse_kind(const std::string& text);

  // Builds grads of `loss` for every variable (or `variables` if given) and their update ops. Returns the
  // gradients, in the order of the variables. Slot variables are listed by slot_variables().
  std::vector<Tensor> minimize(Graph& graph, const Tensor& loss, std::vector<Tensor> variables = {});
  // Update ops for given gradients (e.g. computed with gradients(ys, grad_ys, xs)).
  void apply(Graph& graph, const std::vector<Tensor>& variables, const std::vector<Tensor>& grads);
  const std::vector<Tensor>& slot_variables() const { return slots_; }
  const OptimizerConfig& config() const { return config_; }

 private:
  Tensor update_one(Graph& graph, const Tensor& variable, const Tensor& grad);
  OptimizerConfig config_;
  std::vector<Tensor> slots_;
};

}  // namespace tpusim::mtf
