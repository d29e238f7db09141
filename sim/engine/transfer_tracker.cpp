#include "sim/engine/transfer_tracker.hpp"

#include <simgrid/simix.hpp>

#include "sim/engine/maestro_comms.hpp"
#include "sim/engine/network_actions.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim {

TransferTracker::TransferTracker(TransferMechanism mechanism) : mechanism_(mechanism) {}

TransferTracker::~TransferTracker() {
  TPUSIM_CHECK(in_flight_ == 0);
  if (!released_.empty()) in_maestro([] {});
}

void TransferTracker::in_maestro(const std::function<void()>& work) {
  simgrid::kernel::actor::simcall_answered([this, &work] {
    hand_back_released();
    work();
  });
}

void TransferTracker::hand_back_released() {
  for (const std::uint32_t slot : released_) {
    if (mechanism_ == TransferMechanism::network_actions) {
      network_actions::release(slot);
    } else {
      maestro_comms::release(slot);
    }
  }
  released_.clear();
}

std::uint32_t TransferTracker::start(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, std::uint64_t bytes) {
  TPUSIM_CHECK(simgrid::s4u::Actor::is_maestro());
  ++in_flight_;
  return mechanism_ == TransferMechanism::network_actions ? network_actions::start(*this, src, dst, bytes)
                                                          : maestro_comms::start(*this, src, dst, bytes);
}

void TransferTracker::ended(std::uint32_t slot) {
  ended_.push_back(slot);
  if (waiting_) {
    waiting_ = false;
    wake_->release();
  }
}

void TransferTracker::wait_for_ends(std::vector<std::uint32_t>& ended) {
  TPUSIM_CHECK(in_flight_ > 0);
  if (ended_.empty()) {
    if (!released_.empty()) in_maestro([] {});
    waiting_ = true;
    wake_->acquire();
  }
  TPUSIM_CHECK(!ended_.empty());
  ended.clear();
  ended.swap(ended_);
}

void TransferTracker::release(std::uint32_t slot) {
  released_.push_back(slot);
  --in_flight_;
}

void TransferTracker::drain() {
  std::vector<std::uint32_t> ended;
  while (in_flight_ > 0) {
    wait_for_ends(ended);
    for (const std::uint32_t slot : ended) release(slot);
  }
}

}  // namespace tpusim::sim
