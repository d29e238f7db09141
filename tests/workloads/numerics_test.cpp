// Full-numerics training of the tiny presets on the simulated interconnect: the loss falls on the synthetic
// data, and a repeated run is bit-for-bit identical. Each run creates the process's one Simulator, so the
// repeat test runs both in child processes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "topologies/support/child_process.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim::workloads;

namespace {

std::vector<double> losses_of(const RunReport& report) {
  std::vector<double> losses;
  for (const auto& step : report.steps) losses.push_back(step.loss.value());
  return losses;
}

// The run's losses and step times as exact hex text, computed in a child process.
std::string losses_in_child(const std::string& preset) {
  return tpusim::run_in_child([&] {
           const RunReport report = run_training(load_preset(preset));
           std::string text;
           char buffer[64];
           for (const auto& step : report.steps) {
             std::snprintf(buffer, sizeof buffer, "%a %a\n", step.loss.value(), step.step_time_s);
             text += buffer;
           }
           return text;
         })
      .output;
}

void check_loss_falls(const std::string& preset, double factor) {
  const RunReport report = run_training(load_preset(preset));
  const auto losses = losses_of(report);
  REQUIRE(losses.size() == 12);
  INFO(preset << ": first loss " << losses.front() << ", last " << losses.back());
  CHECK(losses.back() < factor * losses.front());
  // Not only at the end: the second half is below the first step throughout.
  for (std::size_t i = losses.size() / 2; i < losses.size(); ++i) CHECK(losses[i] < losses.front());
  CHECK(report.timeline.step_time_s > 0);
}

}  // namespace

TEST_CASE("full numerics of the tiny LM is bit-for-bit repeatable and its loss falls") {
  const std::string first = losses_in_child("tiny-lm");
  const std::string second = losses_in_child("tiny-lm");
  CHECK(first == second);
  double first_loss = 0, last_loss = 0, step_time = 0;
  int lines = 0;
  for (std::size_t at = 0; at < first.size();) {
    const auto end = first.find('\n', at);
    double loss = 0;
    REQUIRE(std::sscanf(first.substr(at, end - at).c_str(), "%la %la", &loss, &step_time) == 2);
    if (lines == 0) first_loss = loss;
    last_loss = loss;
    ++lines;
    at = end + 1;
  }
  CHECK(lines == 12);
  CHECK(first_loss > 3.5);  // about ln(64) = 4.16 at the start
  CHECK(last_loss < 0.7 * first_loss);
}

TEST_CASE("full numerics of the tiny MLP lowers its reconstruction error") {
  check_loss_falls("tiny-mlp", 0.9);
}

TEST_CASE("full numerics of the tiny encoder-decoder lowers its copy loss") {
  check_loss_falls("tiny-translation", 0.9);
}

TEST_CASE("full numerics of the tiny MoE Transformer lowers its loss") { check_loss_falls("tiny-moe", 0.8); }

TEST_CASE("full numerics of tiny BERT lowers its masked-LM plus next-sentence loss") {
  const RunReport report = run_training(load_preset("tiny-bert"));
  const auto losses = losses_of(report);
  REQUIRE(losses.size() == 24);
  INFO("first loss " << losses.front() << ", last " << losses.back());
  CHECK(losses.front() > 4.0);  // about ln(64) + ln(2) = 4.85 at the start
  CHECK(losses.back() < 0.6 * losses.front());
  for (std::size_t i = losses.size() / 2; i < losses.size(); ++i) CHECK(losses[i] < 0.8 * losses.front());
}

namespace {

// The losses of a config's run, as exact hex text, computed in a child process.
std::string config_losses_in_child(const RunConfig& config) {
  return tpusim::run_in_child([&] {
           std::string text;
           char buffer[32];
           for (const auto& step : run_training(config).steps) {
             std::snprintf(buffer, sizeof buffer, "%a\n", step.loss.value());
             text += buffer;
           }
           return text;
         })
      .output;
}

std::vector<double> parse_losses(const std::string& text) {
  std::vector<double> losses;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = text.find('\n', at);
    losses.push_back(std::strtod(text.substr(at, end - at).c_str(), nullptr));
    at = end + 1;
  }
  return losses;
}

}  // namespace

TEST_CASE("full numerics of the tiny U-Net, its images split into 2x2 tiles, learns to segment them") {
  const RunConfig tiles = load_preset("tiny-unet");
  REQUIRE(tiles.mesh.layout_text() == "h:rows;w:cols");
  const auto losses = parse_losses(config_losses_in_child(tiles));
  REQUIRE(losses.size() == 30);
  INFO("first loss " << losses.front() << ", last " << losses.back());
  CHECK(losses.front() > 0.6);  // about ln 2 = 0.69 at the start: two classes of equal probability
  CHECK(losses.back() < 0.4 * losses.front());
  for (std::size_t i = losses.size() / 2; i < losses.size(); ++i) CHECK(losses[i] < 0.6 * losses.front());
  // The halo exchanges make the tiles compute what whole images do: the same first loss with the batch split.
  RunConfig batches = tiles;
  batches.mesh.layout = tpusim::mtf::LayoutRules::parse("batch:rows");
  batches.training.steps = 1;
  const auto whole = parse_losses(config_losses_in_child(batches));
  REQUIRE(whole.size() == 1);
  CHECK(whole.front() == Approx(losses.front()).epsilon(1e-5));
}

TEST_CASE("full numerics of the tiny ResNet, its images split by rows, lowers its classification loss") {
  check_loss_falls("tiny-resnet", 0.8);
}
