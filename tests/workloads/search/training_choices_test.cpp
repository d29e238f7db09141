// The search over training choices (weight sharding, pipeline stages and microbatches) and over slice
// mappings: the space against a closed form over meshes listed by hand, candidates' evaluations against runs
// of configs written by hand, the memory cap with sharded weights, the chain's reach, and a multislice pod.
// Each run and each search creates the process's one Simulator, so they go to child processes.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "sim/simulator.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "tests/workloads/search/search_fixtures.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/text.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/search/candidate_evaluator.hpp"
#include "workloads/search/search_run.hpp"
#include "workloads/search/search_space.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

// The meshes and layouts of layout_dims [batch, d_ff] on the 8-core ring, by stage count, worked out by hand:
// with one stage as search_space_test.cpp lists them; with two, the other axes share 4 cores (batch:4 or
// model:4 alone, batch:4 splitting both, or batch:2;model:2; batch on either axis of 2x2 is one candidate).
// Each with whether an axis splits the batch and its axes besides the stage axis.
struct HandStructure {
  int stages;
  std::string mesh, layout;
  bool splits_batch;
  int axes;
};
const std::vector<HandStructure> kEightCoreStructures = {
    {1, "batch:8", "batch:batch", true, 1},
    {1, "model:8", "d_ff:model", false, 1},
    {1, "batch:8", "batch:batch;d_ff:batch", true, 1},
    {1, "batch:2;model:4", "batch:batch;d_ff:model", true, 2},
    {1, "batch:4;model:2", "batch:batch;d_ff:model", true, 2},
    {2, "stage:2;batch:4", "batch:batch;stage:stage", true, 1},
    {2, "stage:2;model:4", "d_ff:model;stage:stage", false, 1},
    {2, "stage:2;batch:4", "batch:batch;d_ff:batch;stage:stage", true, 1},
    {2, "stage:2;batch:2;model:2", "batch:batch;d_ff:model;stage:stage", true, 2},
};

std::string choices_yaml_list(const std::vector<std::string>& items) { return "[" + join(items, ", ") + "]"; }

std::string choices_numbers(const std::vector<int>& counts) {
  std::vector<std::string> items;
  for (const int c : counts) items.push_back(std::to_string(c));
  return choices_yaml_list(items);
}

// One outcome as text: status, step time in hex (exact), memory.
std::string choices_outcome_text(const CandidateOutcome& o) {
  return fmt::format("{} {:a} {}", to_string(o.status), o.step_time_s, o.memory_per_core_bytes);
}

// A search's outcomes in a child, "key status step memory" per line, then the best's key.
std::string choices_search(const SearchInput& input) {
  return run_in_child([&]() -> std::string {
           const SearchResult result = run_search(input);
           std::string text;
           for (const auto& o : result.outcomes)
             text += o.candidate.key() + " " + choices_outcome_text(o) + "\n";
           return text + "best " + (result.best ? result.outcomes[*result.best].candidate.key() : "none") +
                  "\n";
         })
      .output;
}

std::map<std::string, std::string> choices_by_key(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string key, rest;
  while (in >> key && std::getline(in, rest)) out[key] = rest.substr(rest.empty() ? 0 : 1);
  return out;
}

struct ChoicesFigures {
  std::string status;
  double step_time_s = 0;
  std::uint64_t memory_bytes = 0;
};
ChoicesFigures choices_figures(const std::string& line) {
  std::istringstream in(line);
  ChoicesFigures f;
  std::string step;
  in >> f.status >> step >> f.memory_bytes;
  f.step_time_s = std::strtod(step.c_str(), nullptr);
  return f;
}

// A config run by itself as `tpusim run` runs it ("fits <step> <memory>"), or, with `isolated`, on a
// simulator that times each collective from clock 0 as a search's does, with the program built for it.
std::string choices_run_alone(const std::string& yaml, bool isolated) {
  return run_in_child([&] {
           const RunConfig config = parse_run_config(yaml, "hand.yaml");
           RunReport report;
           if (isolated) {
             sim::SimOptions options;
             options.isolated_collectives = true;
             sim::Simulator simulator(config.hardware.topology, options);
             report = run_training(config, TrainingProgram(config), simulator);
           } else {
             report = run_training(config);
           }
           return fmt::format("fits {:a} {}", report.timeline.step_time_s, report.memory.total_bytes);
         })
      .output;
}

// The 8-core model's config with a mesh and training keys, written out as a user writes one.
std::string choices_hand_config(const std::string& mesh, const std::string& layout,
                                const std::string& training) {
  return test::ring8_config_yaml(
      "lm-8p", "  shape: " + mesh + "\n  mapping: rings\n  layout: " + layout + "\n", 2, training);
}

}  // namespace

