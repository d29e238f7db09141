// tpusim search [config.yaml | --preset NAME]: the fastest mesh, layout, mapping and collective algorithms
// for a config's model on its pod, found by simulating candidates' training steps (workloads/search/).
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/folder_lock.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text_file.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/schema_option.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/search/search_schema.hpp"
#include "workloads/search/search_report.hpp"
#include "workloads/search/search_run.hpp"
#include "workloads/report/progress.hpp"

namespace tpusim::cli {
namespace {

struct SearchArgs {
  std::string config_path;
  std::string preset;
  std::string output;
  std::string strategy;
  std::string progress;
  int max_candidates = 0;
  std::string time_limit;
  std::int64_t seed = -1;
  bool json = false;
  bool schema = false;
  bool no_files = false;
  bool no_cache = false;
  std::string cache_dir = "results/collective-times";
  std::string mesh_dims, layout_dims, algorithms, mappings, weight_sharding, pipeline_stages, microbatches;
  std::vector<std::string> sets;
};

void search(const SearchArgs& args) {
  if (args.schema) {
    return print_key_schema(args.json, !args.config_path.empty() || !args.preset.empty(),
                            "search: --schema prints the search section's keys; do not give a config or "
                            "--preset",
                            workloads::print_search_schema, workloads::search_schema_json);
  }
  if (!args.config_path.empty() && !args.preset.empty()) {
    throw InputError("search: give a config file or --preset, not both");
  }
  const std::string preset = args.preset.empty() ? workloads::default_preset_name() : args.preset;
  // --set search.KEY=VALUE changes a key of the search section (after the config's own), any other --set a key
  // of the config searched from.
  std::vector<workloads::ConfigSetting> sets;
  std::vector<std::pair<std::string, std::string>> search_sets;  // search key, YAML value
  for (const auto& set : args.sets) {
    const workloads::SetOption option = workloads::split_set_option(set);
    if (option.key.rfind("search.", 0) != 0) {
      sets.push_back(workloads::parse_set_option(set));
      continue;
    }
    if (option.value.empty()) workloads::throw_missing_set_value(option.key);
    search_sets.emplace_back(option.key, option.value);
  }
  workloads::SearchInput input =
      args.config_path.empty()
          ? workloads::load_search_input(workloads::preset_text(preset), workloads::preset_source(preset),
                                         workloads::OpenMesh::allowed, sets)
          : workloads::load_search_input(read_input_file(args.config_path, "config"), args.config_path,
                                         workloads::OpenMesh::allowed, sets);
  for (const auto& warning : input.base.warnings) std::cerr << "tpusim: warning: " << warning << "\n";
  for (const auto& [key, value] : search_sets)
    workloads::override_search_key(input.spec, key.substr(std::string("search.").size()), value, "--set " + key,
                                   input.base);
  // Options for keys of the search section, read as the section reads them.
  for (const auto& [key, option, value, list] :
       {std::tuple{"mesh_dims", "--mesh-dims", args.mesh_dims, false},
        std::tuple{"layout_dims", "--layout-dims", args.layout_dims, true},
        std::tuple{"algorithms", "--algorithms", args.algorithms, true},
        std::tuple{"mappings", "--mappings", args.mappings, true},
        std::tuple{"weight_sharding", "--weight-sharding", args.weight_sharding, true},
        std::tuple{"pipeline_stages", "--pipeline-stages", args.pipeline_stages, true},
        std::tuple{"microbatches", "--microbatches", args.microbatches, true},
        std::tuple{"time_limit", "--time-limit", args.time_limit, false}}) {
    if (value.empty()) continue;
    workloads::override_search_key(input.spec, key, list ? "[" + value + "]" : value, option, input.base);
  }
  if (args.max_candidates > 0) input.spec.max_candidates = args.max_candidates;
  if (args.seed >= 0) input.spec.seed = static_cast<std::uint64_t>(args.seed);
  if (!args.strategy.empty()) input.spec.strategy = workloads::search_strategies().parse(args.strategy);
  const nlohmann::json inputs = {
      {"config", workloads::input_or_null(args.config_path)},
      {"preset", args.config_path.empty() ? nlohmann::json(preset) : nlohmann::json(nullptr)},
      {"max_candidates",
       args.max_candidates > 0 ? nlohmann::json(args.max_candidates) : nlohmann::json(nullptr)},
      {"time_limit_s",
       args.time_limit.empty() ? nlohmann::json(nullptr) : nlohmann::json(input.spec.time_limit_s)},
      {"seed", args.seed >= 0 ? nlohmann::json(args.seed) : nlohmann::json(nullptr)},
      {"strategy", workloads::input_or_null(args.strategy)},
      {"mesh_dims", workloads::input_or_null(args.mesh_dims)},
      {"layout_dims", workloads::input_or_null(args.layout_dims)},
      {"algorithms", workloads::input_or_null(args.algorithms)},
      {"mappings", workloads::input_or_null(args.mappings)},
      {"weight_sharding", workloads::input_or_null(args.weight_sharding)},
      {"pipeline_stages", workloads::input_or_null(args.pipeline_stages)},
      {"microbatches", workloads::input_or_null(args.microbatches)},
      {"no_cache", args.no_cache},
      {"set", args.sets.empty() ? nlohmann::json(nullptr) : nlohmann::json(args.sets)}};
  const std::string folder = args.output.empty() ? "results/" + input.base.name + "-search" : args.output;
  // Before searching: a folder that cannot be written, or that another tpusim is writing, is reported now, not
  // after the work; the lock is held until the results are in place.
  std::optional<FolderLock> lock;
  if (!args.no_files) {
    lock.emplace(folder);
    StagedFolder probe(folder, workloads::kSearchResultFiles);
  }

  const workloads::ProgressMode mode = args.json && args.progress.empty()
                                           ? workloads::ProgressMode::none
                                           : workloads::parse_progress_mode(args.progress);
  std::unique_ptr<workloads::Progress> progress;
  workloads::SearchOptions options;
  options.share_collective_times = !args.no_cache;
  // --no-files writes nothing, so runs of it are alike: none reads what an earlier one left.
  if (!args.no_cache && !args.no_files) options.collective_time_folder = args.cache_dir;
  options.on_candidate = [&](const workloads::CandidateOutcome& outcome, int, int planned) {
    if (!progress) {
      progress = std::make_unique<workloads::Progress>(mode, input.base.name + " search", planned, 0);
    }
    progress->one_done(!outcome.legal());
  };
  const workloads::SearchResult result = workloads::run_search(input, options);
  if (progress) progress->finish();
  if (!result.collective_time_problem.empty()) {
    std::cerr << "tpusim: warning: the collective times were not kept: " << result.collective_time_problem
              << "\n";
  }

  if (args.json) {
    std::cout << workloads::dump_report(workloads::search_json(input, result, inputs)) << "\n";
  } else {
    workloads::print_search_report(std::cout, input, result);
  }
  if (!args.no_files) {
    const auto files = workloads::write_search_files(folder, input, result, inputs, std::cerr);
    if (!args.json) {
      std::cout << fmt::format("\nresults in {}/ (candidates.csv, pareto.csv, {}search.json{})\n",
                               files.folder, result.best ? "best.yaml, " : "",
                               files.drawn ? ", pareto.png, pareto.svg" : "");
    }
  }
  std::cout << std::flush;
  if (!result.best) throw std::runtime_error(workloads::no_fit_message(input, result));
}

}  // namespace

void add_search_command(CLI::App& app) {
  static SearchArgs args;
  auto* command = app.add_subcommand(
      "search",
      "Find the fastest mesh shape, layout rules, mesh mapping and collective algorithms for a config's "
      "model "
      "on its pod, by simulating a timing-only training step of each candidate; candidates whose memory per "
      "core exceeds the cap are kept as over_cap, never as best.\n"
      "What is explored comes from the config's optional search: section (its keys: tpusim search --schema; "
      "workloads/README.md, section Search); the options below override it. Without a config: the built-in "
      "default, "
      "lm-s5.\n"
      "Exhaustive when the space has at most max_candidates candidates (it says how many there are), else a "
      "seeded Metropolis chain (as FlexFlow's search).\n"
      "Writes <output>/candidates.csv, pareto.csv, best.yaml (a config tpusim run runs as is), search.json "
      "and "
      "pareto.png/svg (gnuplot), as one unit; output default results/<name>-search.\n"
      "Exit status: 0 done; 1 no candidate fits; 2 a bad config, search section or argument (one line: "
      "file:line: key: problem); 3 the results cannot be written, or another tpusim is writing them (checked "
      "before searching).");
  command->add_option("config", args.config_path, "Config file (YAML), with an optional search: section");
  command->add_option("--preset", args.preset, "Search from a shipped preset (tpusim run --list-presets)");
  command->add_option("--set", args.sets,
                      "Change one key of the config searched from, KEY=VALUE (repeatable), as tpusim run --set, "
                      "or of its search section: --set search.memory_cap=4GiB");
  add_whole_number_option(command, "--max-candidates", args.max_candidates, 1, 10000000,
                          "Evaluate at most this many candidates (overrides search.max_candidates)");
  command->add_option("--time-limit", args.time_limit,
                      "Stop after this many seconds, 0.001 to a week, or 0 for no limit (overrides "
                      "search.time_limit)");
  add_whole_number_option(command, "--seed", args.seed, 0, std::numeric_limits<std::int32_t>::max(),
                          "Seed of the chain (overrides search.seed)");
  command->add_option("--strategy", args.strategy, "auto, exhaustive or mcmc (overrides search.strategy)")
      ->check(CLI::IsMember({"auto", "exhaustive", "mcmc"}));
  command->add_option("--mesh-dims", args.mesh_dims, "Mesh dimensions, 1 to 3 (overrides search.mesh_dims)");
  command->add_option("--layout-dims", args.layout_dims,
                      "Model dimensions to place, comma-separated (overrides search.layout_dims)");
  command->add_option("--algorithms", args.algorithms,
                      "Algorithms per mesh axis, comma-separated: default, auto or registry names (overrides "
                      "search.algorithms)");
  command->add_option("--mappings", args.mappings,
                      "Mesh mappings, comma-separated (overrides search.mappings): rings, linear, an explicit "
                      "assignment (model=core+x;batch=y), or explicit for every assignment of physical axes");
  command->add_option("--weight-sharding", args.weight_sharding,
                      "Weight-sharding modes to try, comma-separated: none, update, full (overrides "
                      "search.weight_sharding)");
  command->add_option("--pipeline-stages", args.pipeline_stages,
                      "Pipeline stage counts to try, comma-separated; a count above 1 adds a stage axis "
                      "(overrides search.pipeline_stages)");
  command->add_option("--microbatches", args.microbatches,
                      "Microbatch counts to try with each stage count above 1, comma-separated (overrides "
                      "search.microbatches)");
  command->add_option("--output", args.output, "Output folder (default results/<name>-search)");
  command->add_option("--progress", args.progress,
                      "bar, plain or none (default: bar on a terminal, else plain; none with --json)");
  command->add_flag("--schema", args.schema,
                    "Print the keys of the search: section (each key, its type, default and meaning; with "
                    "--json as JSON) and exit");
  command->add_flag("--json", args.json, "Print the result (or --schema) as JSON instead of text");
  command->add_flag("--no-files", args.no_files,
                    "Do not write result files, nor read or write the collective times of --cache-dir");
  command->add_option("--cache-dir", args.cache_dir,
                      "Folder of the collective times kept between searches, one file per pod and build "
                      "(default results/collective-times)");
  command->add_flag(
      "--no-cache", args.no_cache,
      "Simulate every collective of every candidate again, neither reusing times within the search "
      "nor reading or writing --cache-dir (the same results, slower: for measuring the cache)");
  command->callback([] { search(args); });
}

}  // namespace tpusim::cli
