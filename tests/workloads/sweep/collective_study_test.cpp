// Collective studies: parsed and checked point by point before anything runs (errors at the value's line,
// misfits as skipped points), each point's row the same figures `tpusim collective` reports.
#include "workloads/sweep/collective_study.hpp"

#include <algorithm>
#include <random>
#include <catch2/catch.hpp>

#include "fake_study.hpp"
#include "sim/algorithm_registry.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/collectives/request_builder.hpp"
#include "workloads/sweep/study.hpp"
#include "workloads/sweep/study_runner.hpp"
#include "workloads/sweep/sweep_catalog.hpp"

using namespace tpusim::workloads;

namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_study(yaml, "c.yaml");
  } catch (const tpusim::InputError& error) {
    return error.what();
  }
  return "(no error)";
}

const std::string kHead = "kind: collectives\nvary:\n";

}  // namespace

TEST_CASE("collective study: the points are the product of vary, the first key slowest") {
  const auto study = parse_study(kHead +
                                     "  hardware.topology: [torus:4x4, ring:8]\n"
                                     "  collective.algorithm: [ring, bidir_ring, bucket2d]\n"
                                     "  collective.bytes: [4KiB, 1MiB]\n"
                                     "  collective.group_axes: [all]\n",
                                 "sweeps/c.yaml");
  REQUIRE(study->kind() == "collectives");
  REQUIRE(study->size() == 12);
  CHECK(study->name() == "c");
  CHECK(study->values(0) == std::vector<std::string>{"torus:4x4", "ring", "4KiB", "all"});
  CHECK(study->values(11) == std::vector<std::string>{"ring:8", "bucket2d", "1MiB", "all"});
  // bucket2d needs a group of two dimensions; "all" flattens the torus into one: skipped, not an error.
  CHECK(study->skip_reason(0).empty());
  CHECK_THAT(study->skip_reason(4), Catch::Contains("bucket2d"));
  CHECK(study->point_hash(0) != study->point_hash(1));
  CHECK(study->csv_header() == std::vector<std::string>{"point",
                                                        "hardware.topology",
                                                        "collective.algorithm",
                                                        "collective.bytes",
                                                        "collective.group_axes",
                                                        "topology",
                                                        "cores",
                                                        "op",
                                                        "algorithms",
                                                        "group_axes",
                                                        "groups",
                                                        "group_size",
                                                        "bytes",
                                                        "network",
                                                        "simulated_s",
                                                        "prediction_s",
                                                        "contention_free",
                                                        "closed_form_s",
                                                        "lower_bound_s",
                                                        "lower_bound_term",
                                                        "ratio_to_prediction",
                                                        "ratio_to_lower_bound",
                                                        "algbw_Bps",
                                                        "busbw_Bps",
                                                        "messages",
                                                        "simulated_messages",
                                                        "wall_s",
                                                        "status",
                                                        "error"});
}

TEST_CASE("collective study: a value wrong by itself or in its point is an error at its line") {
  CHECK(error_of(kHead +
                 "  collective.op: [allreduce, alltoall]\n  collective.algorithm: [ring, bucket2d]\n") ==
        "c.yaml:4: vary.collective.algorithm[0]: in point collective.op=alltoall, collective.algorithm=ring: "
        "alltoall has no algorithm 'ring'; its algorithms are pairwise, direct (or auto)");
  CHECK(error_of(kHead + "  collective.bytes: [4KiB, 1001]\n") ==
        "c.yaml:3: vary.collective.bytes[1]: size '1001' is 1001 bytes, not a whole number of 4-byte fp32 "
        "elements");
  CHECK(error_of(kHead + "  collective.op: [allreduce, alreduce]\n") ==
        "c.yaml:3: vary.collective.op[1]: unknown collective 'alreduce' (did you mean 'allreduce'?); valid "
        "collectives are allreduce, reduce_scatter, allgather, alltoall, broadcast, permute");
  CHECK_THAT(error_of(kHead + "  collective.algoritm: [ring]\n"),
             Catch::StartsWith("c.yaml:3: vary.collective.algoritm: unknown key (did you mean "
                               "'collective.algorithm'?)"));
  CHECK_THAT(error_of(kHead + "  hardware.topology: [torus:4x4, torus:4x4x]\n"),
             Catch::StartsWith("c.yaml:3: vary.hardware.topology[1]: "));
  CHECK_THAT(error_of(kHead + "  hardware.topology: [ring:8]\n  collective.group_axes: [x, y]\n"),
             Catch::StartsWith("c.yaml:4: vary.collective.group_axes[1]: in point hardware.topology=ring:8, "
                               "collective.group_axes=y: on ring:8: "));
  CHECK(error_of(kHead + "  collective.bytes: [4KiB, 4KiB]\n") ==
        "c.yaml:3: vary.collective.bytes[1]: 4KiB repeats vary.collective.bytes[0]");
  CHECK(
      error_of("kind: colectives\n") ==
      "c.yaml:1: kind: 'colectives' is not a kind of sweep; the kinds are training (a base config and config "
      "keys to vary; the default) and collectives");
}

