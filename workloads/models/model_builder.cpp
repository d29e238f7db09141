#include "workloads/models/model_builder.hpp"

namespace tpusim::workloads {

BuiltModel build_model(mtf::Graph& graph, const ModelConfig& model) {
  switch (model.kind) {
    case ModelKind::mlp:
      return build_mlp(graph, model);
    case ModelKind::transformer_lm:
      return build_transformer_lm(graph, model);
    case ModelKind::encoder_decoder:
      return build_encoder_decoder(graph, model);
    case ModelKind::moe_transformer:
      return build_moe_transformer(graph, model);
  }
  return {};
}

}  // namespace tpusim::workloads
