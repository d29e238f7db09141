#include "mesh_tf/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/units.hpp"

namespace tpusim::mtf {

namespace {

// Time in [begin, end) covered by `intervals` (sorted and disjoint).
double covered(const std::vector<std::pair<double, double>>& intervals, double begin, double end) {
  auto it = std::lower_bound(intervals.begin(), intervals.end(), std::make_pair(begin, begin),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
  double overlap = 0;
  for (; it != intervals.end() && it->first < end; ++it) {
    overlap += std::max(0.0, std::min(it->second, end) - std::max(it->first, begin));
  }
  return overlap;
}

// Where collectives overlap, each one's exposed time is its share of the time no compute ran while it was in
// flight, split evenly among the collectives in flight then, so that the shares add up to the step's exposed
// time instead of counting it once per collective.
void share_exposed_time(std::vector<TimelineEntry>& entries,
                        const std::vector<std::pair<double, double>>& compute) {
  std::vector<TimelineEntry*> comms, open;
  std::vector<double> instants;
  for (auto& e : entries) {
    if (!e.is_comm) continue;
    e.exposed_s = 0;
    comms.push_back(&e);
    instants.push_back(e.start_s);
    instants.push_back(e.end_s);
  }
  std::sort(instants.begin(), instants.end());
  instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
  for (std::size_t i = 0; i + 1 < instants.size(); ++i) {
    const double begin = instants[i], end = instants[i + 1];
    open.clear();
    for (auto* e : comms) {
      if (e->start_s <= begin && e->end_s >= end) open.push_back(e);
    }
    if (open.empty()) continue;
    const double exposed = end - begin - covered(compute, begin, end);
    for (auto* e : open) e->exposed_s += exposed / static_cast<double>(open.size());
  }
}

}  // namespace

void finalize_timeline(Timeline& timeline) {
  std::vector<std::pair<double, double>> compute, comm;
  timeline.step_time_s = timeline.compute_s = timeline.comm_s = timeline.exposed_comm_s = timeline.idle_s = 0;
  for (const auto& e : timeline.entries) {
    timeline.step_time_s = std::max(timeline.step_time_s, e.end_s);
    if (e.end_s > e.start_s) (e.is_comm ? comm : compute).emplace_back(e.start_s, e.end_s);
  }
  // The compute stream is serial, so its intervals are sorted and disjoint.
  for (auto& e : timeline.entries) {
    const double duration = e.end_s - e.start_s;
    if (!e.is_comm) {
      timeline.compute_s += duration;
      continue;
    }
    timeline.comm_s += duration;
    e.exposed_s = duration - covered(compute, e.start_s, e.end_s);
    timeline.exposed_comm_s += e.exposed_s;
  }
  // Collectives on different streams may run at once (overlap_policy.hpp): then the totals count the time
  // any was in flight once. One stream's collectives never overlap, and keep the sums above to the bit.
  std::sort(comm.begin(), comm.end());
  std::vector<std::pair<double, double>> in_flight;
  for (const auto& interval : comm) {
    if (!in_flight.empty() && interval.first < in_flight.back().second) {
      in_flight.back().second = std::max(in_flight.back().second, interval.second);
    } else {
      in_flight.push_back(interval);
    }
  }
  if (in_flight.size() < comm.size()) {
    timeline.comm_s = timeline.exposed_comm_s = 0;
    for (const auto& [begin, end] : in_flight) {
      timeline.comm_s += end - begin;
      timeline.exposed_comm_s += end - begin - covered(compute, begin, end);
    }
    share_exposed_time(timeline.entries, compute);
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

}  // namespace tpusim::mtf
