// Searches against brute force: every candidate of a space run on its own, in a process of its own, by
// `run_training` as `tpusim run` runs a config (one long simulated clock, no cache), which the search's best,
// statuses, memory and Pareto front must agree with; the cache against no cache, bit for bit; seeds.
#include "workloads/search/search_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "tests/topologies/support/input_error_of.hpp"
#include "tests/workloads/search/search_fixtures.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/search/search_space.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

struct Separate {
  bool legal = false;
  double step_time_s = 0;
  std::uint64_t memory_bytes = 0;
};

// The candidate's config run by itself in a fresh process.
Separate run_separately(const SearchInput& input, const Candidate& candidate) {
  const ChildResult child = run_in_child([&]() -> std::string {
    try {
      const RunConfig config = parse_run_config(candidate_config_yaml(input.base_yaml, candidate), "c.yaml");
      const RunReport report = run_training(config);
      return fmt::format("1 {:a} {}", report.timeline.step_time_s, report.memory.total_bytes);
    } catch (const InputError&) {
      return "0 0 0";
    }
  });
  std::istringstream in(child.output);
  int legal = 0;
  std::string step;
  Separate s;
  in >> legal >> step >> s.memory_bytes;
  s.legal = legal == 1;
  s.step_time_s = std::strtod(step.c_str(), nullptr);
  return s;
}

// A search's outcomes in a child (one simulator per process): "key status step-bits memory" per line, in
// evaluation order, then the best's key.
std::string search_in_child(const SearchInput& input, bool share = true) {
  return run_in_child([&]() -> std::string {
           SearchOptions options;
           options.share_collective_times = share;
           const SearchResult result = run_search(input, options);
           std::string text;
           for (const auto& o : result.outcomes) {
             text += fmt::format("{} {} {:a} {}\n", o.candidate.key(), to_string(o.status), o.step_time_s,
                                 o.memory_per_core_bytes);
           }
           return text + "best " + (result.best ? result.outcomes[*result.best].candidate.key() : "none") +
                  "\n";
         })
      .output;
}

std::map<std::string, std::string> by_key(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string key, rest;
  while (in >> key && std::getline(in, rest)) out[key] = rest;
  return out;
}

// An exhaustive search of `input` (with a 9 MiB cap) against separate runs of every candidate: statuses,
// memory, step times, the best and the Pareto front.
void check_against_separate_runs(const SearchInput& input) {
  const SearchSpace space(input.base, input.spec);
  const std::vector<Candidate> candidates = space.enumerate();
  std::map<std::string, Separate> separate;
  for (const auto& c : candidates) separate[c.key()] = run_separately(input, c);

  const SearchResult result = run_search(input);
  REQUIRE(result.strategy == SearchStrategy::exhaustive);
  REQUIRE(result.outcomes.size() == candidates.size());
  CHECK(result.stopped_by == "space");
  int fits = 0, over = 0, illegal = 0;
  for (const auto& o : result.outcomes) {
    const Separate& s = separate.at(o.candidate.key());
    INFO(o.candidate.key() << ": " << o.problem);
    REQUIRE(o.legal() == s.legal);
    if (!s.legal) {
      ++illegal;
      CHECK_FALSE(o.problem.empty());
      continue;
    }
    CHECK(o.memory_per_core_bytes == s.memory_bytes);
    const bool fits_cap = s.memory_bytes <= 9u << 20;
    CHECK((o.status == CandidateOutcome::Status::fits) == fits_cap);
    if (fits_cap) {
      ++fits;
      // The separate run's clock carries on from collective to collective; the search times each from 0.
      CHECK(o.step_time_s == Approx(s.step_time_s).epsilon(1e-12));
    } else {
      ++over;
    }
  }
  CHECK(fits > 10);
  CHECK(over > 10);
  CHECK(illegal > 10);

  // Brute force: the fastest candidate that fits, ties to the smaller memory.
  std::string brute;
  for (const auto& [key, s] : separate) {
    if (!s.legal || s.memory_bytes > 9u << 20) continue;
    const Separate* b = brute.empty() ? nullptr : &separate.at(brute);
    if (!b || s.step_time_s < b->step_time_s * (1 - 1e-9) ||
        (s.step_time_s <= b->step_time_s * (1 + 1e-9) && s.memory_bytes < b->memory_bytes))
      brute = key;
  }
  REQUIRE(result.best);
  CHECK(result.outcomes[*result.best].candidate.key() == brute);

  // The Pareto front by its definition: no fitting candidate is as small and faster than a member, and every
  // other fitting candidate has a member at most as large and at least as fast.
  for (const auto& o : result.outcomes) {
    if (o.status != CandidateOutcome::Status::fits) continue;
    bool dominated = false;
    for (const std::size_t p : result.pareto) {
      const auto& f = result.outcomes[p];
      if (&f == &o) continue;
      dominated =
          dominated || (f.memory_per_core_bytes <= o.memory_per_core_bytes && f.step_time_s <= o.step_time_s);
    }
    const bool on_front = std::any_of(result.pareto.begin(), result.pareto.end(),
                                      [&](std::size_t p) { return &result.outcomes[p] == &o; });
    CHECK(on_front != dominated);
  }
}

}  // namespace

