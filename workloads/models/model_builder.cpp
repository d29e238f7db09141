#include "workloads/models/model_builder.hpp"

#include "workloads/models/model_kinds.hpp"

namespace tpusim::workloads {

BuiltModel build_model(mtf::Graph& graph, const ModelConfig& model) {
  return model_kind(model.kind).build(graph, model);
}

}  // namespace tpusim::workloads
