#include "mesh_tf/layout_rules.hpp"

#include <fmt/format.h>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

LayoutRules::LayoutRules(std::vector<std::pair<std::string, std::string>> rules) : rules_(std::move(rules)) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].first.empty() || rules_[i].second.empty()) {
      throw InputError(fmt::format("layout rule '{}:{}': both names must be non-empty", rules_[i].first,
                                   rules_[i].second));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (rules_[j].first == rules_[i].first) {
        throw InputError(
            fmt::format("layout rules split tensor dimension '{}' over both '{}' and '{}'; a tensor "
                        "dimension may be split "
                        "over at most one mesh dimension",
                        rules_[i].first, rules_[j].second, rules_[i].second));
      }
    }
  }
}

LayoutRules LayoutRules::parse(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> rules;
  std::string current;
  auto flush = [&] {
    if (current.empty()) return;
    const auto colon = current.find(':');
    if (colon == std::string::npos || current.find(':', colon + 1) != std::string::npos) {
      throw InputError(fmt::format(
          "layout '{}': '{}' is not tensor_dim:mesh_dim (e.g. 'batch:rows;hidden:cols')", text, current));
    }
    rules.emplace_back(current.substr(0, colon), current.substr(colon + 1));
    current.clear();
  };
  for (const char c : text) {
    if (c == ';' || c == ',') {
      flush();
    } else if (c != ' ') {
      current += c;
    }
  }
  flush();
  return LayoutRules(std::move(rules));
}

std::optional<std::string> LayoutRules::mesh_dim_for(const std::string& tensor_dim) const {
  for (const auto& [tensor, mesh] : rules_) {
    if (tensor == tensor_dim) return mesh;
  }
  return std::nullopt;
}

void LayoutRules::check_against(const MeshShape& mesh) const {
  for (const auto& [tensor, mesh_dim] : rules_) {
    if (mesh.index_of(mesh_dim) < 0) {
      throw InputError(fmt::format("layout rule '{}:{}': mesh {} has no dimension '{}'{}", tensor, mesh_dim,
                                   mesh.to_string(), mesh_dim, did_you_mean(mesh_dim, mesh.shape().names())));
    }
  }
}

std::string LayoutRules::to_string() const {
  std::vector<std::string> parts;
  for (const auto& [tensor, mesh] : rules_) parts.push_back(tensor + ":" + mesh);
  return join(parts, ";");
}

}  // namespace tpusim::mtf
