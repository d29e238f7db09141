// tpusim validate: algorithms x message sizes x topologies, each simulated collective checked against the
// analytical figures of bounds.md. One child process per topology (SimGrid: one engine per process). Writes
// results/validate/validate.csv and validate.json atomically; exit status 1 when a check fails.
//
// Checks on every row (ideal network):
//   bound     simulated >= the algorithm-independent lower bound
//   path      simulated >= the contention-free alpha-beta critical path (links shared can only slow it down)
//   exact     contention-free rows: simulated == that critical path to 1e-6 relative
//   formula   rows with a bounds.md closed form (one hop over identical links, sizes dividing evenly):
//             closed form == critical path to 1e-6
//   busbw     busbw <= the injection bandwidth of a core
//   routing   the 8x8 one-shot all-to-all: the busiest link carries 80 pair-messages where the bisection
//             bound assumes 64 (dimension-order routing breaks k/2 ties by position), and the simulated time
//             is that link's load / B plus at most the diameter's latency
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/child_process.hpp"
#include "sim/measurement.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"

namespace tpusim::cli {
namespace {

struct Row {
  const char* op;
  const char* algorithms;
  const char* group_axes;  // "" = default
  std::vector<const char*> sizes;
};

struct TopologyRows {
  const char* topology;
  std::vector<Row> rows;
};

const std::vector<const char*> kSizes = {"1KiB", "1MiB", "64MiB", "1GiB"};

const std::vector<TopologyRows>& table() {
  static const std::vector<TopologyRows> entries = {
      {"ring-8",
       {{"allreduce", "ring", "", kSizes},
        {"allreduce", "bidir_ring", "", kSizes},
        {"allreduce", "halving_doubling", "", kSizes},
        {"reduce_scatter", "ring", "", kSizes},
        {"reduce_scatter", "bidir_ring", "", kSizes},
        {"allgather", "ring", "", kSizes},
        {"allgather", "bidir_ring", "", kSizes},
        {"alltoall", "pairwise", "", kSizes},
        {"broadcast", "binomial", "", kSizes},
        {"broadcast", "pipeline", "", kSizes},
        {"permute", "direct", "", kSizes}}},
      {"torus-4x4",
       {{"allreduce", "ring", "", kSizes},
        {"allreduce", "bidir_ring", "", kSizes},
        {"allreduce", "bucket2d", "", kSizes},
        {"allreduce", "halving_doubling", "", kSizes},
        {"allreduce", "ring,bidir_ring", "x,y", kSizes},
        {"allgather", "halving_doubling", "", kSizes},
        {"alltoall", "pairwise", "", kSizes}}},
      {"torus:2x2x2",
       {{"allreduce", "halving_doubling", "x,y,z", kSizes},
        {"reduce_scatter", "halving_doubling", "x,y,z", kSizes},
        {"allgather", "halving_doubling", "x,y,z", kSizes}}},
      {"torus:6",
       {{"allreduce", "halving_doubling", "", kSizes},
        {"allreduce", "ring", "", kSizes},
        {"reduce_scatter", "halving_doubling", "", kSizes}}},
      {"torus-4x4x4", {{"allreduce", "bucket2d", "x,y+z", kSizes}, {"allreduce", "ring", "", kSizes}}},
      {"mesh-4x4", {{"allreduce", "ring", "", kSizes}, {"allreduce", "bucket2d", "", kSizes}}},
      {"tpu-v2-32", {{"allreduce", "bucket2d", "", kSizes}, {"allreduce", "bidir_ring", "", kSizes}}},
      {"torus-8x8", {{"allreduce", "bucket2d", "", kSizes}, {"alltoall", "direct", "", {"64MiB"}}}},
      {"tpu-v2-pod", {{"allreduce", "bucket2d", "", kSizes}}},
  };
  return entries;
}

bool close(double a, double b, double relative) {
  return std::fabs(a - b) <= relative * std::max(std::fabs(b), 1e-300);
}

// Runs in the child: every row of one topology on one simulator, measured as clock differences.
std::string run_topology(const TopologyRows& entry) {
  const auto topology = topo::topology_from_spec(entry.topology);
  sim::Simulator simulator(topology);
  const double injection = sim::injection_bandwidth_Bps(topology);
  const double diameter_latency =
      topo::graph_figures(topology).diameter_hops * topology.inter_chip().latency_s();
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : entry.rows) {
    for (const char* size : row.sizes) {
      sim::CollectiveSpec spec;
      spec.op = row.op;
      spec.algorithms = row.algorithms;
      spec.group_axes = row.group_axes;
      spec.bytes = size;
      const auto built = sim::build_request(topology, spec);
      const auto m = sim::measure(simulator, built, false);
      const auto& r = m.result;
      const auto& p = m.prediction;
      std::vector<std::string> checks, failed;
      auto check = [&](const char* name, bool ok) {
        checks.push_back(name);
        if (!ok) failed.push_back(name);
      };
      check("bound", r.time_s >= m.bound.time_s * (1 - 1e-9));
      check("path", r.time_s >= p.time_s * (1 - 1e-9));
      if (p.contention_free) check("exact", close(r.time_s, p.time_s, 1e-6));
      const std::uint64_t p_total = static_cast<std::uint64_t>(r.group_size);
      if (p.closed_form_s >= 0 && p.contention_free && built.request.elements % (2 * p_total) == 0) {
        check("formula", close(p.closed_form_s, p.time_s, 1e-6));
      }
      check("busbw", r.busbw_Bps <= injection * (1 + 1e-9));
      const bool routing_row =
          std::string(entry.topology) == "torus-8x8" && std::string(row.op) == "alltoall";
      if (routing_row) {
        check("routing", close(p.max_link_time_s / m.bound.bisection_s, 80.0 / 64.0, 1e-9) &&
                             r.time_s >= p.max_link_time_s * (1 - 1e-9) &&
                             r.time_s <= p.max_link_time_s + diameter_latency);
      }
      rows.push_back({{"topology", entry.topology},
                      {"op", row.op},
                      {"algorithms", row.algorithms},
                      {"group_axes", built.group_axes},
                      {"group_size", r.group_size},
                      {"groups", built.request.groups.size()},
                      {"bytes", r.bytes_per_member},
                      {"simulated_s", r.time_s},
                      {"prediction_s", p.time_s},
                      {"contention_free", p.contention_free},
                      {"closed_form_s", p.closed_form_s},
                      {"lower_bound_s", m.bound.time_s},
                      {"lower_bound_term", m.bound.binding},
                      {"busiest_link_bound_s", p.max_link_time_s},
                      {"algbw_Bps", r.algbw_Bps},
                      {"busbw_Bps", r.busbw_Bps},
                      {"messages", r.messages},
                      {"simulated_messages", r.simulated_messages},
                      {"checks", join(checks, "+")},
                      {"failed", join(failed, "+")}});
    }
  }
  return rows.dump();
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

std::string csv(const nlohmann::json& rows) {
  std::ostringstream out;
  out << "topology,op,algorithms,group_axes,group_size,groups,bytes,simulated_s,prediction_s,contention_free,"
         "closed_form_s,lower_bound_s,lower_bound_term,busiest_link_bound_s,ratio_to_prediction,ratio_to_"
         "lower_bound,"
         "algbw_Bps,busbw_Bps,messages,simulated_messages,checks,status\n";
  for (const auto& r : rows) {
    const double sim_s = r["simulated_s"];
    out << fmt::format(
        "{},{},\"{}\",\"{}\",{},{},{},{:.12g},{:.12g},{},{:.12g},{:.12g},{},{:.12g},{:.9f},{:.6f},{:.6g},{:."
        "6g},{},{},{},{}\n",
        r["topology"].get<std::string>(), r["op"].get<std::string>(), r["algorithms"].get<std::string>(),
        r["group_axes"].get<std::string>(), r["group_size"].get<int>(), r["groups"].get<std::size_t>(),
        r["bytes"].get<std::uint64_t>(), sim_s, r["prediction_s"].get<double>(),
        r["contention_free"].get<bool>() ? 1 : 0, r["closed_form_s"].get<double>(),
        r["lower_bound_s"].get<double>(), r["lower_bound_term"].get<std::string>(),
        r["busiest_link_bound_s"].get<double>(), ratio(sim_s, r["prediction_s"]),
        ratio(sim_s, r["lower_bound_s"]), r["algbw_Bps"].get<double>(), r["busbw_Bps"].get<double>(),
        r["messages"].get<std::uint64_t>(), r["simulated_messages"].get<std::uint64_t>(),
        r["checks"].get<std::string>(),
        r["failed"].get<std::string>().empty() ? "pass" : "FAIL:" + r["failed"].get<std::string>());
  }
  return out.str();
}

}  // namespace

void add_validate_command(CLI::App& app) {
  static std::string output_dir = "results/validate";
  static bool json = false;
  auto* command =
      app.add_subcommand("validate", "Check simulated collectives against alpha-beta predictions and bounds");
  command->add_option("--output-dir", output_dir, "Where validate.csv and validate.json go")
      ->capture_default_str();
  command->add_flag("--json", json, "Print the rows as one JSON object instead of the table");
  command->callback([] {
    // Before simulating: a results folder that cannot be written is reported now, not after the work.
    StagedFolder results(output_dir, {"validate.csv", "validate.json"});
    nlohmann::json rows = nlohmann::json::array();
    double wall_s = 0;
    for (const auto& entry : table()) {
      const auto child = sim::run_in_child([&entry] { return run_topology(entry); });
      wall_s += child.wall_s;
      for (auto& row : nlohmann::json::parse(child.output)) rows.push_back(std::move(row));
    }
    int failures = 0, exact = 0;
    for (const auto& r : rows) {
      if (!r["failed"].get<std::string>().empty()) ++failures;
      if (r["checks"].get<std::string>().find("exact") != std::string::npos) ++exact;
    }
    nlohmann::json context = {
        {"tpusim", TPUSIM_VERSION},
        {"simgrid", sim::simgrid_version()},
        {"network", "ideal (CM02, no cross-traffic, TCP-gamma 1e30, surf/precision 1e-15)"},
        {"sizes", kSizes},
        {"exact_tolerance_relative", 1e-6},
        {"rows", rows.size()},
        {"failures", failures},
        {"wall_s", wall_s}};
    const nlohmann::json document = {{"context", context}, {"runs", rows}};
    write_file_atomically(results.staged_path("validate.csv"), csv(rows));
    write_file_atomically(results.staged_path("validate.json"), document.dump(2));
    results.commit();
    if (json) {
      std::cout << document.dump(2) << "\n";
    } else {
      std::cout << fmt::format("{:<12} {:<15} {:<17} {:<9} {:>5} {:>7} {:>12} {:>10} {:>9} {:>9}  {}\n",
                               "topology", "op", "algorithm", "axes", "p", "bytes", "simulated", "sim/pred",
                               "sim/bound", "busbw", "checks");
      for (const auto& r : rows) {
        const double sim_s = r["simulated_s"];
        const std::string failed = r["failed"];
        std::cout << fmt::format(
            "{:<12} {:<15} {:<17} {:<9} {:>5} {:>7} {:>12} {:>10.6f} {:>9.3f} {:>9}  {} {}\n",
            r["topology"].get<std::string>(), r["op"].get<std::string>(), r["algorithms"].get<std::string>(),
            r["group_axes"].get<std::string>(), r["group_size"].get<int>(),
            format_bytes(r["bytes"].get<double>()), format_duration(sim_s), ratio(sim_s, r["prediction_s"]),
            ratio(sim_s, r["lower_bound_s"]), format_bandwidth(r["busbw_Bps"]),
            r["checks"].get<std::string>(), failed.empty() ? "pass" : "FAIL: " + failed);
      }
      std::cout << fmt::format(
          "\n{} rows, {} with exact alpha-beta equality, {} failed; wrote {}/validate.csv and "
          "validate.json\n",
          rows.size(), exact, failures, output_dir);
    }
    if (failures > 0)
      throw std::runtime_error(fmt::format("validate: {} rows failed their checks", failures));
  });
}

}  // namespace tpusim::cli