TEST_CASE("collective study: the shipped allreduce-torus runs every allreduce algorithm on 4x4 to 32x32") {
  const auto study = load_study_preset("allreduce-torus");
  const auto& spec = dynamic_cast<const CollectiveStudy&>(*study).spec();
  const auto keys = spec.keys();
  const auto at = std::find(keys.begin(), keys.end(), "collective.algorithm") - keys.begin();
  auto algorithms = spec.axes[at].values;
  // Every algorithm that runs on a single pod: those that run only across slices refuse a torus.
  auto registry = tpusim::sim::algorithm_names(tpusim::sim::CollectiveKind::allreduce);
  registry.erase(std::remove_if(registry.begin(), registry.end(),
                                [](const std::string& name) {
                                  return tpusim::sim::algorithm(tpusim::sim::CollectiveKind::allreduce, name)
                                      .needs_multislice;
                                }),
                 registry.end());
  std::sort(algorithms.begin(), algorithms.end());
  std::sort(registry.begin(), registry.end());
  CHECK(algorithms == registry);
  std::vector<int> cores;
  for (const auto& topology : spec.topologies) cores.push_back(topology.num_cores());
  CHECK(cores == std::vector<int>{16, 64, 256, 1024});
  for (std::size_t p = 0; p < study->size(); ++p) CHECK(study->skip_reason(p).empty());
}

TEST_CASE("collective study: the shipped alltoall-twisted pairs each torus with its twisted twin") {
  const auto study = load_study_preset("alltoall-twisted");
  const auto& spec = dynamic_cast<const CollectiveStudy&>(*study).spec();
  REQUIRE(spec.topologies.size() == 4);
  for (std::size_t i = 0; i < spec.topologies.size(); i += 2) {
    const auto& regular = spec.topologies[i];
    const auto& twisted = spec.topologies[i + 1];
    CHECK_FALSE(regular.twisted());
    CHECK(twisted.twisted());
    CHECK(twisted.chip_dims() == regular.chip_dims());
    CHECK(tpusim::topo::graph_figures(twisted).bisection_links ==
          2 * tpusim::topo::graph_figures(regular).bisection_links);
  }
  for (std::size_t p = 0; p < study->size(); ++p) CHECK(study->skip_reason(p).empty());
}

TEST_CASE("collective study: the shipped halves-torus runs every reduce-scatter and allgather algorithm") {
  const auto study = load_study_preset("halves-torus");
  const auto& spec = dynamic_cast<const CollectiveStudy&>(*study).spec();
  auto values_of = [&](const std::string& key) {
    const auto keys = spec.keys();
    auto values = spec.axes[std::find(keys.begin(), keys.end(), key) - keys.begin()].values;
    std::sort(values.begin(), values.end());
    return values;
  };
  CHECK(values_of("collective.op") == std::vector<std::string>{"allgather", "reduce_scatter"});
  for (const auto kind :
       {tpusim::sim::CollectiveKind::reduce_scatter, tpusim::sim::CollectiveKind::allgather}) {
    auto registry = tpusim::sim::algorithm_names(kind);
    std::sort(registry.begin(), registry.end());
    CHECK(values_of("collective.algorithm") == registry);
  }
  for (std::size_t p = 0; p < study->size(); ++p) CHECK(study->skip_reason(p).empty());
}

TEST_CASE("collective study: every shipped sweep loads, of either kind") {
  for (const auto& name : sweep_preset_names()) {
    INFO(name);
    const auto study = load_study_preset(name);
    CHECK(study->name() == name);
    CHECK(study->size() > 0);
  }
}

TEST_CASE("collective study: a point's row holds the simulated time, busbw and the ratios") {
  const tpusim::workloads::test::TempFolder temp;
  auto study = parse_study(kHead +
                               "  collective.algorithm: [ring, bucket2d]\n"
                               "  collective.bytes: [1MiB]\n"
                               "  hardware.topology: [torus:4x4]\n"
                               "  collective.group_axes: [all]\n",
                           "c.yaml");
  study->set_output_dir(temp.path("out"));
  StudyRunOptions options;
  const auto totals = run_study(*study, options);
  CHECK(totals.ok == 1);
  CHECK(totals.skipped == 1);
  const auto json = nlohmann::json::parse(tpusim::workloads::test::read_text(temp.path("out/sweep.json")));
  CHECK(json["context"]["format"] == "tpusim.collective_sweep.v1");
  CHECK(json["sweep"]["kind"] == "collectives");
  const auto& ring = json["runs"][0];
  CHECK(ring["status"] == "ok");
  CHECK(ring["group_size"] == 16);
  CHECK(ring["simulated_s"].get<double>() > 0);
  CHECK(ring["ratio_to_lower_bound"].get<double>() >= 1.0);
  CHECK(ring["busbw_Bps"].get<double>() > 0);
  CHECK(json["runs"][1]["status"] == "skipped");
}

