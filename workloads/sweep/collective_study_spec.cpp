#include "workloads/sweep/collective_study_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sim/algorithm_choice.hpp"
#include "sim/algorithm_registry.hpp"
#include "sim/simulator.hpp"
#include "topologies/group.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/collectives/request_builder.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/sweep/content_hash.hpp"
#include "workloads/sweep/sweep_sections.hpp"
#include "workloads/sweep/sweep_spec.hpp"

namespace tpusim::workloads {
namespace {

std::vector<std::string> key_names() {
  std::vector<std::string> names;
  for (const auto& key : collective_study_keys()) names.push_back(key.key);
  return names;
}

// Asked for every key of every point: a look at the rows, not a list of their names built each time.
std::size_t key_index(const std::string& key) {
  const auto& keys = collective_study_keys();
  std::size_t k = 0;
  while (k < keys.size() && keys[k].key != key) ++k;
  return k;
}

void require_collective_key(const std::string& key, const ConfigNode& at) {
  if (key_index(key) < kKeyCount) return;
  const auto names = key_names();
  at.fail(fmt::format("unknown key{}; the keys of a collective study are {}", did_you_mean(key, names),
                      join(names)));
}

// A point's value of one key: its text, and where it is written (none for a default or a program's value).
struct KeyValue {
  std::string text;
  const ConfigNode* node = nullptr;
};

// The identity of a topology for the hash: everything the simulation reads, doubles to the bit.
std::string topology_identity(const topo::Topology& t) {
  std::string dims;
  for (const int d : t.chip_dims()) dims += std::to_string(d) + "x";
  std::string twists;
  for (const auto& twist : t.twists()) twists += " twist_" + twist.text();
  return fmt::format("{} {}{} cores={} inter={:a}/{:a} intra={:a}/{:a}{} faults={}", t.name(), dims,
                     t.wraparound() ? "torus" : "mesh", t.cores_per_chip(), t.inter_chip().bandwidth_Bps(),
                     t.inter_chip().latency_s(), t.intra_chip().bandwidth_Bps(), t.intra_chip().latency_s(),
                     twists, t.faults().text());
}

// Checks values and points, each distinct value once, and builds each distinct topology once.
class PointChecker {
 public:
  PointChecker(CollectiveStudySpec& spec, std::optional<ConfigNode> root)
      : spec_(spec), root_(std::move(root)) {}

  // `values`: the point's value of every key of collective_study_keys(); `own`: the point's varied values
  // as "key=value", for messages.
  CollectivePointFacts check(const std::vector<KeyValue>& values, const std::string& own) {
    for (std::size_t k = 0; k < kKeyCount; ++k) check_value(k, values[k]);
    CollectivePointFacts facts;
    facts.topology = topology_index_.at(values[kTopology].text);
    const topo::Topology& topology = spec_.topologies[facts.topology];
    const auto kind = sim::parse_collective_kind(values[kOp].text);
    CollectiveSpec request;
    request.op = values[kOp].text;
    request.algorithms = values[kAlgorithm].text == "default" ? "" : values[kAlgorithm].text;
    request.bytes = values[kBytes].text;
    request.group_axes = values[kGroupAxes].text == "default" ? "" : values[kGroupAxes].text;
    request.reduce = values[kReduce].text;
    for (const auto& name :
         request.algorithms.empty() ? std::vector<std::string>{} : split(request.algorithms, ',')) {
      if (name != sim::kAutoAlgorithm && sim::find_algorithm(kind, name) == nullptr) {
        fail(values[kAlgorithm], own,
             fmt::format("{} has no algorithm '{}'; its algorithms are {} (or auto)", request.op, name,
                         join(sim::algorithm_names(kind))));
      }
    }
    if (!request.group_axes.empty()) {
      try {
        topo::parse_group_axes(topology, request.group_axes);
      } catch (const InputError& error) {
        fail(values[kGroupAxes], own, fmt::format("on {}: {}", topology.name(), error.what()));
      }
    }
    ContentHash hash;
    hash.add("tpusim " TPUSIM_VERSION).add("collectives").add(topology_identity(topology));
    hash.add(values[kNetwork].text)
        .add(request.op)
        .add(request.reduce)
        .add(std::to_string(parse_bytes(request.bytes)));
    try {
      const BuiltRequest built = build_request(topology, request);
      hash.add(sim::algorithm_list(built.request.algorithms)).add(built.group_axes);
    } catch (const InputError& error) {
      // Everything named exists: the algorithm does not fit the group.
      facts.skip_reason = error.what();
      hash.add(request.algorithms).add(request.group_axes).add("skipped");
    }
    facts.hash = hash.hex();
    return facts;
  }

