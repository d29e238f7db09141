#pragma once
// The decoder-only LM with its layer stack in pipeline stages, as GSPMD pipelines a model in SPMD form (Xu et
// al. 2021, "GSPMD", arXiv 2105.04663, section 3.3 "Pipelining"; praxis's LayerwiseShardablePipelined): the
// layers/S layers of each stage are vectorised over a named dimension `stage` of size S (layer j of every
// stage is one variable "stage_layer_<j>/..." with a leading `stage` dim whose slice s is the unpipelined
// layer s*layers/S + j), and the layout rule `stage:<mesh axis>` puts each stage on its part of that axis.
// The batch is cut into M microbatches (the inputs are [microbatches, batch/M, length]; microbatch m holds
// sequences m*batch/M to (m+1)*batch/M - 1 of the unpipelined batch, the same values in the same memory
// order). A buffer [stage, batch/M, length, d_model] runs M+S-1 iterations t: microbatch t enters stage 0
// (t < M), every stage runs its layers at once, the last stage's output is microbatch t-S+1 (t >= S-1), and
// the buffer shifts by one along `stage` (mtf::shift: a collective permute over the stage axis, through the
// simulated interconnect, over DCN when the axis spans slices). Stages without a microbatch compute on zeros,
// which stay zeros through the layers (layer norm of 0 is 0, attention and feed-forward of 0 are 0): that is
// the bubble's cost on a TPU under GSPMD. The embedding, the final layer norm and the loss stay outside the
// loop, over [microbatches, batch/M, ...]. Autodiff builds the backward loop; the GPipe schedule is the
// engine's own timeline.
#include <string>

#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

// The names of the two dims the pipelined model adds.
inline constexpr const char* kPipelineStageDim = "stage";
inline constexpr const char* kPipelineMicrobatchDim = "microbatches";

// The variable of the pipelined model that holds unpipelined layer `layer`'s variable `name` (such as
// "layer_5/ffn/in") as its stage slice, and that stage: ("stage_layer_1/ffn/in", 2) for layer 5 of 8 in 4
// stages.
struct StageVariable {
  std::string name;
  int stage = 0;
};
StageVariable pipelined_variable_for(const std::string& name, int layers, int stages);

// model.pipeline must be on, layers divisible by stages and batch by microbatches (the config checks them;
// InputError otherwise).
BuiltModel build_pipelined_decoder_only_lm(mtf::Graph& graph, const ModelConfig& model,
                                           const FeedForwardBlock& feed_forward_block);

}  // namespace tpusim::workloads
