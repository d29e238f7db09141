#include "workloads/config/mesh_shape_rule.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::workloads {
namespace {

// The name:size parts as MeshShape::parse splits them: spaces dropped, ';' and ',' both separate.
std::vector<std::string> mesh_parts(const std::string& text) {
  std::string plain;
  for (char c : text) {
    if (c != ' ') plain += c == ';' ? ',' : c;
  }
  return split(plain, ',');
}

bool is_wildcard(const std::string& part) {
  const auto colon = part.find(':');
  return colon != std::string::npos && part.substr(colon + 1) == "*";
}

}  // namespace

mtf::MeshShape mesh_shape_for(const std::string& text, const topo::Topology& topology) {
  const std::vector<std::string> parts = mesh_parts(text);
  const auto wildcards = std::count_if(parts.begin(), parts.end(), is_wildcard);
  if (wildcards == 0) return mtf::MeshShape::parse(text);
  if (wildcards > 1) {
    throw InputError(fmt::format(
        "mesh '{}': only one size may be '*' (the cores the other sizes leave); {} are", text, wildcards));
  }
  std::vector<std::string> others;
  for (const auto& part : parts) {
    if (!is_wildcard(part)) others.push_back(part);
  }
  const mtf::MeshShape rest = mtf::MeshShape::parse(join(others, ";"));
  const int cores = topology.num_cores();
  if (cores % rest.size() != 0) {
    throw InputError(fmt::format(
        "mesh '{}': the {} cores of {} are not a multiple of {} (the other sizes), so '*' has no whole size",
        text, cores, topology.name(), rest.size()));
  }
  std::vector<std::string> sized;
  for (const auto& part : parts) {
    sized.push_back(
        is_wildcard(part) ? part.substr(0, part.find(':') + 1) + std::to_string(cores / rest.size()) : part);
  }
  return mtf::MeshShape::parse(join(sized, ";"));
}

mtf::MeshShape mesh_shape_from_mapping(const mtf::MappingSpec& mapping, const topo::Topology& topology) {
  TPUSIM_CHECK(mapping.kind() == mtf::MappingSpec::Kind::axes);
  const std::string text = mapping.to_string();
  const auto axes = topology.axes();
  struct Sized {
    std::string name;
    std::int64_t size;
    int slowest_axis;
  };
  std::vector<Sized> dims;
  std::vector<bool> used(axes.size(), false);
  for (const auto& [dim, axis_names] : mapping.assignment()) {
    Sized sized{dim, 1, -1};
    for (const auto& name : axis_names) {
      int a = -1;
      try {
        a = topology.axis_index(name);
      } catch (const InputError& error) {
        throw InputError(fmt::format("mesh mapping '{}': rule '{}={}': {}", text, dim, join(axis_names, "+"),
                                     error.what()));
      }
      used[a] = true;
      sized.size *= axes[a].size;
      sized.slowest_axis = std::max(sized.slowest_axis, a);
    }
    dims.push_back(sized);
  }
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (used[a] || axes[a].size == 1) continue;
    throw InputError(fmt::format(
        "mesh mapping '{}' gives physical axis {} (size {}) of {} to no mesh axis, so a mesh taken from it "
        "would not cover the pod; name {} in one of its rules",
        text, axes[a].name, axes[a].size, topology.name(), axes[a].name));
  }
  // Mesh-TensorFlow numbers processors with the last mesh axis fastest, and ranks run core, then x, ...
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Sized& a, const Sized& b) { return a.slowest_axis > b.slowest_axis; });
  std::vector<std::string> parts;
  for (const auto& dim : dims) parts.push_back(fmt::format("{}:{}", dim.name, dim.size));
  return mtf::MeshShape::parse(join(parts, ";"));
}

}  // namespace tpusim::workloads