 private:
  // The checks of a value by itself, once per distinct value of a key.
  void check_value(std::size_t key, const KeyValue& value) {
    if (!checked_[key].insert(value.text).second) return;
    try {
      if (key == kTopology) {
        auto topology = topo::topology_from_spec(value.text);
        topo::require_simulation_fits(topology);
        topology_index_[value.text] = spec_.topologies.size();
        spec_.topologies.push_back(std::move(topology));
      } else {
        const CollectiveKey& row = collective_study_keys()[key];
        CollectiveValueCheck check;
        row.read(value.node ? *value.node : ConfigNode::schema_default(value.text, row.key), check);
      }
    } catch (const InputError& error) {
      const std::string message = error.what();
      // A message located already is passed on as it is.
      if (value.node && message.rfind(value.node->file() + ":", 0) == 0) throw;
      // Wrong by itself, whatever the point. A default's problem (a topology too large to simulate) is the
      // file's.
      fail(value, "", message, !value.node && root_ ? &*root_ : nullptr);
    }
  }

  [[noreturn]] void fail(const KeyValue& value, const std::string& own, const std::string& problem,
                         const ConfigNode* at = nullptr) const {
    const std::string where = own.empty() ? "" : fmt::format("in point {}: ", own);
    if (value.node) value.node->fail(where + problem);
    if (at) at->fail(problem);
    throw InputError(fmt::format("{}: {}{}", spec_.header.source, where, problem));
  }