TEST_CASE(
    "an exhaustive search agrees with separate runs of every candidate: statuses, memory, times, best") {
  // A cap between the candidates' memories, so that some are over it; two algorithms per axis, so that
  // candidates differing only in algorithms share what the search knows of their mesh and layout.
  check_against_separate_runs(test::lm32_input("  memory_cap: 9MiB\n  algorithms: [default, ring]\n"));
}

TEST_CASE("an exhaustive search over explicit mappings agrees with separate runs of every candidate") {
  check_against_separate_runs(test::lm32_input("  memory_cap: 9MiB\n  mappings: [linear, explicit]\n"));
}

TEST_CASE("the collective cache changes no time: shared, unshared and in another order, bit for bit") {
  const SearchInput exhaustive = test::lm32_input("  algorithms: [default, ring]\n  max_candidates: 400\n");
  const auto shared = by_key(search_in_child(exhaustive, true));
  const auto unshared = by_key(search_in_child(exhaustive, false));
  CHECK(shared.size() > 300);
  CHECK(shared == unshared);
  // A chain visits candidates in another order, so collectives are first simulated for other candidates.
  const SearchInput chain =
      test::lm32_input("  algorithms: [default, ring]\n  strategy: mcmc\n  max_candidates: 120\n");
  const auto visited = by_key(search_in_child(chain));
  CHECK(visited.size() == 121);  // 120 and the best
  for (const auto& [key, line] : visited) {
    if (key != "best") CHECK(line == shared.at(key));
  }
}

TEST_CASE("the cache simulates each distinct collective once") {
  SearchInput input = test::lm32_input();
  const SearchResult result = run_search(input);
  int calls = 0;
  for (const auto& o : result.outcomes) calls += o.collective_calls;
  CHECK(result.simulated_collectives > 0);
  CHECK(result.simulated_collectives * 10 < static_cast<std::uint64_t>(calls));
}

