// tpusim validate: every algorithm of the registry (sim/algorithm_registry.hpp) x topologies x message sizes,
// each simulated collective checked against the analytical figures of sim/README.md (The collective cost
// model). An algorithm that does not fit a topology's group is skipped with the reason, not silently. One
// child process per topology (SimGrid: one engine per process). Writes results/validate/validate.csv and
// validate.json atomically; exit status 1 when a check fails.
//
// Checks on every row (ideal network):
//   bound     simulated >= the algorithm-independent lower bound
//   path      simulated >= the contention-free alpha-beta critical path (links shared can only slow it down)
//   exact     contention-free rows: simulated == that critical path to 1e-6 relative
//   formula   rows with a closed form of sim/README.md (one hop over identical links, sizes dividing evenly):
//             closed form == critical path to 1e-6
//   busbw     busbw <= the injection bandwidth of a core
//   routing   a one-round all-to-all over the whole 8x8 torus: the busiest link carries 80 pair-messages
//   where
//             the bisection bound assumes 64 (dimension-order routing breaks k/2 ties by position), and the
//             simulated time is that link's load / B plus at most the diameter's latency
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/algorithm_registry.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/collectives/collective_record.hpp"
#include "workloads/report/csv_writer.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/sweep_summary.hpp"

namespace tpusim::cli {
namespace {

using workloads::ratio;

using sim::CollectiveKind;

const std::vector<const char*> kSizes = {"1KiB", "1MiB", "64MiB", "1GiB"};

const std::vector<CollectiveKind> kEveryKind = {CollectiveKind::allreduce, CollectiveKind::reduce_scatter,
                                                CollectiveKind::allgather, CollectiveKind::alltoall,
                                                CollectiveKind::broadcast, CollectiveKind::permute};

// A topology and the groups every algorithm of the listed collectives runs on there, at every size.
struct Target {
  const char* topology;
  std::vector<CollectiveKind> kinds;
  // "" = each algorithm's default for its group shape (tpusim collective's); otherwise every algorithm runs
  // on these axes, flattened or as two dimensions, and the per-dimension algorithms also composed over them.
  // A run that an earlier entry already made (the same resolved axes) is not repeated.
  std::vector<const char*> group_axes = {""};
  bool routing_check = false;
};

// Small tori and meshes run every collective. The large ones run the collectives they are here for: the
// allreduce of data-parallel training at scale, and the 8x8 all-to-all that exposes dimension-order routing
// (an all-to-all or broadcast over the 512-core pod takes tens of seconds each).
const std::vector<Target>& targets() {
  static const std::vector<Target> entries = {
      {"ring-8", kEveryKind},
      {"torus-4x4", kEveryKind, {"", "x,y"}},
      {"torus:2x2x2", kEveryKind, {"x,y,z"}},  // a hypercube: every xor partner one hop away
      {"torus:6", kEveryKind},
      {"mesh-4x4", kEveryKind},
      {"tpu-v2-32", kEveryKind},
      {"torus-4x4x4", {CollectiveKind::allreduce}},
      {"torus:4x8,cores=2,twist_x=y+4", kEveryKind},  // a twisted torus: routes over the twisted wraparound
      {"tpu-v4-cube", {CollectiveKind::allreduce}},
      {"torus-8x8", {CollectiveKind::allreduce, CollectiveKind::alltoall}, {""}, true},
      {"tpu-v2-pod", {CollectiveKind::allreduce}},
  };
  return entries;
}

// The algorithm choices of one collective: every row of the registry by itself, then, on named group axes of
// several dimensions, the per-dimension rows composed, dimension d of choice i taking row i + d (so every
// per-dimension row appears along every dimension, mixed with the others).
std::vector<std::string> choices(CollectiveKind kind, const std::string& group_axes, int dimensions) {
  std::vector<std::string> out, lines;
  for (const auto& row : sim::algorithm_table()) {
    if (row.kind != kind) continue;
    out.push_back(row.name);
    if (row.shape == sim::GroupShape::per_dimension) lines.push_back(row.name);
  }
  if (group_axes.empty() || dimensions < 2) return out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> names;
    for (int d = 0; d < dimensions; ++d) names.push_back(lines[(i + d) % lines.size()]);
    out.push_back(join(names, ","));
  }
  return out;
}

bool close(double a, double b, double relative) {
  return std::fabs(a - b) <= relative * std::max(std::fabs(b), 1e-300);
}

// One run measured and checked: the row of validate.csv.
nlohmann::json measured_row(const Target& target, const topo::Topology& topology, sim::Simulator& simulator,
                            const workloads::BuiltRequest& built, const std::string& op) {
  const double injection = sim::injection_bandwidth_Bps(topology);
  const double diameter_latency =
      topo::graph_figures(topology).diameter_hops * topology.inter_chip().latency_s();
  const auto m = workloads::measure(simulator, built, false);
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
  if (p.closed_form_s >= 0 && p.contention_free && p.closed_form_exact) {
    check("formula", close(p.closed_form_s, p.time_s, 1e-6));
  }
  check("busbw", r.busbw_Bps <= injection * (1 + 1e-9));
  const bool one_round_over_all = built.request.kind == CollectiveKind::alltoall &&
                                  built.request.groups.size() == 1 && r.group_size == topology.num_cores() &&
                                  sim::build_schedule(topology, built.request).round_count() == 1;
  if (target.routing_check && one_round_over_all) {
    check("routing", close(p.max_link_time_s / m.bound.bisection_s, 80.0 / 64.0, 1e-9) &&
                         r.time_s >= p.max_link_time_s * (1 - 1e-9) &&
                         r.time_s <= p.max_link_time_s + diameter_latency);
  }
  nlohmann::json row =
      workloads::record_json(workloads::collective_record(built, m), workloads::collective_record_fields());
  row["topology"] = target.topology;
  row["op"] = op;
  row["checks"] = join(checks, "+");
  row["failed"] = join(failed, "+");
  return row;
}

// Runs in the child: every choice x size of one target on one simulator, measured as clock differences.
// Returns {"runs": [...], "skipped": [...]}.
std::string run_target(const Target& target) {
  const auto topology = topo::topology_from_spec(target.topology);
  sim::Simulator simulator(topology);
  nlohmann::json rows = nlohmann::json::array(), skipped = nlohmann::json::array();
  std::set<std::string> done;
  for (const std::string group_axes : target.group_axes) {
    const auto dimensions = topo::parse_group_axes(topology, group_axes.empty() ? "all" : group_axes).size();
    for (const auto kind : target.kinds) {
      for (const auto& algorithms : choices(kind, group_axes, static_cast<int>(dimensions))) {
        for (const char* size : kSizes) {
          workloads::CollectiveSpec spec;
          spec.op = sim::to_string(kind);
          spec.algorithms = algorithms;
          spec.group_axes = group_axes;
          spec.bytes = size;
          workloads::BuiltRequest built;
          try {
            built = workloads::build_request(topology, spec);
          } catch (const InputError& error) {
            skipped.push_back({{"topology", target.topology},
                               {"op", spec.op},
                               {"algorithms", algorithms},
                               {"group_axes", group_axes.empty() ? "default" : group_axes},
                               {"bytes", size},
                               {"reason", error.what()}});
            continue;
          }
          if (!done.insert(fmt::format("{} {} {} {}", spec.op, algorithms, built.group_axes, size)).second)
            continue;
          rows.push_back(measured_row(target, topology, simulator, built, spec.op));
        }
      }
    }
  }
  // A target whose group axes are wrong would skip everything: that is a bug here, not a misfit.
  TPUSIM_CHECK(!rows.empty());
  return nlohmann::json{{"runs", rows}, {"skipped", skipped}}.dump();
}

// validate.csv: the target and op, the measured collective's record in its fields' order, the checks run
// and the outcome.
std::vector<std::string> validate_columns() {
  std::vector<std::string> columns = {"topology", "op"};
  for (const auto& field : workloads::collective_record_fields()) columns.push_back(field.name);
  columns.push_back("checks");
  columns.push_back("status");
  return columns;
}

std::string csv(const nlohmann::json& rows) {
  std::ostringstream out;
  const auto columns = validate_columns();
  workloads::CsvWriter csv(out, columns);
  for (const auto& r : rows) {
    nlohmann::json cells = nlohmann::json::array();
    for (std::size_t c = 0; c + 1 < columns.size(); ++c) cells.push_back(r.at(columns[c]));
    const std::string failed = r["failed"];
    cells.push_back(failed.empty() ? "pass" : "FAIL:" + failed);
    workloads::write_csv_cells(csv, cells);
  }
  return out.str();
}

// Skipped runs that differ only in size, as one entry listing the sizes.
nlohmann::json merged_sizes(const std::vector<nlohmann::json>& skipped) {
  nlohmann::json merged = nlohmann::json::array();
  for (const auto& skip : skipped) {
    auto same = std::find_if(merged.begin(), merged.end(), [&skip](const nlohmann::json& m) {
      for (const char* key : {"topology", "op", "algorithms", "group_axes", "reason"}) {
        if (m[key] != skip[key]) return false;
      }
      return true;
    });
    if (same == merged.end()) {
      auto entry = skip;
      entry["bytes"] = nlohmann::json::array({skip["bytes"]});
      merged.push_back(std::move(entry));
    } else {
      (*same)["bytes"].push_back(skip["bytes"]);
    }
  }
  return merged;
}

void print_table(const nlohmann::json& rows, const nlohmann::json& misfits) {
  std::size_t width = 17;  // the algorithm column: compositions name one algorithm per dimension
  for (const auto& r : rows) width = std::max(width, r["algorithms"].get<std::string>().size());
  std::cout << fmt::format("{:<12} {:<15} {:<{}} {:<9} {:>5} {:>7} {:>12} {:>10} {:>9} {:>9}  {}\n",
                           "topology", "op", "algorithm", width, "axes", "p", "bytes", "simulated",
                           "sim/pred", "sim/bound", "busbw", "checks");
  for (const auto& r : rows) {
    const std::string failed = r["failed"];
    std::cout << fmt::format(
        "{:<12} {:<15} {:<{}} {:<9} {:>5} {:>7} {:>12} {:>10.6f} {:>9.3f} {:>9}  {} {}\n",
        r["topology"].get<std::string>(), r["op"].get<std::string>(), r["algorithms"].get<std::string>(),
        width, r["group_axes"].get<std::string>(), r["group_size"].get<int>(),
        format_bytes(r["bytes"].get<double>()), format_duration(r["simulated_s"].get<double>()),
        r["ratio_to_prediction"].get<double>(), r["ratio_to_lower_bound"].get<double>(),
        format_bandwidth(r["busbw_Bps"]), r["checks"].get<std::string>(),
        failed.empty() ? "pass" : "FAIL: " + failed);
  }
  if (misfits.empty()) return;
  std::cout << "\nskipped: the algorithm does not fit the group\n";
  for (const auto& m : misfits) {
    std::vector<std::string> sizes;
    for (const auto& size : m["bytes"]) sizes.push_back(size.get<std::string>());
    std::cout << fmt::format("{:<12} {:<15} {:<{}} {:<9} {}: {}\n", m["topology"].get<std::string>(),
                             m["op"].get<std::string>(), m["algorithms"].get<std::string>(), width,
                             m["group_axes"].get<std::string>(), join(sizes, " "),
                             m["reason"].get<std::string>());
  }
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
    std::vector<nlohmann::json> skipped;
    double wall_s = 0;
    for (const auto& target : targets()) {
      const auto child = run_in_child([&target] { return run_target(target); });
      wall_s += child.wall_s;
      auto output = nlohmann::json::parse(child.output);
      for (auto& row : output["runs"]) rows.push_back(std::move(row));
      for (auto& skip : output["skipped"]) skipped.push_back(std::move(skip));
    }
    int failures = 0, exact = 0;
    for (const auto& r : rows) {
      if (!r["failed"].get<std::string>().empty()) ++failures;
      if (r["checks"].get<std::string>().find("exact") != std::string::npos) ++exact;
    }
    const nlohmann::json misfits = merged_sizes(skipped);
    // What every row was checked under, and the totals; the context block says which tpusim made them.
    const nlohmann::json setup = {
        {"network", "ideal (CM02, no cross-traffic, TCP-gamma 1e30, surf/precision 1e-15)"},
        {"sizes", kSizes},
        {"exact_tolerance_relative", 1e-6}};
    const nlohmann::json totals = {
        {"rows", rows.size()}, {"skipped", skipped.size()}, {"failures", failures}, {"wall_s", wall_s}};
    const nlohmann::json document = workloads::with_report_context(
        {{"setup", setup}, {"totals", totals}, {"runs", rows}, {"skipped", misfits}},
        workloads::format::kValidate, "validate");
    write_file_atomically(results.staged_path("validate.csv"), csv(rows));
    write_file_atomically(results.staged_path("validate.json"), workloads::dump_report(document) + "\n");
    results.commit();
    if (json) {
      std::cout << workloads::dump_report(document) << "\n";
    } else {
      print_table(rows, misfits);
      std::cout << fmt::format(
          "\n{} rows ({} skipped where the algorithm does not fit), {} with exact alpha-beta equality, {} "
          "failed; wrote {}/validate.csv and validate.json\n",
          rows.size(), skipped.size(), exact, failures, output_dir);
    }
    if (failures > 0)
      throw std::runtime_error(fmt::format("validate: {} rows failed their checks", failures));
  });
}

}  // namespace tpusim::cli
