#pragma once
// What is wrong with a pod: inter-chip links that are slow or down, and chips that compute slowly. One line
// says it, the same on the command line (--faults) and in a config (hardware.faults), items separated by ';':
//   down:3.4+x         the link from chip (3,4) to its + neighbour along x carries nothing, either way
//   slow:3.4+x:0.5     that link runs at 0.5 of its bandwidth, both ways (0.001 <= factor <= 1)
//   straggler:3.4:1.5  chip (3,4) computes 1.5 times slower (1 <= factor <= 100)
//   random:4:7         4 more links down, drawn with seed 7 from those not named
// Chips are written by coordinates separated by '.', one per chip dimension. Messages then take shortest
// paths over the links left (route_table.hpp). Faults that cut the pod in two are refused.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tpusim::topo {

// The factors' ranges. A link a thousand times slower is already all but down (a degraded link retrains at a
// fraction of its lanes, never at a millionth); below that, simulated times overflow rather than inform.
inline constexpr double kSlowestLinkFactor = 0.001;
inline constexpr double kSlowestStragglerFactor = 100;

class Topology;  // topology.hpp holds a Faults

class Faults {
 public:
  Faults() = default;
  // InputError naming the item and the problem; the topology's faults, if any, play no part.
  static Faults parse(const Topology& topology, const std::string& text);

  bool empty() const { return down_.empty() && slow_.empty() && stragglers_.empty(); }
  bool any_down() const { return !down_.empty(); }
  // Links are numbered chip * (number of chip dimensions) + dimension: the link to the + neighbour.
  bool is_down(int link) const { return down_.count(link) > 0; }
  double bandwidth_factor(int link) const;  // 1 for a healthy link
  double straggler_factor(int chip) const;  // 1 for a healthy chip
  double slowest_straggler() const;         // the largest factor, 1 without stragglers
  const std::set<int>& down_links() const { return down_; }
  const std::map<int, double>& slow_links() const { return slow_; }  // link -> bandwidth factor
  // The canonical text: named items in a fixed order, random draws resolved; "" when healthy.
  const std::string& text() const { return text_; }

 private:
  std::map<int, double> slow_;
  std::set<int> down_;
  std::map<int, double> stragglers_;
  std::string text_;
};

// "3.4+x": how the faults' text writes link number `link`.
std::string link_name(const Topology& topology, int link);

}  // namespace tpusim::topo
