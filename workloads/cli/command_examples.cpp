// The examples at the end of every command's --help, one row per command: they are set as the command's
// footer above the footer it inherits from tpusim's (the exit status). Paths are from the repository's top
// folder, and a command that reads another's output follows it (sweep, then plot). The help test checks that
// every command has examples of itself and runs the quick ones (topo, --dry-run).
#include <map>
#include <string>
#include <vector>

#include "topologies/support/check.hpp"
#include "workloads/cli/command.hpp"

namespace tpusim::cli {
namespace {

// By the command's words after "tpusim" ("" for tpusim itself).
const std::map<std::string, std::vector<std::string>>& examples() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"",
       {"tpusim topo list", "tpusim run workloads/examples/configs/run.yaml",
        "tpusim sweep workloads/examples/configs/torus-sweep.yaml"}},
      {"topo", {"tpusim topo list", "tpusim topo describe torus:8x8,cores=2"}},
      {"topo list", {"tpusim topo list", "tpusim topo list --json"}},
      {"topo describe",
       {"tpusim topo describe tpu-v4-4x4x8-twisted",
        "tpusim topo describe torus:8x8,cores=2,bw=100GBps --faults down:0.0+x --json"}},
      {"collective",
       {"tpusim collective --topology torus:8x8 --op allreduce --bytes 16MiB",
        "tpusim collective --topology tpu-v2-128 --algo auto --bytes 1MiB --json",
        "tpusim collective --list-algorithms"}},
      {"validate", {"tpusim validate --output-dir results/validate"}},
      {"bench", {"tpusim bench step --only v2", "tpusim bench collectives --json"}},
      {"bench collectives", {"tpusim bench collectives --json"}},
      {"bench engine", {"tpusim bench engine --batch 256 --io 256 --hidden 1024 --steps 2"}},
      {"bench conv", {"tpusim bench conv --layer --batch 8 --size 32 --in-channels 64 --out-channels 64"}},
      {"bench step", {"tpusim bench step --only v2 --json"}},
      {"bench sweep", {"tpusim bench sweep --only overhead"}},
      {"bench search", {"tpusim bench search --only paper"}},
      {"run",
       {"tpusim run workloads/examples/configs/run.yaml", "tpusim run --preset tiny-lm --steps 3 --no-files",
        "tpusim run --preset lm-s5 --explain --output results/lm-s5"}},
      {"sweep",
       {"tpusim sweep workloads/examples/configs/torus-sweep.yaml",
        "tpusim sweep workloads/examples/configs/collective-sweep.yaml --dry-run",
        "tpusim sweep --preset lm-scaling --shard 1/2 --output results/scaling-1", "tpusim sweep --schema"}},
      {"sweep merge",
       {"tpusim sweep --preset lm-scaling --shard 1/2 --output results/scaling-1",
        "tpusim sweep --preset lm-scaling --shard 2/2 --output results/scaling-2",
        "tpusim sweep merge results/scaling results/scaling-1 results/scaling-2"}},
      {"search",
       {"tpusim search workloads/examples/configs/search.yaml",
        "tpusim search --preset lm-s5 --mesh-dims 2 --max-candidates 200 --seed 1",
        "tpusim search --schema"}},
      {"plot",
       {"tpusim sweep workloads/examples/configs/torus-sweep.yaml",
        "tpusim plot results/example-torus-sweep"}},
      {"fidelity", {"tpusim fidelity --dry-run", "tpusim fidelity --json"}},
      {"calibrate", {"tpusim calibrate --profiles workloads/fidelity/calibrations"}},
  };
  return table;
}

void add_examples(CLI::App& command, const std::string& path, const std::string& inherited) {
  const auto row = examples().find(path);
  TPUSIM_CHECK(row != examples().end());  // a command without examples: add its row above
  std::string footer = "Examples:\n";
  for (const auto& line : row->second) footer += "  " + line + "\n";
  command.footer(footer + "\n" + inherited);
  for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; })) {
    add_examples(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), inherited);
  }
}

}  // namespace

void add_examples(CLI::App& app) { add_examples(app, "", app.get_footer()); }

}  // namespace tpusim::cli
