#include "workloads/config/scaled_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::workloads {
namespace {

const std::vector<std::string> kScaledSizeKeys = {"per", "value"};

// The size of mesh axis `axis` as `per` names it ("cores": the whole mesh).
std::int64_t units_of(const ConfigNode& at, const std::string& axis, const mtf::MeshShape& mesh) {
  const std::vector<std::string> names = mesh.shape().names();
  if (axis == per_cores_word()) {
    if (std::find(names.begin(), names.end(), axis) != names.end())
      at.fail(
          fmt::format("'{}' is both a mesh axis and the word for every core; rename the mesh axis", axis));
    return mesh.size();
  }
  const int index = mesh.index_of(axis);
  if (index < 0) {
    at.fail(
        fmt::format("mesh {} has no axis '{}'{}; per takes one of its axes ({}), a list of them, or {} "
                    "(every core)",
                    mesh.to_string(), axis, did_you_mean(axis, names), join(names), per_cores_word()));
  }
  return mesh.dim_size(index);
}

}  // namespace

bool is_scaled_size(const ConfigNode& value) { return value.yaml().IsMap(); }

std::int64_t scaled_size(const ConfigNode& value, const mtf::MeshShape& mesh) {
  value.expect_map(kScaledSizeKeys);
  const std::int64_t per_unit = value.child("value").positive_integer();
  const ConfigNode per = value.child("per");
  std::vector<std::pair<std::string, ConfigNode>> axes;
  if (per.yaml().IsSequence()) {
    if (per.yaml().size() == 0) per.fail("the list of mesh axes is empty");
    for (std::size_t i = 0; i < per.yaml().size(); ++i) {
      const ConfigNode item(per.yaml()[i], per.file(), fmt::format("{}[{}]", per.key_path(), i));
      axes.emplace_back(item.scalar(), item);
    }
  } else {
    axes.emplace_back(per.scalar(), per);
  }
  std::int64_t units = 1;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (axes[j].first == axes[i].first) axes[i].second.fail(fmt::format("names '{}' twice", axes[i].first));
    }
    units *= units_of(axes[i].second, axes[i].first, mesh);  // at most the mesh's 2^24 processors
  }
  if (per_unit > std::numeric_limits<std::int64_t>::max() / units) {
    value.child("value").fail(fmt::format("{} per unit x {} units is too large", per_unit, units));
  }
  return per_unit * units;
}

}  // namespace tpusim::workloads
