// The rows of a config's `search:` section (search_spec.hpp): what `tpusim search` explores. Each key's
// default is written here once; `tpusim search --schema` lists the rows.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mapping_spec.hpp"
#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads {
namespace {

// A non-empty list of distinct scalars, each checked by `check` (which fails at the item's node).
std::vector<std::string> read_list(const ConfigNode& node, const std::string& what,
                                   const std::function<void(const ConfigNode&)>& check) {
  std::vector<std::string> texts;
  for (const ConfigNode& item : node.items(what)) {
    const std::string text = item.scalar();
    if (std::find(texts.begin(), texts.end(), text) != texts.end())
      item.fail(fmt::format("'{}' is listed twice", text));
    check(item);
    texts.push_back(text);
  }
  return texts;
}

// A non-empty list of distinct whole numbers of 1 or more, each checked by `check`.
std::vector<int> read_counts(const ConfigNode& node, const std::string& what,
                             const std::function<void(const ConfigNode&, std::int64_t)>& check) {
  std::vector<int> counts;
  for (const ConfigNode& item : node.items(what)) {
    const std::int64_t count = item.positive_integer();
    if (count > 1000000) item.fail(fmt::format("{} is too many; at most 1000000", count));
    if (std::find(counts.begin(), counts.end(), count) != counts.end())
      item.fail(fmt::format("{} is listed twice", count));
    check(item, count);
    counts.push_back(static_cast<int>(count));
  }
  return counts;
}

// Why the base's model cannot run in `stages` pipeline stages on its pod ("" if it can), as the config's
// reader says it of training.pipeline_stages (training_keys.cpp).
std::string search_pipeline_problem(const RunConfig& base, std::int64_t stages) {
  if (stages == 1) return "";
  const ModelConfig& model = base.model;
  if (!model_kind(model.kind).pipelines) {
    std::vector<std::string> kinds;
    for (const auto& kind : model_kinds())
      if (kind.pipelines) kinds.push_back(kind.name);
    return fmt::format("a {} cannot be pipelined; the kinds that can are {}", to_string(model.kind),
                       join(kinds));
  }
  if (model.dropout != 0)
    return fmt::format("a pipelined model builds no dropout, and model.dropout is {}", model.dropout);
  if (stages > model.layers || model.layers % stages != 0)
    return fmt::format("{} stages do not divide the {} layers evenly", stages, model.layers);
  const int cores = base.hardware.topology.num_cores();
  if (stages > cores || cores % stages != 0)
    return fmt::format("{} stages do not divide the {} cores of {} evenly", stages, cores,
                       base.hardware.topology.name());
  return "";
}

std::vector<std::string> paper_layout_dims(ModelKind kind) {
  std::vector<std::string> dims;
  const mtf::LayoutRules paper = mtf::LayoutRules::parse(model_kind(kind).default_layout);
  for (const auto& [dim, axis] : paper.rules()) {
    if (std::find(dims.begin(), dims.end(), dim) == dims.end()) dims.push_back(dim);
  }
  return dims;
}

// Candidates name their mesh axes batch, model, model2 and model3 (search_space.cpp).
void check_candidate_axis(const ConfigNode& node, const std::string& axis) {
  const bool model_axis = axis == "model" || axis == "model2" || axis == "model3";
  if (axis != "batch" && !model_axis)
    node.fail(fmt::format(
        "candidates name their mesh axes batch, model, model2 and model3; '{}' is none of them", axis));
}

void check_model_dim(const ConfigNode& item, const RunConfig& base) {
  const std::string problem = unknown_dimension_problem(model_kind(base.model.kind), item.scalar());
  if (!problem.empty()) item.fail(problem);
}

}  // namespace

