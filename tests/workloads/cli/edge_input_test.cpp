// Inputs at the edges of what tpusim reads: numbers at the ends of a double and past the plausible range of
// a rate or a duration, empty option values, text that is not text, paths of the wrong kind. Each is one
// line naming what is wrong and where, with the documented exit status (the rows' check_row), and the
// property test below takes every numeric config key to the extremes of a double.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "input_rows.hpp"

using tpusim::cli_test::check_row;
using tpusim::cli_test::kConfig;
using tpusim::cli_test::Row;
using tpusim::cli_test::Scratch;
using tpusim::cli_test::with_hardware;

namespace {

const std::string kSweep = "name: s\nbase: tiny-mlp\nvary:\n  training.seed: [1, 2]\n";

std::vector<Row> edge_input_table() {
  const std::vector<std::string> collective = {"collective", "--topology", "torus:4x4", "--op", "allreduce"};
  const auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  return {
      // A slow link's factor: no lower bound crashed the simulator (SIGABRT) or gave 1e293 s.
      {"a slow link at the smallest double",
       with(collective, {"--faults", "slow:0.0+x:4.9e-324"}),
       {},
       2,
       {"fault 'slow:0.0+x:4.9e-324': factor '4.9e-324' must be a number from 0.001 to 1"}},
      {"a slow link at 1e-300",
       with(collective, {"--faults", "slow:0.0+x:1e-300"}),
       {},
       2,
       {"factor '1e-300' must be a number from 0.001 to 1"}},
      {"a slow link in hex",
       with(collective, {"--faults", "slow:0.0+x:0x1p-2"}),
       {},
       2,
       {"factor '0x1p-2' must be a number from 0.001 to 1"}},
      {"a slow link in hardware.faults",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", with_hardware("faults: slow:0.0+x:1e-300")}},
       2,
       {"c.yaml:4: hardware.faults: ", "must be a number from 0.001 to 1"}},
      {"a straggler at infinity",
       with(collective, {"--faults", "straggler:0.0:inf"}),
       {},
       2,
       {"factor 'inf' must be a number from 1 to 100"}},
      // Rates and durations: plausible ranges where they are parsed.
      {"a link latency below a picosecond",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", with_hardware("inter_chip_latency: 1e-300")}},
       2,
       {"c.yaml:4: hardware.inter_chip_latency: '1e-300' is not a plausible latency: expected 0, or 1 ps to "
        "1 s"}},
      {"a learning rate of 1e300",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", kConfig + "  learning_rate: 1e300\n"}},
       2,
       {"c.yaml:14: training.learning_rate: is not a plausible learning rate: expected 1e-12 to 1000"}},
      {"a search time limit of 1e400",
       {"search", "--preset", "tiny-mlp", "--time-limit", "1e400", "--no-files"},
       {},
       2,
       {"tpusim: error: --time-limit:1: search.time_limit: '1e400' is too large a number"}},
      {"a negative search time limit",
       {"search", "--preset", "tiny-mlp", "--time-limit", "-5", "--no-files"},
       {},
       2,
       {"--time-limit:1: search.time_limit: a time limit is 0 (none) or 0.001 to 604800 seconds (a week)"}},
      // Sizes.
      {"a size in hex",
       with(collective, {"--bytes", "0x10"}),
       {},
       2,
       {"tpusim: error: '0x10' is not a size: numbers are plain decimals, not hex"}},
      {"a size past 1 EiB",
       with(collective, {"--bytes", "2e19"}),
       {},
       2,
       {"'2e19' is not a plausible size: expected at most 1 EiB"}},
      {"a collective of 2 PiB per member",
       with(collective, {"--bytes", "2048TiB"}),
       {},
       2,
       {"size '2048TiB' is more than 1 PiB per member"}},
      {"an HBM of 1.8e19 bytes",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", with_hardware("hbm_per_core: 1.8e19")}},
       2,
       {"c.yaml:4: hardware.hbm_per_core: '1.8e19' is not a plausible size: expected at most 1 EiB"}},
      {"a benchmark size in hex",
       {"bench", "engine", "--pod-batch", "0x10"},
       {},
       2,
       {"tpusim: error: --pod-batch: '0x10' is not a whole number: expected 1 to 281474976710656"}},
      // Empty option values: in a Slurm array with an unset variable every task would run every point.
      {"an empty --shard",
       {"sweep", "s.yaml", "--shard", ""},
       {{"s.yaml", kSweep}},
       2,
       {"tpusim: error: --shard: an empty value: give one, or leave the option out"}},
      {"an empty --output",
       {"run", "--preset", "tiny-mlp", "--output", ""},
       {},
       2,
       {"--output: an empty value"}},
      {"an empty --preset", {"search", "--preset", ""}, {}, 2, {"--preset: an empty value"}},
      // Blamed where the mistake is.
      {"--mappings with an axis no candidate has",
       {"search", "--preset", "lm-s5", "--mappings", "foo=x", "--no-files"},
       {},
       2,
       {"tpusim: error: --mappings:1: search.mappings[0]: candidates name their mesh axes batch, model, "
        "model2 "
        "and model3; 'foo' is none of them"}},
      {"a sweep whose base is itself",
       {"sweep", "self.yaml", "--dry-run"},
       {{"self.yaml", "name: self\nbase: self.yaml\nvary:\n  training.seed: [1, 2]\n"}},
       2,
       {"tpusim: error: self.yaml:2: base: 'self.yaml' is this sweep file itself; a sweep's base is a preset "
        "or a run config"}},
      {"a sweep whose base is another sweep",
       {"sweep", "outer.yaml", "--dry-run"},
       {{"outer.yaml", "name: outer\nbase: inner.yaml\nvary:\n  training.seed: [1, 2]\n"},
        {"inner.yaml", kSweep}},
       2,
       {"tpusim: error: outer.yaml:2: base: 'inner.yaml' is a sweep file (inner.yaml:3 has 'vary')"}},
      // Text that is not text.
      {"a NUL byte in a config",
       {"run", "nul.yaml", "--no-files"},
       {{"nul.yaml", std::string("name: x\nmodel:\n  kind: m\0lp\n", 26)}},
       2,
       {"tpusim: error: nul.yaml:3: a control character (byte 0x00) at column 10: a config is plain text"}},
      {"an escape byte in a sweep",
       {"sweep", "esc.yaml", "--dry-run"},
       {{"esc.yaml", "name: s\x1b\nbase: tiny-mlp\n"}},
       2,
       {"tpusim: error: esc.yaml:1: a control character (byte 0x1b) at column 8"}},
      {"a key of a million characters",
       {"run", "big.yaml", "--no-files"},
       {{"big.yaml", std::string(1000000, 'a') + ": 1\n"}},
       2,
       {"tpusim: error: big.yaml:1: a key of 1000000 characters: YAML allows at most 1024 in a key"}},
      // Paths of the wrong kind are the user's to fix: exit 2, as a results path that is a file.
      {"--trace at a folder",
       with(collective, {"--trace", "here"}),
       {{"here/keep.txt", "mine\n"}},
       2,
       {"tpusim: error: 'here' is a folder: give the path of a file to write"}},
      {"--trace under a file",
       with(collective, {"--trace", "file.txt/trace.json"}),
       {{"file.txt", "mine\n"}},
       2,
       {"cannot create folder 'file.txt': '", "file.txt' is not a folder"}},
      {"a results folder under a file",
       {"run", "--preset", "tiny-mlp", "--output", "file.txt/out"},
       {{"file.txt", "mine\n"}},
       2,
       {"file.txt' is not a folder"}},
  };
}

}  // namespace

