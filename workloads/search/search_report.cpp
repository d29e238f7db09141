#include "workloads/search/search_report.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/report/chart.hpp"
#include "workloads/report/csv_writer.hpp"
#include "workloads/report/gnuplot.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/search/pareto_chart.hpp"

namespace tpusim::workloads {

const std::vector<std::string> kCandidatesCsvColumns = {"index",
                                                        "mesh_shape",
                                                        "layout",
                                                        "mapping",
                                                        "algorithms",
                                                        "weight_sharding",
                                                        "pipeline_stages",
                                                        "microbatches",
                                                        "status",
                                                        "step_time_s",
                                                        "memory_per_core_bytes",
                                                        "mfu",
                                                        "exposed_communication_s",
                                                        "collective_calls",
                                                        "pareto",
                                                        "wall_s",
                                                        "problem"};

const std::vector<std::string> kSearchResultFiles = {"candidates.csv", "pareto.csv", "best.yaml",
                                                     "search.json",    "pareto.gp",  "pareto.dat",
                                                     "pareto.png",     "pareto.svg"};

namespace {

bool on_front(const std::vector<std::size_t>& pareto, std::size_t i) {
  return std::find(pareto.begin(), pareto.end(), i) != pareto.end();
}

// A candidate's training choices, the base's own where the search does not vary them.
struct SearchReportTraining {
  std::string weight_sharding;
  int pipeline_stages = 1;
  int microbatches = 1;
};
SearchReportTraining resolved_training(const Candidate& c, const RunConfig& base) {
  SearchReportTraining t{mtf::weight_sharding_modes().name_of(base.training.weight_sharding),
                         base.model.pipeline.stages, base.model.pipeline.microbatches};
  if (!c.weight_sharding.empty()) t.weight_sharding = c.weight_sharding;
  if (c.pipeline_stages > 0) t.pipeline_stages = c.pipeline_stages, t.microbatches = c.microbatches;
  return t;
}

nlohmann::json outcome_json(const CandidateOutcome& o, const RunConfig& base) {
  const SearchReportTraining training = resolved_training(o.candidate, base);
  nlohmann::json j = {{"mesh_shape", o.candidate.mesh_shape},
                      {"layout", o.candidate.layout},
                      {"mapping", o.candidate.mapping},
                      {"algorithms", o.candidate.algorithms_text()},
                      {"weight_sharding", training.weight_sharding},
                      {"pipeline_stages", training.pipeline_stages},
                      {"microbatches", training.microbatches},
                      {"status", to_string(o.status)}};
  if (o.legal()) j["memory_per_core_bytes"] = o.memory_per_core_bytes;
  if (o.status == CandidateOutcome::Status::fits) {
    j["step_time_s"] = o.step_time_s;
    j["mfu"] = o.mfu;
    j["exposed_communication_s"] = o.exposed_communication_s;
    j["collective_calls"] = o.collective_calls;
  }
  if (!o.legal()) {
    j["problem"] = o.problem;
  }
  j["wall_s"] = o.wall_s;
  return j;
}

std::string describe(const CandidateOutcome& o) {
  const std::string training = o.candidate.training_text();
  return fmt::format("{}  {}  {}  {}{}", o.candidate.mesh_shape, o.candidate.layout, o.candidate.mapping,
                     o.candidate.algorithms_text(), training.empty() ? "" : "  " + training);
}

std::string figures(const CandidateOutcome& o) {
  if (!o.legal()) return "illegal: " + o.problem;
  if (o.status == CandidateOutcome::Status::over_cap)
    return fmt::format("over the cap: {}/core (its step is not simulated)",
                       format_bytes(double(o.memory_per_core_bytes)));
  return fmt::format("{:>10}  MFU {:>5.1f}%  {:>9}/core", format_duration(o.step_time_s), 100 * o.mfu,
                     format_bytes(double(o.memory_per_core_bytes)));
}

std::vector<std::string> weight_sharding_names(const SearchSpec& spec, const RunConfig& base) {
  std::vector<std::string> names;
  for (const auto mode : weight_sharding_choices(spec, base))
    names.push_back(mtf::weight_sharding_modes().name_of(mode));
  return names;
}

// The space line's training choices, when the search varies them: "; weight sharding none, full; pipelines
// 1, 2x8".
std::string searched_training(const SearchSpec& spec, const RunConfig& base) {
  std::string text;
  if (!spec.weight_sharding.empty())
    text += "; weight sharding " + join(weight_sharding_names(spec, base), ", ");
  const std::vector<PipelineChoice> pipelines = pipeline_choices(spec, base);
  if (!pipelines.empty()) {
    std::vector<std::string> parts;
    for (const PipelineChoice& p : pipelines)
      parts.push_back(p.stages == 1 ? "1" : fmt::format("{}x{}", p.stages, p.microbatches));
    text += "; pipelines (stages x microbatches) " + join(parts, ", ");
  }
  return text;
}

int count(const SearchResult& result, CandidateOutcome::Status status) {
  return static_cast<int>(std::count_if(result.outcomes.begin(), result.outcomes.end(),
                                        [&](const CandidateOutcome& o) { return o.status == status; }));
}

const char* strategy_name(SearchStrategy strategy) {
  for (const auto& entry : search_strategies().entries()) {
    if (entry.value == strategy) return entry.name.c_str();
  }
  return "auto";
}

std::string stop_reason(const SearchResult& result, const SearchSpec& spec) {
  if (result.stopped_by == "space") return "every candidate of the space evaluated";
  if (result.stopped_by == "max_candidates")
    return fmt::format("stopped at max_candidates {}", spec.max_candidates);
  if (result.stopped_by == "time_limit")
    return fmt::format("stopped at the time limit of {} s", spec.time_limit_s);
  return "stopped: no candidate left that a restart could find";
}

}  // namespace

void write_candidates_csv(std::ostream& out, const std::vector<CandidateOutcome>& outcomes,
                          const std::vector<std::size_t>& rows, const std::vector<std::size_t>& pareto,
                          const RunConfig& base) {
  CsvWriter csv(out, kCandidatesCsvColumns);
  for (const std::size_t i : rows) {
    const auto& o = outcomes[i];
    csv.number(i).text(o.candidate.mesh_shape).text(o.candidate.layout).text(o.candidate.mapping);
    const SearchReportTraining training = resolved_training(o.candidate, base);
    csv.text(o.candidate.algorithms_text()).text(training.weight_sharding);
    csv.number(training.pipeline_stages).number(training.microbatches).text(to_string(o.status));
    const bool fits = o.status == CandidateOutcome::Status::fits;
    fits ? csv.number(o.step_time_s) : csv.empty();
    o.legal() ? csv.number(o.memory_per_core_bytes) : csv.empty();
    if (fits) {
      csv.number(o.mfu).number(o.exposed_communication_s).number(o.collective_calls);
    } else {
      csv.empty().empty().empty();
    }
    csv.boolean(on_front(pareto, i)).number(o.wall_s).text(o.problem);
    csv.end_row();
  }
}

std::string best_config_yaml(const SearchInput& input, const CandidateOutcome& best) {
  YAML::Node root = YAML::Load(candidate_config_yaml(input.base_yaml, best.candidate));
  // A config of its own: `tpusim run best.yaml` must not write over the base's results, nor its headline
  // claim the base's mesh.
  const Candidate& c = best.candidate;
  std::string found = fmt::format("mesh {}, mapping {}, layout {}", c.mesh_shape, c.mapping, c.layout);
  if (c.algorithms_text() != kDefaultAlgorithm) found += ", collectives " + c.algorithms_text();
  if (!c.weight_sharding.empty()) found += ", weight sharding " + c.weight_sharding;
  if (c.pipeline_stages > 1)
    found += fmt::format(", {} pipeline stages of {} microbatches", c.pipeline_stages, c.microbatches);
  YAML::Node config(YAML::NodeType::Map);  // name and description first, as a reader looks for them
  config["name"] = input.base.name + "-best";
  config["description"] =
      fmt::format("found by tpusim search on {}: {}; {} per step, {} per core", input.base.name, found,
                  format_duration(best.step_time_s), format_bytes(double(best.memory_per_core_bytes)));
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (key != "name" && key != "description") config[key] = entry.second;
  }
  config["training"]["output"] = input.base.training.output_dir + "-best";
  YAML::Emitter out;
  out << config;
  return fmt::format(
             "# The fastest candidate of `tpusim search` on {} that fits {} per core: {} simulated.\n",
             input.base.name, format_bytes(double(input.spec.memory_cap_bytes)),
             format_duration(best.step_time_s)) +
         out.c_str() + "\n";
}

