#include <fmt/format.h>

#include <map>
#include <set>

#include "topologies/rank_mapping.hpp"
#include "workloads/report/result_files.hpp"

namespace tpusim::workloads {

void write_chrome_trace(std::ostream& out, const RunConfig& config, const RunReport& report, int max_chips) {
  const auto& topology = config.hardware.topology;
  const int chips = max_chips > 0 ? std::min(max_chips, topology.num_chips()) : topology.num_chips();
  // Every chip repeats the step's events with its own pid, so each event is formatted once, as the text
  // before its pid and the text after it: formatting hundreds of thousands of times is what writing costs.
  std::vector<std::string> before_pid, after_pid;
  for (const auto& entry : report.timeline.entries) {
    // What bounded a compute slice, how much of a collective compute waited for (tpusim run --explain has
    // the rest); kept short, since every chip repeats the events.
    const std::string args = entry.is_comm ? nlohmann::json{{"exposed_us", entry.exposed_s * 1e6}}.dump()
                                           : nlohmann::json{{"bound", to_string(entry.bound)}}.dump();
    before_pid.push_back(fmt::format(R"({{"name":{},"cat":"{}","ph":"X","ts":{:.4f},"dur":{:.4f},"pid":)",
                                     nlohmann::json(entry.label).dump(),
                                     entry.is_comm ? "collective" : "compute", entry.start_s * 1e6,
                                     (entry.end_s - entry.start_s) * 1e6));
    after_pid.push_back(fmt::format(R"(,"tid":{},"args":{}}})", entry.stream, args));
  }
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
      << nlohmann::json{{"run", config.name},
                        {"topology", topology.name()},
                        {"mesh", config.mesh.shape_text()},
                        {"mapping", report.mesh_mapping}}
             .dump()
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
  for (int chip = 0; chip < chips; ++chip) {
    const auto coord = topo::chip_coord(topology, chip);
    std::string where;
    for (std::size_t i = 0; i < coord.size(); ++i)
      where += fmt::format("{}{}={}", i ? ", " : "", "xyz"[i], coord[i]);
    const int cores = topology.cores_per_chip();
    comma();
    out << fmt::format(
        R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"chip {} ({}), cores {}-{}"}}}})", chip,
        chip, where, chip * cores, chip * cores + cores - 1);
    comma();
    out << fmt::format(R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})",
                       chip, chip);
    comma();
    out << fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":0,"args":{{"name":"compute"}}}})",
                       chip);
    for (const auto& [stream, name] : stream_names) {
      comma();
      out << fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                         chip, stream, name);
    }
    const std::string pid = std::to_string(chip);
    for (std::size_t i = 0; i < before_pid.size(); ++i) {
      comma();
      out << before_pid[i] << pid << after_pid[i];
    }
  }
  out << "\n]}\n";
}

}  // namespace tpusim::workloads
