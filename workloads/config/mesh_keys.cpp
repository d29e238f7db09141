// The rows of the `mesh:` section: the logical mesh, where its processors run, and which mesh axis splits
// each tensor dimension. The mesh and layout are parsed by their own types (mtf::MeshShape,
// mtf::LayoutRules); what only the config knows is checked here: the mesh against the topology, the layout
// against the model.
#include <fmt/format.h>

#include <algorithm>

#include "mesh_tf/mesh_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/config/mesh_shape_rule.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/models/model_section.hpp"

namespace tpusim::workloads {
namespace {

// Every size the layout splits divides evenly, and the model's kind accepts the layout. `layout_node` is the
// written layout, null for the default one.
void check_layout_fits_model(const ConfigReading& r, const ConfigNode* layout_node) {
  const ModelConfig& model = r.config.model;
  const MeshConfig& mesh = r.config.mesh;
  const ConfigNode model_node = r.root.child("model");
  for (const auto& [dim, axis] : mesh.layout.rules()) {
    const std::int64_t size = model_dimension_size(model, dim);
    const int parts = mesh.shape.dim_size(mesh.shape.index_of(axis));
    if (size % parts != 0) {
      // Each tensor dimension is sized by the model key of its name, or derived from another key.
      if (const auto derived = derived_dimension(model, dim)) {
        const std::optional<ConfigNode> key_node = model_node.optional_child(derived->key);
        (key_node ? *key_node : model_node)
            .fail(
                fmt::format("{} is {} at its smallest ({}), which does not split evenly over mesh axis '{}' "
                            "of size {} (layout rule {}:{})",
                            dim, size, derived->how, axis, parts, dim, axis));
      }
      const std::optional<ConfigNode> size_node = model_node.optional_child(dim);
      (size_node ? *size_node : model_node)
          .fail(fmt::format("{} does not split evenly over mesh axis '{}' of size {} (layout rule {}:{})",
                            size, axis, parts, dim, axis));
    }
  }
  // Pipeline stages run each on its part of the mesh axis that splits `stage`; without one every core would
  // run every stage, which is no pipeline.
  if (model.pipeline.stages > 1 && !mesh.layout.mesh_dim_for("stage")) {
    const std::optional<ConfigNode> stages_node = r.node("training.pipeline_stages");
    TPUSIM_CHECK(stages_node.has_value());
    (layout_node ? *layout_node : *stages_node)
        .fail(fmt::format("{} pipeline stages need a layout rule stage:<mesh axis> naming the mesh axis the "
                          "stages run along (mesh {})",
                          model.pipeline.stages, mesh.shape_text()));
  }
  const ModelKindInfo& kind = model_kind(model.kind);
  if (kind.check_layout) {
    const std::string problem = kind.check_layout(model, mesh.layout);
    if (!problem.empty()) (layout_node ? *layout_node : model_node).fail(problem);
  }
}

// The mesh that mesh.mapping's explicit assignment spans (mesh_shape_rule.hpp). `shape_node` is a written
// "from_mapping", null when mesh.shape is left out: then a config without such a mapping misses mesh.shape.
mtf::MeshShape shape_from_mapping(const ConfigReading& r, const ConfigNode* shape_node) {
  const std::optional<ConfigNode> mapping_node = r.node("mesh.mapping");
  mtf::MappingSpec mapping;
  if (mapping_node) {
    const std::string text = mapping_node->scalar();
    try {
      mapping = mtf::MappingSpec::parse(text);
    } catch (const InputError& error) {
      mapping_node->fail(error.what());
    }
  }
  if (mapping.kind() != mtf::MappingSpec::Kind::axes) {
    if (!shape_node) {
      // "missing key", as for any required key
      if (const std::optional<ConfigNode> mesh = r.node("mesh")) mesh->child("shape");
      r.root.child("mesh");
      TPUSIM_CHECK(false);
    }
    shape_node->fail(fmt::format(
        "from_mapping takes each mesh axis's size from the physical axes mesh.mapping gives it (such as "
        "model=core+x;batch=y), but the mapping is {}",
        mapping_node ? mapping.to_string() : "left to its default, rings"));
  }
  try {
    return mesh_shape_from_mapping(mapping, r.config.hardware.topology);
  } catch (const InputError& error) {
    mapping_node->fail(error.what());
  }
}

}  // namespace

std::vector<ConfigKey> mesh_keys() {
  return {
      ConfigKey(
          "mesh.shape",
          "mesh shape: name:size pairs such as batch:16;model:32; one size may be * (the cores the "
          "others leave: batch:*;model:32), or from_mapping",
          "The logical mesh of processors (Mesh-TensorFlow's mesh), one named axis per way of splitting "
          "the work; it has as many processors as the topology has cores. Two forms follow the topology, so "
          "one config (or a sweep's base) fits pods of any size: batch:*;model:32 gives * the cores left, "
          "and from_mapping sizes each mesh axis by the physical axes an explicit mesh.mapping gives it "
          "(model=core+x;batch=y is batch:16;model:32 on tpu-v2-pod, batch:4;model:8 on tpu-v2-32). The "
          "resolved config shows the sizes.")
          .computed("from_mapping if mesh.mapping assigns axes, else required",
                    [](ConfigReading& r) { r.config.mesh.shape = shape_from_mapping(r, nullptr); })
          .needs({"hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const std::string text = value.scalar();
            if (text.empty())
              value.fail("the mesh shape is empty; expected name:size pairs such as batch:16;model:32");
            if (text == shape_from_mapping_word()) {
              r.config.mesh.shape = shape_from_mapping(r, &value);
              return;
            }
            const topo::Topology& topology = r.config.hardware.topology;
            try {
              r.config.mesh.shape = mesh_shape_for(text, topology);
            } catch (const InputError& error) {
              value.fail(error.what());
            }
            if (r.config.mesh.num_cores() != topology.num_cores()) {
              value.fail(fmt::format("{} has {} cores but the topology {} has {}", r.config.mesh.shape_text(),
                                     r.config.mesh.num_cores(), topology.name(), topology.num_cores()));
            }
          })
          .reports([](const RunConfig& c) { return c.mesh.shape_text(); }),
      ConfigKey("mesh.mapping", mtf::MappingSpec::valid_forms(),
                "Where the mesh's processors run: rings puts each mesh axis on physically connected rings "
                "where sizes allow, linear runs processor i on core i, an assignment names the physical axes "
                "of each mesh axis, fastest first.")
          .defaults_to("rings")
          .needs({"mesh.shape", "hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            try {
              const mtf::MappingSpec spec = mtf::MappingSpec::parse(value.scalar());
              // An explicit assignment is checked against the mesh and the topology now, so that its errors
              // point at this line.
              if (spec.kind() == mtf::MappingSpec::Kind::axes) {
                mtf::MeshMapping(r.config.mesh.shape, r.config.hardware.topology, spec);
              }
              r.config.mesh.mapping = spec;
            } catch (const InputError& error) {
              value.fail(error.what());
            }
          })
          .reports([](const RunConfig& c) { return c.mesh.mapping.to_string(); }),
      ConfigKey("mesh.layout", "layout rules: tensor-dim:mesh-axis pairs such as batch:batch;d_ff:model",
                "Which mesh axis splits each tensor dimension (Mesh-TensorFlow's layout rules); dimensions "
                "not named are not split. The dimensions a model has are its kind's (model kinds below).")
          .computed("the model kind's rules, for the mesh axes present",
                    [](ConfigReading& r) {
                      r.config.mesh.layout = default_layout(r.config.model.kind, r.config.mesh.shape);
                      check_layout_fits_model(r, nullptr);
                    })
          .needs({"mesh.shape", "model.kind", "training.pipeline_stages", "training.microbatches"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            mtf::LayoutRules rules;
            try {
              rules = mtf::LayoutRules::parse(value.scalar());
            } catch (const InputError& error) {
              value.fail(error.what());
            }
            const ModelKindInfo& kind = model_kind(r.config.model.kind);
            for (const auto& [dim, axis] : rules.rules()) {
              // A pipelined model's stages (training.pipeline_stages) are a dim of their own.
              if (dim == "stage" && r.config.model.pipeline.stages > 1) continue;
              const std::string problem = unknown_dimension_problem(kind, dim);
              if (!problem.empty()) value.fail(problem);
            }
            try {
              rules.check_against(r.config.mesh.shape);
            } catch (const InputError& error) {
              value.fail(error.what());
            }
            r.config.mesh.layout = rules;
            check_layout_fits_model(r, &value);
          })
          .reports([](const RunConfig& c) { return c.mesh.layout_text(); }),
  };
}

}  // namespace tpusim::workloads
