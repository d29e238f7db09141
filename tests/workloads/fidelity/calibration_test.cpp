// Calibration (workloads/fidelity/calibration.hpp): the calibrated step against its closed form, a fit that
// recovers parameters a set of steps was made with, the bounds held, and leave-one-out by hand.
#include "workloads/fidelity/calibration.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <random>

#include "tests/topologies/support/input_error_of.hpp"
#include "tests/workloads/report/sweep_fixtures.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/fidelity/calibration_fit.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim::workloads;

TEST_CASE("calibration: the calibrated step is its closed form, the uncalibrated values change nothing") {
  const StepFeatures f{0.1, 0.05, 0.02, 1000};
  CHECK(calibrated_step_s(f, uncalibrated_values()) == Approx(0.17));
  // 0.1 / 0.5 + 0.05 / 0.8 + 0.02 + 1000 * 2e-6 + 0.01
  CHECK(calibrated_step_s(f, {0.5, 0.8, 2e-6, 0.01}) == Approx(0.2 + 0.0625 + 0.02 + 0.002 + 0.01));
  CHECK(profile_name("tpu-v3-core", "TensorFlow 1.14") == "tpu-v3-core_tensorflow-1.14");
  CHECK(profile_name("tpu-v2-core", "TensorFlow 1.x of 2018, Mesh-TensorFlow") ==
        "tpu-v2-core_tensorflow-1.x-of-2018-mesh-tensorflow");
}

TEST_CASE("calibration: a fit recovers the matrix-unit and HBM efficiencies steps were made with") {
  // Random steps made with e_m = 0.6 and e_h = 0.8 (no overheads): the fit finds them to within the weak
  // pull toward 1 that kPrior gives.
  std::mt19937 random(5);
  std::uniform_real_distribution<double> part(0.01, 0.2);
  const CalibrationValues truth = {0.6, 0.8, 0, 0};
  std::vector<CalibrationSample> samples;
  for (int i = 0; i < 12; ++i) {
    const StepFeatures f{part(random), part(random), part(random) / 4, 0};
    samples.push_back({f, calibrated_step_s(f, truth)});
  }
  const CalibrationValues fitted = fit_calibration(samples);
  CHECK(fitted[0] == Approx(0.6).margin(0.02));
  CHECK(fitted[1] == Approx(0.8).margin(0.03));
  CHECK(fitted[2] == Approx(0).margin(2e-7));
  CHECK(fitted[3] == Approx(0).margin(1e-3));
  // Steps far slower than any parameter allows: every parameter at its bound, none beyond.
  for (auto& s : samples) s.measured_step_s *= 100;
  const CalibrationValues bounded = fit_calibration(samples);
  const auto& params = calibration_parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    CHECK(bounded[i] >= params[i].min);
    CHECK(bounded[i] <= params[i].max);
  }
  CHECK(bounded[0] == params[0].min);
  CHECK(bounded[3] == params[3].max);
}

TEST_CASE("calibration: leave-one-out predicts each row by a fit to the others of its group") {
  // Two rows of one group: each left-out prediction is the other row's fit applied to it; a row alone in
  // its group is predicted uncalibrated.
  const char* const config = R"(config:
  hardware: {topology: ring-8}
  mesh: {shape: batch:8}
  model: {kind: mlp, layers: 1, d_model: 8, d_ff: 8, batch: 8}
)";
  auto measurement = [&](const std::string& id, const std::string& software, double step_s) {
    return parse_measurement(fmt::format("measurement:\n  id: {}\n  family: f\n  source: s\n  software: {}\n"
                                         "  reliability: A\n  step_s: {}\n  derivation: d\n{}",
                                         id, software, step_s, config),
                             id + ".yaml");
  };
  const TrainingMeasurement a = measurement("a", "one", 0.2), b = measurement("b", "one", 0.4),
                            c = measurement("c", "two", 0.1);
  PointResult predicted;
  predicted.step_time_s = 0.1;
  const std::vector<FidelityRow> rows = {fidelity_row(a, predicted, {0.1, 0, 0, 0}),
                                         fidelity_row(b, predicted, {0.1, 0, 0, 0}),
                                         fidelity_row(c, predicted, {0.1, 0, 0, 0})};
  const CalibrationResult result = calibrate(rows);
  REQUIRE(result.profiles.size() == 2);
  REQUIRE(result.rows.size() == 3);
  const CalibrationValues only_b = fit_calibration({{rows[1].features, 0.4}});
  const CalibrationValues only_a = fit_calibration({{rows[0].features, 0.2}});
  CHECK(result.rows[0].left_out_step_s == Approx(calibrated_step_s(rows[0].features, only_b)));
  CHECK(result.rows[1].left_out_step_s == Approx(calibrated_step_s(rows[1].features, only_a)));
  CHECK(result.rows[2].left_out_fitted_to == 0);
  CHECK(result.rows[2].left_out_step_s == Approx(0.1));
  CHECK(result.rows[0].profile == "tpu-v2-core_one");
}

