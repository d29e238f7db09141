#include "mesh_tf/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::mtf {

void finalize_timeline(Timeline& timeline) {
  std::vector<std::pair<double, double>> compute;
  timeline.step_time_s = timeline.compute_s = timeline.comm_s = timeline.exposed_comm_s = timeline.idle_s = 0;
  for (const auto& e : timeline.entries) {
    timeline.step_time_s = std::max(timeline.step_time_s, e.end_s);
    if (!e.is_comm && e.end_s > e.start_s) compute.emplace_back(e.start_s, e.end_s);
  }
  // The compute stream is serial, so its intervals are sorted and disjoint.
  for (auto& e : timeline.entries) {
    const double duration = e.end_s - e.start_s;
    if (!e.is_comm) {
      timeline.compute_s += duration;
      continue;
    }
    timeline.comm_s += duration;
    auto it = std::lower_bound(compute.begin(), compute.end(), std::make_pair(e.start_s, e.start_s),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
    double overlap = 0;
    for (; it != compute.end() && it->first < e.end_s; ++it) {
      overlap += std::max(0.0, std::min(it->second, e.end_s) - std::max(it->first, e.start_s));
    }
    e.exposed_s = duration - overlap;
    timeline.exposed_comm_s += e.exposed_s;
  }
  // The three parts are sums of different events, so a true zero comes back as rounding noise.
  const double idle_s = timeline.step_time_s - timeline.compute_s - timeline.exposed_comm_s;
  timeline.idle_s = idle_s > 1e-9 * timeline.step_time_s ? idle_s : 0.0;
}

std::string Timeline::summary(int max_rows) const {
  std::string out =
      fmt::format("step {}  compute {}  comm {}  exposed comm {}\n", format_duration(step_time_s),
                  format_duration(compute_s), format_duration(comm_s), format_duration(exposed_comm_s));
  // The longest entries first.
  std::vector<const TimelineEntry*> rows;
  for (const auto& e : entries) rows.push_back(&e);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return a->end_s - a->start_s > b->end_s - b->start_s;
  });
  out += fmt::format("  {:<44} {:>7} {:>12} {:>12} {:>12}\n", "operation", "stream", "start", "duration",
                     "exposed");
  for (int i = 0; i < static_cast<int>(rows.size()) && i < max_rows; ++i) {
    const auto& e = *rows[i];
    out += fmt::format("  {:<44} {:>7} {:>12} {:>12} {:>12}\n", e.label.substr(0, 44),
                       e.is_comm ? "comm" : "compute", format_duration(e.start_s),
                       format_duration(e.end_s - e.start_s), e.is_comm ? format_duration(e.exposed_s) : "");
  }
  return out;
}

void Timeline::write_chrome_trace(const std::string& path) const {
  const std::string temp = path + ".tmp";
  {
    std::ofstream file(temp);
    if (!file) throw InputError(fmt::format("cannot write trace file '{}'", path));
    file << "{\"traceEvents\":[\n";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      std::string label;
      for (const char c : e.label) label += (c == '"' || c == '\\') ? '_' : c;
      file << fmt::format(
          "{{\"name\":\"{}\",\"ph\":\"X\",\"pid\":0,\"tid\":{},\"ts\":{:.3f},\"dur\":{:.3f}}}{}\n", label,
          e.is_comm ? 1 : 0, e.start_s * 1e6, (e.end_s - e.start_s) * 1e6, i + 1 < entries.size() ? "," : "");
    }
    file << "]}\n";
    if (!file) throw InputError(fmt::format("cannot write trace file '{}'", path));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    throw InputError(fmt::format("cannot move trace file into place at '{}'", path));
  }
}

}  // namespace tpusim::mtf
