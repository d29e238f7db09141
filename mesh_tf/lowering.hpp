#pragma once
// Lowering: every graph op becomes local steps on slices plus the collectives its layout requires
// (mesh_tf.md's table). Partial sums stay pending until a consumer other than add/sub needs them, so
// contributions to one gradient are added before a single allreduce.
#include <string>
#include <vector>

#include "mesh_tf/device_model.hpp"
#include "mesh_tf/graph.hpp"
#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/local_kernels.hpp"
#include "mesh_tf/program.hpp"
#include "mesh_tf/tensor_layout.hpp"

namespace tpusim::mtf {

struct LoweringOptions {
  DeviceModel device = DeviceModel::tpu_v2_core();
  bool bf16_allreduce_in_fp32_above_8 = true;
  std::vector<int> outputs;  // tensor ids to materialise (force pending sums)
};

Program lower(const Graph& graph, const MeshShape& mesh, const LayoutRules& rules,
              const LoweringOptions& options);

class Lowerer {
 public:
  Lowerer(const Graph& graph, const MeshShape& mesh, const LayoutRules& rules, const LoweringOptions& options,
          Program& program);
  void run();

 private:
  // values and layouts
  std::vector<int> rule_mesh_dims(int tensor, const std::vector<std::string>& unsplittable = {}) const;
  int new_value(int tensor, const std::string& name, const Shape& shape, DType dtype,
                std::vector<int> mesh_dims, std::vector<int> pending = {});
  const Value& value(int id) const { return program_.values[id]; }
  int input_value(const OpNode& op, int index, bool allow_pending = false);
  kernels::LocalDims local_dims(const Value& v) const;
  // input keys for each output key (inputs must vary only along dims the output varies along)
  std::vector<std::vector<int>> key_maps(const Value& out, const std::vector<int>& inputs) const;

  // steps
  int add_compute(const OpNode& op, const std::string& label, std::vector<int> inputs, int output,
                  double flops, std::function<void(Store&)> kernel);
  int add_collective(const OpNode& op, Step step, const std::string& reason);
  int allreduce(int v, const std::vector<int>& dims, sim::ReduceOp reduce, const OpNode& op,
                const std::string& reason);
  int force(int v, const OpNode& op);
  int relayout(int v, const std::vector<int>& target, const OpNode& op);
  int allsplit(int v, int tensor_dim, int mesh_dim, const OpNode& op);
  int allconcat(int v, int tensor_dim, const OpNode& op);
  int alltoall(int v, int from_dim, int to_dim, const OpNode& op);

  // op families (lower_*.cpp)
  void lower_op(const OpNode& op);
  void lower_source(const OpNode& op);
  void lower_einsum(const OpNode& op);
  void lower_binary(const OpNode& op);
  void lower_unary(const OpNode& op);
  void lower_reduce_max(const OpNode& op);
  void lower_reshape(const OpNode& op);
  void lower_shift(const OpNode& op);
  void lower_axis_op(const OpNode& op);  // concat, slice, pad, cumsum, argmax_one_hot
  void lower_one_hot(const OpNode& op);
  void lower_assign(const OpNode& op);
  void finish_counters();

  const Graph& graph_;
  MeshShape mesh_;
  LayoutRules rules_;
  LoweringOptions options_;
  Program& program_;
  std::vector<int> forced_;  // value id -> its forced value id (or -1)
  std::vector<OpCost> op_costs_;
  friend Program lower(const Graph&, const MeshShape&, const LayoutRules&, const LoweringOptions&);
};

}  // namespace tpusim::mtf