TEST_CASE(
    "cli: inputs at the edges (numbers, empty values, control bytes, wrong kinds of path) are one line") {
  for (const auto& row : edge_input_table()) {
    SECTION(row.what) { check_row(row); }
  }
}

namespace {

// The numeric keys of the config, each with the line it takes in kConfig's sections.
struct NumericKey {
  std::string key;
  std::string section;  // where the line goes: after "hardware:", "model:" or "training:"
};

std::vector<NumericKey> numeric_keys(const Scratch& scratch) {
  // From the schema itself, so that a numeric key added later is covered too.
  const auto schema = scratch.run({"run", "--schema"});
  REQUIRE(schema.exit_status == 0);
  std::vector<NumericKey> keys;
  // Rows are "section.key   type ...". Split by hand: std::regex recurses once per character of a repetition,
  // which overflows the stack of a sanitizer build on the schema's long lines.
  std::istringstream lines(schema.out);
  for (std::string line; std::getline(lines, line);) {
    const auto dot = line.find('.');
    const auto space = line.find(' ');
    if (dot == std::string::npos || space == std::string::npos || dot > space) continue;
    const std::string section = line.substr(0, dot);
    if (section != "hardware" && section != "training" && section != "model") continue;
    const std::string key = line.substr(dot + 1, space - dot - 1);
    if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos) continue;
    const std::string type = line.substr(space);
    for (const char* numeric : {"number", "size", "bandwidth", "latency", "FLOP", "duration", "rate"})
      if (type.find(numeric) != std::string::npos) {
        keys.push_back({key, section});
        break;
      }
  }
  return keys;
}

}  // namespace

