#include "sim/transfer_tracker.hpp"

#include <simgrid/simix.hpp>

#include "topologies/support/check.hpp"

namespace tpusim::sim {
namespace {

namespace s4u = simgrid::s4u;

// Transfers left in flight by a driver that failed. SimGrid still ends them (and calls on their s4u::Comm
// when it does), so they are kept until the engine has run dry, which it has by the time the next tracker
// exists.
std::vector<s4u::CommPtr>& orphans() {
  static std::vector<s4u::CommPtr> comms;
  return comms;
}

}  // namespace

TransferTracker::TransferTracker() : wake_(s4u::Semaphore::create(0)) {
  static const bool connected = (s4u::Activity::on_completion_cb(&TransferTracker::on_completion), true);
  (void)connected;
  orphans().clear();
}

TransferTracker::~TransferTracker() {
  for (auto& entry : entries_) {
    if (!entry.comm) continue;
    entry.comm->set_data(nullptr);
    orphans().push_back(std::move(entry.comm));
  }
}

void TransferTracker::in_maestro(const std::function<void()>& work) {
  simgrid::kernel::actor::simcall_answered(work);
}

std::uint32_t TransferTracker::start(s4u::Host* src, s4u::Host* dst, std::uint64_t bytes) {
  TPUSIM_CHECK(s4u::Actor::is_maestro());
  if (free_slots_.empty()) {
    free_slots_.push_back(static_cast<std::uint32_t>(entries_.size()));
    entries_.push_back({nullptr, free_slots_.back(), this});
  }
  Entry& entry = entries_[free_slots_.back()];
  free_slots_.pop_back();
  // Comm::sendto_async's own calls, with the data set before set_destination starts the comm.
  entry.comm = s4u::Comm::sendto_init();
  entry.comm->set_data(&entry);
  entry.comm->set_payload_size(bytes)->set_source(src)->set_destination(dst);
  ++in_flight_;
  return entry.slot;
}

void TransferTracker::on_completion(const s4u::Activity& activity) {
  auto* entry = activity.get_data<Entry>();
  if (entry == nullptr) return;  // not a transfer of a live tracker
  TransferTracker& tracker = *entry->owner;
  tracker.ended_.push_back(entry->slot);
  if (tracker.waiting_) {
    tracker.waiting_ = false;
    tracker.wake_->release();
  }
}

void TransferTracker::wait_for_ends(std::vector<std::uint32_t>& ended) {
  TPUSIM_CHECK(in_flight_ > 0);
  if (ended_.empty()) {
    waiting_ = true;
    wake_->acquire();
  }
  TPUSIM_CHECK(!ended_.empty());
  ended.clear();
  ended.swap(ended_);
}

void TransferTracker::release(std::uint32_t slot) {
  Entry& entry = entries_[slot];
  TPUSIM_CHECK(entry.comm != nullptr);
  entry.comm = nullptr;
  free_slots_.push_back(slot);
  --in_flight_;
}

}  // namespace tpusim::sim