nlohmann::json search_json(const SearchInput& input, const SearchResult& result,
                           const nlohmann::json& inputs) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& o : result.outcomes) candidates.push_back(outcome_json(o, input.base));
  const SearchSpec& spec = input.spec;
  nlohmann::json pipelines = nlohmann::json::array();
  for (const PipelineChoice& p : pipeline_choices(spec, input.base))
    pipelines.push_back({{"stages", p.stages}, {"microbatches", p.microbatches}});
  nlohmann::json pins = nlohmann::json::object();
  for (const auto& [dim, axis] : spec.pinned_layout) pins[dim] = axis;
  nlohmann::json body = {
      {"name", input.base.name},
      {"spec",
       {{"mesh_dims", spec.mesh_dims},
        {"layout_dims", spec.layout_dims},
        {"pin_layout", pins},
        {"mesh_shapes", spec.mesh_shapes},
        {"mappings", spec.mappings},
        {"algorithms", spec.algorithms},
        {"weight_sharding", weight_sharding_names(spec, input.base)},
        {"pipeline_stages", spec.pipeline_stages.empty() ? std::vector<int>{input.base.model.pipeline.stages}
                                                         : spec.pipeline_stages},
        {"microbatches", spec.microbatches},
        {"pipelines", pipelines},
        {"memory_cap_bytes", spec.memory_cap_bytes},
        {"strategy", strategy_name(spec.strategy)},
        {"max_candidates", spec.max_candidates},
        {"time_limit_s", spec.time_limit_s},
        {"seed", spec.seed}}},
      {"topology", input.base.hardware.topology.name()},
      {"cores", input.base.hardware.topology.num_cores()},
      {"space_size", result.space_size},
      {"strategy", strategy_name(result.strategy)},
      {"stopped_by", result.stopped_by},
      {"evaluated", result.outcomes.size()},
      {"fits", count(result, CandidateOutcome::Status::fits)},
      {"over_cap", count(result, CandidateOutcome::Status::over_cap)},
      {"illegal", count(result, CandidateOutcome::Status::illegal)},
      {"proposals", result.proposals},
      {"restarts", result.restarts},
      {"simulated_collectives", result.simulated_collectives},
      {"loaded_collective_times", result.loaded_collective_times},
      {"collective_time_file", result.collective_time_file.empty()
                                   ? nlohmann::json(nullptr)
                                   : nlohmann::json(result.collective_time_file)},
      {"wall_s", result.wall_s},
      {"base", result.base ? outcome_json(*result.base, input.base) : nlohmann::json(nullptr)},
      {"best",
       result.best ? outcome_json(result.outcomes[*result.best], input.base) : nlohmann::json(nullptr)},
      {"pareto", result.pareto},
      {"candidates", candidates}};
  return with_report_context(body, format::kSearch, "search", inputs);
}