TEST_CASE("cli: every numeric config key at 0, the ends of a double, NaN and infinity: a run or one line") {
  const Scratch scratch;
  const auto keys = numeric_keys(scratch);
  // At least the link, HBM, FLOP-rate, learning-rate and model size keys.
  REQUIRE(keys.size() >= 10);
  const std::vector<std::string> values = {
      "0", "4.9e-324", "1.7976931348623157e308", "-1", ".nan", "nan", ".inf", "inf", "0x10"};
  for (const auto& [key, section] : keys) {
    for (const auto& value : values) {
      std::string text = kConfig;
      text.insert(text.find(section + ":\n") + section.size() + 2, "  " + key + ": " + value + "\n");
      std::ofstream(scratch.work() / "c.yaml") << text;
      const auto run = scratch.run({"run", "c.yaml", "--no-files", "--json"});
      INFO(section << "." << key << ": " << value << "\n" << run.describe());
      REQUIRE(run.signal == 0);
      if (run.exit_status == 0) {
        // A value that runs must be a plain number inside its range, and give a finite step time.
        CHECK(value != ".nan");
        CHECK(value != "inf");
        CHECK(value != "0x10");
        CHECK(value != "4.9e-324");
        CHECK(value != "1.7976931348623157e308");
        const auto at = run.out.find("\"step_time_s\": ");
        REQUIRE(at != std::string::npos);
        const double step_time_s = std::strtod(run.out.c_str() + at + 15, nullptr);
        CHECK(std::isfinite(step_time_s));
        CHECK(step_time_s > 0);
        continue;
      }
      CHECK(run.exit_status == 2);
      REQUIRE(run.err_lines().size() == 1);
      CHECK_THAT(run.err_lines()[0], Catch::StartsWith("tpusim: error: c.yaml:"));
      CHECK_THAT(run.err_lines()[0], Catch::Contains(section + "." + key));
    }
  }
}

TEST_CASE(
    "cli: --help of every command that writes a results folder names exit status 3 for a folder in use") {
  const Scratch scratch;
  for (const char* command : {"run", "sweep", "search", "fidelity", "calibrate", "plot"}) {
    const auto help = scratch.run({command, "--help"});
    INFO(command << "\n" << help.describe());
    CHECK(help.exit_status == 0);
    std::string text = help.out;
    // CLI11 wraps nothing, but the footer may break a line anywhere a word ends.
    for (auto& c : text) c = c == '\n' ? ' ' : c;
    // By hand, not Catch::Matches: std::regex recurses once per character of a repetition, which overflows
    // the stack of a sanitizer build on a help text this long.
    const auto phrase = text.find("another tpusim is writing");
    REQUIRE(phrase != std::string::npos);
    const auto clause = text.rfind(';', phrase);
    CHECK(text.find("3 ", clause == std::string::npos ? 0 : clause) < phrase);
  }
}
