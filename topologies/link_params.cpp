#include "topologies/link_params.hpp"

#include <fmt/format.h>

#include <cmath>

#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::topo {

LinkParams::LinkParams(double bandwidth_Bps, double latency_s)
    : bandwidth_Bps_(bandwidth_Bps), latency_s_(latency_s) {
  if (!(bandwidth_Bps > 0) || !std::isfinite(bandwidth_Bps)) {
    throw InputError(fmt::format("link bandwidth must be positive, got {} B/s", bandwidth_Bps));
  }
  if (!(latency_s >= 0) || !std::isfinite(latency_s)) {
    throw InputError(fmt::format("link latency must be zero or positive, got {} s", latency_s));
  }
}

std::string LinkParams::describe() const {
  return fmt::format("{} per direction, {} latency", format_bandwidth(bandwidth_Bps_),
                     format_duration(latency_s_));
}

}  // namespace tpusim::topo
