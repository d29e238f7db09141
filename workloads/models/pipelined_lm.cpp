#include "workloads/models/pipelined_lm.hpp"

#include <fmt/format.h>

#include <map>

#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {

using mtf::Dimension;
using mtf::Shape;
using mtf::Tensor;

StageVariable pipelined_variable_for(const std::string& name, int layers, int stages) {
  const std::string prefix = "layer_";
  const auto slash = name.find('/');
  if (name.rfind(prefix, 0) != 0 || slash == std::string::npos || stages < 1 || layers % stages != 0)
    throw InputError(
        fmt::format("'{}' is not a layer variable of a {}-layer model in {} stages", name, layers, stages));
  const int layer = std::stoi(name.substr(prefix.size(), slash - prefix.size()));
  const int per_stage = layers / stages;
  return {fmt::format("stage_layer_{}{}", layer % per_stage, name.substr(slash)), layer / per_stage};
}

BuiltModel build_pipelined_decoder_only_lm(mtf::Graph& graph, const ModelConfig& model,
                                           const FeedForwardBlock& feed_forward_block) {
  const int S = model.pipeline.stages, M = model.pipeline.microbatches;
  if (S < 1 || M < 1 || model.layers % S != 0 || model.batch % M != 0) {
    throw InputError(
        fmt::format("pipeline: {} layers in {} stages and a batch of {} in {} microbatches do "
                    "not divide evenly",
                    model.layers, S, model.batch, M));
  }
  ModelConfig micro = model;
  micro.batch = model.batch / M;
  const Dimension stage(kPipelineStageDim, S), microbatches(kPipelineMicrobatchDim, M);
  // Outside the loop every activation has the microbatches in front; inside, the stages.
  TransformerDims outer(micro);
  outer.leading = {microbatches};
  std::map<std::string, Tensor> stage_variables;
  TransformerDims inner(micro);
  inner.leading = inner.stacked = {stage};
  inner.shared_variables = &stage_variables;
  const TransformerDims& d = inner;

  const Tensor ids = graph.input("token_ids", Shape{microbatches, d.batch, d.length});
  const Tensor targets = graph.input("target_ids", Shape{microbatches, d.batch, d.length});
  const DecoderInputs attention_inputs = decoder_inputs(graph, inner);
  const Tensor& full_mask = attention_inputs.full_mask;

  const Tensor embedding = weight(graph, "embedding", Shape{d.vocab, d.d_model}, d.d_model.size);
  const Tensor embedded =
      dropout(embed(graph, embedding, ids, outer, "decoder"), outer, "decoder/embedding_dropout");
  // Microbatch m's activations [batch, length, d_model]: a slice of the unsplit microbatches dim, its size-1
  // dim then dropped (a local reshape: batch keeps its place in memory order, so its split stays).
  const Shape activation{d.batch, d.length, d.d_model};
  std::vector<Tensor> inputs =
      mtf::split(embedded, kPipelineMicrobatchDim, std::vector<std::int64_t>(M, 1), "pipeline/microbatch");
  for (int m = 0; m < M; ++m)
    inputs[m] = mtf::reshape(inputs[m], activation, fmt::format("pipeline/input_{}", m));
  // One-hot masks over the stages: where a microbatch enters, and where one leaves.
  const Tensor first_stage = mtf::one_hot(graph.fill(Shape{}, 0), stage, 1, 0, "pipeline/first_stage");
  const Tensor last_stage =
      mtf::one_hot(graph.fill(Shape{}, float(S - 1)), stage, 1, 0, "pipeline/last_stage");

  const int per_stage = model.layers / S;
  std::vector<Tensor> outputs;
  Tensor state;
  for (int t = 0; t < M + S - 1; ++t) {
    const std::string it = fmt::format("pipeline/iteration_{}", t);
    if (t > 0 && S > 1) state = mtf::shift(state, kPipelineStageDim, 1, false, it + "/to_next_stage");
    if (t < M) {
      // The microbatch first: a product takes its first operand's type, and the activations' (bf16) must
      // carry through the loop as they do through the unpipelined layers, not the float32 mask's.
      const Tensor entering = mtf::mul(inputs[t], first_stage, it + "/enter");
      state = t == 0 || S == 1 ? entering : mtf::add(state, entering, it + "/with_input");
    }
    for (int j = 0; j < per_stage; ++j) {
      const mtf::CheckpointScope checkpoint(graph);
      const std::string scope = fmt::format("stage_layer_{}", j);
      // Dropout masks are keyed by name: each iteration its own.
      const std::string site = fmt::format("{}/{}", it, scope);
      const Tensor normed = layer_norm(graph, state, inner, scope + "/self_attention");
      state = mtf::add(
          state, dropout(attention(graph, normed, normed, full_mask, inner, scope + "/self_attention"), inner,
                         site + "/self_attention/dropout"));
      state = mtf::add(state, dropout(feed_forward_block(layer_norm(graph, state, inner, scope + "/ffn"),
                                                         inner, scope + "/ffn"),
                                      inner, site + "/ffn/dropout"));
    }
    if (t >= S - 1) {
      // The last stage's slice: a masked sum over the stages, allreduced over the stage axis when split.
      const Tensor leaving = mtf::reduce_sum(mtf::mul(state, last_stage), activation, it + "/leave");
      outputs.push_back(
          mtf::reshape(leaving, Shape{Dimension(kPipelineMicrobatchDim, 1), d.batch, d.length, d.d_model},
                       fmt::format("pipeline/output_{}", t - S + 1)));
    }
  }
  Tensor x = M == 1 ? mtf::reshape(outputs[0], outer.lead({d.batch, d.length, d.d_model}), "pipeline/outputs")
                    : mtf::concat(outputs, kPipelineMicrobatchDim, "pipeline/outputs");
  x = layer_norm(graph, x, outer, "final");
  const Tensor loss = softmax_loss(graph, x, targets, outer, "output");
  std::vector<ModelInput> model_inputs = {{ids, InputRole::token_ids}, {targets, InputRole::next_token_ids}};
  model_inputs.insert(model_inputs.end(), attention_inputs.inputs.begin(), attention_inputs.inputs.end());
  return {loss, model_inputs, {kPipelineStageDim}};
}

}  // namespace tpusim::workloads
