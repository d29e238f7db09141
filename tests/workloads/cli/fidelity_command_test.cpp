// tpusim fidelity and tpusim calibrate end to end, on measurements written here: the table and the median,
// --json, records that a second run reuses, the profiles calibrate writes, and bad measurement files as one
// line with exit status 2 and nothing written.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

namespace {

// A tiny MLP on an 8-core ring: its measured step set to `step_s`.
std::string measurement(const std::string& id, double step_s) {
  return "measurement:\n  id: " + id +
         "\n  family: mlp\n  source: a test\n  software: none\n  reliability: A\n" +
         "  step_s: " + std::to_string(step_s) + "\n  derivation: chosen\n" +
         "config:\n  hardware: {topology: ring-8}\n  mesh: {shape: batch:8}\n"
         "  model: {kind: mlp, layers: 2, d_model: 256, d_ff: 512, batch: 512}\n";
}

void write_measurements(const Scratch& scratch) {
  std::filesystem::create_directories(scratch.work() / "m");
  std::ofstream(scratch.work() / "m" / "a.yaml") << measurement("a", 1e-3);
  std::ofstream(scratch.work() / "m" / "b.yaml") << measurement("b", 2e-3);
}

}  // namespace

TEST_CASE("cli: fidelity prints each measurement against its prediction and the median, and resumes") {
  const Scratch scratch;
  write_measurements(scratch);
  const auto run = scratch.run({"fidelity", "m", "--progress", "none"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.out.find("tpusim fidelity m: 2 measurements") != std::string::npos);
  CHECK(run.out.find("median |error|") != std::string::npos);
  CHECK(std::filesystem::exists(scratch.work() / "results" / "fidelity" / "sweep.csv"));
  // The same prediction twice: one error in both rows' |error| (a at 1 ms, b at 2 ms).
  const auto json_run = scratch.run({"fidelity", "m", "--json"});
  REQUIRE(json_run.exit_status == 0);
  const auto document = nlohmann::json::parse(json_run.out);
  CHECK(document.at("context").at("format") == "tpusim.fidelity.v1");
  REQUIRE(document.at("runs").size() == 2);
  const double predicted = document.at("runs")[0].at("predicted_step_s").get<double>();
  CHECK(document.at("runs")[1].at("predicted_step_s").get<double>() == predicted);
  CHECK(document.at("runs")[0].at("relative_error").get<double>() == Approx(predicted / 1e-3 - 1));
  CHECK(document.at("runs")[1].at("relative_error").get<double>() == Approx(predicted / 2e-3 - 1));
  CHECK(document.at("summary").at("rows") == 2);
  // A third run runs nothing and still prints both rows, as the first run did: the table is the report.
  const auto again = scratch.run({"fidelity", "m", "--progress", "none"});
  REQUIRE(again.exit_status == 0);
  CHECK(again.out.find("2 of 2 points done earlier") != std::string::npos);
  for (const std::string id : {"  0  a ", "  1  b "}) {
    const auto at = run.out.find(id);
    REQUIRE(at != std::string::npos);
    const auto first_row = run.out.substr(at, run.out.find('\n', at) - at);
    CHECK(again.out.find(first_row) != std::string::npos);
  }
}

TEST_CASE("cli: calibrate writes a profile per device and release, with leave-one-out rows") {
  const Scratch scratch;
  write_measurements(scratch);
  const auto run = scratch.run({"calibrate", "m", "--json", "--profiles", "profiles"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto document = nlohmann::json::parse(run.out);
  REQUIRE(document.at("profiles").size() == 1);
  CHECK(document.at("profiles")[0].at("name") == "tpu-v2-core_none");
  REQUIRE(document.at("rows").size() == 2);
  CHECK(document.at("rows")[0].at("leave_one_out_fitted_to") == 1);
  CHECK(std::filesystem::exists(scratch.work() / "profiles" / "tpu-v2-core_none.yaml"));
}

TEST_CASE("cli: a bad measurement file is one line, exit status 2, nothing written") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "bad.yaml") << "measurement:\n  id: x\n";
  const auto run = scratch.run({"fidelity", "bad.yaml"});
  CHECK(run.exit_status == 2);
  CHECK(run.err_lines().size() == 1);
  CHECK(run.err.find("bad.yaml:1: measurement: missing key 'measurement.family'") != std::string::npos);
  CHECK(scratch.entries() == std::vector<std::string>{"bad.yaml"});
  const auto empty = scratch.run({"fidelity", "."});
  CHECK(empty.exit_status == 2);
}

TEST_CASE(
    "cli: a profile with a parameter at an end of its range is warned of by run, fidelity and calibrate") {
  const Scratch scratch;
  // step_overhead_s at the top of its range (0 to 0.05), the others well inside theirs.
  std::ofstream(scratch.work() / "p.yaml")
      << "name: edgy\ndevice: tpu-v2-core\nsoftware: \"a test\"\nparameters:\n  matrix_unit_efficiency: 0.6\n"
         "  hbm_efficiency: 0.8\n  op_overhead_s: 1e-6\n  step_overhead_s: 0.05\nfitted_to:\n  - a\n";
  const std::string config =
      "hardware: {topology: ring-8, calibration: p.yaml}\nmesh: {shape: batch:8}\n"
      "model: {kind: mlp, layers: 2, d_model: 256, d_ff: 512, batch: 512}\n";
  const std::string warning =
      "tpusim: warning: calibration profile edgy: step_overhead_s 0.05 is at the high end of its range (0 to "
      "0.05, within 2%)";
  std::ofstream(scratch.work() / "c.yaml") << config;
  const auto run = scratch.run({"run", "c.yaml", "--no-files"});
  INFO(run.describe());
  CHECK(run.exit_status == 0);
  REQUIRE(run.err_lines().size() == 1);
  CHECK_THAT(run.err,
             Catch::StartsWith("tpusim: warning: c.yaml:1: hardware.calibration: calibration profile"));
  CHECK_THAT(run.err, Catch::Contains("step_overhead_s 0.05 is at the high end"));
  // Two measurements under the profile: one warning.
  std::filesystem::create_directories(scratch.work() / "m");
  for (const std::string id : {"a", "b"}) {
    std::ofstream(scratch.work() / "m" / (id + ".yaml"))
        << "measurement:\n  id: " << id
        << "\n  family: mlp\n  source: a test\n  software: none\n  reliability: A\n  step_s: 0.001\n"
           "  derivation: chosen\nconfig:\n"
        << "  hardware: {topology: ring-8, calibration: p.yaml}\n  mesh: {shape: batch:8}\n"
           "  model: {kind: mlp, layers: 2, d_model: 256, d_ff: 512, batch: 512}\n";
  }
  const auto fidelity = scratch.run({"fidelity", "m", "--no-files", "--progress", "none"});
  INFO(fidelity.describe());
  CHECK(fidelity.exit_status == 0);
  REQUIRE(fidelity.err_lines().size() == 1);
  CHECK_THAT(fidelity.err, Catch::StartsWith(warning));
  // calibrate: a warning for each parameter its table marks at an end (--json's at_range_edge:
  // calibration_test).
  write_measurements(scratch);
  const auto text = scratch.run({"calibrate", "m", "--profiles", "none", "--output", "c1"});
  INFO(text.describe());
  REQUIRE(text.exit_status == 0);
  std::size_t marked = 0;
  for (auto at = text.out.find(" end\n"); at != std::string::npos; at = text.out.find(" end\n", at + 1))
    ++marked;
  std::size_t warned = 0;
  for (const auto& line : text.err_lines()) warned += line.find("is at the") != std::string::npos;
  CHECK(marked > 0);
  CHECK(warned == marked);
}
