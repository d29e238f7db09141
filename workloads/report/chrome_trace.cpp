#include "workloads/report/chrome_trace.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "topologies/rank_mapping.hpp"
#include "workloads/report/chip_faults.hpp"
#include "workloads/report/trace_plan.hpp"

namespace tpusim::workloads {
namespace {

// Why one chip's tracks may stand for others, for the trace's metadata.
constexpr const char* kSameTimeline =
    "Every chip runs the same simulated timeline: the program is SPMD, a collective is timed until its last "
    "member finishes, and a straggler sets every core's pace. So a process shows the step of each chip it "
    "stands for, and chips without tracks of their own run the same step.";

// A process name lists the chips it stands for up to about this many characters; otherData lists them all.
constexpr std::size_t kMaxNamedChipsChars = 80;

std::string chip_place(const topo::Topology& topology, int chip) {
  const auto coord = topo::chip_coord(topology, chip);
  std::string where;
  for (std::size_t i = 0; i < coord.size(); ++i)
    where += fmt::format("{}{}={}", i ? ", " : "",
                         i < topology.chip_dims().size() ? std::string(1, "xyz"[i]) : "slice",  // multislice
                         coord[i]);
  const int cores = topology.cores_per_chip();
  return fmt::format("chip {} ({}), cores {}-{}", chip, where, chip * cores, chip * cores + cores - 1);
}

std::string process_name(const topo::Topology& topology, const TraceProcess& process,
                         const std::vector<ChipFaults>& faults) {
  std::string name = chip_place(topology, process.chip);
  if (process.chips.size() == 1) {
    const auto& chip = faults[static_cast<std::size_t>(process.chip)];
    return chip.healthy() ? name : name + ": " + chip.detail(topology);
  }
  if (static_cast<int>(process.chips.size()) == topology.num_chips()) {
    return fmt::format("{}, for all {} chips", name, process.chips.size());
  }
  std::string chips = chip_ranges(process.chips);
  if (chips.size() > kMaxNamedChipsChars) {
    chips = chips.substr(0, chips.rfind(", ", kMaxNamedChipsChars)) + ", ... (otherData lists them all)";
  }
  return fmt::format("{}, for {} chips ({}): {}", name, process.chips.size(), process.faults, chips);
}

nlohmann::json trace_metadata(const RunConfig& config, const RunReport& report, const TracePlan& plan,
                              const std::vector<ChipFaults>& faults) {
  const auto& topology = config.hardware.topology;
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& process : plan.processes) {
    nlohmann::json entry = {{"pid", process.chip},
                            {"stands_for", chip_ranges(process.chips)},
                            {"chips", process.chips.size()},
                            {"faults", process.faults}};
    // A class shares a kind of fault, not the fault: which link or factor touches each chip.
    if (process.faults != kHealthyChip) {
      for (const int chip : process.chips) {
        entry["chip_faults"][std::to_string(chip)] = faults[static_cast<std::size_t>(chip)].detail(topology);
      }
    }
    processes.push_back(std::move(entry));
  }
  return {{"run", config.name},
          {"topology", topology.name()},
          {"mesh", config.mesh.shape_text()},
          {"mapping", report.mesh_mapping},
          {"faults", topology.faults().text()},
          {"chips", plan.pod_chips},
          {"trace_chips", to_string(plan.selection)},
          {"processes", processes},
          {"chips_without_tracks", chip_ranges(plan.left_out)},
          {"timeline", kSameTimeline}};
}

}  // namespace

void write_chrome_trace(std::ostream& out, const RunConfig& config, const RunReport& report,
                        const TraceSelection& selection) {
  const auto& topology = config.hardware.topology;
  const TracePlan plan = plan_trace(topology, selection);
  // Every process repeats the step's events with its own pid, so each event is formatted once, as the text
  // before its pid and the text after it: formatting hundreds of thousands of times is what writing costs.
  std::vector<std::string> before_pid, after_pid;
  for (const auto& entry : report.timeline.entries) {
    // What bounded a compute slice, how much of a collective compute waited for (tpusim run --explain has
    // the rest); kept short, since every process repeats the events.
    const std::string args = entry.is_comm ? nlohmann::json{{"exposed_us", entry.exposed_s * 1e6}}.dump()
                                           : nlohmann::json{{"bound", to_string(entry.bound)}}.dump();
    before_pid.push_back(fmt::format(R"({{"name":{},"cat":"{}","ph":"X","ts":{:.4f},"dur":{:.4f},"pid":)",
                                     nlohmann::json(entry.label).dump(),
                                     entry.is_comm ? "collective" : "compute", entry.start_s * 1e6,
                                     (entry.end_s - entry.start_s) * 1e6));
    after_pid.push_back(fmt::format(R"(,"tid":{},"args":{}}})", entry.stream, args));
  }
  const auto faults = faults_by_chip(topology);
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":" << trace_metadata(config, report, plan, faults).dump()
      << ",\"traceEvents\":[\n";
  // One track per communication stream that ran something: under the concurrent overlap policy, stream
  // 1 + d carries the collectives along mesh dimension d (mesh_tf/step_schedule.hpp).
  std::set<int> streams;
  for (const auto& entry : report.timeline.entries) {
    if (entry.is_comm) streams.insert(entry.stream);
  }
  std::map<int, std::string> stream_names;
  for (const int stream : streams) {
    const int mesh_dim = stream - 1;
    stream_names[stream] =
        config.hardware.overlap == mtf::OverlapPolicy::concurrent && mesh_dim < config.mesh.shape.rank()
            ? "collectives along " + config.mesh.shape.dim_name(mesh_dim)
            : "collectives";
  }
  bool first = true;
  auto comma = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (std::size_t order = 0; order < plan.processes.size(); ++order) {
    const auto& process = plan.processes[order];
    const int pid = process.chip;
    comma();
    out << fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})", pid,
                       nlohmann::json(process_name(topology, process, faults)).dump());
    // In the plan's order: the healthy chips' class first, then the chips faults touch.
    comma();
    out << fmt::format(R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})",
                       pid, order);
    comma();
    out << fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":0,"args":{{"name":"compute"}}}})",
                       pid);
    for (const auto& [stream, name] : stream_names) {
      comma();
      out << fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                         pid, stream, name);
    }
    const std::string pid_text = std::to_string(pid);
    for (std::size_t i = 0; i < before_pid.size(); ++i) {
      comma();
      out << before_pid[i] << pid_text << after_pid[i];
    }
  }
  out << "\n]}\n";
}

}  // namespace tpusim::workloads
