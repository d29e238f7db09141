#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <limits>
#include <memory>
#include <set>
#include <simgrid/s4u.hpp>
#include <unordered_map>

// version.h and log.h need the declarations s4u.hpp brings in first.
#include <simgrid/version.h>
#include <xbt/log.h>

#include "sim/algorithm_registry.hpp"
#include "sim/engine/chrome_trace.hpp"
#include "sim/engine/driver_actor.hpp"
#include "sim/engine/executor.hpp"
#include "sim/engine/platform.hpp"
#include "sim/request_check.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::sim {
namespace {

namespace s4u = simgrid::s4u;

bool g_engine_created = false;

// Meshes get explicit routes for every chip pair; beyond this the platform itself becomes the cost.
constexpr int kMaxMeshChips = 1024;

// Under AddressSanitizer, SimGrid must run its actors on threads. Its default raw contexts (and ucontext)
// switch stacks behind ASan's back: Debian's SimGrid is built without the fiber annotations
// (__sanitizer_start_switch_fiber) that its own enable_address_sanitizer build adds, so ASan cannot unpoison
// an actor's stack when an exception unwinds it. It warns on stderr ("ASan is ignoring requested
// __asan_handle_no_return") and may then report errors that are not there. A thread is a stack ASan knows.
#if defined(__SANITIZE_ADDRESS__)
#define TPUSIM_SIMGRID_THREAD_CONTEXTS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPUSIM_SIMGRID_THREAD_CONTEXTS 1
#endif
#endif

s4u::Engine* create_engine(NetworkModel network) {
  // Silence SimGrid before it can print anything (configuration changes are logged at INFO).
  xbt_log_control_set("root.thres:critical");
  static char name[] = "tpusim";
#ifdef TPUSIM_SIMGRID_THREAD_CONTEXTS
  // The factory is chosen while the engine is built, so it has to come in with the command line.
  static char thread_contexts[] = "--cfg=contexts/factory:thread";
  static int argc = 2;
  static char* argv[] = {name, thread_contexts, nullptr};
#else
  static int argc = 1;
  static char* argv[] = {name, nullptr};
#endif
  auto* engine = new s4u::Engine(&argc, argv);  // lives until the process ends: one engine per process
  if (network == NetworkModel::ideal) {
    // sim/README.md, Execution on SimGrid: with these, simulated time equals the alpha-beta model where there
    // is no contention.
    s4u::Engine::set_config("network/model:CM02");
    s4u::Engine::set_config("network/crosstraffic:0");
    s4u::Engine::set_config("network/TCP-gamma:1e30");
    // SimGrid ends an action when less than surf/precision (1e-9 s by default) of it remains, so a chain of
    // small messages finished up to a nanosecond early per step; exact alpha-beta needs a finer tolerance.
    s4u::Engine::set_config("surf/precision:1e-15");
  }
  return engine;
}

template <typename T>
bool read_field(const char*& at, const char* end, T& value) {
  while (at < end && *at == ' ') ++at;
  const auto [next, error] = std::from_chars(at, end, value);
  at = next;
  return error == std::errc();
}

// Every field of the request that the simulation reads, as bytes: identical keys, identical requests.
std::string isolation_key(const CollectiveRequest& r) {
  std::string key;
  const auto put = [&key](const auto& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof value);
  };
  put(r.kind);
  put(r.op);
  put(r.elements);
  put(r.element_bytes);
  put(r.algorithms.size());
  for (const AlgorithmRef& algorithm : r.algorithms) (key += algorithm.name()) += '\0';
  put(r.groups.size());
  for (const auto& group : r.groups) {
    put(group.dims.size());
    for (const int d : group.dims) put(d);
    put(group.ranks.size());
    for (const auto rank : group.ranks) put(rank);
  }
  put(r.permutation.size());
  for (const auto& [src, dst] : r.permutation) {
    put(src);
    put(dst);
  }
  return key;
}

}  // namespace

struct Simulator::Impl {
  Impl(const topo::Topology& topology_in, SimOptions options_in)
      : topology(topology_in),
        options(options_in),
        engine(create_engine(options_in.network)),
        platform(topology) {}

