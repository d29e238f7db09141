// The hostile inputs of issue 49 to the newer features (--set, calibration profiles, calibrate's folders),
// end to end through the built binary as input_rows.hpp runs them: each failed before its fix (a value cut at
// a line break ran, an empty profile name calibrated the step unreported, profiles written where the next run
// reads made it fail).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_runner.hpp"
#include "input_rows.hpp"

using tpusim::cli_test::check_row;
using tpusim::cli_test::kConfig;
using tpusim::cli_test::Row;
using tpusim::cli_test::Scratch;
using tpusim::cli_test::with_hardware;

namespace {

// A profile of the config's device (kConfig's ring-8 is of tpu-v2-core) named `name`, as calibrate writes
// one.
std::string profile(const std::string& name) {
  return "name: " + name +
         "\ndevice: tpu-v2-core\nsoftware: \"a test\"\nparameters:\n  matrix_unit_efficiency: 0.5\n"
         "  hbm_efficiency: 0.8\n  op_overhead_s: 1e-6\n  step_overhead_s: 0.002\nfitted_to:\n  - a\n";
}

// A tiny MLP measurement on an 8-core ring (as fidelity_command_test writes them).
std::string measurement(const std::string& id) {
  return "measurement:\n  id: " + id +
         "\n  family: mlp\n  source: a test\n  software: none\n  reliability: A\n  step_s: 0.001\n"
         "  derivation: chosen\nconfig:\n  hardware: {topology: ring-8}\n  mesh: {shape: batch:8}\n"
         "  model: {kind: mlp, layers: 2, d_model: 256, d_ff: 512, batch: 512}\n";
}

}  // namespace

TEST_CASE("cli: a --set value is one value: text with a line break is taken whole, never spliced as YAML") {
  for (const std::string value : {"128\nfoo: 1", "128\n---\n", "128\r\nfoo: 1", "[1,\n2]"}) {
    check_row({"a value holding a line break",
               {"run", "c.yaml", "--no-files", "--set", "model.d_ff=" + value},
               {{"c.yaml", kConfig}},
               2,
               {"--set model.d_ff", "is not a whole number"}});
  }
  // The message quotes the value on its one line, its breaks escaped.
  check_row({"the quoted value",
             {"run", "c.yaml", "--no-files", "--set", "model.d_ff=128\nfoo: 1"},
             {{"c.yaml", kConfig}},
             2,
             {"'128\\nfoo: 1' is not a whole number"}});
  // A one-line value still reads as YAML: a number, and a flow map.
  check_row({"a plain value",
             {"run", "c.yaml", "--no-files", "--set", "model.d_ff=128"},
             {{"c.yaml", kConfig}},
             0,
             {"d_ff 128"}});
}

TEST_CASE("cli: a calibration profile names itself plainly, or the config that uses it is refused") {
  for (const std::string name : {"''", "\"\"", "../x", "a/b", ".hidden", "\"a b\""}) {
    check_row({"profile name " + name,
               {"run", "c.yaml", "--no-files"},
               {{"c.yaml", with_hardware("calibration: p.yaml")}, {"p.yaml", profile(name)}},
               2,
               {"p.yaml:1: name: ", "profile name"}});
  }
  check_row({"a plain profile name is reported",
             {"run", "c.yaml", "--no-files"},
             {{"c.yaml", with_hardware("calibration: p.yaml")}, {"p.yaml", profile("mine")}},
             0,
             {"calibrated with mine"}});
}

TEST_CASE("cli: calibrate refuses to write its profiles where the next fidelity or calibrate reads") {
  const auto measurements = [](const std::filesystem::path& work) {
    std::filesystem::create_directories(work / "m");
    std::ofstream(work / "m" / "a.yaml") << measurement("a");
  };
  check_row({"profiles in the results folder",
             {"calibrate", "m", "--output", "out", "--profiles", "out"},
             {},
             2,
             {"--profiles out: inside the results folder out (--output)"},
             measurements});
  check_row({"profiles under the results folder",
             {"calibrate", "m", "--profiles", "results/fidelity/p"},
             {},
             2,
             {"--profiles results/fidelity/p: inside the results folder results/fidelity"},
             measurements});
  check_row({"profiles in the measurement folder",
             {"calibrate", "m", "--profiles", "./m/"},
             {},
             2,
             {"--profiles ./m/: the measurement folder m, whose every *.yaml"},
             measurements});
  // Beside them both, the first run writes and the next one reads.
  const Scratch scratch;
  measurements(scratch.work());
  for (int run = 0; run < 2; ++run) {
    const auto result = scratch.run({"calibrate", "m", "--profiles", "profiles", "--progress", "none"});
    INFO(result.describe());
    CHECK(result.exit_status == 0);
  }
  CHECK(std::filesystem::exists(scratch.work() / "profiles" / "tpu-v2-core_none.yaml"));
}

TEST_CASE("cli: the limit of bases in a chain is the one --schema and the README state") {
  const Scratch scratch;
  const auto schema = scratch.run({"run", "--schema"});
  REQUIRE(schema.exit_status == 0);
  CHECK_THAT(schema.out, Catch::Contains("a base may have a base of its own, at most 8 in a chain"));
  std::ifstream readme(TPUSIM_README);
  const std::string readme_text{std::istreambuf_iterator<char>(readme), std::istreambuf_iterator<char>()};
  CHECK_THAT(readme_text, Catch::Contains("at most 8 in a chain"));
  // c.yaml -> b1.yaml -> ... -> bN.yaml, the last one the whole config: N bases.
  const auto chain = [&](int bases) {
    for (int i = 1; i <= bases; ++i) {
      std::ofstream(scratch.work() / ("b" + std::to_string(i) + ".yaml"))
          << (i == bases ? kConfig : "base: b" + std::to_string(i + 1) + ".yaml\n");
    }
    std::ofstream(scratch.work() / "c.yaml") << "base: b1.yaml\n";
    return scratch.run({"run", "c.yaml", "--no-files"});
  };
  CHECK(chain(8).exit_status == 0);
  const auto nine = chain(9);
  CHECK(nine.exit_status == 2);
  CHECK_THAT(nine.err, Catch::Contains("b8.yaml:1: base: more than 8 bases in a chain"));
}

TEST_CASE("cli: fidelity's help says one thing of a model over its HBM, and the footer defers to it") {
  const Scratch scratch;
  const auto help = scratch.run({"fidelity", "--help"});
  REQUIRE(help.exit_status == 0);
  CHECK_THAT(help.out, Catch::Contains("those whose model does not fit its HBM too"));
  CHECK_THAT(help.out, Catch::Contains("(a command's help above says what each means for it)"));
}
