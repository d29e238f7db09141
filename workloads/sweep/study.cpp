#include "workloads/sweep/study.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/sweep/collective_study.hpp"
#include "workloads/sweep/content_hash.hpp"
#include "workloads/sweep/sweep_catalog.hpp"
#include "workloads/sweep/training_study.hpp"

namespace tpusim::workloads {

std::string study_hash(const Study& study) {
  ContentHash hash;
  // The columns too: records made for other columns have their rows made anew, and shards written by a
  // tpusim with other columns are not merged with these.
  hash.add("tpusim study")
      .add(study.kind())
      .add(join(study.keys(), "\n"))
      .add(join(study.csv_header(), "\n"));
  for (std::size_t i = 0; i < study.size(); ++i)
    hash.add(join(study.values(i), "\n")).add(study.point_hash(i));
  return hash.hex();
}

std::unique_ptr<Study> parse_study(const std::string& yaml_text, const std::string& file,
                                   const std::vector<ConfigSetting>& sets) {
  // The kind decides the grammar of the rest, so it is read first; a file without one is a training sweep,
  // read by parse_sweep as it always was.
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  if (root.yaml().IsMap() && root.has("kind")) {
    const ConfigNode kind = root.child("kind");
    if (kind.scalar() == "collectives") {
      if (!sets.empty()) {
        throw InputError(fmt::format("--set {}: {} is a collective study, which has no run config to change; "
                                     "--set applies to training sweeps",
                                     sets.front().key, file));
      }
      return std::make_unique<CollectiveStudy>(parse_collective_study_spec(yaml_text, file));
    }
    if (kind.scalar() != "training") {
      kind.fail(
          fmt::format("'{}' is not a kind of sweep; the kinds are training (a base config and config "
                      "keys to vary; the default) and collectives",
                      kind.scalar()));
    }
  }
  return std::make_unique<TrainingStudy>(parse_sweep(yaml_text, file, sets));
}

std::unique_ptr<Study> load_study_file(const std::string& path, const std::vector<ConfigSetting>& sets) {
  return parse_study(read_input_file(path, "sweep file"), path, sets);
}

std::unique_ptr<Study> load_study_preset(const std::string& name, const std::vector<ConfigSetting>& sets) {
  return parse_study(sweep_preset_text(name), sweep_preset_source(name), sets);
}

}  // namespace tpusim::workloads