TEST_CASE("collective study: algorithm all stands for every registry row of the point's op, in its place") {
  const auto study = parse_study(kHead +
                                     "  collective.op: [reduce_scatter, allreduce]\n"
                                     "  collective.algorithm: [all]\n"
                                     "  collective.bytes: [4KiB, 1MiB]\n"
                                     "  hardware.topology: [torus:4x4, 'multislice:2x(torus:2x2)']\n",
                                 "c.yaml");
  // The points by hand: per op (slowest), its rows in registry order, then the sizes, then the pods; the rows
  // that run only across slices only on the pod of two slices.
  std::vector<std::vector<std::string>> expected;
  using tpusim::sim::CollectiveKind;
  for (const auto kind : {CollectiveKind::reduce_scatter, CollectiveKind::allreduce}) {
    for (const auto& row : tpusim::sim::algorithm_table()) {
      if (row.kind != kind) continue;
      for (const char* bytes : {"4KiB", "1MiB"}) {
        for (const char* topology : {"torus:4x4", "multislice:2x(torus:2x2)"}) {
          if (row.needs_multislice && std::string(topology) == "torus:4x4") continue;
          expected.push_back({tpusim::sim::to_string(kind), row.name, bytes, topology});
        }
      }
    }
  }
  REQUIRE(study->size() == expected.size());
  for (std::size_t p = 0; p < expected.size(); ++p) {
    INFO(p);
    CHECK(study->values(p) == expected[p]);
  }
  const auto& spec = dynamic_cast<const CollectiveStudy&>(*study).spec();
  CHECK(std::count(spec.axes[1].values.begin(), spec.axes[1].values.end(), "all") == 0);

  CHECK(error_of("kind: collectives\nset:\n  collective.algorithm: all\nvary:\n  collective.bytes: [4KiB]\n") ==
        "c.yaml:3: set.collective.algorithm: all makes a point per algorithm: vary collective.algorithm: "
        "[all]");
  // A row written out beside all is the same point twice.
  CHECK_THAT(error_of(kHead + "  collective.algorithm: [ring, all]\n"),
             Catch::StartsWith("c.yaml:3: a point of vary: the same point as one of vary's"));
}

TEST_CASE("collective study: zip, listed points and exclude work as in a training sweep") {
  const auto study = parse_study(
      "kind: collectives\n"
      "set:\n"
      "  collective.op: allgather\n"
      "vary:\n"
      "  collective.algorithm: [ring, bidir_ring]\n"
      "  collective.bytes: [4KiB, 1MiB]\n"
      "  hardware.topology: [ring:8, torus:4x4]\n"
      "zip:\n"
      "  - [collective.bytes, hardware.topology]\n"
      "points:\n"
      "  - {collective.algorithm: multiport, hardware.topology: torus:4x4}\n"
      "exclude:\n"
      "  - {collective.algorithm: bidir_ring, hardware.topology: ring:8}\n",
      "c.yaml");
  // ring x (4KiB on ring:8, 1MiB on torus:4x4), bidir_ring x the same less the excluded one, then the listed
  // point, whose bytes are the key's default and whose op is set's.
  REQUIRE(study->size() == 4);
  CHECK(study->values(0) == std::vector<std::string>{"ring", "4KiB", "ring:8"});
  CHECK(study->values(1) == std::vector<std::string>{"ring", "1MiB", "torus:4x4"});
  CHECK(study->values(2) == std::vector<std::string>{"bidir_ring", "1MiB", "torus:4x4"});
  const auto& spec = dynamic_cast<const CollectiveStudy&>(*study).spec();
  const CollectiveSpec defaults;
  CHECK(study->values(3) == std::vector<std::string>{"multiport", defaults.bytes, "torus:4x4"});
  CHECK(spec.point_spec(3)[kOp] == "allgather");
  CHECK(spec.order ==
        "cartesian product, the first key varying slowest; zipped, advancing together: collective.bytes, "
        "hardware.topology; then 1 listed points; 1 points excluded");
}

