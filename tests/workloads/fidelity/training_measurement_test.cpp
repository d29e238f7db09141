// TrainingMeasurement files: what they must say, each problem one line at its file, line and key; the
// measured step of a FLOP-rate measurement; the error and the medians against hand computations.
#include "workloads/fidelity/training_measurement.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "tests/topologies/support/input_error_of.hpp"
#include "workloads/fidelity/fidelity_row.hpp"

using namespace tpusim::workloads;
using tpusim::test_support::input_error_of;

namespace {

const char* const kConfig = R"(config:
  hardware:
    topology: ring-8
  mesh:
    shape: batch:8
  model:
    kind: mlp
    layers: 1
    d_model: 64
    d_ff: 128
    batch: 64
)";

std::string file_with(const std::string& measurement) { return "measurement:\n" + measurement + kConfig; }

const char* const kGood = R"(  id: tiny
  family: mlp
  source: a hand computation
  software: none
  reliability: A
  step_s: 0.5
  derivation: chosen
)";

}  // namespace

TEST_CASE("measurement: the sections are read, the config as tpusim run reads it") {
  const TrainingMeasurement m = parse_measurement(file_with(kGood), "m.yaml");
  CHECK(m.id == "tiny");
  CHECK(m.family == "mlp");
  CHECK(*m.step_s == 0.5);
  CHECK(!m.flops_per_s);
  CHECK(m.config.hardware.topology.num_cores() == 8);
  CHECK(m.config.model.d_ff == 128);
  CHECK(m.measured_step_s(1e12) == 0.5);
}

TEST_CASE("measurement: a FLOP rate gives the step as the model's FLOPs over it") {
  std::string text = kGood;
  text.replace(text.find("step_s: 0.5"), 11, "flops_per_s: 2e12");
  const TrainingMeasurement m = parse_measurement(file_with(text), "m.yaml");
  CHECK(m.measured_step_s(3e12) == 1.5);
}

TEST_CASE("measurement: every problem is one line at its file, line and key") {
  std::string both = kGood;
  both += "  flops_per_s: 1e12\n";
  CHECK(
      input_error_of([&] { parse_measurement(file_with(both), "m.yaml"); }) ==
      "m.yaml:1: measurement: give exactly one of step_s (a measured step time) and flops_per_s (a measured "
      "FLOP rate)");
  std::string unknown = kGood;
  unknown += "  stepp_s: 1\n";
  CHECK(input_error_of([&] {
          parse_measurement(file_with(unknown), "m.yaml");
        }).find("m.yaml:9: measurement.stepp_s: unknown key") == 0);
  std::string negative = kGood;
  negative.replace(negative.find("0.5"), 3, "-1");
  CHECK(input_error_of([&] { parse_measurement(file_with(negative), "m.yaml"); }) ==
        "m.yaml:7: measurement.step_s: -1 is not plausible: expected 1e-06 to 86400 s");
  for (const char* extreme : {"4.9e-324", "1e300", "nan", "0x1"}) {
    std::string text = kGood;
    text.replace(text.find("0.5"), 3, extreme);
    INFO(extreme);
    CHECK_THAT(input_error_of([&] { parse_measurement(file_with(text), "m.yaml"); }),
               Catch::StartsWith("m.yaml:7: measurement.step_s: "));
  }
  std::string bad_config = file_with(kGood);
  bad_config.replace(bad_config.find("batch: 64"), 9, "batch: 63");
  CHECK(
      input_error_of([&] { parse_measurement(bad_config, "m.yaml"); }) ==
      "m.yaml:19: config.model.batch: 63 does not split evenly over mesh axis 'batch' of size 8 (layout rule "
      "batch:batch)");
  CHECK(input_error_of([&] { parse_measurement("measurement:\n  id: x\n", "m.yaml"); }) ==
        "m.yaml:1: measurement: missing key 'measurement.family'");
}

TEST_CASE("fidelity: the error, the implied MFU and the medians against hand computations") {
  const TrainingMeasurement m = parse_measurement(file_with(kGood), "m.yaml");
  PointResult predicted;
  predicted.step_time_s = 0.4;
  predicted.mfu = 0.5;
  predicted.model_flops_per_step = 1e12;
  const FidelityRow row = fidelity_row(m, predicted);
  CHECK(row.error() == Approx(-0.2));      // 0.4 / 0.5 - 1
  CHECK(row.measured_mfu == Approx(0.4));  // the same FLOPs over 0.5 s instead of 0.4 s

  CHECK(median({3.0}) == 3.0);
  CHECK(median({4.0, 1.0}) == 2.5);
  CHECK(median({5.0, -1.0, 2.0}) == 2.0);
  // Random lists against a plain sort-and-pick reference.
  std::mt19937 random(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> values(1 + random() % 9);
    for (auto& v : values) v = std::uniform_real_distribution<double>(-1, 1)(random);
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    const double expected = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    CHECK(median(values) == expected);
  }
}

TEST_CASE("fidelity: the summary's medians per family and overall, failed rows left out") {
  TrainingMeasurement a = parse_measurement(file_with(kGood), "a.yaml");
  TrainingMeasurement b = a, c = a;
  b.family = "other";
  c.family = "other";
  auto predicted = [](double step_s) {
    PointResult p;
    p.step_time_s = step_s;
    return p;
  };
  PointResult failed;
  failed.error = "boom";
  // errors: a +20%, b -40%, c +10%
  const std::vector<FidelityRow> rows = {fidelity_row(a, predicted(0.6)), fidelity_row(b, predicted(0.3)),
                                         fidelity_row(c, predicted(0.55)), fidelity_row(c, failed)};
  const FidelitySummary s = summarise(rows);
  CHECK(s.rows == 3);
  CHECK(s.failed == 1);
  CHECK(s.median_abs_error == Approx(0.2));
  CHECK(s.max_abs_error == Approx(0.4));
  REQUIRE(s.families.size() == 2);
  CHECK(s.families[0].family == "mlp");
  CHECK(s.families[1].family == "other");
  CHECK(s.families[1].median_error == Approx(-0.15));     // (-0.4 + 0.1) / 2
  CHECK(s.families[1].median_abs_error == Approx(0.25));  // (0.4 + 0.1) / 2
}
