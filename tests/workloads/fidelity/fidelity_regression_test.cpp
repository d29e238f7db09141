// A regression guard on tpusim's fidelity: every shipped measurement is predicted (each in a child process,
// as `tpusim fidelity` runs them), and each row's error stays within kTolerance of the error recorded here.
// This is not a pass threshold for fidelity: when a change of the model moves a row on purpose, record the
// new error here (from `tpusim fidelity`) and say in the change why it moved.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "workloads/fidelity/fidelity_study.hpp"
#include "workloads/sweep/study_runner.hpp"

using namespace tpusim::workloads;

namespace {

// predicted / measured - 1 of each shipped measurement, as `tpusim fidelity` printed it.
const std::map<std::string, double> kRecordedError = {
    {"bert_large_v3-32_mlperf07", +0.057}, {"mtf_lm5_v2_512", -0.328},
    {"resnet50_v2-8_mlperf05", +0.034},    {"resnet50_v3-128_mlperf06", -0.050},
    {"resnet50_v3-2048_mlperf06", -0.108}, {"resnet50_v3-32_mlperf06", -0.051},
    {"resnet50_v3-512_mlperf06", -0.197},  {"t2t_datasplit_tr0_32", -0.470},
    {"t2t_datasplit_tr0_512", -0.443},
    {"maxtext_128b_v5e-256", -0.025},      {"maxtext_128b_v5p-256", -0.139},
    {"maxtext_16b_v5e-256", -0.213},       {"maxtext_22b_v4-128", -0.274},
    {"maxtext_32b_v5e-256", -0.137},       {"maxtext_32b_v5p-128", -0.126},
    {"maxtext_52b_v4-384", -0.300},        {"maxtext_64b_v5e-256", -0.194},
    {"maxtext_64b_v5p-128", -0.138},       {"maxtext_llama2-70b_v6e-256", -0.345},
    {"maxtext_llama3.1-70b_v6e-256", -0.251}, {"maxtext_llama3.1-8b_v6e-256", -0.228},
};
// An absolute difference of errors: 0.5 percentage points, above the recorded figures' rounding (0.05
// points) and far below any change of a mechanism worth recording.
constexpr double kTolerance = 0.005;

}  // namespace

TEST_CASE("fidelity: every shipped measurement's error stays at its recorded value") {
  const FidelityStudy study("shipped", shipped_measurements(), "");
  REQUIRE(study.size() == kRecordedError.size());
  std::vector<FidelityRow> rows;
  StudyRunOptions options;
  options.jobs = 2;
  options.files = false;
  options.on_row = [&](std::size_t point, const PointOutcome& outcome) {
    rows.push_back(study.row(point, outcome));
  };
  run_study(study, options);
  REQUIRE(rows.size() == study.size());
  for (const auto& row : rows) {
    INFO(row.measurement->id << ": " << row.predicted.error);
    REQUIRE(row.ok());
    REQUIRE(kRecordedError.count(row.measurement->id) == 1);
    const double recorded = kRecordedError.at(row.measurement->id);
    INFO("error " << row.error() << ", recorded " << recorded);
    CHECK(std::abs(row.error() - recorded) <= kTolerance);
  }
}
