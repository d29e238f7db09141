// Configs in layers: `base:` and --set change only the keys they name. The reference for each is the same
// change written by hand into a full copy of the base (its --show-preset text edited as a user would): the
// resolved config and the simulated step must be the same, apart from the name, description and output that
// make a derived config a run of its own.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

nlohmann::json run_json(const Scratch& scratch, const std::vector<std::string>& args) {
  std::vector<std::string> full = args;
  full.insert(full.end(), {"--no-files", "--json", "--steps", "2"});
  const auto run = scratch.run(full);
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  return nlohmann::json::parse(run.out);
}

// The config block without what names the run.
nlohmann::json without_identity(nlohmann::json config) {
  for (const char* key : {"name", "description", "source"}) config.erase(key);
  config["training"].erase("output");
  return config;
}

}  // namespace

TEST_CASE("cli: a config on a base, and --set, equal the base edited by hand, under a name of their own") {
  const Scratch scratch;
  const std::string preset = scratch.run({"run", "--show-preset", "--preset", "tiny-mlp"}).out;
  std::ofstream(scratch.work() / "edited.yaml")
      << replaced(replaced(preset, "d_ff: 64", "d_ff: 128"), "topology: ring-8", "topology: torus:2x4");
  std::ofstream(scratch.work() / "wide.yaml")
      << "base: tiny-mlp\nhardware:\n  topology: torus:2x4\nmodel:\n  d_ff: 128\n";
  std::ofstream(scratch.work() / "wider.yaml") << "base: wide.yaml\nname: wider\nmodel:\n  d_model: 32\n";

  const auto edited = run_json(scratch, {"run", "edited.yaml"});
  const auto derived = run_json(scratch, {"run", "wide.yaml"});
  const auto set = run_json(scratch, {"run", "--preset", "tiny-mlp", "--set", "model.d_ff=128", "--set",
                                      "hardware.topology=torus:2x4"});
  CHECK(without_identity(derived.at("config")) == without_identity(edited.at("config")));
  CHECK(without_identity(set.at("config")) == without_identity(edited.at("config")));
  CHECK(derived.at("step_time") == edited.at("step_time"));
  CHECK(set.at("step_time") == edited.at("step_time"));
  // Full numerics: the same losses step by step.
  CHECK(derived.at("steps") == edited.at("steps"));

  // A derived config is a run of its own: its file's name, its own results folder, and a description of
  // what it changed rather than the base's.
  CHECK(derived.at("config").at("name") == "wide");
  CHECK(derived.at("config").at("training").at("output") == "results/wide");
  CHECK(derived.at("config").at("description") ==
        "tiny-mlp with hardware.topology torus:2x4, model.d_ff 128");
  CHECK(set.at("config").at("description") == "tiny-mlp with model.d_ff 128, hardware.topology torus:2x4");
  CHECK(set.at("context").at("inputs").at("set") ==
        nlohmann::json{"model.d_ff=128", "hardware.topology=torus:2x4"});

  // Two layers: each changes only its keys.
  const auto wider = run_json(scratch, {"run", "wider.yaml"});
  auto expected = edited.at("config");
  expected["model"]["d_model"] = 32;
  CHECK(without_identity(wider.at("config")) == without_identity(expected));
  CHECK(wider.at("config").at("name") == "wider");
}

TEST_CASE("cli: a problem in a layer is one line at the layer that wrote it") {
  const Scratch scratch;
  const auto check = [&](const std::map<std::string, std::string>& files,
                         const std::vector<std::string>& args, const std::string& expected) {
    for (const auto& [name, text] : files) std::ofstream(scratch.work() / name) << text;
    const auto run = scratch.run(args);
    INFO(run.describe());
    CHECK(run.exit_status == 2);
    REQUIRE(run.err_lines().size() == 1);
    CHECK_THAT(run.err_lines()[0], Catch::StartsWith(expected));
    CHECK(run.out.empty());
  };
  check({{"d.yaml", "base: tiny-mlp\nmodel:\n  d_ff: lots\n"}}, {"run", "d.yaml", "--no-files"},
        "tpusim: error: d.yaml:3: model.d_ff: 'lots' is not a whole number");
  check({{"d.yaml", "base: tiny-mlp\nmodel:\n  dff: 4\n"}}, {"run", "d.yaml", "--no-files"},
        "tpusim: error: d.yaml:3: model.dff: 'model.dff' is not a config key (did you mean 'model.d_ff'?)");
  check({}, {"run", "--preset", "tiny-mlp", "--set", "model.d_ff=lots", "--no-files"},
        "tpusim: error: --set model.d_ff:1: model.d_ff: 'lots' is not a whole number");
  check({}, {"run", "--preset", "tiny-mlp", "--set", "model.d_ff", "--no-files"},
        "tpusim: error: --set 'model.d_ff': expected key=value, such as model.d_ff=4096");
  check({{"a.yaml", "base: b.yaml\n"}, {"b.yaml", "base: a.yaml\n"}}, {"run", "a.yaml", "--no-files"},
        "tpusim: error: b.yaml:1: base: 'a.yaml' is a base of itself (the configs name each other)");
  check({{"d.yaml", "base: tiny-mpl\n"}}, {"run", "d.yaml", "--no-files"},
        "tpusim: error: d.yaml:1: base: unknown preset 'tiny-mpl' (did you mean 'tiny-mlp'?)");
  check({{"s.yaml", "name: s\nbase: tiny-mlp\nvary:\n  model.d_ff: [32, 64]\n"}},
        {"sweep", "s.yaml", "--set", "model.d_ff=128", "--dry-run"},
        "tpusim: error: --set model.d_ff: s.yaml varies model.d_ff; a key is set for every point or varied");
}

