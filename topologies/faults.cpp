#include "topologies/faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <cmath>
#include <cstdlib>
#include <random>

#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::topo {
namespace {

// With links down the SimGrid platform holds an explicit route for every pair of chips, as for meshes: a
// 1024-chip pod takes about 270 MiB and 5 s to build, a 4096-chip one would take 16 times that.
constexpr int kMaxChipsWithLinksDown = 1024;
constexpr const char* kAxisNames[] = {"x", "y", "z"};

struct Pod {
  const std::vector<int>& dims;
  bool wraparound;
  int chips() const {
    int n = 1;
    for (const int d : dims) n *= d;
    return n;
  }
  int dimensions() const { return static_cast<int>(dims.size()); }
  std::vector<int> coord(int chip) const {
    std::vector<int> c(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
      c[d] = chip % dims[d];
      chip /= dims[d];
    }
    return c;
  }
  int id(const std::vector<int>& c) const {
    int chip = 0;
    for (std::size_t d = dims.size(); d-- > 0;) chip = chip * dims[d] + c[d];
    return chip;
  }
  // Whether chip has a link to its + neighbour along d.
  bool has_link(int chip, int d) const { return dims[d] > 1 && (wraparound || coord(chip)[d] + 1 < dims[d]); }
  std::string chip_text(int chip) const {
    std::vector<std::string> parts;
    for (const int c : coord(chip)) parts.push_back(std::to_string(c));
    return join(parts, ".");
  }
  std::string link_text(int link) const {
    return fmt::format("{}+{}", chip_text(link / dimensions()), kAxisNames[link % dimensions()]);
  }
};

int parse_chip(const Pod& pod, const std::string& text, const std::string& item) {
  const auto parts = split(text, '.');
  if (static_cast<int>(parts.size()) != pod.dimensions()) {
    throw InputError(fmt::format("fault '{}': chip '{}' needs {} coordinate{} separated by '.'", item, text,
                                 pod.dimensions(), pod.dimensions() == 1 ? "" : "s"));
  }
  std::vector<int> coord;
  for (std::size_t d = 0; d < parts.size(); ++d) {
    try {
      coord.push_back(static_cast<int>(parse_whole_number(parts[d], 0, pod.dims[d] - 1)));
    } catch (const InputError& error) {
      throw InputError(fmt::format("fault '{}': chip coordinate {}: {}", item, kAxisNames[d], error.what()));
    }
  }
  return pod.id(coord);
}

int parse_link(const Pod& pod, const std::string& text, const std::string& item) {
  const auto plus = text.find('+');
  if (plus == std::string::npos) {
    throw InputError(
        fmt::format("fault '{}': a link is a chip and the axis of its + neighbour, such as 0.0+x", item));
  }
  const int chip = parse_chip(pod, text.substr(0, plus), item);
  const std::string axis = text.substr(plus + 1);
  int d = -1;
  for (int i = 0; i < pod.dimensions(); ++i) {
    if (axis == kAxisNames[i]) d = i;
  }
  if (d < 0) {
    std::vector<std::string> valid(kAxisNames, kAxisNames + pod.dimensions());
    throw InputError(
        fmt::format("fault '{}': unknown axis '{}'; the pod's axes are {}", item, axis, join(valid)));
  }
  if (!pod.has_link(chip, d)) {
    throw InputError(fmt::format("fault '{}': chip {} has no link to a + neighbour along {}", item,
                                 pod.chip_text(chip), axis));
  }
  return chip * pod.dimensions() + d;
}

double parse_factor(const std::string& text, const std::string& item, double min, bool min_included,
                    double max, const char* range) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  const bool above = min_included ? value >= min : value > min;
  if (end == begin || *end != '\0' || !std::isfinite(value) || !above || value > max) {
    throw InputError(fmt::format("fault '{}': factor '{}' must be a number {}", item, text, range));
  }
  return value;
}

