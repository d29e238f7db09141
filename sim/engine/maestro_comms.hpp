#pragma once
// sim-private: transfers as host-to-host comms started from maestro, as SimDAG does (transfer_tracker.hpp).
//
// Started from maestro, a comm is SimGrid's to end: it reports the end through Activity::on_completion,
// naming the comm, at the same engine step at which Comm::wait_any over every transfer in flight would
// return. No actor runs per transfer. The price is SimGrid 3.32's: each such comm is detached, kept in
// maestro's activity list, and taken out of it with a std::list::remove when it ends, a pass over every comm
// in flight.
#include <cstdint>
#include <simgrid/s4u.hpp>

namespace tpusim::sim {
class TransferTracker;
}

namespace tpusim::sim::maestro_comms {

// In maestro. The slot is this mechanism's; `owner` hears of the end.
std::uint32_t start(TransferTracker& owner, simgrid::s4u::Host* src, simgrid::s4u::Host* dst,
                    std::uint64_t bytes);
void release(std::uint32_t slot);  // after the end: the slot may be reused

}  // namespace tpusim::sim::maestro_comms