  CollectiveStudySpec& spec_;
  std::optional<ConfigNode> root_;
  std::map<std::string, std::size_t> topology_index_;
  std::vector<std::set<std::string>> checked_ = std::vector<std::set<std::string>>(kKeyCount);
};

std::string describe_own(const std::vector<std::string>& keys, const std::vector<std::string>& values) {
  std::vector<std::string> own;
  for (std::size_t k = 0; k < keys.size(); ++k) own.push_back(keys[k] + "=" + values[k]);
  return join(own);
}

// One point per registry row of the point's op where collective.algorithm is `all`, leaving out the rows
// that run only across slices when the point's pod has one slice (they could only be skipped there).
std::vector<ListedPoint> expand_every_algorithm(ListedPoint point, const std::vector<std::string>& keys,
                                                const std::vector<KeyValue>& fixed,
                                                std::map<std::string, bool>& multislice_of) {
  const auto at = [&](std::size_t key) -> std::string {
    const auto axis = std::find(keys.begin(), keys.end(), collective_study_keys()[key].key);
    return axis == keys.end() ? fixed[key].text : point.cells[static_cast<std::size_t>(axis - keys.begin())];
  };
  const auto axis = std::find(keys.begin(), keys.end(), collective_study_keys()[kAlgorithm].key);
  if (axis == keys.end() || at(kAlgorithm) != kEveryAlgorithm) return {std::move(point)};
  sim::CollectiveKind kind;
  bool multislice = false;
  try {
    kind = sim::parse_collective_kind(at(kOp));
    const std::string topology = at(kTopology);
    if (multislice_of.count(topology) == 0)
      multislice_of[topology] = topo::topology_from_spec(topology).multislice();
    multislice = multislice_of.at(topology);
  } catch (const InputError&) {
    return {std::move(point)};  // the value's own check names the problem
  }
  std::vector<ListedPoint> points;
  const auto& table = sim::algorithm_table();
  for (std::size_t r = 0; r < table.size(); ++r) {
    if (table[r].kind != kind || (table[r].needs_multislice && !multislice)) continue;
    ListedPoint each = point;
    each.cells[static_cast<std::size_t>(axis - keys.begin())] = table[r].name;
    each.expansion_rank = r;  // the registry's order, whichever rows this point leaves out
    points.push_back(std::move(each));
  }
  return points;
}

}  // namespace

const std::vector<CollectiveKey>& collective_study_keys() {
  static const std::vector<CollectiveKey> keys = [] {
    const CollectiveSpec collective;
    const auto scalar = [](void (*check)(const std::string&)) {
      return [check](const ConfigNode& value, CollectiveValueCheck&) { check(value.scalar()); };
    };
    return std::vector<CollectiveKey>{
        CollectiveKey("collective.op", "collective name (tpusim collective --help)",
                      "The collective each point runs.")
            .defaults_to(collective.op)
            .reads(scalar([](const std::string& text) { sim::parse_collective_kind(text); })),
        CollectiveKey(
            "collective.algorithm",
            "registry name of the op (tpusim collective --list-algorithms), one per group dimension "
            "separated by commas; default; or all",
            "The algorithm; all makes one point per registry row of the point's op, in the registry's "
            "order (rows that run only across slices only on multislice pods).")
            .defaults_to("default")
            .reads(scalar([](const std::string& text) {
              if (text == "default" || text == kEveryAlgorithm) return;
              for (const auto& name : split(text, ',')) {
                if (name.empty())
                  throw InputError(fmt::format("algorithm list '{}' has an empty name", text));
              }
            })),
        CollectiveKey("collective.bytes", "memory size per member, a multiple of 4 (4KiB, 64MiB)",
                      "The buffer each member contributes.")
            .defaults_to(collective.bytes)
            .reads(scalar([](const std::string& text) { parse_collective_bytes(text); })),
        CollectiveKey(
            "collective.group_axes", "default, all, or axes such as core+x,y",
            "The physical axes the groups span (default: as tpusim collective picks for the algorithm).")
            .defaults_to("default")
            .reads([](const ConfigNode& value, CollectiveValueCheck&) { value.scalar(); }),
        CollectiveKey("collective.reduce", "one of " + join(sim::reduce_ops().names(), ", "),
                      "The reduction of allreduce and reduce-scatter.")
            .defaults_to(collective.reduce)
            .reads(scalar([](const std::string& text) { sim::reduce_ops().parse(text); })),
        // Built, and checked to fit a simulation, by the study's checker, which keeps it.
        CollectiveKey("hardware.topology", "topology preset or spec (tpusim topo --list)", "The pod.")
            .defaults_to(default_collective_topology())
            .reads([](const ConfigNode& value, CollectiveValueCheck&) { value.scalar(); }),
        CollectiveKey("hardware.network", "one of " + join(sim::network_models().names(), ", "),
                      "SimGrid's network model: ideal (no TCP effects) or lv08.")
            .defaults_to(default_collective_network())
            .reads(scalar([](const std::string& text) { sim::network_models().parse(text); }))};
  }();
  return keys;
}

std::vector<std::string> CollectiveStudySpec::keys() const {
  std::vector<std::string> names;
  for (const auto& axis : axes) names.push_back(axis.key);
  return names;
}

std::vector<std::string> CollectiveStudySpec::point_spec(std::size_t point) const {
  std::vector<std::string> out;
  for (const auto& key : collective_study_keys()) {
    std::string value = key.default_value;
    for (const auto& [name, text] : settings) {
      if (name == key.key) value = text;
    }
    for (std::size_t k = 0; k < axes.size(); ++k) {
      if (axes[k].key == key.key) value = points[point][k];
    }
    out.push_back(value);
  }
  return out;
}

CollectiveStudySpec parse_collective_study_spec(const std::string& yaml_text, const std::string& file) {
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  const StudyFile study_file = read_study_file(root, file, collective_study_file_keys());
  CollectiveStudySpec spec;
  spec.header = study_file.header;
  const SweepSections sections = read_sweep_sections(study_file, root, require_collective_key);
  // Every key's value where a point leaves it out: set's, else its default.
  std::vector<KeyValue> fixed;
  for (const auto& key : collective_study_keys()) fixed.push_back({key.default_value, nullptr});
  for (const auto& setting : sections.settings) {
    KeyValue& value = fixed[key_index(setting.key)];
    value.text = setting.text;
    if (setting.text == kEveryAlgorithm && key_index(setting.key) == kAlgorithm) {
      throw InputError(
          fmt::format("{}:{}: {}: all makes a point per algorithm: vary collective.algorithm: [all]", file,
                      setting.line(), setting.label));
    }
    spec.settings.emplace_back(setting.key, setting.text);
  }
  // The nodes of set's values, kept where `fixed` can point at them.
  std::vector<ConfigNode> set_nodes;
  for (const auto& setting : sections.settings) set_nodes.emplace_back(setting.node, file, setting.label);
  for (std::size_t i = 0; i < sections.settings.size(); ++i)
    fixed[key_index(sections.settings[i].key)].node = &set_nodes[i];
  std::vector<std::string> fillers;
  for (const auto& key : sections.varied_keys) fillers.push_back(fixed[key_index(key)].text);
  const auto& keys = sections.varied_keys;
  std::map<std::string, bool> multislice_of;
  PointLister lister(sections, fillers, file, [&](ListedPoint point) {
    return expand_every_algorithm(std::move(point), keys, fixed, multislice_of);
  });
  int product_points = 0;
  const std::vector<ListedPoint> all = lister.list(product_points);
  const std::vector<ListedPoint> kept = lister.filter(all);
  spec.axes = lister.axes(kept);
  // `all` stands for the names it expands to, which the points take instead.
  for (auto& axis : spec.axes) {
    if (axis.key != collective_study_keys()[kAlgorithm].key) continue;
    axis.values.erase(std::remove(axis.values.begin(), axis.values.end(), kEveryAlgorithm),
                      axis.values.end());
  }
  spec.order = study_order(product_points, sections.zip_groups, static_cast<int>(sections.listed.size()),
                           static_cast<int>(all.size() - kept.size()));
  PointChecker checker(spec, root);
  // The nodes of the points' own values, made once per value.
  std::map<const SweepValue*, ConfigNode> own_nodes;
  for (const auto& point : kept) {
    std::vector<KeyValue> values = fixed;
    for (std::size_t a = 0; a < keys.size(); ++a) values[key_index(keys[a])] = {point.cells[a], nullptr};
    for (const SweepValue* value : point.own) {
      auto node = own_nodes.try_emplace(value, value->node, file, value->label).first;
      values[key_index(value->key)].node = &node->second;
    }
    spec.facts.push_back(checker.check(values, describe_own(keys, point.cells)));
    spec.points.push_back(point.cells);
  }
  return spec;
}

CollectiveStudySpec make_collective_study(StudyHeader header, const std::vector<std::string>& keys,
                                          const std::vector<CollectivePointValues>& points) {
  CollectiveStudySpec spec;
  spec.header = std::move(header);
  for (const auto& key : keys) {
    TPUSIM_CHECK(key_index(key) < kKeyCount);
    spec.axes.push_back({key, {}});
  }
  PointChecker checker(spec, std::nullopt);
  std::set<std::string> runs;
  for (const auto& point : points) {
    TPUSIM_CHECK(point.size() == keys.size());
    std::vector<KeyValue> values;
    for (const auto& key : collective_study_keys()) values.push_back({key.default_value, nullptr});
    for (std::size_t a = 0; a < keys.size(); ++a) values[key_index(keys[a])].text = point[a];
    CollectivePointFacts facts = checker.check(values, describe_own(keys, point));
    if (!runs.insert(facts.hash).second) continue;
    for (std::size_t a = 0; a < keys.size(); ++a) {
      auto& seen = spec.axes[a].values;
      if (std::find(seen.begin(), seen.end(), point[a]) == seen.end()) seen.push_back(point[a]);
    }
    spec.facts.push_back(std::move(facts));
    spec.points.push_back(point);
  }
  spec.order = fmt::format("{} listed points", spec.size());
  return spec;
}

}  // namespace tpusim::workloads
