#include "sim/engine/maestro_comms.hpp"

#include <deque>

#include "sim/engine/transfer_tracker.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim::maestro_comms {
namespace {

namespace s4u = simgrid::s4u;

struct Entry {
  s4u::CommPtr comm;
  std::uint32_t slot = 0;
  TransferTracker* owner = nullptr;
};

// The process's comms in flight, by slot; a deque, since each comm's data points at its entry.
struct Comms {
  std::deque<Entry> entries;
  std::vector<std::uint32_t> free_slots;

  Comms() {
    s4u::Activity::on_completion_cb([](const s4u::Activity& activity) {
      auto* entry = activity.get_data<Entry>();
      if (entry == nullptr || entry->owner == nullptr) return;  // not one of these transfers
      entry->owner->ended(entry->slot);
    });
  }
};

Comms& comms() {
  static Comms process_comms;
  return process_comms;
}

}  // namespace

std::uint32_t start(TransferTracker& owner, s4u::Host* src, s4u::Host* dst, std::uint64_t bytes) {
  Comms& all = comms();
  if (all.free_slots.empty()) {
    all.free_slots.push_back(static_cast<std::uint32_t>(all.entries.size()));
    all.entries.push_back({nullptr, all.free_slots.back(), nullptr});
  }
  Entry& entry = all.entries[all.free_slots.back()];
  all.free_slots.pop_back();
  entry.owner = &owner;
  // Comm::sendto_async's own calls, with the data set before set_destination starts the comm.
  entry.comm = s4u::Comm::sendto_init();
  entry.comm->set_data(&entry);
  entry.comm->set_payload_size(bytes)->set_source(src)->set_destination(dst);
  // set_source, with no destination yet, counted the comm as vetoed; the set (driver_actor.hpp) must hold
  // only the driver's mark.
  if (auto* vetoed = s4u::Activity::get_vetoed_activities()) vetoed->erase(entry.comm.get());
  return entry.slot;
}

void release(std::uint32_t slot) {
  Comms& all = comms();
  Entry& entry = all.entries.at(slot);
  TPUSIM_CHECK(entry.comm != nullptr);
  entry.comm = nullptr;
  entry.owner = nullptr;
  all.free_slots.push_back(slot);
}

}  // namespace tpusim::sim::maestro_comms
