#include "sim/endpoint_actors.hpp"

#include <fmt/format.h>

#include <deque>
#include <memory>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <unordered_map>
#include <vector>

#include "sim/transfer_tracker.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim::endpoint_actors {
namespace {

namespace s4u = simgrid::s4u;
using simgrid::kernel::resource::Action;

int g_token = 0;  // a mailbox message must carry a pointer; nothing reads it

// An endpoint's stack holds a few s4u frames (the kernel side of its simcalls runs on maestro's). Above
// glibc's mmap threshold (128 KiB), the pages it never touches cost no memory: a 16384-core pod has 8192
// endpoints.
constexpr unsigned kEndpointStackKiB = 256;

// One transfer: its mailbox, whose permanent receiver is the destination's endpoint, and the send.
struct Slot {
  s4u::Mailbox* mailbox = nullptr;
  s4u::Host* src = nullptr;
  std::uint64_t bytes = 0;
  s4u::CommPtr send;
  TransferTracker* owner = nullptr;
  bool used = false;  // its mailbox holds the last message sent through it
};

struct Job {
  enum class Kind { send, clear };
  Kind kind;
  std::uint32_t slot;
};

// The actor of one host: posts its host's messages and clears them once they have ended; the permanent
// receiver of the mailboxes of the messages to its host.
struct Endpoint {
  s4u::ActorPtr actor;
  s4u::SemaphorePtr go = s4u::Semaphore::create(0);
  std::vector<Job> jobs;
  bool signalled = false;
};

// The process's endpoints and slots: SimGrid has one engine per process, and both outlive each collective.
class Transfers {
 public:
  static Transfers& get() {
    // Never destroyed: endpoints stay blocked on its semaphores until the process ends, and SimGrid aborts on
    // destroying a semaphore someone waits on.
    static auto* transfers = new Transfers;
    return *transfers;
  }

  std::uint32_t start(TransferTracker* owner, s4u::Host* src, s4u::Host* dst, std::uint64_t bytes) {
    const std::uint32_t index = take_slot();
    Slot& slot = slots_[index];
    slot.src = src;
    slot.bytes = bytes;
    slot.owner = owner;
    // The slot's last message, long waited on by its sender, is still in the mailbox's queue of received
    // messages (nobody receives them): dropped here, in maestro, where this is a plain call. A mailbox with a
    // permanent receiver starts a message as soon as it is sent, towards the receiver's host, so the
    // destination's endpoint never runs: one simcall to post and one to clear instead of four.
    if (slot.used) slot.mailbox->clear();
    slot.used = true;
    slot.mailbox->set_receiver(endpoint_of(dst).actor);
    post(src, {Job::Kind::send, index});
    return index;
  }

  void release(std::uint32_t index) {
    Slot& slot = slots_.at(index);
    TPUSIM_CHECK(slot.send != nullptr);
    slot.owner = nullptr;
    post(slot.src, {Job::Kind::clear, index});
  }

 private:
  Transfers() {
    s4u::Link::on_communication_state_change_cb(
        [this](simgrid::kernel::resource::NetworkAction& network_action, Action::State) {
          // NetworkAction derives from Action alone; SimGrid installs Action's header but not its own.
          const auto& action = reinterpret_cast<const Action&>(network_action);
          if (action.get_state() != Action::State::FINISHED) return;
          const auto found = slot_of_.find(action.get_activity());
          if (found == slot_of_.end()) return;
          const std::uint32_t index = found->second;
          slot_of_.erase(found);
          TPUSIM_CHECK(slots_[index].owner != nullptr);
          slots_[index].owner->ended(index);
        });
  }

  std::uint32_t take_slot() {
    if (free_slots_.empty()) {
      const auto index = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
      slots_.back().mailbox = s4u::Mailbox::by_name(fmt::format("tpusim-transfer-{}", index));
      free_slots_.push_back(index);
    }
    const std::uint32_t index = free_slots_.back();
    free_slots_.pop_back();
    return index;
  }

  void post(s4u::Host* host, Job job) {
    Endpoint& endpoint = endpoint_of(host);
    endpoint.jobs.push_back(job);
    if (!endpoint.signalled) {
      endpoint.signalled = true;
      endpoint.go->release();
    }
  }

  Endpoint& endpoint_of(s4u::Host* host) {
    // By the host's netpoint id, a small integer: hashing the host was a cache miss per message.
    const auto id = host->get_netpoint()->id();
    if (id >= endpoints_.size()) endpoints_.resize(id + 1);
    auto& endpoint = endpoints_[id];
    if (endpoint == nullptr) {
      endpoint = std::make_unique<Endpoint>();
      Endpoint* raw = endpoint.get();
      endpoint->actor = s4u::Actor::init(fmt::format("endpoint-{}", host->get_name()), host);
      endpoint->actor->set_stacksize(kEndpointStackKiB)->start([this, raw] { serve(*raw); });
    }
    return *endpoint;
  }

  void serve(Endpoint& endpoint) {
    std::vector<Job> jobs;
    while (true) {
      endpoint.go->acquire();
      endpoint.signalled = false;
      jobs.clear();
      jobs.swap(endpoint.jobs);
      for (const Job& job : jobs) run(job);
    }
  }

  void run(const Job& job) {
    Slot& slot = slots_[job.slot];
    if (job.kind == Job::Kind::send) {
      slot.send = slot.mailbox->put_async(&g_token, slot.bytes);
      slot_of_[slot.send->get_impl()] = job.slot;
      return;
    }
    slot.send->wait();  // it has ended: this only takes it out of this actor's list
    slot.send = nullptr;
    free_slots_.push_back(job.slot);
  }

  std::deque<Slot> slots_;  // a deque: endpoints hold references across simcalls, while slots are added
  std::vector<std::uint32_t> free_slots_;
  std::unordered_map<const void*, std::uint32_t> slot_of_;  // by the SimGrid activity of a message in flight
  std::vector<std::unique_ptr<Endpoint>> endpoints_;        // by the host's netpoint id
};

}  // namespace

std::uint32_t start(TransferTracker& owner, simgrid::s4u::Host* src, simgrid::s4u::Host* dst,
                    std::uint64_t bytes) {
  return Transfers::get().start(&owner, src, dst, bytes);
}

void release(std::uint32_t slot) { Transfers::get().release(slot); }

}  // namespace tpusim::sim::endpoint_actors
