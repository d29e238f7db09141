#include "sim/engine/network_actions.hpp"

#include <simgrid/version.h>

#include <optional>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <vector>

#include "sim/engine/transfer_tracker.hpp"
#include "topologies/support/check.hpp"

// The virtual interface of SimGrid's network model, as declared in SimGrid 3.32's
// src/kernel/resource/NetworkModel.hpp (not installed), up to communicate(): a call through it takes the
// slot the library's own classes fill. Only declared here; the library defines it (its vtable and typeinfo
// are exported). Another SimGrid may order these differently, hence the version check.
#if SIMGRID_VERSION_MAJOR != 3 || SIMGRID_VERSION_MINOR != 32
#error "sim/engine/network_actions.cpp mirrors SimGrid 3.32's NetworkModel; check it in this version"
#endif
namespace simgrid::kernel::resource {
class StandardLinkImpl;
class NetworkModel : public Model, public NetworkModelIntf {
 public:
  ~NetworkModel() override;
  virtual StandardLinkImpl* create_link(const std::string& name, const std::vector<double>& bandwidths) = 0;
  virtual StandardLinkImpl* create_wifi_link(const std::string& name,
                                             const std::vector<double>& bandwidths) = 0;
  virtual Action* communicate(s4u::Host* src, s4u::Host* dst, double size, double rate) = 0;
};
}  // namespace simgrid::kernel::resource

namespace tpusim::sim::network_actions {
namespace {

namespace s4u = simgrid::s4u;
using simgrid::kernel::resource::Action;

struct Slot {
  Action* action = nullptr;
  TransferTracker* owner = nullptr;  // none once ended
};

// The process's transfers in flight, by slot: SimGrid has one engine per process.
class Actions {
 public:
  static Actions& get() {
    static Actions actions;
    return actions;
  }

  std::uint32_t start(TransferTracker* owner, s4u::Host* src, s4u::Host* dst, std::uint64_t bytes) {
    if (free_slots_.empty()) {
      free_slots_.push_back(static_cast<std::uint32_t>(slots_.size()));
      slots_.emplace_back();
    }
    const std::uint32_t index = free_slots_.back();
    free_slots_.pop_back();
    Slot& slot = slots_[index];
    // CommImpl::start's own call (unlimited rate: -1), with the model of the source's zone.
    auto* model = src->get_netpoint()->get_englobing_zone()->get_network_model().get();
    slot.action = model->communicate(src, dst, static_cast<double>(bytes), -1.0);
    // A route through a link that is off fails at once; tpusim never turns links off (routes avoid them).
    TPUSIM_CHECK(slot.action->get_state() != Action::State::FAILED);
    slot.owner = owner;
    set_slot(*slot.action, index);
    return index;
  }

  void release(std::uint32_t index) {
    Slot& slot = slots_.at(index);
    TPUSIM_CHECK(slot.action != nullptr && slot.owner == nullptr);
    // The engine has taken it off the model's list of done actions (it skips actions without an activity),
    // so this is the last reference.
    slot.action->unref();
    slot.action = nullptr;
    free_slots_.push_back(index);
  }

 private:
  Actions() {
    s4u::Link::on_communication_state_change_cb(
        [this](simgrid::kernel::resource::NetworkAction& network_action, Action::State) {
          // NetworkAction derives from Action alone; SimGrid installs Action's header but not its own.
          const auto& action = reinterpret_cast<const Action&>(network_action);
          if (action.get_state() != Action::State::FINISHED) return;
          const auto index = slot_of(action);
          if (!index) return;  // a comm's action, not one of these
          TransferTracker* owner = slots_[*index].owner;
          TPUSIM_CHECK(owner != nullptr);
          slots_[*index].owner = nullptr;
          owner->ended(*index);
        });
  }

  // An action's slot rides in its user-data field, which SimGrid 3.32 offers (deprecated for 3.34) and never
  // sets; comms' actions leave it null, hence the offset. A hash map from action to slot made an unfolded
  // 16384-core run 1.15x as long (19.4 against 22.3 s in pairs).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  static void set_slot(Action& action, std::uint32_t index) {
    action.set_data(reinterpret_cast<void*>(static_cast<std::uintptr_t>(index) + 1));
  }
  static std::optional<std::uint32_t> slot_of(const Action& action) {
    const auto data = reinterpret_cast<std::uintptr_t>(action.get_data());
    if (data == 0) return std::nullopt;
    return static_cast<std::uint32_t>(data - 1);
  }
#pragma GCC diagnostic pop

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace

std::uint32_t start(TransferTracker& owner, s4u::Host* src, s4u::Host* dst, std::uint64_t bytes) {
  return Actions::get().start(&owner, src, dst, bytes);
}

void release(std::uint32_t slot) { Actions::get().release(slot); }

}  // namespace tpusim::sim::network_actions
