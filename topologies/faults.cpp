#include "topologies/faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::topo {
namespace {

int dimensions(const Topology& topology) { return static_cast<int>(topology.chip_dims().size()); }

int parse_chip(const Topology& topology, const std::string& text, const std::string& item) {
  const auto& dims = topology.chip_dims();
  const auto parts = split(text, '.');
  if (static_cast<int>(parts.size()) != dimensions(topology)) {
    throw InputError(fmt::format("fault '{}': chip '{}' needs {} coordinate{} separated by '.'", item, text,
                                 dimensions(topology), dimensions(topology) == 1 ? "" : "s"));
  }
  std::vector<int> coord;
  for (std::size_t d = 0; d < parts.size(); ++d) {
    try {
      coord.push_back(static_cast<int>(parse_whole_number(parts[d], 0, dims[d] - 1)));
    } catch (const InputError& error) {
      throw InputError(
          fmt::format("fault '{}': chip coordinate {}: {}", item, kChipAxisNames[d], error.what()));
    }
  }
  return chip_id(topology, coord);
}

int parse_link(const Topology& topology, const std::string& text, const std::string& item) {
  const auto plus = text.find('+');
  if (plus == std::string::npos) {
    throw InputError(
        fmt::format("fault '{}': a link is a chip and the axis of its + neighbour, such as 0.0+x", item));
  }
  const int chip = parse_chip(topology, text.substr(0, plus), item);
  const std::string axis = text.substr(plus + 1);
  int d = -1;
  for (int i = 0; i < dimensions(topology); ++i) {
    if (axis == kChipAxisNames[i]) d = i;
  }
  if (d < 0) {
    std::vector<std::string> valid(kChipAxisNames, kChipAxisNames + dimensions(topology));
    throw InputError(
        fmt::format("fault '{}': unknown axis '{}'; the pod's axes are {}", item, axis, join(valid)));
  }
  if (!topology.has_link(chip, d)) {
    throw InputError(fmt::format("fault '{}': chip {} has no link to a + neighbour along {}", item,
                                 chip_name(topology, chip), axis));
  }
  return chip * dimensions(topology) + d;
}

double parse_factor(const std::string& text, const std::string& item, double min, double max,
                    const char* range) {
  double value = -1;  // what is not a plain number is out of every range
  try {
    value = parse_plain_number(text);
  } catch (const InputError&) {
  }
  if (!(value >= min && value <= max)) {
    throw InputError(fmt::format("fault '{}': factor '{}' must be a number {}", item, text, range));
  }
  return value;
}

}  // namespace

std::string link_name(const Topology& topology, int link) {
  return fmt::format("{}+{}", chip_name(topology, link / dimensions(topology)),
                     kChipAxisNames[link % dimensions(topology)]);
}

Faults Faults::parse(const Topology& topology, const std::string& text) {
  const int chips = topology.num_chips(), dims = dimensions(topology);
  Faults faults;
  if (text.empty()) return faults;
  std::vector<std::pair<int, unsigned>> random_draws;  // count, seed
  for (std::string item : split(text, ';')) {
    // Spaces around an item are allowed ("down:0.0+x; slow:0.0+y:0.5").
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) throw InputError(fmt::format("faults '{}': an empty item between ';'", text));
    const auto parts = split(item, ':');
    const std::string& kind = parts.front();
    auto expect = [&](std::size_t count, const char* form) {
      if (parts.size() != count) throw InputError(fmt::format("fault '{}': expected {}", item, form));
    };
    if (kind == "down") {
      expect(2, "down:<chip>+<axis>, such as down:0.0+x");
      faults.down_.insert(parse_link(topology, parts[1], item));
    } else if (kind == "slow") {
      expect(3, "slow:<chip>+<axis>:<factor>, such as slow:0.0+x:0.5");
      faults.slow_[parse_link(topology, parts[1], item)] =
          parse_factor(parts[2], item, kSlowestLinkFactor, 1, "from 0.001 to 1 (down: for a link that is off)");
    } else if (kind == "straggler") {
      expect(3, "straggler:<chip>:<factor>, such as straggler:0.0:1.5");
      faults.stragglers_[parse_chip(topology, parts[1], item)] =
          parse_factor(parts[2], item, 1, kSlowestStragglerFactor, "from 1 to 100");
    } else if (kind == "random") {
      expect(3, "random:<links>:<seed>, such as random:4:7");
      try {
        const auto count = static_cast<int>(parse_whole_number(parts[1], 1, chips * dims));
        const auto seed = static_cast<unsigned>(parse_whole_number(parts[2], 0, 4294967295LL));
        random_draws.emplace_back(count, seed);
      } catch (const InputError& error) {
        throw InputError(fmt::format("fault '{}': {}", item, error.what()));
      }
    } else {
      throw InputError(fmt::format(
          "fault '{}': unknown kind '{}'; the kinds are down, slow, straggler, random", item, kind));
    }
  }
  for (const auto& [count, seed] : random_draws) {
    std::vector<int> candidates;
    for (int chip = 0; chip < chips; ++chip) {
      for (int d = 0; d < dims; ++d) {
        const int link = chip * dims + d;
        if (topology.has_link(chip, d) && faults.down_.count(link) == 0 && faults.slow_.count(link) == 0)
          candidates.push_back(link);
      }
    }
    if (count > static_cast<int>(candidates.size())) {
      throw InputError(fmt::format("fault 'random:{}:{}': only {} links are left to draw from", count, seed,
                                   candidates.size()));
    }
    std::mt19937 random(seed);
    std::shuffle(candidates.begin(), candidates.end(), random);
    faults.down_.insert(candidates.begin(), candidates.begin() + count);
  }
  for (const int link : faults.down_) {
    if (faults.slow_.count(link) > 0) {
      throw InputError(fmt::format("fault: link {} is named both down and slow", link_name(topology, link)));
    }
  }
  // The canonical text, for reports and identities: links and chips written back from their numbers.
  std::vector<std::string> items;
  for (const int link : faults.down_) items.push_back("down:" + link_name(topology, link));
  for (const auto& [link, factor] : faults.slow_)
    items.push_back(fmt::format("slow:{}:{}", link_name(topology, link), factor));
  for (const auto& [chip, factor] : faults.stragglers_)
    items.push_back(fmt::format("straggler:{}:{}", chip_name(topology, chip), factor));
  faults.text_ = join(items, ";");
  return faults;
}

double Faults::bandwidth_factor(int link) const {
  const auto found = slow_.find(link);
  return found == slow_.end() ? 1.0 : found->second;
}

double Faults::straggler_factor(int chip) const {
  const auto found = stragglers_.find(chip);
  return found == stragglers_.end() ? 1.0 : found->second;
}

double Faults::slowest_straggler() const {
  double slowest = 1.0;
  for (const auto& [chip, factor] : stragglers_) slowest = std::max(slowest, factor);
  return slowest;
}

}  // namespace tpusim::topo
