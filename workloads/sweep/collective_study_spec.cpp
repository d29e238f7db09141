#include "workloads/sweep/collective_study_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "sim/algorithm_choice.hpp"
#include "sim/algorithm_registry.hpp"
#include "sim/simulator.hpp"
#include "topologies/group.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/collectives/request_builder.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/sweep/content_hash.hpp"
#include "workloads/sweep/sweep_spec.hpp"

namespace tpusim::workloads {
namespace {

const std::vector<std::string> kStudyKeys = {"name", "description", "kind", "set", "vary", "output"};

std::vector<std::string> key_names() {
  std::vector<std::string> names;
  for (const auto& key : collective_study_keys()) names.push_back(key.key);
  return names;
}

// A value of a key as the file gives it: where (vary's item, set's value; none for a default) and its text.
struct Value {
  std::string text;
  std::optional<ConfigNode> node;
};

std::string stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

void read_header(const ConfigNode& root, CollectiveStudySpec& spec) {
  spec.name = stem(spec.source);
  if (auto n = root.optional_child("name")) {
    spec.name = n->scalar();
    for (const char c : spec.name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        n->fail(fmt::format("'{}' is not a sweep name: use letters, digits, '-', '_' and '.'", spec.name));
    }
    if (spec.name.empty() || spec.name[0] == '.') n->fail("a sweep name must not be empty or start with '.'");
  }
  if (auto n = root.optional_child("description")) spec.description = n->scalar();
  spec.output_dir = "results/" + spec.name;
  if (auto n = root.optional_child("output")) {
    spec.output_dir = n->scalar();
    if (spec.output_dir.empty()) n->fail("must not be empty");
  }
}

// The checks of a value by itself; InputError at its line.
void check_value(int key, const Value& value, std::map<std::string, std::size_t>& topology_index,
                 std::vector<topo::Topology>& topologies) {
  const ConfigNode& node = *value.node;
  const std::string& text = value.text;
  try {
    switch (key) {
      case kOp:
        sim::parse_collective_kind(text);
        break;
      case kAlgorithm:
        if (text != "default") {
          for (const auto& name : split(text, ',')) {
            if (name.empty()) node.fail(fmt::format("algorithm list '{}' has an empty name", text));
          }
        }
        break;
      case kBytes: {
        try {
          parse_collective_bytes(text);
        } catch (const InputError& error) {
          node.fail(error.what());
        }
        break;
      }
      case kReduce:
        node.choice(sim::reduce_ops());
        break;
      case kNetwork:
        node.choice(sim::network_models());
        break;
      case kTopology:
        if (topology_index.count(text) == 0) {
          auto topology = topo::topology_from_spec(text);
          topo::require_simulation_fits(topology);
          topology_index[text] = topologies.size();
          topologies.push_back(std::move(topology));
        }
        break;
      default:
        break;
    }
  } catch (const InputError& error) {
    const std::string message = error.what();
    // A message located already (one_of, fail) is passed on as it is.
    if (message.rfind(node.file() + ":", 0) == 0) throw;
    node.fail(message);
  }
}

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

class PointChecker {
 public:
  // options[k]: the values key k takes; vary_order: the varied keys in the file's order.
  PointChecker(const CollectiveStudySpec& spec, const std::vector<std::vector<Value>>& options,
               const std::vector<int>& vary_order, const std::map<std::string, std::size_t>& topology_index)
      : spec_(spec), options_(options), vary_order_(vary_order), topology_index_(topology_index) {}

