#pragma once
// A set of measurements as a study (sweep/study.hpp): each measurement's config simulated in a child process
// of its own, exactly as `tpusim run` runs it, its row the measured step beside the predicted one. The study
// runner gives it what sweeps have: records per point, so an interrupted run resumes, sweep.csv and
// sweep.json written atomically, progress, and -j.
#include <vector>

#include "workloads/fidelity/fidelity_row.hpp"
#include "workloads/fidelity/training_measurement.hpp"
#include "workloads/sweep/study.hpp"

namespace tpusim::workloads {

class FidelityStudy : public Study {
 public:
  FidelityStudy(std::string name, std::vector<TrainingMeasurement> measurements, std::string output_dir);

  const std::vector<TrainingMeasurement>& measurements() const { return measurements_; }
  FidelityRow row(std::size_t point, const PointOutcome& outcome) const;

  const std::string& name() const override { return name_; }
  std::string kind() const override { return "fidelity"; }
  const std::string& output_dir() const override { return output_dir_; }
  void set_output_dir(const std::string& folder) override { output_dir_ = folder; }
  std::size_t size() const override { return measurements_.size(); }
  std::vector<std::string> keys() const override { return {"measurement"}; }
  std::vector<std::string> values(std::size_t point) const override { return {measurements_[point].id}; }
  std::string point_hash(std::size_t point) const override { return hashes_[point]; }
  std::string run_point(std::size_t point) const override;

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
  std::string name_;
  std::vector<TrainingMeasurement> measurements_;
  std::string output_dir_;
  std::vector<std::string> hashes_;
};

}  // namespace tpusim::workloads
