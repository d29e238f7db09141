#include "workloads/sweep/collective_study.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/simulator.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/collectives/collective_record.hpp"
#include "workloads/sweep/dry_run.hpp"

namespace tpusim::workloads {
namespace {

// The record's fields a point's child sends back, in the order of the CSV columns they fill after the
// network; the names before them (algorithms to bytes) fill their columns too.
const std::vector<std::string> kSent = {"algorithms",
                                        "group_axes",
                                        "groups",
                                        "group_size",
                                        "bytes",
                                        "simulated_s",
                                        "prediction_s",
                                        "contention_free",
                                        "closed_form_s",
                                        "lower_bound_s",
                                        "lower_bound_term",
                                        "ratio_to_prediction",
                                        "ratio_to_lower_bound",
                                        "algbw_Bps",
                                        "busbw_Bps",
                                        "messages",
                                        "simulated_messages"};
constexpr std::size_t kFirstFigure = 5;  // kSent[kFirstFigure] is simulated_s

CollectiveSpec request_of(const std::vector<std::string>& spec) {
  CollectiveSpec request;
  request.op = spec[kOp];
  request.algorithms = spec[kAlgorithm] == "default" ? "" : spec[kAlgorithm];
  request.bytes = spec[kBytes];
  request.group_axes = spec[kGroupAxes] == "default" ? "" : spec[kGroupAxes];
  request.reduce = spec[kReduce];
  return request;
}

// The study's columns after the point and its varied keys: the point's topology and op, the record's fields
// it sends (the network after the group's), this machine's wall time and how the point ended.
std::vector<std::string> study_columns() {
  std::vector<std::string> columns = {"topology", "cores", "op"};
  columns.insert(columns.end(), kSent.begin(), kSent.begin() + kFirstFigure);
  columns.push_back("network");
  columns.insert(columns.end(), kSent.begin() + kFirstFigure, kSent.end());
  for (const char* column : {"wall_s", "status", "error"}) columns.push_back(column);
  return columns;
}

}  // namespace

const std::vector<std::string> kCollectiveStudyCsvColumns = study_columns();

CollectiveStudy::CollectiveStudy(CollectiveStudySpec spec) : spec_(std::move(spec)) {}

CollectiveStudy::MeasuredPoint CollectiveStudy::measure_point(std::size_t point) const {
  const auto spec = spec_.point_spec(point);
  const topo::Topology& topology = spec_.topologies[spec_.facts[point].topology];
  sim::SimOptions options;
  options.network = sim::network_models().parse(spec[kNetwork]);
  sim::Simulator simulator(topology, options);
  BuiltRequest built = resolve_auto(simulator, build_request(topology, request_of(spec)));
  Measurement measurement = measure(simulator, built, false);
  return {topology, std::move(built), std::move(measurement)};
}

std::string CollectiveStudy::run_point(std::size_t point) const {
  const MeasuredPoint measured = measure_point(point);
  const CollectiveRecord record = collective_record(measured.built, measured.measurement);
  return record_json(record, collective_record_fields(), kSent).dump();
}

std::vector<std::string> CollectiveStudy::csv_header() const {
  std::vector<std::string> header = {"point"};
  for (const auto& axis : spec_.axes) header.push_back(axis.key);
  header.insert(header.end(), kCollectiveStudyCsvColumns.begin(), kCollectiveStudyCsvColumns.end());
  return header;
}

nlohmann::json CollectiveStudy::csv_cells(std::size_t point, const PointOutcome& outcome) const {
  const auto spec = spec_.point_spec(point);
  const topo::Topology& topology = spec_.topologies[spec_.facts[point].topology];
  const nlohmann::json& r = outcome.result;
  const bool ok = outcome.ok();
  nlohmann::json cells = nlohmann::json::array({point});
  for (const auto& value : spec_.points[point]) cells.push_back(value);
  cells.push_back(topology.name());
  cells.push_back(topology.num_cores());
  cells.push_back(spec[kOp]);
  cells.push_back(ok ? r.at("algorithms") : nlohmann::json(spec[kAlgorithm]));
  cells.push_back(ok ? r.at("group_axes") : nlohmann::json(spec[kGroupAxes]));
  cells.push_back(ok ? r.at("groups") : nlohmann::json());
  cells.push_back(ok ? r.at("group_size") : nlohmann::json());
  cells.push_back(ok ? r.at("bytes") : nlohmann::json(spec[kBytes]));
  cells.push_back(spec[kNetwork]);
  for (std::size_t i = kFirstFigure; i < kSent.size(); ++i)
    cells.push_back(ok ? r.at(kSent[i]) : nlohmann::json());
  cells.push_back(outcome.status == "skipped" ? nlohmann::json() : nlohmann::json(outcome.wall_s));
  cells.push_back(outcome.status);
  cells.push_back(outcome.error.empty() ? nlohmann::json() : nlohmann::json(outcome.error));
  return cells;
}

nlohmann::json CollectiveStudy::run_json(std::size_t point, const PointOutcome& outcome) const {
  const auto spec = spec_.point_spec(point);
  const topo::Topology& topology = spec_.topologies[spec_.facts[point].topology];
  nlohmann::json values = nlohmann::json::array();
  for (std::size_t k = 0; k < spec_.axes.size(); ++k)
    values.push_back({{"key", spec_.axes[k].key}, {"value", spec_.points[point][k]}});
  nlohmann::json run = {{"point", point},
                        {"values", values},
                        {"topology", topology.name()},
                        {"cores", topology.num_cores()},
                        {"op", spec[kOp]},
                        {"network", spec[kNetwork]},
                        {"reduce", spec[kReduce]},
                        {"status", outcome.status}};
  if (outcome.ok()) {
    for (const auto& [key, value] : outcome.result.items()) run[key] = value;
    run["wall_s"] = outcome.wall_s;
    run["peak_rss_mib"] = outcome.peak_rss_mib;
  } else {
    run["algorithms"] = spec[kAlgorithm];
    run["group_axes"] = spec[kGroupAxes];
    run["bytes"] = spec[kBytes];
    run[outcome.status == "skipped" ? "reason" : "error"] = outcome.error;
  }
  return run;
}

nlohmann::json CollectiveStudy::description() const {
  nlohmann::json vary = nlohmann::json::array(), set = nlohmann::json::array();
  for (const auto& axis : spec_.axes) vary.push_back({{"key", axis.key}, {"values", axis.values}});
  for (const auto& [key, value] : spec_.settings) set.push_back({{"key", key}, {"value", value}});
  return {{"name", spec_.header.name},
          {"description", spec_.header.description},
          {"source", spec_.header.source},
          {"kind", "collectives"},
          {"vary", vary},
          {"set", set},
          {"order", spec_.order},
          {"points", spec_.size()}};
}

std::string CollectiveStudy::banner() const {
  std::size_t skipped = 0;
  for (const auto& facts : spec_.facts) skipped += facts.skip_reason.empty() ? 0 : 1;
  return fmt::format(
      "tpusim sweep {}: {} collective points{}{}\n", spec_.header.name, spec_.size(),
      skipped == 0 ? "" : fmt::format(", {} skipped where the algorithm does not fit", skipped),
      spec_.header.description.empty() ? "" : " (" + spec_.header.description + ")");
}

std::vector<std::size_t> CollectiveStudy::widths() const {
  std::vector<std::size_t> widths;
  for (const auto& axis : spec_.axes) {
    std::size_t width = axis.key.size();
    for (const auto& value : axis.values) width = std::max(width, value.size());
    widths.push_back(width);
  }
  return widths;
}

std::string CollectiveStudy::table_header() const {
  const auto w = widths();
  std::string text = fmt::format("{:>5}", "#");
  for (std::size_t k = 0; k < spec_.axes.size(); ++k)
    text += fmt::format("  {:<{}}", spec_.axes[k].key, w[k]);
  return text +
         fmt::format("  {:>10}  {:>11}  {:>8}  {:>9}\n", "simulated", "busbw", "sim/pred", "sim/bound");
}

std::string CollectiveStudy::table_row(std::size_t point, const PointOutcome& outcome) const {
  const auto w = widths();
  const auto& values = spec_.points[point];
  std::string text = fmt::format("{:>5}", point);
  for (std::size_t k = 0; k < values.size(); ++k) text += fmt::format("  {:<{}}", values[k], w[k]);
  if (outcome.status == "skipped") return text + "  skipped: " + outcome.error + "\n";
  if (!outcome.ok())
    return text + (outcome.status == "input_error" ? "  error: " : "  failed: ") + outcome.error + "\n";
  const auto& r = outcome.result;
  return text + fmt::format("  {:>10}  {:>11}  {:>8.3f}  {:>9.3f}\n",
                            format_duration(r.at("simulated_s").get<double>()),
                            format_bandwidth(r.at("busbw_Bps").get<double>()),
                            r.at("ratio_to_prediction").get<double>(),
                            r.at("ratio_to_lower_bound").get<double>());
}

std::string CollectiveStudy::listing(const std::vector<PointCheck>& checks) const {
  std::string text = fmt::format("sweep {}: {} collective points of {}{}\n", spec_.header.name, spec_.size(),
                                 spec_.header.source, checks.empty() ? "" : ": " + dry_run_counts(checks));
  for (std::size_t p = 0; p < spec_.size(); ++p) {
    const auto spec = spec_.point_spec(p);
    const auto& facts = spec_.facts[p];
    text += fmt::format("{:>5}  {} {} {} on {} ({} cores), group axes {}{}\n", p, spec[kOp], spec[kAlgorithm],
                        spec[kBytes], spec_.topologies[facts.topology].name(),
                        spec_.topologies[facts.topology].num_cores(), spec[kGroupAxes],
                        p < checks.size()           ? dry_run_note(checks[p])
                        : facts.skip_reason.empty() ? ""
                                                    : "  [skipped: " + facts.skip_reason + "]");
  }
  return text;
}

}  // namespace tpusim::workloads
