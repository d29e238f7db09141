#pragma once
// The model-kind registry: one row per kind of model a config may name (model.kind), holding everything that
// depends on the kind: the model keys it takes, its tensor dimensions and default layout, its builder
// (one file per kind in this folder), its closed forms (model_formulas.hpp) and how reports describe it.
// Nothing else chooses by kind.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "topologies/support/name_table.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/models/model_formulas.hpp"

namespace tpusim::mtf {
class Graph;
}

namespace tpusim::workloads {

struct BuiltModel;  // model_builder.hpp

// A model key the kind takes (a row of model_section.hpp, named without "model.").
struct ModelKeyUse {
  std::string key;
  std::string default_value = "";  // YAML text read when the config leaves it out; "" = required
};

// A tensor dimension that no model key of its name sizes, because its size changes through the model (an
// image's h halves from stage to stage): the key that sets it and its smallest size, of which every other
// size is a multiple, so that a layout splits the dimension evenly everywhere when it splits this one.
struct DerivedDimension {
  std::string dim;
  std::string key;
  std::int64_t smallest = 1;
  std::string how;  // how the smallest comes from the key: "image_size / 32"
};

// A problem of a model's sizes only its kind has (image sizes the pooling cannot halve), at `key`.
struct ModelSizeProblem {
  std::string key;
  std::string problem;  // "" when none
};

struct ModelKindInfo {
  ModelKind kind;
  std::string name;                     // as configs write it
  std::string description;              // for tpusim run --schema
  std::vector<ModelKeyUse> keys;        // in the order messages list them
  std::vector<std::string> dimensions;  // the tensor dimensions layout rules may name
  // The paper's layout rules; a mesh keeps those whose mesh axis it has.
  std::string default_layout;
  std::string example_preset;  // a small preset of this kind (tests build it)
  BuiltModel (*build)(mtf::Graph& graph, const ModelConfig& model);
  ModelFormulas formulas;
  // A problem of the layout only this kind has (a sentence, "" if none), found before the engine lowers the
  // model so that it points at mesh.layout; nullptr: no check of its own.
  std::string (*check_layout)(const ModelConfig& model, const mtf::LayoutRules& layout);
  std::string (*summary)(const ModelConfig& model);  // the report's one-line description of the model
  // nullptr when every dimension is sized by the model key of its name.
  std::vector<DerivedDimension> (*derived_dimensions)(const ModelConfig& model);
  ModelSizeProblem (*check_sizes)(const ModelConfig& model);  // nullptr: no check of its own
  // Whether its builder cuts the layers into pipeline stages and the batch into microbatches when
  // model.pipeline is on (training.pipeline_stages, training.microbatches; models/pipelined_lm.hpp).
  bool pipelines;
};

const std::vector<ModelKindInfo>& model_kinds();  // every row, in the order messages list them
const ModelKindInfo& model_kind(ModelKind kind);
const NameTable<ModelKind>& model_kind_names();  // parses model.kind with did-you-mean
// default_layout of the kind, kept to the axes the mesh has.
mtf::LayoutRules default_layout(ModelKind kind, const mtf::MeshShape& mesh);
// "" when the kind has the tensor dimension `dim`, else what a config's reader reports: "a transformer_lm has
// no dimension 'dff' (did you mean 'd_ff'?); its dimensions are ...".
std::string unknown_dimension_problem(const ModelKindInfo& kind, const std::string& dim);
std::string describe_model(const ModelConfig& model);  // the row's summary
// Whether the kind trains on sequences (it takes model.length): its batch counts sequences of length tokens.
// A kind without them (the MLP) counts examples, each one token.
bool trains_on_sequences(ModelKind kind);
double tokens_per_step(const ModelConfig& model);  // batch x length, or batch
// What model.batch counts, for reports: "sequences", "images" (a kind that takes model.image_size; each image
// counts as one token in tokens_per_step) or "examples" (the MLP).
std::string example_unit(ModelKind kind);
// The kind's derived dimension `dim`, or nullopt when a model key of that name sizes it (or none does).
std::optional<DerivedDimension> derived_dimension(const ModelConfig& model, const std::string& dim);

}  // namespace tpusim::workloads