TEST_CASE("training choices multiply the space: a closed form over the meshes and layouts listed by hand") {
  const std::vector<std::vector<std::string>> sharding_lists = {
      {"none"}, {"none", "full"}, {"full", "update"}, {"none", "update", "full"}};
  const std::vector<std::vector<int>> stage_lists = {{1}, {2}, {1, 2}, {2, 1}};
  std::mt19937_64 random(30);
  for (const auto& sharding : sharding_lists) {
    for (const auto& stages : stage_lists) {
      // Chosen and random microbatch counts, mappings and algorithms.
      std::vector<int> microbatches = {2, 4};
      if (random() % 2) microbatches = {1 + int(random() % 8), 9 + int(random() % 8)};
      const std::vector<std::string> mappings =
          random() % 2 ? std::vector<std::string>{"rings"} : std::vector<std::string>{"rings", "linear"};
      const std::vector<std::string> algorithms =
          random() % 2 ? std::vector<std::string>{"default"} : std::vector<std::string>{"default", "ring"};
      const std::string section = fmt::format(
          "  weight_sharding: {}\n  pipeline_stages: {}\n  microbatches: {}\n  mappings: {}\n  algorithms: "
          "{}\n",
          choices_yaml_list(sharding), choices_numbers(stages), choices_numbers(microbatches),
          choices_yaml_list(mappings), choices_yaml_list(algorithms));
      INFO(section);
      const SearchInput input = test::pipelined8_input(section);
      const SearchSpace space(input.base, input.spec);
      // The closed form, and each (mesh, layout, mapping, weight sharding, pipeline) with its multiplicity:
      // algorithms ^ its axes besides the stage axis, whose permutes take no algorithm.
      std::uint64_t expected = 0;
      std::map<std::string, int> expected_tuples;
      for (const int s : stages) {
        for (const auto& h : kEightCoreStructures) {
          if (h.stages != s) continue;
          const std::vector<int> counts = s == 1 ? std::vector<int>{1} : microbatches;
          const std::vector<std::string> modes = h.splits_batch ? sharding : std::vector<std::string>{"none"};
          const auto per_choice = static_cast<int>(std::pow(algorithms.size(), h.axes));
          expected += modes.size() * counts.size() * mappings.size() * per_choice;
          for (const int m : counts)
            for (const auto& mode : modes)
              for (const auto& mapping : mappings)
                expected_tuples[fmt::format("{} {} {} {} {}x{}", h.mesh, h.layout, mapping, mode, s, m)] =
                    per_choice;
        }
      }
      CHECK(space.size() == expected);
      std::map<std::string, int> tuples;
      std::set<std::string> keys;
      for (const Candidate& c : space.enumerate()) {
        keys.insert(c.key());
        ++tuples[fmt::format("{} {} {} {} {}x{}", c.mesh_shape, c.layout, c.mapping, c.weight_sharding,
                             c.pipeline_stages, c.microbatches)];
      }
      CHECK(keys.size() == expected);
      CHECK(tuples == expected_tuples);
    }
  }
}

TEST_CASE(
    "without the training keys candidates keep the base's own: none written, a pipelined base's stage axis") {
  const SearchInput plain = test::pipelined8_input("");
  for (const Candidate& c : SearchSpace(plain.base, plain.spec).enumerate()) {
    CHECK(c.training_text().empty());
    CHECK(c.key() == fmt::format("{}|{}|{}|{}", c.mesh_shape, c.layout, c.mapping, c.algorithms_text()));
    CHECK(candidate_config_yaml(plain.base_yaml, c).find("weight_sharding") == std::string::npos);
  }
  // A pipelined base: its candidates have its stage axis and its pipeline, as written, and its own is found.
  std::string text = test::pipelined8_yaml("");
  text.replace(text.find("batch:2;model:4"), 15, "stage:2;batch:2;model:2");
  text.insert(text.find("model:\n  kind"), "  layout: batch:batch;d_ff:model;stage:stage\n");
  text.insert(text.find("search:"), "  pipeline_stages: 2\n  microbatches: 2\n");
  const SearchInput pipelined = load_search_input(text, "pipelined.yaml");
  const SearchSpace space(pipelined.base, pipelined.spec);
  std::set<std::string> meshes;
  for (const Candidate& c : space.enumerate()) {
    meshes.insert(c.mesh_shape + " " + c.layout);
    CHECK(c.training_text().empty());
  }
  std::set<std::string> by_hand;
  for (const auto& h : kEightCoreStructures)
    if (h.stages == 2) by_hand.insert(h.mesh + " " + h.layout);
  CHECK(meshes == by_hand);
  CHECK(space.state_of("stage:2;batch:2;model:2", "batch:batch;d_ff:model;stage:stage", "rings",
                       {"none", 2, 2}));
}

