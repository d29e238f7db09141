// A sweep's plots and report.md under faults: a malformed sweep.json (chosen, and random edits of valid
// ones) changes nothing; a full disk while gnuplot draws is an EnvironmentError naming the folder and
// changes nothing; gnuplot failing or hanging changes nothing, or (for a sweep, which has new results to
// describe) leaves the scripts and a report saying why the images are missing.
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "fake_gnuplot.hpp"
#include "image_checks.hpp"
#include "sweep_fixtures.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/report/gnuplot.hpp"
#include "workloads/report/sweep_plots.hpp"

namespace fs = std::filesystem;
using tpusim::test::FakeGnuplot;
using tpusim::test::TempFolder;
using tpusim::workloads::draw_sweep_outputs;
using tpusim::workloads::SweepPlotOptions;

namespace {

std::map<std::string, std::string> outputs_of(const std::string& folder) {
  return tpusim::test::files_beside_sweep_json(folder);
}

// A sweep's folder of `document`, drawn once without gnuplot (the scripts, data and report.md).
std::string drawn_without_gnuplot(const TempFolder& temp, const std::string& name,
                                  const nlohmann::json& document) {
  const std::string folder = temp.sweep_folder(name, document);
  const tpusim::test::NoGnuplot no_gnuplot;
  std::ostringstream warnings;
  draw_sweep_outputs(folder, warnings);
  return folder;
}

std::string draw_expecting_input_error(const std::string& folder) {
  std::ostringstream warnings;
  try {
    draw_sweep_outputs(folder, warnings);
  } catch (const tpusim::InputError& error) {
    return error.what();
  }
  return "(drawn)";
}

// The "| points | N, K ran" line report.md must give for `json`, counted here from the document itself.
std::string points_line(const nlohmann::json& json) {
  const bool collectives = json["context"]["format"] == "tpusim.collective_sweep.v1";
  std::size_t ran = 0, fit = 0;
  for (const auto& run : json["runs"]) {
    const bool did = collectives ? run["status"] == "ok" : !run.contains("error");
    ran += did ? 1 : 0;
    fit += did && !collectives && run["memory_per_core"]["fits"] == true ? 1 : 0;
  }
  std::string line =
      "| points | " + std::to_string(json["runs"].size()) + ", " + std::to_string(ran) + " ran";
  if (!collectives) line += ", " + std::to_string(fit) + " fit their HBM";
  return line + " |";
}

// A random place in `json`: the parent container and the key or index of one of its values.
void random_edit(nlohmann::json& json, std::mt19937& random) {
  nlohmann::json* parent = &json;
  std::string key;
  std::size_t index = 0;
  // Walk down a few levels, then delete or replace what is there.
  for (int depth = 0; depth < 6; ++depth) {
    if (!parent->is_object() && !parent->is_array()) break;
    if (parent->empty()) break;
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, parent->size() - 1)(random);
    nlohmann::json* child = nullptr;
    if (parent->is_object()) {
      auto it = parent->begin();
      std::advance(it, static_cast<long>(at));
      key = it.key();
      child = &it.value();
    } else {
      index = at;
      key.clear();
      child = &(*parent)[at];
    }
    if (!child->is_structured() || std::uniform_int_distribution<int>(0, 3)(random) == 0) {
      const std::vector<nlohmann::json> replacements = {
          nullptr, true, -1, 0, 2.5, 1e300, "x", "ring", nlohmann::json::array(), nlohmann::json::object()};
      if (std::uniform_int_distribution<int>(0, 1)(random) == 0) {
        if (parent->is_object()) {
          parent->erase(key);
        } else {
          parent->erase(index);
        }
      } else {
        *child = replacements[std::uniform_int_distribution<std::size_t>(0, replacements.size() - 1)(random)];
      }
      return;
    }
    parent = child;
  }
}

// A random byte changed, removed or added.
void random_byte_edit(std::string& text, std::mt19937& random) {
  const std::size_t at = std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(random);
  const char byte = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
  switch (std::uniform_int_distribution<int>(0, 3)(random)) {
    case 0:
      text[at] = byte;
      break;
    case 1:
      text.erase(at, 1);
      break;
    case 2:
      text.insert(at, 1, byte);
      break;
    default:
      // A digit, so that numbers change and mostly stay numbers.
      text[at] = static_cast<char>('0' + std::uniform_int_distribution<int>(0, 9)(random));
  }
}

}  // namespace

