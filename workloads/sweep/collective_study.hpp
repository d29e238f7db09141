#pragma once
// A collective study (collective_study_spec.hpp) as a study: each point one collective simulated in its
// child exactly as `tpusim collective` simulates it (workloads/collectives/measurement.hpp), its row the
// simulated time, algbw and busbw, the alpha-beta prediction and the lower bound, and the ratios of the
// simulated time to each.
//   sweep.csv   point, the varied keys, then kCollectiveStudyCsvColumns; a skipped point has status
//               "skipped" and the reason in error, its figures empty
//   sweep.json  {context (format tpusim.collective_sweep.v1), sweep: {name, description, source, kind,
//               vary, set, order, points}, runs: [...], wall_s}
#include "workloads/collectives/measurement.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/collective_study_spec.hpp"
#include "workloads/sweep/study.hpp"

namespace tpusim::workloads {

// topology, cores, op, algorithms, group_axes, groups, group_size, bytes, network, simulated_s,
// prediction_s, contention_free, closed_form_s, lower_bound_s, lower_bound_term, ratio_to_prediction,
// ratio_to_lower_bound, algbw_Bps, busbw_Bps, messages, simulated_messages, wall_s, status, error
extern const std::vector<std::string> kCollectiveStudyCsvColumns;

class CollectiveStudy : public Study {
 public:
  explicit CollectiveStudy(CollectiveStudySpec spec);

  const CollectiveStudySpec& spec() const { return spec_; }

  const std::string& name() const override { return spec_.header.name; }
  std::string kind() const override { return "collectives"; }
  const std::string& output_dir() const override { return spec_.header.output_dir; }
  void set_output_dir(const std::string& folder) override { spec_.header.output_dir = folder; }
  std::size_t size() const override { return spec_.size(); }
  std::vector<std::string> keys() const override { return spec_.keys(); }
  std::vector<std::string> values(std::size_t point) const override { return spec_.points[point]; }
  std::string point_hash(std::size_t point) const override { return spec_.facts[point].hash; }
  std::string skip_reason(std::size_t point) const override { return spec_.facts[point].skip_reason; }
  std::string run_point(std::size_t point) const override;

  std::vector<std::string> csv_header() const override;
  nlohmann::json csv_cells(std::size_t point, const PointOutcome& outcome) const override;
  nlohmann::json run_json(std::size_t point, const PointOutcome& outcome) const override;
  nlohmann::json description() const override;
  const char* document_format() const override { return format::kCollectiveSweep; }
  std::string banner() const override;
  std::string table_header() const override;
  std::string table_row(std::size_t point, const PointOutcome& outcome) const override;
  std::string listing(const std::vector<PointCheck>& checks) const override;

 protected:
  // A point simulated in the child as `tpusim collective` simulates it.
  struct MeasuredPoint {
    const topo::Topology& topology;
    BuiltRequest built;
    Measurement measurement;
  };
  MeasuredPoint measure_point(std::size_t point) const;

 private:
  std::vector<std::size_t> widths() const;

  CollectiveStudySpec spec_;
};

}  // namespace tpusim::workloads
