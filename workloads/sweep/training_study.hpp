#pragma once
// A training sweep (sweep_spec.hpp) as a study: a training step per point, run as `tpusim run` runs the
// point's config, its row the sweep's (sweep_report.hpp).
#include <memory>

#include "workloads/sweep/study.hpp"
#include "workloads/sweep/sweep_run.hpp"
#include "workloads/sweep/sweep_spec.hpp"

namespace tpusim::workloads {

class TrainingStudy : public Study {
 public:
  explicit TrainingStudy(Sweep sweep);

  const Sweep& sweep() const { return sweep_; }

  const std::string& name() const override { return sweep_.name; }
  std::string kind() const override { return "training"; }
  const std::string& output_dir() const override { return sweep_.output_dir; }
  void set_output_dir(const std::string& folder) override { sweep_.output_dir = folder; }
  std::size_t size() const override { return sweep_.points.size(); }
  std::vector<std::string> keys() const override;
  std::vector<std::string> values(std::size_t point) const override { return sweep_.points[point].values; }
  std::string point_hash(std::size_t point) const override { return hashes_[point]; }
  std::string run_point(std::size_t point) const override;
  bool checks_points() const override { return true; }
  std::string check_point(std::size_t point) const override;

  std::vector<std::string> csv_header() const override;
  nlohmann::json csv_cells(std::size_t point, const PointOutcome& outcome) const override;
  nlohmann::json run_json(std::size_t point, const PointOutcome& outcome) const override;
  nlohmann::json description() const override;
  const char* document_format() const override;
  std::string banner() const override;
  std::string table_header() const override;
  std::string table_row(std::size_t point, const PointOutcome& outcome) const override;
  std::string listing(const std::vector<PointCheck>& checks) const override;

 private:
  Sweep sweep_;
  std::vector<std::string> hashes_;
};

// A point's result as the training sweep's rows take it.
PointResult point_result_of(const PointOutcome& outcome);

// The hash of a training point: its resolved config (report/resolved_config) without what does not change
// the result (its name, description, source file and output folder), and the tpusim version.
std::string training_point_hash(const RunConfig& config);

}  // namespace tpusim::workloads