namespace {

// tiny-mlp (timing only) under a profile file written to a fresh folder (removed even when the run throws).
RunReport run_calibrated(const std::string& parameters, const std::string& device = "tpu-v2-core") {
  const tpusim::test::TempFolder folder;
  const std::string path = (folder.path() / "profile.yaml").string();
  std::ofstream(path) << "name: test\ndevice: " << device << "\nsoftware: none\nparameters:\n"
                      << parameters << "fitted_to: [none]\n";
  const std::string config =
      "hardware: {topology: ring-8, calibration: " + path +
      "}\nmesh: {shape: batch:8}\nmodel: {kind: mlp, layers: 2, d_model: 256, d_ff: 512, "
      "batch: 512}\n";
  return run_training(parse_run_config(config, "c.yaml"));
}

}  // namespace

TEST_CASE("calibrated run: a step overhead alone adds exactly itself, beside the mechanisms' step") {
  const RunReport report = run_calibrated(
      "  matrix_unit_efficiency: 1\n  hbm_efficiency: 1\n  op_overhead_s: 0\n  step_overhead_s: 0.001\n");
  REQUIRE(report.uncalibrated_step_time_s > 0);
  CHECK(report.calibration == "test");
  CHECK(report.timeline.step_time_s == Approx(report.uncalibrated_step_time_s + 0.001).epsilon(1e-12));
}

TEST_CASE("calibrated run: a slower matrix unit and HBM lengthen the step, a wrong device is refused") {
  const RunReport report = run_calibrated(
      "  matrix_unit_efficiency: 0.5\n  hbm_efficiency: 0.5\n  op_overhead_s: 0\n  step_overhead_s: 0\n");
  // Every kernel's roofline terms at most double and collectives keep their time: longer, at most twice.
  CHECK(report.timeline.step_time_s > report.uncalibrated_step_time_s);
  CHECK(report.timeline.step_time_s <= 2 * report.uncalibrated_step_time_s);
  CHECK(
      tpusim::test_support::input_error_of([] {
        run_calibrated(
            "  matrix_unit_efficiency: 1\n  hbm_efficiency: 1\n  op_overhead_s: 0\n"
            "  step_overhead_s: 0\n",
            "tpu-v3-core");
      })
          .find(
              "c.yaml:1: hardware.calibration: profile 'test' is of tpu-v3-core, but the config's device is "
              "tpu-v2-core") == 0);
}

TEST_CASE("calibration: a parameter within 2% of either end of its range is at the edge, by hand") {
  // Ranges: matrix unit 0.3 to 1 (2%: 0.014), HBM 0.5 to 1 (0.01), op overhead 0 to 1e-5 (2e-7), step
  // overhead 0 to 0.05 (1e-3).
  CalibrationProfile profile;
  profile.name = "p";
  profile.values = {0.31, 0.995, 5e-6, 0.0005};
  auto edges = range_edges(profile);
  REQUIRE(edges.size() == 3);
  CHECK((edges[0].parameter == "matrix_unit_efficiency" && !edges[0].high && edges[0].value == 0.31));
  CHECK((edges[1].parameter == "hbm_efficiency" && edges[1].high));
  CHECK((edges[2].parameter == "step_overhead_s" && !edges[2].high));
  profile.values = {0.32, 0.985, 1.9e-7, 0.0485};  // 0.02 above, 0.015 below, inside 2e-7, 1.5e-3 below
  edges = range_edges(profile);
  REQUIRE(edges.size() == 1);
  CHECK(edges[0].parameter == "op_overhead_s");
  CHECK(range_edge_warnings(profile) ==
        std::vector<std::string>{
            "calibration profile p: op_overhead_s 1.9e-07 is at the low end of its range (0 to "
            "1e-05, within 2%): the fit pressed against a bound, so a mechanism is missing "
            "there, not calibrated"});
  CHECK(to_json(profile).at("at_range_edge") == nlohmann::json{"op_overhead_s"});
  // Random values against the rule written out: distance to the nearer end over the range, at most 2%.
  std::mt19937 random(51);
  const auto& params = calibration_parameters();
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> expected;
    profile.values.clear();
    for (const auto& p : params) {
      const double u = std::uniform_real_distribution<double>(0, 1)(random);
      const double x = p.min + (u < 0.3 ? 0.05 * u : u) * (p.max - p.min);  // many near the low end
      profile.values.push_back(x);
      if (std::min(x - p.min, p.max - x) <= 0.02 * (p.max - p.min)) expected.push_back(p.name);
    }
    std::vector<std::string> found;
    for (const auto& edge : range_edges(profile)) found.push_back(edge.parameter);
    REQUIRE(found == expected);
  }
}