void print_search_report(std::ostream& out, const SearchInput& input, const SearchResult& result) {
  const RunConfig& base = input.base;
  const SearchSpec& spec = input.spec;
  out << fmt::format("tpusim search {}: {}, {} on {} ({} cores)\n", base.name, to_string(base.model.kind),
                     describe_model(base.model), base.hardware.topology.name(),
                     base.hardware.topology.num_cores());
  out << fmt::format(
      "  space      {} candidates: meshes of 1 to {} axes; layouts of {}{}; mappings {}; algorithms {}{}\n",
      result.space_size, spec.mesh_dims, join(input.spec.layout_dims, ", "),
      spec.pinned_layout.empty() ? ""
                                 : " (pinned " +
                                       [&] {
                                         std::vector<std::string> pins;
                                         for (const auto& [d, a] : spec.pinned_layout)
                                           pins.push_back(d + ":" + a);
                                         return join(pins, ";");
                                       }() +
                                       ")",
      join(spec.mappings, ", "), join(spec.algorithms, ", "), searched_training(spec, base));
  out << fmt::format("  strategy   {} (seed {}{}), {}\n", strategy_name(result.strategy), spec.seed,
                     result.strategy == SearchStrategy::mcmc
                         ? fmt::format(", {} proposals, {} restarts", result.proposals, result.restarts)
                         : "",
                     stop_reason(result, spec));
  const double rate = result.wall_s > 0 ? double(result.outcomes.size()) / result.wall_s : 0;
  out << fmt::format(
      "  evaluated  {} candidates in {:.3g} s ({:.3g} per second): {} fit, {} over the {} cap, {} illegal\n",
      result.outcomes.size(), result.wall_s, rate, count(result, CandidateOutcome::Status::fits),
      count(result, CandidateOutcome::Status::over_cap), format_bytes(double(spec.memory_cap_bytes)),
      count(result, CandidateOutcome::Status::illegal));
  out << fmt::format("  collectives {} distinct ones simulated{}\n\n", result.simulated_collectives,
                     result.collective_time_file.empty()
                         ? ""
                         : fmt::format(", {} times of earlier searches reused ({})",
                                       result.loaded_collective_times, result.collective_time_file));

  out << fmt::format("  {:<14}{}\n  {:<14}{}\n", "best found",
                     result.best ? figures(result.outcomes[*result.best]) : "none fits", "",
                     result.best ? describe(result.outcomes[*result.best]) : "");
  if (result.base) {
    out << fmt::format("  {:<14}{}\n  {:<14}{}\n", "config's own", figures(*result.base), "",
                       describe(*result.base));
  } else {
    out << fmt::format("  {:<14}none: the config leaves its mesh open\n", "config's own");
  }
  if (result.best && result.base && result.base->status == CandidateOutcome::Status::fits) {
    const double ratio = result.base->step_time_s / result.outcomes[*result.best].step_time_s;
    out << fmt::format("  the best found is {:.3f}x as fast as the config's own layout\n", ratio);
  }
  out << "\nPareto front (fitting candidates no other beats in both step time and memory per core):\n";
  out << fmt::format("  {:>10}  {:>10}  {:>6}  {}\n", "memory", "step time", "MFU",
                     "mesh  layout  mapping  algorithms");
  for (const std::size_t i : result.pareto) {
    const auto& o = result.outcomes[i];
    out << fmt::format("  {:>10}  {:>10}  {:>5.1f}%  {}\n", format_bytes(double(o.memory_per_core_bytes)),
                       format_duration(o.step_time_s), 100 * o.mfu, describe(o));
  }
  std::vector<std::size_t> fitting;
  for (std::size_t i = 0; i < result.outcomes.size(); ++i) {
    if (result.outcomes[i].status == CandidateOutcome::Status::fits) fitting.push_back(i);
  }
  std::stable_sort(fitting.begin(), fitting.end(), [&](std::size_t a, std::size_t b) {
    return result.outcomes[a].step_time_s < result.outcomes[b].step_time_s;
  });
  constexpr std::size_t kFastestShown = 10;
  if (fitting.size() > result.pareto.size()) {
    out << fmt::format("\nFastest {} that fit:\n", std::min(kFastestShown, fitting.size()));
    for (std::size_t k = 0; k < std::min(kFastestShown, fitting.size()); ++k) {
      const auto& o = result.outcomes[fitting[k]];
      out << fmt::format("  {:>10}  {:>10}  {:>5.1f}%  {}\n", format_bytes(double(o.memory_per_core_bytes)),
                         format_duration(o.step_time_s), 100 * o.mfu, describe(o));
    }
  }
}

