#include "sim/engine/multislice_zone.hpp"

#include <fmt/format.h>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include "sim/routes.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim {
namespace {

namespace s4u = simgrid::s4u;
namespace routing = simgrid::kernel::routing;
constexpr double kMultisliceHostFlops = 1e9;  // hosts only move data; their speed is never used

class MultisliceZone final : public routing::NetZoneImpl {
 public:
  explicit MultisliceZone(const topo::Topology& topology)
      : routing::NetZoneImpl("multislice"),
        topology_(topology),
        links_(static_cast<std::size_t>(directed_link_count(topology)), nullptr) {}

  void set_link(int number, s4u::Link* link) {
    links_.at(static_cast<std::size_t>(number)) = link->get_impl();
  }

  // The links of sim/routes.hpp's route (the same the bounds and predictions walk) and its latency: hops
  // times the ICI latency within a slice, the DCN's between slices.
  void get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst, routing::Route* into,
                       double* latency) override {
    const int cores = topology_.cores_per_chip();
    const auto from = static_cast<topo::Rank>(src->id()) * cores;
    const auto to = static_cast<topo::Rank>(dst->id()) * cores + (src == dst && cores > 1 ? 1 : 0);
    const Route route = route_between(topology_, from, to);
    for (const int link : route.links) {
      TPUSIM_CHECK(links_[static_cast<std::size_t>(link)] != nullptr);
      into->link_list_.push_back(links_[static_cast<std::size_t>(link)]);
    }
    if (latency != nullptr) *latency += route.latency_s;
  }

 private:
  topo::Topology topology_;
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> links_;  // by sim/routes.hpp's directed number
};

}  // namespace

void build_multislice_zone(const topo::Topology& topology, std::vector<s4u::Host*>& hosts) {
  auto* zone = new MultisliceZone(topology);  // the engine owns its root zone and deletes it
  s4u::NetZone* iface = zone->get_iface();
  const int chips = topology.num_chips();
  for (int chip = 0; chip < chips; ++chip) {
    hosts[chip] = iface->create_host(fmt::format("chip-{}", chip), kMultisliceHostFlops);
    TPUSIM_CHECK(hosts[chip]->get_netpoint()->id() == static_cast<unsigned long>(chip));
  }
  const int dims = static_cast<int>(topology.chip_dims().size());
  const auto& ici = topology.inter_chip();
  for (int chip = 0; chip < chips; ++chip) {
    for (int d = 0; d < dims; ++d) {
      if (!topology.has_link(chip, d)) continue;
      const int up = (chip * dims + d) * 2;
      auto name = directed_link_name(topology, up);
      name.resize(name.size() - 3);  // create_split_duplex_link appends _UP / _DOWN
      auto* link = iface->create_split_duplex_link(name, ici.bandwidth_Bps());
      link->set_latency(ici.latency_s());
      link->seal();
      zone->set_link(up, link->get_link_up());
      zone->set_link(up + 1, link->get_link_down());
    }
    if (topology.cores_per_chip() > 1) {
      auto* loop =
          iface->create_link(fmt::format("loopback-{}", chip), topology.intra_chip().bandwidth_Bps());
      loop->set_latency(topology.intra_chip().latency_s());
      loop->set_sharing_policy(s4u::Link::SharingPolicy::FATPIPE);
      loop->seal();
      zone->set_link(2 * chips * dims + chip, loop);
    }
    // Half the NIC to NIC latency on each direction of the NIC, so that a route's links add up to it (the
    // route's latency itself comes from route_between).
    auto* nic =
        iface->create_split_duplex_link(fmt::format("dcn_nic-{}", chip), topology.dcn().bandwidth_Bps());
    nic->set_latency(topology.dcn().latency_s() / 2);
    nic->seal();
    zone->set_link(dcn_link(topology, chip, true), nic->get_link_up());
    zone->set_link(dcn_link(topology, chip, false), nic->get_link_down());
  }
  iface->seal();
}

}  // namespace tpusim::sim
