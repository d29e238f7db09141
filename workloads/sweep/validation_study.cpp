#include "workloads/sweep/validation_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/algorithm_registry.hpp"
#include "sim/schedule.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/group.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/collectives/collective_record.hpp"

namespace tpusim::workloads {
namespace {

using sim::CollectiveKind;

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

const std::vector<std::string> kKeys = {"hardware.topology", "collective.group_axes", "collective.op",
                                        "collective.algorithm", "collective.bytes"};

// Every target's points in order. A run an earlier point makes already (the same resolved axes) is left out
// by make_collective_study; a point whose algorithm does not fit stays: the study skips it with the reason.
std::vector<CollectivePointValues> validation_points() {
  std::vector<CollectivePointValues> points;
  for (const auto& target : targets()) {
    const auto topology = topo::topology_from_spec(target.topology);
    for (const std::string group_axes : target.group_axes) {
      const auto dimensions =
          topo::parse_group_axes(topology, group_axes.empty() ? "all" : group_axes).size();
      for (const auto kind : target.kinds) {
        for (const auto& algorithms : choices(kind, group_axes, static_cast<int>(dimensions))) {
          for (const auto& size : validation_sizes()) {
            points.push_back({target.topology, group_axes.empty() ? "default" : group_axes,
                              sim::to_string(kind), algorithms, size});
          }
        }
      }
    }
  }
  return points;
}

bool close(double a, double b, double relative) {
  return std::fabs(a - b) <= relative * std::max(std::fabs(b), 1e-300);
}

}  // namespace

const std::vector<std::string>& validation_sizes() {
  static const std::vector<std::string> sizes = {"1KiB", "1MiB", "64MiB", "1GiB"};
  return sizes;
}

ValidationStudy::ValidationStudy(const std::string& output_dir)
    : CollectiveStudy(
          make_collective_study({"validate", "every registry algorithm against its analytical figures",
                                 "tpusim validate", output_dir},
                                kKeys, validation_points())) {
  for (const auto& target : targets()) {
    if (target.routing_check) routing_checked_.insert(target.topology);
  }
}

std::vector<std::string> ValidationStudy::report_files() const { return {kValidateCsv, kValidateJson}; }

std::string ValidationStudy::run_point(std::size_t point) const {
  const MeasuredPoint measured = measure_point(point);
  const topo::Topology& topology = measured.topology;
  const auto& m = measured.measurement;
  const auto& r = m.result;
  const auto& p = m.prediction;
  const auto& request = measured.built.request;
  std::vector<std::string> checks, failed;
  auto check = [&](const char* name, bool ok) {
    checks.push_back(name);
    if (!ok) failed.push_back(name);
  };
  check("bound", r.time_s >= m.bound.time_s * (1 - 1e-9));
  check("path", r.time_s >= p.time_s * (1 - 1e-9));
  if (p.contention_free) check("exact", close(r.time_s, p.time_s, kExactTolerance));
  if (p.closed_form_s >= 0 && p.contention_free && p.closed_form_exact)
    check("formula", close(p.closed_form_s, p.time_s, kExactTolerance));
  check("busbw", r.busbw_Bps <= sim::injection_bandwidth_Bps(topology) * (1 + 1e-9));
  const bool one_round_over_all = request.kind == CollectiveKind::alltoall && request.groups.size() == 1 &&
                                  r.group_size == topology.num_cores() &&
                                  sim::build_schedule(topology, request).round_count() == 1;
  if (routing_checked_.count(spec().point_spec(point)[kTopology]) != 0 && one_round_over_all) {
    const double diameter_latency =
        topo::graph_figures(topology).diameter_hops * topology.inter_chip().latency_s();
    check("routing", close(p.max_link_time_s / m.bound.bisection_s, 80.0 / 64.0, 1e-9) &&
                         r.time_s >= p.max_link_time_s * (1 - 1e-9) &&
                         r.time_s <= p.max_link_time_s + diameter_latency);
  }
  nlohmann::json row = record_json(collective_record(measured.built, m), collective_record_fields());
  row["checks"] = join(checks, "+");
  row["failed"] = join(failed, "+");
  return row.dump();
}

nlohmann::json ValidationStudy::row(std::size_t point, const PointOutcome& outcome) const {
  TPUSIM_CHECK(outcome.ok());
  const auto spec = this->spec().point_spec(point);
  nlohmann::json row = {{"topology", spec[kTopology]}, {"op", spec[kOp]}};
  for (const auto& [key, value] : outcome.result.items()) row[key] = value;
  return row;
}

std::vector<std::string> validation_columns() {
  std::vector<std::string> columns = {"topology", "op"};
  for (const auto& field : collective_record_fields()) columns.push_back(field.name);
  columns.push_back("checks");
  columns.push_back("status");
  return columns;
}

}  // namespace tpusim::workloads
