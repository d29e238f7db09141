// tpusim bench <what>: wall-time and memory figures. Benchmarks print figures; they never pass or fail on
// time.
#include "workloads/cli/command.hpp"

namespace tpusim::cli {

void add_bench_command(CLI::App& app) {
  auto* bench =
      app.add_subcommand("bench", "Benchmarks: wall time and peak memory of the simulator and engine");
  bench->require_subcommand(1);
  add_bench_collectives(*bench);
  add_bench_engine(*bench);
  add_bench_conv(*bench);
  add_bench_step(*bench);
  add_bench_sweep(*bench);
  add_bench_search(*bench);
}

}  // namespace tpusim::cli
