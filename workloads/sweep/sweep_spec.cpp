#include "workloads/sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/sweep/sweep_point_builder.hpp"
#include "workloads/sweep/sweep_points.hpp"
#include "workloads/sweep/sweep_sections.hpp"
#include "workloads/sweep/study_file.hpp"

namespace tpusim::workloads {
namespace {


}  // namespace

std::string SweepPoint::describe(const std::vector<SweepAxis>& axes) const {
  return describe_values(axes, values);
}

std::string describe_values(const std::vector<SweepAxis>& axes, const std::vector<std::string>& values) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < axes.size() && a < values.size(); ++a) {
    if (!values[a].empty()) parts.push_back(axes[a].key + "=" + values[a]);
  }
  return join(parts);
}

std::string Sweep::order() const {
  return study_order(product_points, zip_groups, listed_points, excluded_points);
}

Sweep parse_sweep(const std::string& yaml_text, const std::string& file,
                  const std::vector<ConfigSetting>& sets) {
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  const StudyFile study_file = read_study_file(root, file, training_sweep_keys());
  Sweep sweep;
  sweep.name = study_file.header.name;
  sweep.description = study_file.header.description;
  sweep.source = study_file.header.source;
  sweep.output_dir = study_file.header.output_dir;
  const ConfigNode& base_node = *study_file.base;
  BaseConfig base = read_base(base_node, file);
  SweepSections sections = read_sweep_sections(study_file, root);
  // The command line's --set values join the sweep's `set`, replacing a key it sets; a varied key is not
  // theirs to change.
  for (const auto& set : sets) {
    const auto& varied = sections.varied_keys;
    if (std::find(varied.begin(), varied.end(), set.key) != varied.end()) {
      throw InputError(fmt::format("--set {}: {} varies {}; a key is set for every point or varied, not both",
                                   set.key, file, set.key));
    }
    SweepValue value{set.key, split(set.key, '.'), set.value, sweep_value_text(set.value), "--set " + set.key};
    auto& settings = sections.settings;
    const auto same =
        std::find_if(settings.begin(), settings.end(), [&](const auto& s) { return s.key == set.key; });
    if (same != settings.end()) {
      *same = value;
    } else {
      settings.push_back(value);
    }
  }
  const SweepPointBuilder builder(std::move(base), sections.settings, file);
  sweep.base = base_node.scalar();
  sweep.base_source = builder.base().source;
  for (const auto& setting : sections.settings) sweep.settings.push_back({setting.key, setting.text});
  sweep.zip_groups = sections.zip_groups;

  std::vector<std::string> fillers;
  for (const auto& key : sections.varied_keys) fillers.push_back(builder.base_text(split(key, '.')));
  PointLister lister(sections, std::move(fillers), file);
  const std::vector<ListedPoint> all = lister.list(sweep.product_points);
  sweep.listed_points = static_cast<int>(sections.listed.size());
  const std::vector<ListedPoint> kept = lister.filter(all);
  sweep.excluded_points = static_cast<int>(all.size() - kept.size());
  sweep.axes = lister.axes(kept);
  for (const auto& point : kept) {
    auto config = [&] {
      try {
        return builder.build(point.own);
      } catch (const InputError& error) {
        std::vector<std::string> own;
        for (const SweepValue* value : point.own) own.push_back(value->key + "=" + value->text);
        builder.fail(point.own, error, join(own));
      }
    };
    sweep.points.push_back(SweepPoint{static_cast<int>(sweep.points.size()), point.cells, config()});
  }
  return sweep;
}

Sweep load_sweep_file(const std::string& path) {
  return parse_sweep(read_input_file(path, "sweep file"), path, {});
}

}  // namespace tpusim::workloads
