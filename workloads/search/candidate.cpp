#include "workloads/search/candidate.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "topologies/support/text.hpp"
#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads {

std::string Candidate::algorithms_text() const {
  std::vector<std::string> parts;
  bool all_default = true;
  for (const auto& [axis, name] : algorithms) {
    parts.push_back(axis + "=" + name);
    all_default = all_default && name == kDefaultAlgorithm;
  }
  return all_default ? std::string(kDefaultAlgorithm) : join(parts, ";");
}

std::string Candidate::training_text() const {
  std::vector<std::string> parts;
  if (!weight_sharding.empty()) parts.push_back("weight_sharding=" + weight_sharding);
  if (pipeline_stages > 0) parts.push_back(fmt::format("pipeline={}x{}", pipeline_stages, microbatches));
  return join(parts, ";");
}

std::string Candidate::key() const {
  // Without training choices, the key of the searches before they could vary them.
  const std::string training = training_text();
  return fmt::format("{}|{}|{}|{}{}", mesh_shape, layout, mapping, algorithms_text(),
                     training.empty() ? "" : "|" + training);
}

std::string candidate_config_yaml(const std::string& base_yaml, const Candidate& candidate) {
  YAML::Node root = YAML::Load(base_yaml);
  YAML::Node mesh(YAML::NodeType::Map);
  mesh["shape"] = candidate.mesh_shape;
  mesh["mapping"] = candidate.mapping;
  mesh["layout"] = candidate.layout;
  root["mesh"] = mesh;
  YAML::Node collectives(YAML::NodeType::Map);
  for (const auto& [axis, name] : candidate.algorithms) {
    if (name != kDefaultAlgorithm) collectives[axis] = name;
  }
  if (root["hardware"] && root["hardware"]["collectives"]) root["hardware"].remove("collectives");
  if (collectives.size() > 0) root["hardware"]["collectives"] = collectives;
  if (!candidate.weight_sharding.empty()) root["training"]["weight_sharding"] = candidate.weight_sharding;
  if (candidate.pipeline_stages > 0) {
    root["training"]["pipeline_stages"] = candidate.pipeline_stages;
    root["training"]["microbatches"] = candidate.microbatches;
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace tpusim::workloads
