#include "workloads/report/step_explanation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include "topologies/support/units.hpp"

namespace tpusim::workloads {
namespace {

const char* const kOverhead = "per-op overhead";
const char* const kExposed = "exposed communication";
const char* const kIdle = "idle";
constexpr std::size_t kWaitRows = 20;  // the text's; the JSON lists every one

// Adds time to the share of that name, keeping first-seen order.
void add(std::vector<TimeShare>& shares, const std::string& name, double time_s) {
  const auto it =
      std::find_if(shares.begin(), shares.end(), [&](const TimeShare& s) { return s.name == name; });
  if (it == shares.end()) {
    shares.push_back({name, time_s});
  } else {
    it->time_s += time_s;
  }
}

std::string percent(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100 * part / whole) : "-";
}

}  // namespace

StepExplanation explain_step(const mtf::Timeline& timeline, double peak_flops, int top_ops) {
  StepExplanation out;
  out.step_time_s = timeline.step_time_s;
  out.peak_flops = peak_flops;
  for (const char* bound :
       {to_string(mtf::ComputeBound::matrix_unit), to_string(mtf::ComputeBound::vector_unit),
        to_string(mtf::ComputeBound::flop_rate), to_string(mtf::ComputeBound::hbm_bandwidth), kOverhead,
        kExposed, kIdle})
    out.by_bound.push_back({bound, 0});
  // Per graph op, in order of first step: its figures and its time per bound, to name the main one.
  struct OpSum {
    ExplainedOp op;
    std::map<std::string, double> bound_s;
  };
  std::vector<OpSum> ops;
  std::map<int, std::size_t> index_of_op;
  for (const auto& e : timeline.entries) {
    const double duration = e.end_s - e.start_s;
    if (e.is_comm) {
      if (e.exposed_s > 0) add(out.by_family, e.family + " (exposed)", e.exposed_s);
      continue;
    }
    const double bounded_s = std::max(0.0, duration - e.overhead_s);
    add(out.by_bound, to_string(e.bound), bounded_s);
    add(out.by_bound, kOverhead, duration - bounded_s);
    add(out.by_family, e.family, duration);
    const auto [at, inserted] = index_of_op.try_emplace(e.op, ops.size());
    if (inserted) {
      ops.emplace_back();
      ops.back().op.op = e.label;
      ops.back().op.family = e.family;
    }
    OpSum& sum = ops[at->second];
    ++sum.op.steps;
    sum.op.time_s += duration;
    sum.op.flops += e.flops;
    sum.op.hbm_bytes += e.hbm_bytes;
    sum.bound_s[to_string(e.bound)] += bounded_s;
  }
  add(out.by_bound, kExposed, timeline.exposed_comm_s);
  add(out.by_bound, kIdle, timeline.idle_s);
  // A compute bound no op had (the FLOP rate while both units are timed, a unit whose timing is off) is
  // left out; overhead, exposed communication and idle are always listed.
  const std::set<std::string> always{kOverhead, kExposed, kIdle};
  out.by_bound.erase(std::remove_if(out.by_bound.begin(), out.by_bound.end(),
                                    [&](const TimeShare& share) {
                                      return share.time_s == 0 && always.count(share.name) == 0;
                                    }),
                     out.by_bound.end());
  for (auto& sum : ops) {
    const auto main = std::max_element(sum.bound_s.begin(), sum.bound_s.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    sum.op.bound = main != sum.bound_s.end() && main->second > 0 ? main->first : kOverhead;
    out.top_ops.push_back(std::move(sum.op));
  }
  std::stable_sort(out.top_ops.begin(), out.top_ops.end(),
                   [](const ExplainedOp& a, const ExplainedOp& b) { return a.time_s > b.time_s; });
  if (static_cast<int>(out.top_ops.size()) > top_ops) out.top_ops.resize(top_ops);
  std::map<int, std::string> waiter_of;  // by the step of the collective waited for
  for (const auto& e : timeline.entries) {
    if (e.waited_for >= 0) waiter_of[e.waited_for] = e.label;
  }
  for (const auto& e : timeline.entries) {
    if (!e.is_comm || e.exposed_s <= 0) continue;
    const auto waiter = waiter_of.find(e.step);
    out.waits.push_back({e.label, e.family, e.exposed_s, waiter == waiter_of.end() ? "" : waiter->second});
  }
  std::stable_sort(out.waits.begin(), out.waits.end(),
                   [](const ExposedWait& a, const ExposedWait& b) { return a.exposed_s > b.exposed_s; });
  std::stable_sort(out.by_family.begin(), out.by_family.end(),
                   [](const TimeShare& a, const TimeShare& b) { return a.time_s > b.time_s; });
  return out;
}

void print_explanation(std::ostream& out, const StepExplanation& x) {
  out << fmt::format("\nwhy the step takes {} (per core; every core runs the same program)\n",
                     format_duration(x.step_time_s));
  out << "  by bound\n";
  for (const auto& share : x.by_bound) {
    out << fmt::format("    {:<24} {:>12}  {:>6}\n", share.name, format_duration(share.time_s),
                       percent(share.time_s, x.step_time_s));
  }
  out << "  by op kind\n";
  for (const auto& share : x.by_family) {
    out << fmt::format("    {:<24} {:>12}  {:>6}\n", share.name, format_duration(share.time_s),
                       percent(share.time_s, x.step_time_s));
  }
  out << fmt::format("  the {} longest ops\n", x.top_ops.size());
  out << fmt::format("    {:<36} {:<10} {:>5} {:>11} {:>10} {:>10} {:>13} {:>6}  {}\n", "op", "kind", "steps",
                     "time", "FLOP", "HBM bytes", "FLOP/s", "of peak", "bound");
  for (const auto& op : x.top_ops) {
    const double rate = op.flops_per_s();
    out << fmt::format("    {:<36} {:<10} {:>5} {:>11} {:>10.3g} {:>10} {:>13} {:>6}  {}\n",
                       op.op.substr(0, 36), op.family, op.steps, format_duration(op.time_s), op.flops,
                       format_bytes(op.hbm_bytes), fmt::format("{:.3g}", rate), percent(rate, x.peak_flops),
                       op.bound);
  }
  if (x.waits.empty()) {
    out << "  no collective kept compute waiting\n";
    return;
  }
  double total_s = 0;
  for (const auto& w : x.waits) total_s += w.exposed_s;
  out << fmt::format(
      "  {} collective{} kept compute waiting, {} in all; the longest (exposed time, the op that "
      "waited)\n",
      x.waits.size(), x.waits.size() == 1 ? "" : "s", format_duration(total_s));
  for (std::size_t i = 0; i < x.waits.size() && i < kWaitRows; ++i) {
    const auto& w = x.waits[i];
    out << fmt::format("    {:<52} {:>11}  {}\n", w.collective.substr(0, 52), format_duration(w.exposed_s),
                       w.waiting_op.empty() ? "(the end of the step)" : w.waiting_op);
  }
}

nlohmann::json explanation_json(const StepExplanation& x) {
  auto shares = [](const std::vector<TimeShare>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : list) out.push_back({{"name", s.name}, {"time_s", s.time_s}});
    return out;
  };
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& op : x.top_ops) {
    ops.push_back({{"op", op.op},
                   {"kind", op.family},
                   {"steps", op.steps},
                   {"time_s", op.time_s},
                   {"flops", op.flops},
                   {"hbm_bytes", op.hbm_bytes},
                   {"flops_per_s", op.flops_per_s()},
                   {"bound", op.bound}});
  }
  nlohmann::json waits = nlohmann::json::array();
  for (const auto& w : x.waits) {
    waits.push_back(
        {{"collective", w.collective},
         {"kind", w.kind},
         {"exposed_s", w.exposed_s},
         {"waiting_op", w.waiting_op.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.waiting_op)}});
  }
  return {{"step_time_s", x.step_time_s},
          {"by_bound", shares(x.by_bound)},
          {"by_op_kind", shares(x.by_family)},
          {"top_ops", ops},
          {"exposed_collectives", waits}};
}

}  // namespace tpusim::workloads