TEST_CASE("sweep plots: a malformed sweep.json is one line and leaves plots/ and report.md as they were") {
  const TempFolder temp;
  const std::string folder = drawn_without_gnuplot(temp, "s", tpusim::test::training_sweep_fixture());
  const auto before = outputs_of(folder);
  REQUIRE(before.count("report.md") == 1);
  REQUIRE(before.count("plots/step_time.gp") == 1);
  for (const auto& bad : tpusim::test::malformed_sweeps()) {
    INFO(bad.what);
    std::ofstream(fs::path(folder) / "sweep.json") << bad.text;
    const std::string message = draw_expecting_input_error(folder);
    CHECK_THAT(message, Catch::StartsWith(folder + "/sweep.json" + bad.message));
    CHECK(message.find('\n') == std::string::npos);
    CHECK(outputs_of(folder) == before);
  }
}

TEST_CASE("sweep plots: random edits of a valid sweep.json draw consistently or change nothing") {
  // Fixed seed: the same edits every run. Drawn without gnuplot (the scripts, data and report), which
  // reads and writes everything the images would be drawn from.
  std::mt19937 random(28);
  const tpusim::test::NoGnuplot no_gnuplot;
  const TempFolder temp;
  std::size_t drawn = 0, refused = 0;
  for (const auto& valid :
       {tpusim::test::training_sweep_fixture(), tpusim::test::collective_sweep_fixture()}) {
    const std::string folder = temp.sweep_folder(drawn + refused == 0 ? "training" : "collectives", valid);
    std::ostringstream warnings;
    draw_sweep_outputs(folder, warnings);
    auto before = outputs_of(folder);
    for (int edit = 0; edit < 200; ++edit) {
      std::string text;
      if (edit % 2 == 0) {
        nlohmann::json json = valid;
        random_edit(json, random);
        text = json.dump(2);
      } else {
        text = valid.dump(2);
        for (int bytes = std::uniform_int_distribution<int>(1, 3)(random); bytes > 0; --bytes)
          random_byte_edit(text, random);
      }
      INFO("edit " << edit << ":\n" << text);
      std::ofstream(fs::path(folder) / "sweep.json", std::ios::binary | std::ios::trunc) << text;
      std::string error;
      try {
        draw_sweep_outputs(folder, warnings);
      } catch (const tpusim::InputError& input_error) {
        error = input_error.what();
      }
      if (error.empty()) {
        // Drawn: the report counts the points as the document does, and says no point ran only if so.
        ++drawn;
        const auto json = nlohmann::json::parse(text);
        const std::string report = tpusim::test::read_text(fs::path(folder) / "report.md");
        CHECK_THAT(report, Catch::Contains(points_line(json)));
        if (report.find("No point ran and fit its HBM.") != std::string::npos)
          CHECK_THAT(points_line(json), Catch::Contains(", 0 fit their HBM"));
        before = outputs_of(folder);
      } else {
        ++refused;
        CHECK_THAT(error, Catch::StartsWith(folder + "/sweep.json"));
        CHECK(error.find('\n') == std::string::npos);
        CHECK(error.find("json.exception") == std::string::npos);
        CHECK(outputs_of(folder) == before);
      }
    }
  }
  // Both outcomes were tried, many times each.
  CHECK(drawn > 40);
  CHECK(refused > 100);
}