  CollectivePointFacts check(std::size_t point) {
    // The value of each key at this point: the point's index taken apart, the first varied key slowest.
    std::vector<const Value*> at(kKeyCount);
    for (int k = 0; k < kKeyCount; ++k) at[k] = &options_[k].front();
    std::size_t rest = point;
    for (std::size_t v = vary_order_.size(); v-- > 0;) {
      const auto& choices = options_[vary_order_[v]];
      at[vary_order_[v]] = &choices[rest % choices.size()];
      rest /= choices.size();
    }
    CollectivePointFacts facts;
    facts.topology = topology_index_.at(at[kTopology]->text);
    const topo::Topology& topology = spec_.topologies[facts.topology];
    const auto kind = sim::parse_collective_kind(at[kOp]->text);
    CollectiveSpec request;
    request.op = at[kOp]->text;
    request.algorithms = at[kAlgorithm]->text == "default" ? "" : at[kAlgorithm]->text;
    request.bytes = at[kBytes]->text;
    request.group_axes = at[kGroupAxes]->text == "default" ? "" : at[kGroupAxes]->text;
    request.reduce = at[kReduce]->text;
    for (const auto& name :
         request.algorithms.empty() ? std::vector<std::string>{} : split(request.algorithms, ',')) {
      if (name != sim::kAutoAlgorithm && sim::find_algorithm(kind, name) == nullptr) {
        fail(point, *at[kAlgorithm],
             fmt::format("{} has no algorithm '{}'; its algorithms are {} (or auto)", request.op, name,
                         join(sim::algorithm_names(kind))));
      }
    }
    if (!request.group_axes.empty()) {
      try {
        topo::parse_group_axes(topology, request.group_axes);
      } catch (const InputError& error) {
        fail(point, *at[kGroupAxes], fmt::format("on {}: {}", topology.name(), error.what()));
      }
    }
    ContentHash hash;
    hash.add("tpusim " TPUSIM_VERSION).add("collectives").add(topology_identity(topology));
    hash.add(at[kNetwork]->text)
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
  [[noreturn]] void fail(std::size_t point, const Value& value, const std::string& problem) const {
    std::vector<std::string> own;
    const auto values = spec_.point_values(point);
    for (std::size_t k = 0; k < spec_.keys.size(); ++k) own.push_back(spec_.keys[k] + "=" + values[k]);
    const std::string where = own.empty() ? "" : fmt::format("in point {}: ", join(own));
    if (value.node) value.node->fail(where + problem);
    // Defaults agree with each other, so a value at fault was written; this is for completeness.
    throw InputError(fmt::format("{}: {}{}", spec_.source, where, problem));
  }

  const CollectiveStudySpec& spec_;
  const std::vector<std::vector<Value>>& options_;
  const std::vector<int>& vary_order_;
  const std::map<std::string, std::size_t>& topology_index_;
};

}  // namespace

const std::vector<CollectiveKey>& collective_study_keys() {
  static const std::vector<CollectiveKey> keys = [] {
    const CollectiveSpec collective;
    return std::vector<CollectiveKey>{{"collective.op", collective.op},
                                      {"collective.algorithm", "default"},
                                      {"collective.bytes", collective.bytes},
                                      {"collective.group_axes", "default"},
                                      {"collective.reduce", collective.reduce},
                                      {"hardware.topology", default_collective_topology()},
                                      {"hardware.network", default_collective_network()}};
  }();
  return keys;
}

std::vector<std::string> CollectiveStudySpec::point_values(std::size_t point) const {
  std::vector<std::string> out(keys.size());
  for (std::size_t k = keys.size(); k-- > 0;) {
    out[k] = values[k][point % values[k].size()];
    point /= values[k].size();
  }
  return out;
}

std::vector<std::string> CollectiveStudySpec::point_spec(std::size_t point) const {
  std::vector<std::string> out;
  const auto varied = point_values(point);
  for (const auto& key : collective_study_keys()) {
    std::string value = key.default_value;
    for (const auto& [name, text] : settings) {
      if (name == key.key) value = text;
    }
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] == key.key) value = varied[k];
    }
    out.push_back(value);
  }
  return out;
}

CollectiveStudySpec parse_collective_study_spec(const std::string& yaml_text, const std::string& file) {
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  root.expect_map(kStudyKeys);
  CollectiveStudySpec spec;
  spec.source = file;
  read_header(root, spec);
  const auto names = key_names();
  std::vector<std::vector<Value>> options(kKeyCount);
  std::map<std::string, std::size_t> topology_index;
  if (auto set = root.optional_child("set")) {
    set->expect_map(names);
    for (const auto& key : set->keys()) {
      const ConfigNode value = set->child(key);
      spec.settings.emplace_back(key, value.scalar());
    }
  }
  // Each key's choices in key order; the points are the product in vary's (file) order, so the options are
  // indexed by key and the product walked by vary's order through `order`.
  std::vector<int> order;
  if (auto vary = root.optional_child("vary")) {
    vary->expect_map(names);
    for (const auto& key : vary->keys()) {
      const ConfigNode list = vary->child(key);
      for (const auto& [set_key, text] : spec.settings) {
        if (set_key == key) list.fail("given in set too; a key is set or varied, not both");
      }
      if (!list.yaml().IsSequence() || list.yaml().size() == 0)
        list.fail("expected a non-empty list of values");
      const int k = static_cast<int>(std::find(names.begin(), names.end(), key) - names.begin());
      std::set<std::string> seen;
      spec.keys.push_back(key);
      spec.values.emplace_back();
      for (std::size_t i = 0; i < list.yaml().size(); ++i) {
        const ConfigNode item(list.yaml()[i], file, fmt::format("{}[{}]", list.key_path(), i));
        const std::string text = item.scalar();
        if (!seen.insert(text).second) item.fail(fmt::format("{} is given twice in this list", text));
        options[k].push_back(Value{text, item});
        spec.values.back().push_back(text);
      }
      order.push_back(k);
    }
  }
  for (int k = 0; k < kKeyCount; ++k) {
    if (!options[k].empty()) continue;
    const std::string key = names[k];
    if (auto set = root.optional_child("set"); set && set->has(key)) {
      options[k].push_back(Value{set->child(key).scalar(), set->child(key)});
    } else {
      options[k].push_back(Value{collective_study_keys()[k].default_value, std::nullopt});
    }
  }
  spec.points = 1;
  for (const auto& list : spec.values) {
    spec.points *= list.size();
    if (spec.points > static_cast<std::size_t>(kMaxSweepPoints)) {
      root.child("vary").fail(
          fmt::format("the product of the value lists has more than {} points", kMaxSweepPoints));
    }
  }
  for (int k = 0; k < kKeyCount; ++k) {
    for (const auto& value : options[k]) {
      // A default needs no check, but the default topology is built like a written one.
      if (value.node) {
        check_value(k, value, topology_index, spec.topologies);
      } else if (k == kTopology) {
        check_value(k, Value{value.text, root}, topology_index, spec.topologies);
      }
    }
  }
  PointChecker checker(spec, options, order, topology_index);
  spec.facts.reserve(spec.points);
  for (std::size_t p = 0; p < spec.points; ++p) spec.facts.push_back(checker.check(p));
  return spec;
}

}  // namespace tpusim::workloads