TEST_CASE("cli: --set reaches every point of a sweep") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "s.yaml") << "name: s\nbase: tiny-mlp\nvary:\n  training.seed: [1, 2]\n";
  const auto sweep = scratch.run({"sweep", "s.yaml", "--set", "model.d_ff=128", "--set",
                                  "training.numerics=timing", "--no-files", "--json", "--progress", "none"});
  INFO(sweep.describe());
  REQUIRE(sweep.exit_status == 0);
  const auto document = nlohmann::json::parse(sweep.out);
  const auto edited = run_json(scratch, {"run", "--preset", "tiny-mlp", "--set", "model.d_ff=128", "--set",
                                         "training.numerics=timing"});
  const double edited_step_s = edited.at("step_time").at("step_time_s");
  REQUIRE(document.at("runs").size() == 2);
  for (const auto& run : document.at("runs")) {
    CHECK(run.at("step_time").at("step_time_s").get<double>() == Approx(edited_step_s));
  }
  CHECK(document.at("context").at("inputs").at("set") ==
        nlohmann::json{"model.d_ff=128", "training.numerics=timing"});
}

TEST_CASE("cli: a device that is not the core of its TPU topology is a warning naming both") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "v3core.yaml") << "base: tiny-mlp\nhardware:\n  topology: tpu-v2-32\n  "
                                                   "device: tpu-v3-core\nmesh:\n  shape: batch:32\n";
  const auto run = scratch.run({"run", "v3core.yaml", "--no-files", "--steps", "1"});
  INFO(run.describe());
  CHECK(run.exit_status == 0);
  CHECK(run.err_lines() ==
        std::vector<std::string>{
            "tpusim: warning: v3core.yaml:4: hardware.device: tpu-v3-core is not the core of "
            "topology tpu-v2-32 (tpu-v2-core is); the run uses tpu-v3-core's figures"});
  // The core a topology implies is no warning, nor is any core on a topology that is not a TPU preset.
  std::ofstream(scratch.work() / "v2core.yaml") << "base: tiny-mlp\nhardware:\n  topology: tpu-v2-32\n  "
                                                   "device: tpu-v2-core\nmesh:\n  shape: batch:32\n";
  CHECK(scratch.run({"run", "v2core.yaml", "--no-files", "--steps", "1"}).err.empty());
  std::ofstream(scratch.work() / "spec.yaml") << "base: tiny-mlp\nhardware:\n  device: tpu-v3-core\n";
  CHECK(scratch.run({"run", "spec.yaml", "--no-files", "--steps", "1"}).err.empty());
}

TEST_CASE("cli: fidelity --set changes every measurement's config, and its prediction with it") {
  // Measurements of two model kinds written here: the property is the option's, not the shipped rows' (whose
  // predictions the fidelity regression test holds), and these run in a fraction of a second.
  const Scratch scratch;
  std::filesystem::create_directories(scratch.work() / "m");
  const std::string head =
      "  family: test\n  source: a test\n  software: none\n  reliability: A\n"
      "  step_s: 0.001\n  derivation: chosen\nconfig:\n  hardware: {topology: ring-8}\n";
  std::ofstream(scratch.work() / "m" / "a.yaml")
      << "measurement:\n  id: a\n"
      << head << "  mesh: {shape: batch:8}\n"
      << "  model: {kind: mlp, layers: 2, d_model: 256, d_ff: 512, batch: 512}\n";
  std::ofstream(scratch.work() / "m" / "b.yaml")
      << "measurement:\n  id: b\n"
      << head << "  mesh: {shape: batch:4;model:2}\n"
      << "  model: {kind: transformer_lm, layers: 2, d_model: 64, d_ff: 256, heads: 4, d_kv: 16, vocab: 256,"
         " batch: 16, length: 32}\n";
  const auto run = [&](const std::vector<std::string>& more) {
    std::vector<std::string> args = {"fidelity", "m", "--json", "--no-files", "--progress", "none"};
    args.insert(args.end(), more.begin(), more.end());
    const auto result = scratch.run(args);
    INFO(result.describe());
    REQUIRE(result.exit_status == 0);
    return nlohmann::json::parse(result.out);
  };
  const auto plain = run({});
  // A fixed cost per op can only make every predicted step slower.
  const auto slower = run({"--set", "hardware.op_overhead=1us"});
  CHECK(slower.at("context").at("inputs").at("set") == nlohmann::json{"hardware.op_overhead=1us"});
  REQUIRE(plain.at("runs").size() == 2);
  REQUIRE(slower.at("runs").size() == 2);
  for (std::size_t i = 0; i < plain.at("runs").size(); ++i) {
    INFO(plain.at("runs")[i].dump());
    CHECK(slower.at("runs")[i].at("predicted_step_s").get<double>() >
          plain.at("runs")[i].at("predicted_step_s").get<double>());
  }
  const auto bad = scratch.run({"fidelity", "m", "--set", "hardware.op_overhead=2", "--no-files"});
  CHECK(bad.exit_status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--set hardware.op_overhead:1: hardware.op_overhead: '2' is not a "
                                      "plausible latency"));
}