TEST_CASE("sweep plots: a disk that fills while gnuplot draws is an EnvironmentError naming the folder") {
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("full", tpusim::test::training_sweep_fixture());
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotDraws);
  std::ostringstream warnings;
  draw_sweep_outputs(folder, warnings);
  const auto before = outputs_of(folder);
  REQUIRE(before.count("plots/step_time.png") == 1);
  // In a child, whose file size limit (binding root too, unlike permissions) stands for the full disk: in
  // 16 KiB a file the scripts and data fit and the images do not (gnuplot finds out); in 1 KiB no script
  // fits (tpusim finds out).
  for (const auto& [file_bytes, for_a_sweep] :
       std::vector<std::pair<rlim_t, bool>>{{16384, false}, {16384, true}, {1024, false}}) {
    INFO(file_bytes << (for_a_sweep ? " for a sweep" : ""));
    const auto draw = [&, file_bytes = file_bytes, for_a_sweep = for_a_sweep]() -> std::string {
      const rlimit limit{file_bytes, file_bytes};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG rather than killing
      SweepPlotOptions options;
      options.scripts_when_gnuplot_fails = for_a_sweep;  // not gnuplot's failure: it makes no difference
      std::ostringstream ignored;
      draw_sweep_outputs(folder, ignored, options);
      return "drawn";
    };
    CHECK_THROWS_MATCHES(tpusim::run_in_child(draw, 60), tpusim::EnvironmentError,
                         Catch::Message("cannot write the plots in '" + folder + "/plots': File too large"));
    CHECK(outputs_of(folder) == before);
  }
}

TEST_CASE("sweep plots: gnuplot failing changes nothing, or for a sweep leaves the scripts and says why") {
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("fails", tpusim::test::training_sweep_fixture());
  std::ostringstream warnings;
  {
    const FakeGnuplot draws(tpusim::test::kFakeGnuplotDraws);
    draw_sweep_outputs(folder, warnings);
  }
  const auto before = outputs_of(folder);
  const FakeGnuplot fails(tpusim::test::kFakeGnuplotFails);
  CHECK_THROWS_MATCHES(draw_sweep_outputs(folder, warnings), tpusim::workloads::GnuplotFailure,
                       Catch::Message("gnuplot failed on " + folder +
                                      "/plots/step_time.gp (exit status 1): \"step_time.gp\" line 1: a fake "
                                      "gnuplot's failure"));
  CHECK(outputs_of(folder) == before);
  SweepPlotOptions options;
  options.scripts_when_gnuplot_fails = true;
  const auto outputs = draw_sweep_outputs(folder, warnings, options);
  CHECK(outputs.drawn.empty());
  CHECK_THAT(outputs.gnuplot_failure,
             Catch::StartsWith("gnuplot failed on " + folder + "/plots/step_time.gp"));
  const auto after = outputs_of(folder);
  CHECK(after.count("plots/step_time.gp") == 1);
  CHECK(after.count("plots/breakdown.dat") == 1);
  CHECK(after.count("plots/step_time.png") == 0);  // no image of an earlier drawing stays
  CHECK(after.count("plots/breakdown.svg") == 0);
  const std::string report = after.at("report.md");
  CHECK_THAT(report, Catch::Contains("- Step time against cores: fixture-scaling (`plots/step_time.gp`)"));
  CHECK_THAT(report, Catch::Contains("- No images: gnuplot failed on "));
  CHECK_THAT(report, !Catch::Contains("!["));
}

TEST_CASE("sweep plots: a gnuplot that never exits is killed at its time limit, and nothing changes") {
  const TempFolder temp;
  const std::string folder = drawn_without_gnuplot(temp, "hangs", tpusim::test::training_sweep_fixture());
  const auto before = outputs_of(folder);
  std::ostringstream warnings;
  const FakeGnuplot hangs(tpusim::test::kFakeGnuplotHangs);
  SweepPlotOptions options;
  options.gnuplot_time_limit_s = 1;
  options.how_to_raise = "allow more with --plot-time-limit SECONDS";
  CHECK_THROWS_MATCHES(
      draw_sweep_outputs(folder, warnings, options), tpusim::workloads::GnuplotFailure,
      Catch::Message("gnuplot, drawing '" + folder +
                     "/plots/step_time.png', did not finish within 1 s; killed it (allow more "
                     "with --plot-time-limit SECONDS)"));
  CHECK(outputs_of(folder) == before);
  // A sweep waits on one gnuplot only: the other charts are not drawn after it.
  options.scripts_when_gnuplot_fails = true;
  const auto outputs = draw_sweep_outputs(folder, warnings, options);
  CHECK_THAT(outputs.gnuplot_failure, Catch::Contains("did not finish within 1 s"));
  std::ifstream pids(hangs.folder() / "pids");
  // Two lines a gnuplot started (fewer if one was killed before it wrote them): two drawings, one each.
  CHECK(std::count(std::istreambuf_iterator<char>(pids), std::istreambuf_iterator<char>(), '\n') <= 4);
}