// Breadth-first search (Boost.Graph) over the links left, from every destination; then the first hop of each
// route: dimension 0 first and the + way first among the hops that bring a chip one closer. Throws when a
// chip cannot be reached.
std::vector<std::int8_t> next_hops(const Pod& pod, const std::set<int>& down) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  const int chips = pod.chips();
  const int dims = pod.dimensions();
  auto alive = [&](int owner, int d) { return pod.has_link(owner, d) && down.count(owner * dims + d) == 0; };
  Graph graph(chips);
  for (int chip = 0; chip < chips; ++chip) {
    for (int d = 0; d < dims; ++d) {
      if (alive(chip, d)) boost::add_edge(chip, neighbour_chip(pod.dims, chip, 2 * d), graph);
    }
  }
  constexpr int kUnreached = -1;
  std::vector<std::int8_t> table(static_cast<std::size_t>(chips) * chips, -1);
  std::vector<int> distance(chips);
  for (int to = 0; to < chips; ++to) {
    std::fill(distance.begin(), distance.end(), kUnreached);
    distance[to] = 0;
    boost::breadth_first_search(graph, boost::vertex(to, graph),
                                boost::visitor(boost::make_bfs_visitor(
                                    boost::record_distances(distance.data(), boost::on_tree_edge()))));
    for (int from = 0; from < chips; ++from) {
      if (distance[from] == kUnreached) {
        throw InputError(fmt::format("faults cut chip {} off from chip {}; a pod must stay connected",
                                     pod.chip_text(from), pod.chip_text(to)));
      }
      if (from == to) continue;
      for (int hop = 0; hop < 2 * dims; ++hop) {
        const int next = neighbour_chip(pod.dims, from, hop);
        if (next < 0 || !alive(hop % 2 == 0 ? from : next, hop / 2) || distance[next] != distance[from] - 1)
          continue;
        table[static_cast<std::size_t>(to) * chips + from] = static_cast<std::int8_t>(hop);
        break;
      }
      TPUSIM_CHECK(table[static_cast<std::size_t>(to) * chips + from] >= 0);
    }
  }
  return table;
}

}  // namespace

int neighbour_chip(const std::vector<int>& chip_dims, int chip, int hop) {
  const Pod pod{chip_dims, true};
  const int d = hop / 2;
  if (chip_dims[d] < 2) return -1;
  auto coord = pod.coord(chip);
  coord[d] = (coord[d] + (hop % 2 == 0 ? 1 : chip_dims[d] - 1)) % chip_dims[d];
  return pod.id(coord);
}

Faults Faults::parse(const std::vector<int>& chip_dims, bool wraparound, const std::string& text) {
  const Pod pod{chip_dims, wraparound};
  Faults faults;
  faults.chips_ = pod.chips();
  faults.dims_ = chip_dims;
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
      faults.down_.insert(parse_link(pod, parts[1], item));
    } else if (kind == "slow") {
      expect(3, "slow:<chip>+<axis>:<factor>, such as slow:0.0+x:0.5");
      faults.slow_[parse_link(pod, parts[1], item)] =
          parse_factor(parts[2], item, 0, false, 1, "above 0 and at most 1");
    } else if (kind == "straggler") {
      expect(3, "straggler:<chip>:<factor>, such as straggler:0.0:1.5");
      faults.stragglers_[parse_chip(pod, parts[1], item)] =
          parse_factor(parts[2], item, 1, true, 100, "from 1 to 100");
    } else if (kind == "random") {
      expect(3, "random:<links>:<seed>, such as random:4:7");
      try {
        const auto count = static_cast<int>(parse_whole_number(parts[1], 1, pod.chips() * pod.dimensions()));
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
    for (int chip = 0; chip < pod.chips(); ++chip) {
      for (int d = 0; d < pod.dimensions(); ++d) {
        const int link = chip * pod.dimensions() + d;
        if (pod.has_link(chip, d) && faults.down_.count(link) == 0 && faults.slow_.count(link) == 0)
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
      throw InputError(fmt::format("fault: link {} is named both down and slow", pod.link_text(link)));
    }
  }
  if (faults.any_down()) {
    if (pod.chips() > kMaxChipsWithLinksDown) {
      throw InputError(
          fmt::format("faults with links down are simulated on pods of up to {} chips; this one has {}",
                      kMaxChipsWithLinksDown, pod.chips()));
    }
    faults.next_hop_ = std::make_shared<const std::vector<std::int8_t>>(next_hops(pod, faults.down_));
  }
  // The canonical text, for reports and identities: links and chips written back from their numbers.
  std::vector<std::string> items;
  for (const int link : faults.down_) items.push_back("down:" + pod.link_text(link));
  for (const auto& [link, factor] : faults.slow_)
    items.push_back(fmt::format("slow:{}:{}", pod.link_text(link), factor));
  for (const auto& [chip, factor] : faults.stragglers_)
    items.push_back(fmt::format("straggler:{}:{}", pod.chip_text(chip), factor));
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

std::string Faults::link_name(int link) const { return Pod{dims_, true}.link_text(link); }

int Faults::first_hop(int from, int to) const {
  TPUSIM_CHECK(next_hop_ != nullptr && from != to);
  return (*next_hop_)[static_cast<std::size_t>(to) * chips_ + from];
}

}  // namespace tpusim::topo
