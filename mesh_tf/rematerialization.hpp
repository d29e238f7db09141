#pragma once
// Rematerialization as XLA's HloRematerialization pass does it (xla/service/hlo_rematerialization.cc): when
// the live buffers of a program exceed the device's memory, values held across the peak for a later reader
// are dropped after their last read before it and computed again just before the reader after it, trading
// compute for memory until the program fits (config hardware.rematerialization):
//   xla   when the peak of live buffers (buffer_liveness.hpp) exceeds the device's HBM, repeatedly take the
//         value that frees the most bytes per second of recomputation among those live across the peak
//         step and not read there; its recomputation (the time of the fusion that computes it) is added to
//         the fusion of the reader after the gap. A value qualifies when computing it again needs nothing
//         that is not live at that reader anyway (the pass's candidates that lengthen no other buffer), it
//         is computed on the core (a collective's result is not recomputed), draws no random bits (XLA's
//         random number ops are stateful and never rematerialized), and is not an output of the step.
//         If no choice brings the peak under the memory, the program is left as it was: XLA would fail to
//         compile it, and the run reports that it does not fit.
//   layers  every checkpointed layer (graph.hpp's CheckpointScope, which the models open around each layer)
//         holds only what it reads and hands on: the values its forward ops compute on the core for
//         themselves and for the backward pass are dropped and computed again, all at once, before the
//         first backward op that reads one of them, whatever the memory. This is activation checkpointing
//         per layer (Chen et al. 2016; Mesh-TensorFlow's recompute_grad; jax.checkpoint around each layer, as
//         large models are trained), which costs about one more forward pass of the layers.
//   none  the default: buffers are held as assigned, whatever the memory.
#include <cstdint>
#include <string>
#include <vector>

#include "mesh_tf/buffer_liveness.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

enum class RematerializationPolicy { none, xla, layers };
const NameTable<RematerializationPolicy>& rematerialization_policies();  // "none", "xla", "layers"

// Under `layers`, what each checkpointed layer holds for its backward pass after all, as jax.checkpoint's
// policies say (jax.checkpoint_policies: save_only_these_names, checkpoint_dots_with_no_batch_dims and their
// offloading forms, which MaxText's remat_policy names): the results of forward ops whose names end with a
// `saved` suffix, or that are matmuls without batch dimensions (two-input contractions whose inputs share no
// dimension the result keeps: the projections by weights, not attention's logits and context) when
// `save_dots` says, are held in HBM; those of `offloaded` (or such matmuls under `offload_dots`) are held in
// host memory, so they take no HBM between their last forward reader and their first backward one (the copies
// over the host link are not timed). Every such result is written to HBM when it is made, whatever fusion
// would do (it is the backward pass's input), and what the layer computes from it is computed again from it.
// The default holds nothing: every value is computed again (MaxText's full).
struct LayerCheckpointPolicy {
  std::vector<std::string> saved, offloaded;
  bool save_dots = false, offload_dots = false;
  bool holds_anything() const { return !saved.empty() || !offloaded.empty() || save_dots || offload_dots; }
};

struct Program;  // program.hpp, internal to mesh_tf
class Graph;

// How the forward op computing `step` of `program` stands under the layer policy: held in HBM, held in host
// memory, or neither (then computed again). Ops outside checkpointed layers are neither.
enum class LayerHold { none, device, host };
LayerHold layer_hold(const Program& program, const Graph& graph, int step, const LayerCheckpointPolicy& policy);

// Under `xla`, rematerializes values of `program` (Value::rematerialized_at, and the time added to the
// readers' kernels) until its peak of live buffers is at most `memory_bytes`, or changes nothing if no set
// of choices gets there; under `layers`, those of every checkpointed layer of `graph`, the program's graph,
// but for what `layer_policy` holds.
Rematerialization rematerialize(Program& program, const Graph& graph, std::uint64_t memory_bytes,
                                RematerializationPolicy policy, const LayerCheckpointPolicy& layer_policy = {});

}  // namespace tpusim::mtf