TEST_CASE("collective study: random vary, zip and exclude list their points as nested loops do") {
  using tpusim::sim::CollectiveKind;
  // The values each key may take here (every explicit algorithm exists for every op listed).
  const std::vector<std::pair<std::string, std::vector<std::string>>> pool = {
      {"collective.op", {"allreduce", "allgather", "reduce_scatter"}},
      {"collective.algorithm", {"ring", "bidir_ring"}},
      {"collective.bytes", {"4KiB", "64KiB", "1MiB"}},
      {"hardware.topology", {"torus:4x4", "ring:8", "torus:2x2x2"}},
  };
  std::mt19937 random(20261204);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  for (int trial = 0; trial < 200; ++trial) {
    // Keys in a random order, each with a random non-empty subset of its values (or all, for the algorithm).
    std::vector<std::size_t> order = {0, 1, 2, 3};
    std::shuffle(order.begin(), order.end(), random);
    order.resize(2 + pick(3));
    std::vector<std::string> keys;
    std::vector<std::vector<std::string>> lists;
    for (const std::size_t k : order) {
      keys.push_back(pool[k].first);
      std::vector<std::string> values = pool[k].second;
      std::shuffle(values.begin(), values.end(), random);
      values.resize(1 + pick(values.size()));
      if (pool[k].first == "collective.algorithm" && pick(2) == 0) values = {"all"};
      lists.push_back(values);
    }
    // Maybe zip the first two keys, cutting their lists to one length.
    const bool zipped = pick(2) == 0;
    if (zipped) {
      const std::size_t n = std::min(lists[0].size(), lists[1].size());
      lists[0].resize(n);
      lists[1].resize(n);
    }
    std::string yaml = "kind: collectives\nvary:\n";
    for (std::size_t i = 0; i < keys.size(); ++i) {
      yaml += "  " + keys[i] + ": [";
      for (std::size_t j = 0; j < lists[i].size(); ++j) yaml += (j ? ", " : "") + lists[i][j];
      yaml += "]\n";
    }
    if (zipped) yaml += "zip:\n  - [" + keys[0] + ", " + keys[1] + "]\n";
    INFO(yaml);

    // The reference: nested loops over the factors (a zip group one factor, at its first key), the
    // algorithm's `all` standing for every registry row in registry order, each kept where its kind is the
    // point's op and it runs on one slice.
    std::vector<std::vector<std::size_t>> factors;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (zipped && i == 1) continue;
      factors.push_back(zipped && i == 0 ? std::vector<std::size_t>{0, 1} : std::vector<std::size_t>{i});
    }
    const auto& table = tpusim::sim::algorithm_table();
    const auto is_all = [&](std::size_t key) {
      return keys[key] == "collective.algorithm" && lists[key][0] == "all";
    };
    // A factor holding `all` (its lists are then one value long) takes each registry row in turn.
    const auto has_all = [&](std::size_t f) {
      return std::any_of(factors[f].begin(), factors[f].end(), is_all);
    };
    const auto choices = [&](std::size_t f) {
      return has_all(f) ? table.size() : lists[factors[f].front()].size();
    };
    std::vector<std::vector<std::string>> expected;
    std::vector<std::size_t> at(factors.size(), 0);
    bool done = false;
    while (!done) {
      std::vector<std::string> point(keys.size());
      const tpusim::sim::AlgorithmRow* row = nullptr;
      for (std::size_t f = 0; f < factors.size(); ++f) {
        for (const std::size_t key : factors[f]) {
          if (is_all(key)) {
            row = &table[at[f]];
            point[key] = row->name;
          } else {
            point[key] = lists[key][has_all(f) ? 0 : at[f]];
          }
        }
      }
      std::string op = CollectiveSpec().op;
      for (std::size_t i = 0; i < keys.size(); ++i)
        if (keys[i] == "collective.op") op = point[i];
      if (row == nullptr || (tpusim::sim::to_string(row->kind) == op && !row->needs_multislice))
        expected.push_back(point);
      done = true;
      for (std::size_t f = factors.size(); f-- > 0;) {
        if (++at[f] < choices(f)) {
          done = false;
          break;
        }
        at[f] = 0;
      }
    }
    // Exclude one point's value of one key: every point with it goes.
    std::size_t excluded_key = keys.size();
    std::string excluded_value;
    if (pick(3) == 0) {
      excluded_key = pick(keys.size());
      excluded_value = expected[pick(expected.size())][excluded_key];
      yaml += "exclude:\n  - {" + keys[excluded_key] + ": " + excluded_value + "}\n";
      expected.erase(std::remove_if(expected.begin(), expected.end(),
                                    [&](const auto& p) { return p[excluded_key] == excluded_value; }),
                     expected.end());
    }
    INFO("exclude: " << (excluded_key < keys.size() ? keys[excluded_key] + "=" + excluded_value : "none"));
    if (expected.empty()) {
      CHECK_THAT(error_of(yaml), Catch::Contains("excludes every point"));
      continue;
    }
    const auto study = parse_study(yaml, "c.yaml");
    REQUIRE(study->size() == expected.size());
    for (std::size_t p = 0; p < expected.size(); ++p) {
      INFO(p);
      CHECK(study->values(p) == expected[p]);
    }
  }
}