TEST_CASE("a candidate with sharded weights or pipeline stages is timed as the config written by hand runs") {
  // Three candidates, each with a config written out by hand, evaluated by one evaluator among others (so
  // that the programs it keeps are switched and dropped) and each run alone.
  struct Case {
    Candidate candidate;
    std::string yaml;
  };
  const auto candidate = [](std::string mesh, std::string layout, std::string sharding, int stages,
                            int micro) {
    Candidate c;
    c.mesh_shape = std::move(mesh);
    c.layout = std::move(layout);
    c.mapping = "rings";
    for (const auto& axis : mtf::MeshShape::parse(c.mesh_shape).shape().names())
      c.algorithms.emplace_back(axis, kDefaultAlgorithm);
    c.weight_sharding = std::move(sharding);
    c.pipeline_stages = stages;
    c.microbatches = micro;
    return c;
  };
  const std::vector<Case> cases = {
      {candidate("batch:4;model:2", "batch:batch;d_ff:model", "full", 1, 1),
       choices_hand_config("batch:4;model:2", "batch:batch;d_ff:model",
                           "  weight_sharding: full\n  pipeline_stages: 1\n  microbatches: 1\n")},
      {candidate("stage:2;batch:2;model:2", "batch:batch;d_ff:model;stage:stage", "none", 2, 2),
       choices_hand_config("stage:2;batch:2;model:2", "batch:batch;d_ff:model;stage:stage",
                           "  pipeline_stages: 2\n  microbatches: 2\n")},
      {candidate("stage:2;batch:2;model:2", "batch:batch;d_ff:model;stage:stage", "full", 2, 4),
       choices_hand_config("stage:2;batch:2;model:2", "batch:batch;d_ff:model;stage:stage",
                           "  weight_sharding: full\n  pipeline_stages: 2\n  microbatches: 4\n")},
  };
  const std::vector<Candidate> others = {
      candidate("batch:8", "batch:batch", "full", 1, 1), candidate("batch:8", "batch:batch", "update", 1, 1),
      candidate("stage:2;batch:4", "batch:batch;stage:stage", "full", 2, 2)};
  const SearchInput input = test::pipelined8_input("");
  const std::string evaluated = run_in_child([&] {
                                  CandidateEvaluator evaluator(input.base, input.base_yaml, 1ull << 40);
                                  std::string text;
                                  for (std::size_t i = 0; i < cases.size(); ++i) {
                                    evaluator.evaluate(others[i]);
                                    text +=
                                        choices_outcome_text(evaluator.evaluate(cases[i].candidate)) + "\n";
                                  }
                                  return text;
                                }).output;
  std::istringstream lines(evaluated);
  for (const Case& c : cases) {
    INFO(c.candidate.key());
    std::string line;
    REQUIRE(std::getline(lines, line));
    const ChoicesFigures search = choices_figures(line);
    // Exactly as the config runs on a simulator timing each collective from clock 0, as a search does.
    CHECK(line == choices_run_alone(c.yaml, true));
    // As tpusim run runs it: the same memory; one long clock rounds the step's sum differently.
    const ChoicesFigures alone = choices_figures(choices_run_alone(c.yaml, false));
    CHECK(search.status == "fits");
    CHECK(search.memory_bytes == alone.memory_bytes);
    CHECK(search.step_time_s == Approx(alone.step_time_s).epsilon(1e-12));
  }
  // Sharding and pipelines change what the step keeps and does.
  CHECK(choices_figures(choices_run_alone(cases[0].yaml, true)).memory_bytes <
        choices_figures(
            choices_run_alone(choices_hand_config("batch:4;model:2", "batch:batch;d_ff:model", ""), true))
            .memory_bytes);
}

