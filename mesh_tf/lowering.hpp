#pragma once
// Lowering: every graph op becomes local steps on slices plus the collectives its layout requires
// (the paper's table: mesh_tf/README.md, The paper's figures). Partial sums stay pending until a consumer
// other than add/sub needs them, so contributions to one gradient are added before a single allreduce. This
// file keeps the values, relayouts and collectives; each op family lowers itself (mesh_tf/ops/, dispatched
// through op_table.hpp) with the public members below.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/collective_backend.hpp"
#include "mesh_tf/device_model.hpp"
#include "mesh_tf/fusion.hpp"
#include "mesh_tf/graph.hpp"
#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/local_kernels.hpp"
#include "mesh_tf/program.hpp"
#include "mesh_tf/rematerialization.hpp"
#include "mesh_tf/tensor_layout.hpp"

namespace tpusim::mtf {

struct LoweringOptions {
  DeviceModel device = DeviceModel::tpu_v2_core();
  CollectiveBackend collective_backend = CollectiveBackend::mesh_tf_tpu;
  FusionPolicy fusion = FusionPolicy::xla;
  std::uint64_t allreduce_combine_bytes = 0;  // allreduce_combiner.hpp: 0 combines nothing
  RematerializationPolicy rematerialization = RematerializationPolicy::none;
  LayerCheckpointPolicy layer_checkpoint;  // what `layers` holds after all (rematerialization.hpp)
  std::vector<int> outputs;                   // tensor ids to materialise (force pending sums)
};

Program lower(const Graph& graph, const MeshShape& mesh, const LayoutRules& rules,
              const LoweringOptions& options);

class Lowerer {
 public:
  Lowerer(const Graph& graph, const MeshShape& mesh, const LayoutRules& rules, const LoweringOptions& options,
          Program& program);
  void run();

  // ---- For the op families ----
  const Graph& graph() const { return graph_; }
  const MeshShape& mesh() const { return mesh_; }
  // The layout the layout rules give tensor `tensor` (InputError if `unsplittable` dims would be split).
  TensorLayout rule_layout(int tensor, const std::vector<std::string>& unsplittable = {}) const;
  // A layout of this mesh (the checks of TensorLayout's explicit form, naming `name`).
  TensorLayout layout(const std::string& name, const Shape& shape, std::vector<int> mesh_dims) const {
    return TensorLayout(name, shape, mesh_, std::move(mesh_dims));
  }
  int new_value(int tensor, const std::string& name, TensorLayout layout, DType dtype,
                std::vector<int> pending = {});
  const Value& value(int id) const { return program_.values[id]; }
  // The value of input `index` of `op`, its pending sums allreduced unless `allow_pending`.
  int input_value(const OpNode& op, int index, bool allow_pending = false);
  // The value that holds op's output tensor, and the one that holds an earlier tensor.
  void set_result(const OpNode& op, int value) { program_.raw_value_of_tensor[op.output] = value; }
  int value_of(int tensor) const { return program_.raw_value_of_tensor[tensor]; }
  kernels::LocalDims local_dims(const Value& v) const;
  // input keys for each output key (inputs must vary only along dims the output varies along)
  std::vector<std::vector<int>> key_maps(const Value& out, const std::vector<int>& inputs) const;

  // The work of a local step, for its time on the device: a plain FLOP count converts to it.
  struct LocalWork {
    LocalWork(double flops, double transcendentals = 0, std::optional<MatmulSizes> matmul = std::nullopt)
        : flops(flops), transcendentals(transcendentals), matmul(matmul) {}
    double flops;
    double transcendentals;             // among the flops: transcendental functions (vector_unit.hpp)
    std::optional<MatmulSizes> matmul;  // a contraction's matmul, for the matrix unit
    // Vector operations beside the flops, which no FLOP count shows: a random mask's bit generation
    // (random_bits.hpp). They take vector-unit time but add nothing to the FLOP counters.
    double extra_vector_ops = 0;
  };
  // A local step; returns its index in the program.
  int add_compute(const OpNode& op, const std::string& label, std::vector<int> inputs, int output,
                  LocalWork work, std::function<void(Store&)> kernel);
  Step& step(int index) { return program_.steps[index]; }
  int add_collective(const OpNode& op, Step step, const std::string& reason);
  int allreduce(int v, const std::vector<int>& dims, sim::ReduceOp reduce, const OpNode& op,
                const std::string& reason);
  int force(int v, const OpNode& op);
  // Each processor's slice of `send` goes to its neighbour `offset`'s direction along the mesh dim that
  // splits tensor dim `tensor_dim` (to the other end when `wrap`); returns what each processor receives.
  int permute(int send, int tensor_dim, std::int64_t offset, bool wrap, const OpNode& op,
              const std::string& reason);
  // `v` laid out as `target`. A pending sum over a mesh dim that `target` splits some tensor dim over is
  // reduce-scattered along it when `reduce_scatter` (each core sums only its part; weight-update sharding,
  // optimizer.hpp), else allreduced first; with `native_allgather` gathers are XLA all-gathers rather than
  // Mesh-TensorFlow's allconcat (collective_backend.hpp).
  int relayout(int v, const std::vector<int>& target, const OpNode& op, bool reduce_scatter = false,
               bool native_allgather = false);
  void add_assignment(int variable_value, int new_value) {
    program_.assignments.push_back({variable_value, new_value});
  }

  // The common shape of ops that work along one unsplittable axis (concat, slice, pad, cumsum,
  // argmax_one_hot): inputs without pending sums, the output laid out by the rules, and `kernel` run on every
  // output slice, zero-filled first, with its inputs' matching slices. One FLOP per output element when
  // `counts_flops`.
  using AxisKernel = std::function<void(
      const std::vector<const float*>& inputs, const std::vector<std::vector<std::int64_t>>& input_sizes,
      float* output, const std::vector<std::int64_t>& output_sizes, int axis)>;
  void lower_along_axis(const OpNode& op, const std::string& axis, bool counts_flops, AxisKernel kernel);

 private:
  int allsplit(int v, int tensor_dim, int mesh_dim, const OpNode& op);
  int allconcat(int v, int tensor_dim, const OpNode& op, bool native_allgather = false);
  int reduce_scatter(int v, int tensor_dim, int mesh_dim, const OpNode& op);
  int alltoall(int v, int from_dim, int to_dim, const OpNode& op);
  void finish_counters();
  void check_attention_kernels() const;

  const Graph& graph_;
  MeshShape mesh_;
  LayoutRules rules_;
  LoweringOptions options_;
  Program& program_;
  std::vector<int> forced_;  // value id -> its forced value id (or -1)
};

}  // namespace tpusim::mtf