  topo::Topology topology;
  SimOptions options;
  s4u::Engine* engine;
  Platform platform;
  std::vector<double> link_bytes;
  std::vector<TraceEvent> trace;
  std::vector<std::string> labels;
  std::uint64_t collectives_simulated = 0;
  std::unordered_map<std::string, CollectiveResult> isolated_results;  // by isolation_key

  // A concurrently running collective: what its actor reads while it runs.
  struct Concurrent {
    int id = 0;
    std::vector<CollectiveRequest> requests;
    std::vector<Schedule> schedules;
  };
  int next_concurrent_id = 0;
  int concurrent_in_flight = 0;
  std::vector<int> concurrent_ended;
  std::exception_ptr concurrent_failure;

  ExecutionInput input_for(const CollectiveRequest& request, const Schedule& schedule) const {
    ExecutionInput input;
    input.schedule = &schedule;
    input.participants = participants(request);
    input.element_bytes = request.element_bytes;
    input.op = request.op;
    input.data = request.data;
    input.reads_input = reads_buffers_at_start(request.kind);
    input.fold_repeated_rounds = options.fold_repeated_rounds;
    input.transfers = options.transfers;
    if (options.on_rounds) input.on_rounds = &options.on_rounds;
    return input;
  }
};

Simulator::Simulator(const topo::Topology& topology, SimOptions options) {
  if (g_engine_created) {
    throw InputError("a Simulator already exists in this process; SimGrid allows one simulation per process");
  }
  // A multislice pod's routes are computed when asked (multislice_zone.hpp), whatever its slices are.
  if (!topology.multislice() && !topology.wraparound() && topology.num_chips() > kMaxMeshChips) {
    throw InputError(
        fmt::format("topology '{}': meshes without wraparound are limited to {} chips, this one has {}",
                    topology.name(), kMaxMeshChips, topology.num_chips()));
  }
  if (options.isolated_collectives && options.record_trace) {
    throw InputError(
        "a Simulator with isolated collectives records no trace: its collectives run in children");
  }
  g_engine_created = true;
  impl_ = std::make_unique<Impl>(topology, options);
}

Simulator::~Simulator() = default;

const topo::Topology& Simulator::topology() const { return impl_->topology; }
const NameTable<NetworkModel>& network_models() {
  static const NameTable<NetworkModel> table("network model",
                                             {{"ideal", NetworkModel::ideal}, {"lv08", NetworkModel::lv08}});
  return table;
}

NetworkModel Simulator::network() const { return impl_->options.network; }

double Simulator::now_s() const { return s4u::Engine::get_clock(); }

CollectiveResult Simulator::run(const CollectiveRequest& request) { return run(request, true); }

bool Simulator::isolated_collectives() const { return impl_->options.isolated_collectives; }

std::uint64_t Simulator::collectives_simulated() const { return impl_->collectives_simulated; }

CollectiveResult Simulator::probe(const CollectiveRequest& request) {
  CollectiveRequest timing_only = request;
  timing_only.data = nullptr;
  return run(timing_only, false);
}

