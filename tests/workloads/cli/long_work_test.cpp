// Long work is never silent and its limits hold for the whole of it: the full-numerics limit counts every
// step, --progress is checked like every option, and work shorter than the progress line's quiet time
// prints nothing extra.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

#include "cli_runner.hpp"

using tpusim::cli_test::CliRun;
using tpusim::cli_test::Scratch;

namespace {

void check_one_line_exit_2(const CliRun& run, const std::vector<std::string>& phrases) {
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK(run.out.empty());
  REQUIRE(run.err_lines().size() == 1);
  for (const auto& phrase : phrases) CHECK_THAT(run.err_lines().front(), Catch::Contains(phrase));
}

}  // namespace

TEST_CASE("cli: long work: the full-numerics limit counts every step, from --steps or from the config") {
  const Scratch scratch;
  // tiny-unet: 1.494e8 FLOPs a step; 20000 steps are 2.99e12, over the 2e12 of a run. 13000 are 1.94e12.
  check_one_line_exit_2(scratch.run({"run", "--preset", "tiny-unet", "--steps", "20000", "--no-files"}),
                        {"--steps: full numerics of this run would need about 2.99e+12 FLOPs (20000 steps of "
                         "1.49e+08)",
                         "at most 2e+12 FLOPs over the run"});
  const CliRun shown = scratch.run({"run", "--show-preset", "--preset", "tiny-unet"});
  REQUIRE(shown.exit_status == 0);
  const std::string yaml = std::regex_replace(shown.out, std::regex("steps: 30"), "steps: 20000");
  REQUIRE(yaml != shown.out);
  std::ofstream(scratch.work() / "long.yaml") << yaml;
  const CliRun from_config = scratch.run({"run", "long.yaml", "--no-files"});
  check_one_line_exit_2(from_config, {"long.yaml:", "training.numerics", "20000 steps of 1.49e+08"});
}

TEST_CASE("cli: long work: --progress takes bar, plain or none on run and collective") {
  const Scratch scratch;
  check_one_line_exit_2(scratch.run({"run", "--preset", "tiny-mlp", "--no-files", "--progress", "fancy"}),
                        {"--progress: 'fancy' is not a progress mode"});
  check_one_line_exit_2(scratch.run({"collective", "--topology", "ring-8", "--progress", "loud"}),
                        {"--progress: 'loud' is not a progress mode"});
}

TEST_CASE("cli: long work: work shorter than the quiet time shows no progress line") {
  const Scratch scratch;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "--preset", "tiny-mlp", "--no-files", "--progress", "plain"},
           {"collective", "--topology", "torus-4x4", "--bytes", "1MiB", "--progress", "plain"}}) {
    const CliRun run = scratch.run(args);
    INFO(run.describe());
    CHECK(run.exit_status == 0);
    CHECK(run.err.empty());
    CHECK_FALSE(run.out.empty());
  }
}