TEST_CASE("a cap that no replicated candidate fits leaves the best to fully sharded weights") {
  const std::string section = "  weight_sharding: [none, full]\n  algorithms: [default, ring]\n";
  const auto uncapped = choices_by_key(choices_search(test::pipelined8_input(section)));
  // The cap: a byte below the least memory of any candidate with replicated weights.
  std::uint64_t least_replicated = UINT64_MAX;
  for (const auto& [key, line] : uncapped) {
    if (key == "best" || key.find("weight_sharding=none") == std::string::npos) continue;
    const ChoicesFigures f = choices_figures(line);
    if (f.status == "fits") least_replicated = std::min(least_replicated, f.memory_bytes);
  }
  REQUIRE(least_replicated < UINT64_MAX);
  const std::uint64_t cap = least_replicated - 1;
  const auto capped = choices_by_key(
      choices_search(test::pipelined8_input(section + fmt::format("  memory_cap: {}\n", cap))));
  REQUIRE(capped.size() == uncapped.size());
  int sharded_fits = 0;
  std::string fastest;  // by the uncapped search's figures: the fastest under the cap, ties to less memory
  for (const auto& [key, line] : uncapped) {
    if (key == "best") continue;
    INFO(key);
    const ChoicesFigures before = choices_figures(line);
    const ChoicesFigures after = choices_figures(capped.at(key));
    if (before.status == "illegal") {
      CHECK(after.status == "illegal");
      continue;
    }
    CHECK(after.memory_bytes == before.memory_bytes);  // over the cap or not, its memory is known
    CHECK((after.status == "fits") == (before.memory_bytes <= cap));
    if (after.status != "fits") continue;
    CHECK(key.find("weight_sharding=full") != std::string::npos);
    CHECK(after.step_time_s == before.step_time_s);
    ++sharded_fits;
    if (fastest.empty()) {
      fastest = key;
      continue;
    }
    const ChoicesFigures best = choices_figures(uncapped.at(fastest));
    if (before.step_time_s < best.step_time_s ||
        (before.step_time_s == best.step_time_s && before.memory_bytes < best.memory_bytes))
      fastest = key;
  }
  CHECK(sharded_fits >= 3);
  // The search's best is that one, or one as fast with as little memory (candidates differing only in an
  // algorithm that the engine's default already is).
  const ChoicesFigures best = choices_figures(uncapped.at(capped.at("best")));
  const ChoicesFigures brute = choices_figures(uncapped.at(fastest));
  CHECK(best.step_time_s == brute.step_time_s);
  CHECK(best.memory_bytes == brute.memory_bytes);
  CHECK(capped.at("best").find("weight_sharding=full") != std::string::npos);
  // Without the cap the best replicates its weights (it is the faster): the cap is what made sharding win.
  CHECK(uncapped.at("best").find("weight_sharding=none") != std::string::npos);
}

TEST_CASE(
    "the chain's moves reach every weight-sharding mode and pipeline, and it finds the exhaustive best") {
  const std::string section =
      "  weight_sharding: [none, update, full]\n  pipeline_stages: [1, 2]\n  microbatches: [2, 4]\n";
  const SearchInput input = test::pipelined8_input(section);
  const SearchSpace space(input.base, input.spec);
  std::mt19937_64 random(11);
  SearchState state = space.random_state(random);
  std::set<std::string> modes, pipelines;
  for (int step = 0; step < 3000; ++step) {
    const SearchState next = space.neighbour(state, random);
    const auto before = space.candidate(state), after = space.candidate(next);
    REQUIRE(after);
    CHECK(after->key() != before->key());
    modes.insert(after->weight_sharding);
    pipelines.insert(fmt::format("{}x{}", after->pipeline_stages, after->microbatches));
    state = next;
  }
  CHECK(modes == std::set<std::string>{"none", "update", "full"});
  CHECK(pipelines == std::set<std::string>{"1x1", "2x2", "2x4"});
  // A chain allowed the whole space evaluates every candidate, with the exhaustive search's figures.
  const auto exhaustive = choices_by_key(choices_search(input));
  const auto chain = choices_by_key(
      choices_search(test::pipelined8_input(section + "  strategy: mcmc\n  max_candidates: 1000\n")));
  CHECK(exhaustive.size() == space.size() + 1);
  CHECK(chain == exhaustive);
}

