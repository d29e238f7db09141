#include "sim/engine/platform.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <string_view>

#include "sim/engine/multislice_zone.hpp"
#include "sim/routes.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim {
namespace {

namespace s4u = simgrid::s4u;
constexpr double kHostFlops = 1e9;  // hosts only move data; their speed is never used

s4u::Link* make_loopback(s4u::NetZone* zone, const topo::Topology& topology, int chip) {
  auto* link = zone->create_link(fmt::format("loopback-{}", chip), topology.intra_chip().bandwidth_Bps());
  link->set_latency(topology.intra_chip().latency_s());
  link->set_sharing_policy(s4u::Link::SharingPolicy::FATPIPE);
  link->seal();
  return link;
}

void build_torus(const topo::Topology& topology, std::vector<s4u::Host*>& hosts) {
  // SimGrid's torus dimensions; size-1 dimensions are dropped, which leaves the host ids unchanged.
  std::vector<unsigned long> dims;
  for (const int size : topology.chip_dims()) {
    if (size > 1) dims.push_back(static_cast<unsigned long>(size));
  }
  const bool cores_share_chip = topology.cores_per_chip() > 1;
  auto set_netpoint = [&hosts](s4u::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    auto* host = zone->create_host(fmt::format("chip-{}", id), kHostFlops);
    hosts[id] = host;
    return std::make_pair(host->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
  auto set_loopback = [&topology](s4u::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    return make_loopback(zone, topology, static_cast<int>(id));
  };
  s4u::ClusterCallbacks callbacks(set_netpoint);
  if (cores_share_chip) callbacks.loopback = set_loopback;
  auto* torus =
      s4u::create_torus_zone("torus", nullptr, dims, callbacks, topology.inter_chip().bandwidth_Bps(),
                             topology.inter_chip().latency_s(), s4u::Link::SharingPolicy::SPLITDUPLEX);
  torus->seal();
  // Slow links (faults.hpp), both directions; links down take the full zone instead.
  for (const auto& [link, factor] : topology.faults().slow_links()) {
    for (const int directed : {2 * link, 2 * link + 1})
      s4u::Link::by_name(directed_link_name(topology, directed))
          ->set_bandwidth(topology.inter_chip().bandwidth_Bps() * factor);
  }
}

// Meshes, lines, single chips, twisted tori and pods with links down: a full zone, one split-duplex link per
// neighbour pair (none where the link is down, slower where it is slow), routes from sim/routes.hpp.
void build_full(const topo::Topology& topology, std::vector<s4u::Host*>& hosts) {
  auto* zone = s4u::create_full_zone("mesh");
  const int chips = topology.num_chips();
  for (int chip = 0; chip < chips; ++chip)
    hosts[chip] = zone->create_host(fmt::format("chip-{}", chip), kHostFlops);
  std::unordered_map<int, s4u::SplitDuplexLink*> duplex;  // by the UP link number of sim/routes.hpp
  const auto& dims = topology.chip_dims();
  for (int chip = 0; chip < chips; ++chip) {
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const int number = chip * static_cast<int>(dims.size()) + static_cast<int>(d);
      if (!topology.has_link(chip, static_cast<int>(d)) || topology.faults().is_down(number)) continue;
      const int up = number * 2;
      auto name = directed_link_name(topology, up);
      name.resize(name.size() - 3);  // create_split_duplex_link appends _UP / _DOWN
      auto* link = zone->create_split_duplex_link(
          name, topology.inter_chip().bandwidth_Bps() * topology.faults().bandwidth_factor(number));
      link->set_latency(topology.inter_chip().latency_s());
      link->seal();
      duplex[up] = link;
    }
  }
  const int cores = topology.cores_per_chip();
  for (int from = 0; from < chips; ++from) {
    for (int to = 0; to < chips; ++to) {
      if (from == to) {
        if (cores > 1) {
          auto* loop = make_loopback(zone, topology, from);
          zone->add_route(hosts[from]->get_netpoint(), hosts[to]->get_netpoint(), nullptr, nullptr,
                          {s4u::LinkInRoute(loop)}, false);
        }
        continue;
      }
      const auto route = route_between(topology, from * cores, to * cores);
      std::vector<s4u::LinkInRoute> links;
      for (const int link : route.links) {
        auto* pair = duplex.at(link & ~1);
        links.emplace_back(
            pair, link % 2 == 0 ? s4u::LinkInRoute::Direction::UP : s4u::LinkInRoute::Direction::DOWN);
      }
      zone->add_route(hosts[from]->get_netpoint(), hosts[to]->get_netpoint(), nullptr, nullptr, links, false);
    }
  }
  zone->seal();
}

}  // namespace

Platform::Platform(const topo::Topology& topology)
    : topology_(&topology),
      cores_per_chip_(topology.cores_per_chip()),
      hosts_(topology.num_chips()),
      routes_(topology.cores_per_chip(), topology.num_chips()) {
  bool any_dimension = false;
  for (const int size : topology.chip_dims()) any_dimension = any_dimension || size > 1;
  if (topology.multislice()) {
    build_multislice_zone(topology, hosts_);
  } else if (topology.wraparound() && any_dimension && topology.route_table() == nullptr) {
    build_torus(topology, hosts_);
    torus_zone_ = true;
    index_of_directed_.assign(static_cast<std::size_t>(directed_link_count(topology)), 0);
    number_torus_links();
  } else {
    build_full(topology, hosts_);
  }
  for (const auto* host : hosts_) TPUSIM_CHECK(host != nullptr);
}

namespace {

// A link's index in links(), plus one (0: none yet), kept in the link's own extension slot: looked up for
// every link of every route computed, a hash map from link to index cost 5% of an unfolded run on 65,536
// chips.
std::size_t link_index_slot() {
  static const std::size_t slot = s4u::Link::extension_create(nullptr);
  return slot;
}

}  // namespace

int Platform::link_index(s4u::Link* link) {
  const auto stored = reinterpret_cast<std::uintptr_t>(link->extension(link_index_slot()));
  if (stored != 0) return static_cast<int>(stored - 1);
  const int index = static_cast<int>(links_.size());
  links_.push_back({link->get_name(), link->get_bandwidth()});
  link->extension_set(link_index_slot(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(index) + 1),
                      false);
  return index;
}

void Platform::torus_route(int from_chip, int to_chip, std::vector<int>& links) {
  directed_.clear();
  const auto& dims = topology_->chip_dims();
  const int count = static_cast<int>(dims.size());
  if (from_chip == to_chip) {
    directed_.push_back(2 * topology_->num_chips() * count + from_chip);
  } else {
    int at = from_chip, stride = 1;
    for (int d = 0; d < count; ++d) {
      const int k = dims[d];
      int m = at / stride % k;
      const int t = to_chip / stride % k;
      while (m != t) {
        const bool up = torus_goes_up(m, t, k);
        const int next = up ? (m + 1) % k : (m - 1 + k) % k;
        if (up) directed_.push_back((at * count + d) * 2);
        at += (next - m) * stride;
        m = next;
        if (!up) directed_.push_back((at * count + d) * 2 + 1);
      }
      stride *= k;
    }
  }
  links.clear();
  for (const int directed : directed_) {
    int& index = index_of_directed_[static_cast<std::size_t>(directed)];
    if (index == 0) {
      auto* link = link_of_directed_[static_cast<std::size_t>(directed)];
      TPUSIM_CHECK(link != nullptr);
      index = link_index(link) + 1;
    }
    links.push_back(index - 1);
  }
}

// Every link of the torus zone by its sim/routes.hpp number, read from the names the zone gave them
// ("torus_link_from_<chip>_to_<+ neighbour>_UP/DOWN", "loopback-<chip>"): no route needs asking SimGrid.
void Platform::number_torus_links() {
  const auto& dims = topology_->chip_dims();
  const int count = static_cast<int>(dims.size());
  link_of_directed_.assign(static_cast<std::size_t>(directed_link_count(*topology_)), nullptr);
  for (auto* link : s4u::Engine::get_instance()->get_all_links()) {
    const std::string& name = link->get_name();
    int owner = 0, neighbour = 0, chip = 0;
    char direction[8] = {};
    if (std::sscanf(name.c_str(), "torus_link_from_%d_to_%d_%7s", &owner, &neighbour, direction) == 3) {
      int stride = 1;
      for (int d = 0; d < count; ++d) {
        const int k = dims[d];
        const int m = owner / stride % k;
        if (k > 1 && owner + ((m + 1) % k - m) * stride == neighbour) {
          const bool up = std::string_view(direction) == "UP";
          TPUSIM_CHECK(up || std::string_view(direction) == "DOWN");
          link_of_directed_[static_cast<std::size_t>((owner * count + d) * 2 + (up ? 0 : 1))] = link;
          break;
        }
        stride *= k;
      }
    } else if (std::sscanf(name.c_str(), "loopback-%d", &chip) == 1) {
      link_of_directed_[static_cast<std::size_t>(2 * topology_->num_chips() * count + chip)] = link;
    }
  }
}

const std::vector<int>& Platform::route(topo::Rank src, topo::Rank dst) {
  return routes_.get(src, dst, [this](topo::Rank from, topo::Rank to, std::vector<int>& links) {
    if (torus_zone_) {
      torus_route(from / cores_per_chip_, to / cores_per_chip_, links);
      return;
    }
    route_links_.clear();
    double latency = 0;
    host_of_rank(from)->route_to(host_of_rank(to), route_links_, &latency);
    links.clear();
    for (auto* link : route_links_) links.push_back(link_index(link));
  });
}

}  // namespace tpusim::sim