CollectiveResult Simulator::run(const CollectiveRequest& request, bool recorded) {
  validate_request(impl_->topology, request);
  if (impl_->options.isolated_collectives) {
    if (request.data != nullptr) {
      throw InputError(
          "a Simulator with isolated collectives runs timing only; this collective carries data");
    }
    std::string key;
    if (impl_->options.remember_isolated_results) {
      key = isolation_key(request);
      const auto it = impl_->isolated_results.find(key);
      if (it != impl_->isolated_results.end()) return it->second;
    }
    ++impl_->collectives_simulated;
    // The parent's engine never runs, so every child starts from the same state at clock 0.
    TPUSIM_CHECK(now_s() == 0);
    const ChildResult child = run_in_child([this, &request] {
      impl_->options.isolated_collectives = false;
      return result_text(run(request, false));
    });
    const std::optional<CollectiveResult> read = result_from_text(child.output);
    TPUSIM_CHECK(read.has_value());
    const CollectiveResult result = *read;
    if (impl_->options.remember_isolated_results) impl_->isolated_results.emplace(std::move(key), result);
    return result;
  }
  ++impl_->collectives_simulated;
  const Schedule schedule = build_schedule(impl_->topology, request);

  // The engine's clock is shared: a collective run alone while others are in flight would not be alone.
  TPUSIM_CHECK(impl_->concurrent_in_flight == 0);
  ExecutionInput input = impl_->input_for(request, schedule);
  input.label = static_cast<int>(impl_->labels.size());
  input.trace = impl_->options.record_trace && recorded ? &impl_->trace : nullptr;
  if (recorded) impl_->labels.push_back(request.label.empty() ? to_string(request.kind) : request.label);
  std::vector<double> unrecorded_link_bytes;
  std::vector<double>& link_bytes = recorded ? impl_->link_bytes : unrecorded_link_bytes;

  ExecutionStats stats;
  std::exception_ptr failure;
  auto* impl = impl_.get();
  const int ranks = impl_->topology.num_cores();
  const bool returned =
      run_driver(impl_->platform.host(0), [&stats, &failure, &input, &link_bytes, impl, ranks] {
        try {
          stats = execute(impl->platform, input, ranks, link_bytes);
        } catch (...) {
          failure = std::current_exception();
        }
      });
  TPUSIM_CHECK(returned);  // otherwise the driver waited for something that can never happen
  if (failure) std::rethrow_exception(failure);

  if (request.kind == CollectiveKind::permute && request.data != nullptr) {
    std::set<topo::Rank> receivers;
    for (const auto& [src, dst] : request.permutation) receivers.insert(dst);
    for (auto& [rank, buffer] : *request.data) {
      if (receivers.count(rank) == 0) std::fill(buffer.begin(), buffer.end(), 0.0f);
    }
  }

  CollectiveResult result;
  result.time_s = stats.end_s - stats.start_s;
  result.messages = stats.messages;
  result.simulated_messages = stats.simulated_messages;
  result.folded_rounds = stats.folded_rounds;
  result.bytes_per_member = request.elements * request.element_bytes;
  result.group_size = largest_group(request);
  if (result.time_s > 0) {
    result.algbw_Bps = static_cast<double>(result.bytes_per_member) / result.time_s;
    result.busbw_Bps = result.algbw_Bps * busbw_factor(request.kind, result.group_size);
  }
  return result;
}

int Simulator::start_concurrent(const std::vector<CollectiveRequest>& in_turn) {
  if (impl_->options.isolated_collectives) {
    throw InputError(
        "collectives that run at the same time share one clock; this Simulator isolates each one");
  }
  auto running = std::make_shared<Impl::Concurrent>();
  running->id = impl_->next_concurrent_id++;
  for (const auto& request : in_turn) {
    validate_request(impl_->topology, request);
    running->requests.push_back(request);
    running->requests.back().data = nullptr;
    running->schedules.push_back(build_schedule(impl_->topology, request));
  }
  ++impl_->concurrent_in_flight;
  auto* impl = impl_.get();
  s4u::Actor::create("concurrent", impl_->platform.host(0), [impl, running] {
    try {
      std::vector<double> link_bytes;  // unrecorded
      for (std::size_t i = 0; i < running->requests.size(); ++i) {
        ExecutionInput input = impl->input_for(running->requests[i], running->schedules[i]);
        input.fold_repeated_rounds = false;
        execute(impl->platform, input, impl->topology.num_cores(), link_bytes);
      }
    } catch (...) {
      if (!impl->concurrent_failure) impl->concurrent_failure = std::current_exception();
    }
    impl->concurrent_ended.push_back(running->id);
    pause_engine();
  });
  return running->id;
}

std::vector<int> Simulator::advance_concurrent(double until_s) {
  if (impl_->concurrent_ended.empty()) {
    // With nothing in flight, only the date can stop the run.
    TPUSIM_CHECK(impl_->concurrent_in_flight > 0 || until_s < std::numeric_limits<double>::infinity());
    // Each end pauses the run; the clock cannot pass until_s, nor an end, without stopping there.
    const bool paused = run_engine_until(until_s);
    TPUSIM_CHECK(paused);  // otherwise a collective waited for something that can never happen
  }
  if (impl_->concurrent_failure) {
    auto failure = impl_->concurrent_failure;
    impl_->concurrent_failure = nullptr;
    std::rethrow_exception(failure);
  }
  std::vector<int> ended;
  ended.swap(impl_->concurrent_ended);
  impl_->concurrent_in_flight -= static_cast<int>(ended.size());
  std::sort(ended.begin(), ended.end());
  return ended;
}