const std::vector<SearchKeyRow>& search_keys() {
  using R = SearchReading;
  static const std::vector<SearchKeyRow> rows = {
      SearchKeyRow("search.mesh_dims", "whole number",
                   "The most axes a candidate's mesh has: meshes of 1 to mesh_dims axes, every factorisation "
                   "of the cores.")
          .ranged("1 to 3")
          .defaults_to("2")
          .reads([](const ConfigNode& n, R& r) {
            const std::int64_t dims = n.integer();
            if (dims < 1 || dims > 3)
              n.fail(fmt::format("{} mesh dimensions; a search explores 1 to 3", dims));
            r.spec.mesh_dims = static_cast<int>(dims);
          }),
      SearchKeyRow("search.layout_dims", "list of model dimensions (the model kind's)",
                   "The model dimensions a candidate places, each on one mesh axis or none.")
          .computed("the dimensions the model kind's paper layout splits",
                    [](R& r) { r.spec.layout_dims = paper_layout_dims(r.base.model.kind); })
          .reads([](const ConfigNode& n, R& r) {
            r.spec.layout_dims = read_list(n, "model dimensions",
                                           [&](const ConfigNode& item) { check_model_dim(item, r.base); });
          }),
      SearchKeyRow("search.pin_layout", "layout rules (vocab:model;d_ff:model)",
                   "Rules every candidate keeps, the mesh axes named as candidates name them: batch, model, "
                   "model2, model3.")
          .absent_means("none")
          .reads([](const ConfigNode& n, R& r) {
            try {
              r.spec.pinned_layout = mtf::LayoutRules::parse(n.scalar()).rules();
            } catch (const InputError& error) {
              n.fail(error.what());
            }
            for (const auto& [dim, axis] : r.spec.pinned_layout) {
              const std::string problem = unknown_dimension_problem(model_kind(r.base.model.kind), dim);
              if (!problem.empty()) n.fail(problem);
              check_candidate_axis(n, axis);
            }
          }),
      SearchKeyRow("search.mesh_shapes", "list of mesh shapes (batch:16;model:32), as candidates name axes",
                   "Only these meshes are tried; each has as many processors as the topology has cores.")
          .absent_means("every mesh")
          .reads([](const ConfigNode& n, R& r) {
            const topo::Topology& topology = r.base.hardware.topology;
            r.spec.mesh_shapes = read_list(n, "mesh shapes", [&](const ConfigNode& item) {
              try {
                const mtf::MeshShape shape = mtf::MeshShape::parse(item.scalar());
                if (shape.size() != topology.num_cores())
                  item.fail(fmt::format("{} has {} processors but the topology {} has {} cores",
                                        item.scalar(), shape.size(), topology.name(), topology.num_cores()));
              } catch (const InputError& error) {
                item.fail(error.what());
              }
            });
          }),
      SearchKeyRow(
          "search.mappings", "list of mesh.mapping values (rings, linear, model=core+x;batch=y) or explicit",
          "The mesh mappings each mesh is tried on. explicit: every assignment of whole physical axes "
          "to the candidate's mesh axes (each axis longer than 1 to one mesh axis, the sizes "
          "multiplying to its size, in every order).")
          .defaults_to("[rings]")
          .reads([](const ConfigNode& n, R& r) {
            r.spec.mappings = read_list(n, "mesh mappings", [&](const ConfigNode& item) {
              if (item.scalar() == kExplicitMappings) return;
              const mtf::MappingSpec mapping = [&] {
                try {
                  return mtf::MappingSpec::parse(item.scalar());
                } catch (const InputError& error) {
                  item.fail(error.what());
                }
              }();
              // A pipelined candidate's stage axis may be placed too (on the slices, say).
              for (const auto& [mesh_axis, physical_axes] : mapping.assignment())
                if (mesh_axis != "stage") check_candidate_axis(item, mesh_axis);
            });
          }),
      SearchKeyRow("search.algorithms",
                   "list of default, auto or algorithm names (tpusim collective --list-algorithms)",
                   "The collective algorithms tried on each mesh axis: default is the engine's, auto the "
                   "fastest estimate per collective.")
          .defaults_to("[default]")
          .reads([](const ConfigNode& n, R& r) {
            std::vector<std::string> known = collective_algorithm_names();
            known.insert(known.begin(), kDefaultAlgorithm);
            r.spec.algorithms =
                read_list(n, "collective algorithms", [&](const ConfigNode& item) { item.one_of(known); });
          }),
      SearchKeyRow("search.weight_sharding", "list of " + join(mtf::weight_sharding_modes().names()),
                   "The training.weight_sharding modes tried with each mesh and layout (a mesh with no axis "
                   "splitting the batch shards nothing, so only with none).")
          .absent_means("the config's own")
          .reads([](const ConfigNode& n, R& r) {
            r.spec.weight_sharding.clear();
            for (const auto& name : read_list(n, "weight-sharding modes", [](const ConfigNode& item) {
                   item.choice(mtf::weight_sharding_modes());
                 }))
              r.spec.weight_sharding.push_back(mtf::weight_sharding_modes().parse(name));
          }),
      SearchKeyRow("search.pipeline_stages", "list of whole numbers",
                   "The training.pipeline_stages counts tried; a count S above 1 adds a mesh axis stage:S "
                   "first, the other axes factorising the cores / S, with the layout rule stage:stage.")
          .ranged("1 to 1000000")
          .absent_means("the config's own")
          .reads([](const ConfigNode& n, R& r) {
            r.spec.pipeline_stages =
                read_counts(n, "stage counts", [&](const ConfigNode& item, std::int64_t stages) {
                  const std::string problem = search_pipeline_problem(r.base, stages);
                  if (!problem.empty()) item.fail(problem);
                });
          }),
      SearchKeyRow("search.microbatches", "list of whole numbers",
                   "The training.microbatches counts tried with each stage count above 1 (a stage count of 1 "
                   "runs the batch whole).")
          .ranged("1 to 1000000")
          .absent_means("the config's own where it has that many stages, else 4 x stages")
          .reads([](const ConfigNode& n, R& r) {
            r.spec.microbatches = read_counts(n, "microbatch counts", [](const ConfigNode&, std::int64_t) {});
          }),
      SearchKeyRow("search.memory_cap", "memory size (4096, 64KiB, 1GiB, 1.5GB)",
                   "Memory per core a candidate may use: one over it is kept as over_cap, never chosen, and "
                   "its step is not simulated.")
          .computed("the device's HBM",
                    [](R& r) { r.spec.memory_cap_bytes = r.base.hardware.device.hbm_bytes(); })
          .reads([](const ConfigNode& n, R& r) { r.spec.memory_cap_bytes = n.memory_bytes(); }),
      SearchKeyRow(
          "search.strategy", "one of " + join(search_strategies().names()),
          "exhaustive evaluates every candidate; mcmc a seeded Metropolis chain over the choices (as "
          "FlexFlow); auto is exhaustive when the space has at most max_candidates candidates, else "
          "mcmc.")
          .defaults_to("auto")
          .reads([](const ConfigNode& n, R& r) { r.spec.strategy = n.choice(search_strategies()); }),
      SearchKeyRow("search.max_candidates", "whole number", "The most candidates evaluated.")
          .ranged("1 to 10000000")
          .defaults_to("5000")
          .reads([](const ConfigNode& n, R& r) {
            const std::int64_t count = n.positive_integer();
            if (count > 10000000) n.fail(fmt::format("{} candidates; at most 10000000", count));
            r.spec.max_candidates = static_cast<int>(count);
          }),
      SearchKeyRow("search.time_limit", "seconds", "Stop evaluating after this long; 0 for no limit.")
          .ranged(fmt::format("0, or 0.001 to {:g} (a week)", kMaxTimeLimitS))
          .defaults_to("0")
          .reads([](const ConfigNode& n, R& r) {
            r.spec.time_limit_s = n.number();
            const double limit = r.spec.time_limit_s;
            if (!(limit == 0 || (limit >= 0.001 && limit <= kMaxTimeLimitS)))
              n.fail(
                  fmt::format("a time limit is 0 (none) or 0.001 to {:g} seconds (a week)", kMaxTimeLimitS));
          }),
      SearchKeyRow("search.seed", "whole number",
                   "The seed of the Metropolis chain: the same seed and limits give the same candidates.")
          .ranged("0 or more")
          .defaults_to("1")
          .reads([](const ConfigNode& n, R& r) {
            const std::int64_t seed = n.integer();
            if (seed < 0) n.fail("a seed is a whole number of 0 or more");
            r.spec.seed = static_cast<std::uint64_t>(seed);
          }),
  };
  return rows;
}

}  // namespace tpusim::workloads