TEST_CASE("a chain with a seed visits the same candidates again, and with another seed others") {
  const auto a = search_in_child(test::lm32_input("  strategy: mcmc\n  max_candidates: 40\n  seed: 7\n"));
  const auto b = search_in_child(test::lm32_input("  strategy: mcmc\n  max_candidates: 40\n  seed: 7\n"));
  const auto c = search_in_child(test::lm32_input("  strategy: mcmc\n  max_candidates: 40\n  seed: 8\n"));
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("a chain allowed the whole space evaluates it all and finds the exhaustive search's best") {
  const auto exhaustive = by_key(search_in_child(test::lm32_input()));
  const auto chain = by_key(search_in_child(test::lm32_input("  strategy: mcmc\n  max_candidates: 1000\n")));
  CHECK(chain == exhaustive);
}

TEST_CASE("a search whose every candidate is illegal, or whose space is empty, is bad input") {
  const auto problem = [](const std::string& section) {
    return test_support::input_error_of([&] { run_search(test::lm32_input(section)); });
  };
  // batch and d_model split over one axis: every activation [batch, length, d_model] splits twice.
  const std::string pinned =
      run_in_child([&] { return problem("  pin_layout: batch:batch;d_model:batch\n"); }).output;
  // A prefix search, not a whole-text match: std::regex recurses once per character that `.*` takes.
  CHECK(std::regex_search(pinned, std::regex("^lm-32.yaml:19: search.pin_layout: none of the \\d+ candidates "
                                             "evaluated can be laid out; the first: .")));
  const std::string empty =
      run_in_child([&] { return problem("  mesh_shapes: [batch:32]\n  pin_layout: d_ff:model\n"); }).output;
  CHECK_THAT(empty,
             Catch::StartsWith("lm-32.yaml:19: search.mesh_shapes: the search space has no candidate"));
}

TEST_CASE("a search whose every candidate runs over the cap is a result: none is best, and the message says why") {
  const std::string message = run_in_child([] {
                                const SearchInput input = test::lm32_input("  memory_cap: 1KiB\n");
                                const SearchResult result = run_search(input);
                                if (result.best || result.outcomes.empty()) return std::string("a best");
                                return no_fit_message(input, result);
                              }).output;
  CHECK_THAT(message, Catch::Matches("no candidate of lm-32 fits: 1 KiB per core \\(lm-32.yaml:19: "
                                     "search.memory_cap\\) is below the memory of every candidate evaluated; "
                                     "the least, batch:\\S+ with layout \\S+, needs [0-9.]+ [KMG]iB"));
}

TEST_CASE("the search section's problems are one line at their key") {
  const auto problem = [](const std::string& section) {
    return test_support::input_error_of([&] { test::lm32_input(section); });
  };
  CHECK_THAT(problem("  mesh_dim: 2\n"), Catch::StartsWith("lm-32.yaml:19: search.mesh_dim: unknown key"));
  CHECK(problem("  mesh_dims: 4\n") ==
        "lm-32.yaml:19: search.mesh_dims: 4 mesh dimensions; a search explores 1 to 3");
  CHECK_THAT(
      problem("  layout_dims: [batch, dff]\n"),
      Catch::StartsWith("lm-32.yaml:19: search.layout_dims[1]: a transformer_lm has no dimension 'dff'"));
  CHECK_THAT(problem("  layout_dims: [batch, batch]\n"),
             Catch::StartsWith("lm-32.yaml:19: search.layout_dims[1]: 'batch' is listed twice"));
  CHECK_THAT(problem("  pin_layout: d_ff:rows\n"),
             Catch::Contains("search.pin_layout: candidates name their mesh axes"));
  CHECK_THAT(problem("  algorithms: [default, rng]\n"),
             Catch::StartsWith("lm-32.yaml:19: search.algorithms[1]:"));
  CHECK_THAT(
      problem("  mesh_shapes: [batch:16]\n"),
      Catch::Contains("search.mesh_shapes[0]: batch:16 has 16 processors but the topology tpu-v2-32 has 32"));
  CHECK_THAT(problem("  strategy: greedy\n"), Catch::Contains("search.strategy:"));
  CHECK_THAT(problem("  max_candidates: 0\n"), Catch::Contains("search.max_candidates:"));
  CHECK_THAT(problem("  time_limit: -1\n"), Catch::Contains("search.time_limit:"));
  CHECK_THAT(problem("  memory_cap: lots\n"), Catch::Contains("search.memory_cap:"));
  CHECK_THAT(problem("  mappings: [rungs]\n"), Catch::StartsWith("lm-32.yaml:19: search.mappings[0]:"));
  CHECK_THAT(problem("  seed: -3\n"), Catch::Contains("search.seed:"));
}

TEST_CASE("a search of a config with the concurrent overlap policy is bad input at that key") {
  // The concurrent policy's shared clock cannot use a cache of times measured alone.
  std::string text = test::lm32_yaml();
  text.insert(text.find("  topology: tpu-v2-32\n"), "  overlap: concurrent\n");
  const SearchInput input = load_search_input(text, "lm-32.yaml");
  CHECK_THAT(test_support::input_error_of([&] { run_search(input); }),
             Catch::StartsWith("lm-32.yaml:3: hardware.overlap: search times each collective alone"));
}

TEST_CASE(
    "collective times kept in a folder serve the next search, bit for bit, and only one of the same pod") {
  const std::string folder =
      std::filesystem::temp_directory_path() / fmt::format("tpusim-times-{}", ::getpid());
  std::filesystem::remove_all(folder);
  const auto search = [&](const SearchInput& input) {
    return run_in_child([&]() -> std::string {
             SearchOptions options;
             options.collective_time_folder = folder;
             const SearchResult result = run_search(input, options);
             std::string text =
                 fmt::format("{} {}\n", result.simulated_collectives, result.loaded_collective_times);
             for (const auto& o : result.outcomes)
               text += fmt::format("{} {:a}\n", o.candidate.key(), o.step_time_s);
             return text;
           })
        .output;
  };
  const auto first_line = [](const std::string& text) { return text.substr(0, text.find('\n')); };
  const auto rest = [](const std::string& text) { return text.substr(text.find('\n')); };
  const std::string first = search(test::lm32_input());
  const std::string simulated = first_line(first).substr(0, first_line(first).find(' '));
  CHECK(first_line(first) == simulated + " 0");
  const std::string second = search(test::lm32_input());
  CHECK(first_line(second) == "0 " + simulated);  // every time from the file, none simulated
  CHECK(rest(second) == rest(first));
  // Another model on the same pod reuses some; a pod with other links none.
  const std::string other_model = search(test::lm32_input("  algorithms: [ring]\n"));
  CHECK(first_line(other_model).substr(first_line(other_model).find(' ') + 1) == simulated);
  std::string slower = test::lm32_yaml();
  slower.insert(slower.find("mesh:"), "  inter_chip_bandwidth: 31GB/s\n");
  const std::string other_pod = search(load_search_input(slower, "slower.yaml"));
  CHECK(first_line(other_pod).substr(first_line(other_pod).find(' ') + 1) == "0");
  // Two files now; one that does not read back whole is ignored, not half used.
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) files.push_back(entry.path());
  REQUIRE(files.size() == 2);
  for (const auto& file : files) {
    std::ofstream(file, std::ios::app) << "zz not a result\n";
  }
  const std::string after_damage = search(test::lm32_input());
  CHECK(first_line(after_damage) == simulated + " 0");
  CHECK(rest(after_damage) == rest(first));
  std::filesystem::remove_all(folder);
}

TEST_CASE("a config without a mesh leaves it open: the same candidates, and no layout of its own") {
  const auto with_mesh = by_key(search_in_child(test::lm32_input()));
  std::string text = test::lm32_yaml();
  text.erase(text.find("mesh:\n"), std::string("mesh:\n  shape: batch:8;model:4\n").size());
  const SearchInput open = load_search_input(text, "open.yaml");
  CHECK_FALSE(open.has_own_mesh);
  CHECK(open.base_yaml.find("mesh") == std::string::npos);
  const SearchResult result = run_search(open);
  CHECK_FALSE(result.base);
  std::map<std::string, std::string> without;
  for (const auto& o : result.outcomes) {
    without[o.candidate.key()] =
        fmt::format(" {} {:a} {}", to_string(o.status), o.step_time_s, o.memory_per_core_bytes);
  }
  without["best"] = " " + result.outcomes.at(*result.best).candidate.key();
  CHECK(without == with_mesh);
}

TEST_CASE("a time limit stops a search after the candidate that reached it") {
  const SearchInput input = test::lm32_input("  time_limit: 0.001\n");
  const SearchResult result = run_search(input);
  CHECK(result.stopped_by == "time_limit");
  CHECK(result.outcomes.size() == 1);
}