SearchFiles write_search_files(const std::string& folder, const SearchInput& input,
                               const SearchResult& result, const nlohmann::json& inputs,
                               std::ostream& warnings) {
  StagedFolder staged(folder, kSearchResultFiles);
  std::vector<std::size_t> all(result.outcomes.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::ostringstream candidates, pareto;
  write_candidates_csv(candidates, result.outcomes, all, result.pareto, input.base);
  write_candidates_csv(pareto, result.outcomes, result.pareto, result.pareto, input.base);
  write_file_atomically(staged.staged_path("candidates.csv"), candidates.str());
  write_file_atomically(staged.staged_path("pareto.csv"), pareto.str());
  write_file_atomically(staged.staged_path("search.json"),
                        dump_report(search_json(input, result, inputs)) + "\n");
  if (result.best) {
    const CandidateOutcome& best = result.outcomes[*result.best];
    write_file_atomically(staged.staged_path("best.yaml"), best_config_yaml(input, best));
  }
  const Chart chart = pareto_chart(result);
  write_file_atomically(staged.staged_path("pareto.gp"), chart_script(chart));
  write_file_atomically(staged.staged_path("pareto.dat"), chart_data(chart));
  SearchFiles files{folder, false};
  if (chart.empty()) {
    // nothing fits: nothing to draw
  } else if (!gnuplot_available()) {
    warnings << "tpusim: warning: " << kGnuplotMissing << "\n";
  } else {
    // The search's results stand when only gnuplot failed: they are kept, with one line saying why the
    // plot is missing; a folder that cannot be written (EnvironmentError) loses the folder, as it would.
    GnuplotRun pareto;
    pareto.folder = std::filesystem::path(staged.staged_path("x")).parent_path().string();
    pareto.script = "pareto.gp";
    pareto.images = {"pareto.png", "pareto.svg"};
    pareto.shown_folder = folder;
    try {
      run_gnuplot(pareto);
      files.drawn = true;
    } catch (const GnuplotFailure& failure) {
      std::error_code ignored;
      for (const auto& image : pareto.images) std::filesystem::remove(staged.staged_path(image), ignored);
      warnings << "tpusim: warning: pareto plot not drawn: " << failure.what() << "\n";
    }
  }
  staged.commit();
  return files;
}

}  // namespace tpusim::workloads