int Simulator::concurrent_in_flight() const { return impl_->concurrent_in_flight; }

std::vector<int> Simulator::links_crossed(const CollectiveRequest& request) {
  validate_request(impl_->topology, request);
  const Schedule schedule = build_schedule(impl_->topology, request);
  std::vector<char> crossed;
  std::vector<Transfer> round;
  for (std::size_t r = 0; r < schedule.round_count(); ++r) {
    if (r > 0 && schedule.repeats_previous(r)) continue;  // between the same ranks as the round before
    round.clear();
    schedule.append_round(r, round);
    for (const auto& t : round) {
      for (const int link : impl_->platform.route(t.src, t.dst)) {
        if (link >= static_cast<int>(crossed.size())) crossed.resize(link + 1, 0);
        crossed[link] = 1;
      }
    }
  }
  std::vector<int> links;
  for (int link = 0; link < static_cast<int>(crossed.size()); ++link) {
    if (crossed[link]) links.push_back(link);
  }
  return links;
}

std::vector<LinkLoad> Simulator::link_loads() const {
  std::vector<LinkLoad> loads;
  const auto& links = impl_->platform.links();
  for (std::size_t i = 0; i < impl_->link_bytes.size(); ++i) {
    if (impl_->link_bytes[i] <= 0) continue;
    loads.push_back({links[i].name, impl_->link_bytes[i], impl_->link_bytes[i] / links[i].bandwidth_Bps,
                     links[i].bandwidth_Bps});
  }
  std::stable_sort(loads.begin(), loads.end(), [](const LinkLoad& a, const LinkLoad& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.link < b.link;
  });
  return loads;
}

std::string result_text(const CollectiveResult& r) {
  return fmt::format("{} {} {} {} {} {} {} {}", r.time_s, r.messages, r.bytes_per_member, r.group_size,
                     r.algbw_Bps, r.busbw_Bps, r.simulated_messages, r.folded_rounds);
}

std::optional<CollectiveResult> result_from_text(const std::string& text) {
  CollectiveResult r;
  const char* at = text.data();
  const char* end = at + text.size();
  const bool read = read_field(at, end, r.time_s) && read_field(at, end, r.messages) &&
                    read_field(at, end, r.bytes_per_member) && read_field(at, end, r.group_size) &&
                    read_field(at, end, r.algbw_Bps) && read_field(at, end, r.busbw_Bps) &&
                    read_field(at, end, r.simulated_messages) && read_field(at, end, r.folded_rounds);
  if (!read || at != end) return std::nullopt;
  return r;
}

std::string Simulator::identity() const {
  const topo::Topology& t = impl_->topology;
  std::vector<std::string> twists;
  for (const auto& twist : t.twists()) twists.push_back(twist.text());
  const SimOptions& o = impl_->options;
  return fmt::format(
      "chips {} wraparound {} cores {} inter-chip {} B/s {} s intra-chip {} B/s {} s faults '{}' twists '{}' "
      "network {} fold {} transfers {}",
      fmt::join(t.chip_dims(), "x"), t.wraparound(), t.cores_per_chip(), t.inter_chip().bandwidth_Bps(),
      t.inter_chip().latency_s(), t.intra_chip().bandwidth_Bps(), t.intra_chip().latency_s(),
      t.faults().text(), fmt::join(twists, ";"), network_models().name_of(o.network), o.fold_repeated_rounds,
      static_cast<int>(o.transfers));
}

std::vector<std::pair<std::string, CollectiveResult>> Simulator::remembered_results() const {
  std::vector<std::pair<std::string, CollectiveResult>> out(impl_->isolated_results.begin(),
                                                            impl_->isolated_results.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

void Simulator::remember_results(const std::vector<std::pair<std::string, CollectiveResult>>& results) {
  for (const auto& [key, result] : results) impl_->isolated_results.emplace(key, result);
}

std::string simgrid_version() {
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  return fmt::format("{}.{}.{}", major, minor, patch);
}

void Simulator::write_chrome_trace(const std::string& path) const {
  if (!impl_->options.record_trace) {
    throw InputError("write_chrome_trace needs SimOptions::record_trace (the command line's --trace)");
  }
  write_chrome_trace_file(path, impl_->topology, impl_->trace, impl_->labels);
}

}  // namespace tpusim::sim