TEST_CASE("on a multislice pod explicit mappings put the slices under batch or stage, worked out by hand") {
  // multislice:2x(torus:4x4): physical axes x 4, y 4 and slice 2 (32 chips of one core). batch:8 takes slice
  // and x or y, in either order, model:4 the other; with two stages only the stage axis can take the slices.
  std::string text = test::pipelined8_yaml(
      "  mappings: [explicit]\n  pipeline_stages: [1, 2]\n  microbatches: [4]\n"
      "  mesh_shapes: [batch:8;model:4, stage:2;batch:4;model:4]\n");
  text.replace(text.find("ring-8"), 6, "multislice:2x(torus:4x4)");
  text.replace(text.find("batch:2;model:4"), 15, "batch:8;model:4");
  text.replace(text.find("batch: 8"), 8, "batch: 32");
  const SearchInput input = load_search_input(text, "slices.yaml");
  REQUIRE(input.base.hardware.topology.num_cores() == 32);
  const SearchSpace space(input.base, input.spec);
  std::set<std::string> mappings;
  for (const Candidate& c : space.enumerate()) mappings.insert(c.mesh_shape + " " + c.mapping);
  CHECK(mappings == std::set<std::string>{
                        "batch:8;model:4 batch=slice+x;model=y", "batch:8;model:4 batch=x+slice;model=y",
                        "batch:8;model:4 batch=slice+y;model=x", "batch:8;model:4 batch=y+slice;model=x",
                        "stage:2;batch:4;model:4 stage=slice;batch=x;model=y",
                        "stage:2;batch:4;model:4 stage=slice;batch=y;model=x"});
  // Every one runs; data parallelism with the slices varying slowest equals the config written for it.
  const auto outcomes = choices_by_key(choices_search(input));
  for (const auto& [key, line] : outcomes) {
    if (key != "best") CHECK(choices_figures(line).status == "fits");
  }
  std::string own = text.substr(0, text.find("search:"));
  own.insert(own.find("model:\n  kind"),
             "  mapping: batch=x+slice;model=y\n  layout: batch:batch;d_ff:model\n");
  const ChoicesFigures alone =
      choices_figures(choices_run_alone(own + "  pipeline_stages: 1\n  microbatches: 1\n", false));
  const ChoicesFigures searched = choices_figures(
      outcomes.at("batch:8;model:4|batch:batch;d_ff:model|batch=x+slice;model=y|default|pipeline=1x1"));
  CHECK(searched.memory_bytes == alone.memory_bytes);
  CHECK(searched.step_time_s == Approx(alone.step_time_s).epsilon(1e-12));
}

TEST_CASE("the training keys' problems are one line at their key") {
  const auto problem = [](const std::string& section) {
    return test_support::input_error_of([&] { test::pipelined8_input(section); });
  };
  CHECK(problem("  pipeline_stages: [1, 4]\n") ==
        "lm-8p.yaml:20: search.pipeline_stages[1]: 4 stages do not divide the 2 layers evenly");
  CHECK(problem("  pipeline_stages: [2, 2]\n") ==
        "lm-8p.yaml:20: search.pipeline_stages[1]: 2 is listed twice");
  CHECK_THAT(problem("  pipeline_stages: [0]\n"),
             Catch::StartsWith("lm-8p.yaml:20: search.pipeline_stages[0]:"));
  CHECK_THAT(problem("  microbatches: [-2]\n"), Catch::StartsWith("lm-8p.yaml:20: search.microbatches[0]:"));
  CHECK_THAT(problem("  weight_sharding: [none, half]\n"),
             Catch::StartsWith("lm-8p.yaml:20: search.weight_sharding[1]: 'half' is not valid"));
  std::string three = test::pipelined8_yaml("  pipeline_stages: [3]\n");
  three.replace(three.find("layers: 2"), 9, "layers: 3");
  CHECK(test_support::input_error_of([&] { load_search_input(three, "three.yaml"); }) ==
        "three.yaml:20: search.pipeline_stages[0]: 3 stages do not divide the 8 cores of ring-8 evenly");
  const std::string mlp = preset_text("tiny-mlp") + "search:\n  pipeline_stages: [2]\n";
  CHECK_THAT(test_support::input_error_of([&] { load_search_input(mlp, "mlp.yaml"); }),
             Catch::Contains(": search.pipeline_stages[0]: a mlp cannot be pipelined; the kinds that can are "
                             "transformer_lm"));
  // A microbatch count that does not divide the batch makes an illegal candidate, said as the reader says it.
  const std::string problem_of_three =
      run_in_child([] {
        const SearchInput input = test::pipelined8_input("  pipeline_stages: [2]\n  microbatches: [3]\n");
        CandidateEvaluator evaluator(input.base, input.base_yaml, 1ull << 40);
        const Candidate c = SearchSpace(input.base, input.spec).enumerate().at(0);
        return evaluator.evaluate(c).problem;
      }).output;
  CHECK(problem_of_three == "training.microbatches: 3 microbatches do not divide the batch of 8 evenly");
  // When no candidate can run, the search is bad input at the key that made it so.
  const std::string search_problem =
      run_in_child([] {
        return test_support::input_error_of(
            [] { run_search(test::pipelined8_input("  pipeline_stages: [2]\n  microbatches: [3]\n")); });
      }).output;
  CHECK_THAT(search_problem, Catch::StartsWith("lm-8p.yaml:21: search.microbatches: none of the 4 candidates "
                                               "evaluated can be laid out; the first: "));
}
