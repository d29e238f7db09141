// tpusim validate: every algorithm of the registry x topologies x message sizes, a collective study whose
// points are checked against the analytical figures of sim/README.md (The collective cost model); the study
// and its checks are workloads/sweep/validation_study.hpp. Its folder holds the study's records and summary
// (a rerun runs only what has no valid record) and validate.csv and validate.json, written atomically; exit
// status 1 when a check fails.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/report/csv_writer.hpp"
#include "workloads/report/progress.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/child_pool.hpp"
#include "workloads/sweep/study_runner.hpp"
#include "workloads/sweep/sweep_summary.hpp"
#include "workloads/sweep/validation_study.hpp"

namespace tpusim::cli {
namespace {

std::string csv(const nlohmann::json& rows) {
  std::ostringstream out;
  const auto columns = workloads::validation_columns();
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
  static int jobs = 0;
  static std::string progress;
  auto* command =
      app.add_subcommand("validate", "Check simulated collectives against alpha-beta predictions and bounds");
  command
      ->add_option("--output-dir", output_dir, "Where the study's records, validate.csv and validate.json go")
      ->capture_default_str();
  command->add_flag("--json", json, "Print the rows as one JSON object instead of the table");
  add_whole_number_option(
      command, "-j,--jobs", jobs, 1, 1024,
      "Points simulated at once, each in its own process (default: the number of cores this "
      "process may use)");
  command->add_option("--progress", progress,
                      "bar, plain or none; default: bar on a terminal, else plain (none with --json)");
  command->callback([] {
    const workloads::ValidationStudy study(output_dir);
    workloads::StudyRunOptions options;
    options.jobs = jobs > 0 ? jobs : workloads::online_cores();
    options.progress =
        json && progress.empty() ? workloads::ProgressMode::none : workloads::parse_progress_mode(progress);
    nlohmann::json rows = nlohmann::json::array();
    std::vector<nlohmann::json> skipped;
    std::string first_error;  // of a point that ran and failed: a bug, reported after the summary is written
    options.on_row = [&](std::size_t point, const workloads::PointOutcome& outcome) {
      if (outcome.ok()) {
        rows.push_back(study.row(point, outcome));
        return;
      }
      const auto spec = study.spec().point_spec(point);
      if (outcome.status != "skipped") {
        if (first_error.empty())
          first_error = fmt::format("point {} ({} {} {} on {}) {}: {}", point, spec[workloads::kOp],
                                    spec[workloads::kAlgorithm], spec[workloads::kBytes],
                                    spec[workloads::kTopology], outcome.status, outcome.error);
        return;
      }
      skipped.push_back({{"topology", spec[workloads::kTopology]},
                         {"op", spec[workloads::kOp]},
                         {"algorithms", spec[workloads::kAlgorithm]},
                         {"group_axes", spec[workloads::kGroupAxes]},
                         {"bytes", spec[workloads::kBytes]},
                         {"reason", outcome.error}});
    };
    const workloads::StudyRunTotals totals = workloads::run_study(study, options);
    if (!first_error.empty()) throw std::runtime_error("validate: " + first_error);
    int failures = 0, exact = 0;
    for (const auto& r : rows) {
      if (!r["failed"].get<std::string>().empty()) ++failures;
      if (r["checks"].get<std::string>().find("exact") != std::string::npos) ++exact;
    }
    const nlohmann::json misfits = merged_sizes(skipped);
    // What every row was checked under, and the totals; the context block says which tpusim made them.
    const nlohmann::json setup = {
        {"network", "ideal (CM02, no cross-traffic, TCP-gamma 1e30, surf/precision 1e-15)"},
        {"sizes", workloads::validation_sizes()},
        {"exact_tolerance_relative", workloads::kExactTolerance}};
    const nlohmann::json summary = {{"rows", rows.size()},
                                    {"skipped", skipped.size()},
                                    {"failures", failures},
                                    {"wall_s", totals.wall_s}};
    const nlohmann::json document = workloads::with_report_context(
        {{"setup", setup}, {"totals", summary}, {"runs", rows}, {"skipped", misfits}},
        workloads::format::kValidate, "validate");
    write_file_atomically(output_dir + "/" + workloads::kValidateCsv, csv(rows));
    write_file_atomically(output_dir + "/" + workloads::kValidateJson,
                          workloads::dump_report(document) + "\n");
    if (json) {
      std::cout << workloads::dump_report(document) << "\n";
    } else {
      print_table(rows, misfits);
      std::cout << fmt::format(
          "\n{} rows ({} skipped where the algorithm does not fit), {} with exact alpha-beta equality, {} "
          "failed; wrote {}/validate.csv and validate.json\n",
          rows.size(), skipped.size(), exact, failures, output_dir);
      // Skipped points have records too: a rerun reads them rather than checking the fit again.
      std::cout << fmt::format("{} points done now, {} from the records of an earlier run\n", totals.ran,
                               totals.done_before);
    }
    if (failures > 0)
      throw std::runtime_error(fmt::format("validate: {} rows failed their checks", failures));
  });
}

}  // namespace tpusim::cli
