#pragma once
// A study whose points need no simulation: point i's result is {"square": i*i} (or whatever `result` says),
// so the runner's records, shards, merging and failures are tested in milliseconds. A point listed in
// `failing` throws in its child; one in `crashing` aborts (a child killed by a signal).
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../../topologies/support/stderr_capture.hpp"
#include "workloads/sweep/study.hpp"

namespace tpusim::workloads::test {

class FakeStudy : public Study {
 public:
  FakeStudy(std::string name, std::size_t points, std::string output_dir);

  // What the study is: changing a point's config changes its hash.
  std::vector<std::string> configs;  // per point, "c<i>" unless changed
  std::set<std::size_t> failing, crashing, skipped;
  int result_scale = 1;  // result = scale * i * i (a different tpusim "version" of the same configs)
  // The result from the config instead, as a real study's: "c<n>" gives scale * n * n, so that points whose
  // configs coincide (and so their hashes) have the same result.
  bool result_by_config = false;

  const std::string& name() const override { return name_; }
  std::string kind() const override { return "fake"; }
  const std::string& output_dir() const override { return output_dir_; }
  void set_output_dir(const std::string& folder) override { output_dir_ = folder; }
  std::size_t size() const override { return configs.size(); }
  std::vector<std::string> keys() const override { return {"config"}; }
  std::vector<std::string> values(std::size_t point) const override { return {configs[point]}; }
  std::string point_hash(std::size_t point) const override;
  std::string skip_reason(std::size_t point) const override;
  std::string run_point(std::size_t point) const override;
  std::vector<std::string> csv_header() const override {
    return {"point", "config", "square", "wall_s", "error"};
  }
  nlohmann::json csv_cells(std::size_t point, const PointOutcome& outcome) const override;
  nlohmann::json run_json(std::size_t point, const PointOutcome& outcome) const override;
  nlohmann::json description() const override { return {{"name", name_}, {"points", size()}}; }
  const char* document_format() const override { return "tpusim.fake.v1"; }
  std::string banner() const override { return "fake " + name_ + "\n"; }
  std::string table_header() const override { return ""; }
  std::string table_row(std::size_t point, const PointOutcome&) const override;
  std::string listing(const std::vector<PointCheck>&) const override { return ""; }

 private:
  std::string name_;
  std::string output_dir_;
};

// A temporary folder, removed with the object.
class TempFolder {
 public:
  TempFolder();
  ~TempFolder();
  std::string path(const std::string& name = "") const { return (root_ / name).string(); }

 private:
  std::filesystem::path root_;
};

using tpusim::test::StderrCapture;

// Text of a file ("" if missing); the lines of a CSV with its wall_s column dropped.
std::string read_text(const std::string& path);
std::vector<std::string> csv_without_wall(const std::string& path);
// The record files in <folder>/points, sorted, and every other entry there.
std::vector<std::string> record_names(const std::string& folder);
// The InputError of merging `folders` into `output` (sweep_merge.hpp), or "(merged)".
std::string merge_error(const std::string& output, const std::vector<std::string>& folders);

}  // namespace tpusim::workloads::test
