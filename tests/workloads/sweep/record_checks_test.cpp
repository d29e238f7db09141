// Records and manifests are checked before they are trusted: each carries a checksum of its content; a record
// edited by hand or damaged is named on stderr and its point runs again (resume) or the merge refuses it; a
// manifest with a key missing, of another type or changed is one line naming the file and the key. Random
// byte edits are always detected, unless they change nothing that is read.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <tuple>

#include "fake_study.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/sweep/folder_json.hpp"
#include "workloads/sweep/study_runner.hpp"
#include "workloads/sweep/sweep_merge.hpp"
#include "workloads/sweep/sweep_record.hpp"

using namespace tpusim::workloads;
using namespace tpusim::workloads::test;
namespace fs = std::filesystem;

namespace {

StudyRunTotals run_checked(const Study& study) { return run_study(study, StudyRunOptions{}); }

std::string checked_record_path(const FakeStudy& study, std::size_t point) {
  return study.output_dir() + "/points/" + record_file_name(point, study.point_hash(point));
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// FNV-1a over 64 bits, written out here from its definition (offset basis 14695981039346656037, prime
// 1099511628211) rather than taken from the code under test; the content hash ends each part with 0xff.
std::string fnv1a_hex(const std::string& text) {
  std::uint64_t state = 14695981039346656037ull;
  for (const char c : text + '\xff') state = (state ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return fmt::format("{:016x}", state);
}

// One random edit of `text`: a byte replaced, inserted or removed, two swapped, the text cut, or a digit
// changed (what a hand edit of a figure does).
std::string edited(const std::string& text, std::mt19937& random) {
  std::string out = text;
  const std::size_t at = random() % out.size();
  const char byte = static_cast<char>(random() % 256);
  switch (random() % 6) {
    case 0:
      out[at] = out[at] == byte ? static_cast<char>(byte + 1) : byte;
      break;
    case 1:
      out.insert(out.begin() + static_cast<long>(at), byte);
      break;
    case 2:
      out.erase(at, 1);
      break;
    case 3:
      if (at + 1 < out.size() && out[at] != out[at + 1])
        std::swap(out[at], out[at + 1]);
      else
        out.erase(at, 1);
      break;
    case 4:
      out.resize(at);
      break;
    default: {
      std::vector<std::size_t> digits;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] >= '0' && out[i] <= '9') digits.push_back(i);
      }
      const std::size_t d = digits[random() % digits.size()];
      out[d] = static_cast<char>('0' + (out[d] - '0' + 1 + random() % 9) % 10);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("records: each carries the checksum of its content, the tpusim version and its config's hash") {
  const TempFolder temp;
  FakeStudy study("fake", 3, temp.path("out"));
  run_checked(study);
  const std::string text = read_text(checked_record_path(study, 2));
  auto record = nlohmann::json::parse(text);
  CHECK(record["format"] == "tpusim.sweep_record.v2");
  CHECK(record["tpusim_version"] == TPUSIM_VERSION);
  CHECK(record["hash"] == study.point_hash(2));
  const std::string checksum = record["checksum"];
  record.erase("checksum");
  CHECK(checksum == fnv1a_hex(record.dump()));
  // The file is one line: the record's text as dumped, then its checksum's place in key order.
  CHECK(text.back() == '\n');
  CHECK(text.find('\n') == text.size() - 1);
}

TEST_CASE("records: each check names its problem, in words that follow the record's path") {
  const TempFolder temp;
  FakeStudy study("fake", 2, temp.path("out"));
  run_checked(study);
  const std::string hash = study.point_hash(1);
  const auto record = nlohmann::json::parse(read_text(checked_record_path(study, 1)));
  // Each case changes the record, then makes its checksum anew (unless it is about the checksum): only the
  // check at hand fails.
  const std::vector<std::tuple<std::string, std::function<void(nlohmann::json&)>, bool, std::string>> cases =
      {
          {"fine", [](nlohmann::json&) {}, true, ""},
          {"no format", [](nlohmann::json& r) { r.erase("format"); }, true,
           "is not a sweep record (it has no format)"},
          {"another format", [](nlohmann::json& r) { r["format"] = "x\ny"; }, true,
           "is not a sweep record of this tpusim (format \"x\\ny\", expected tpusim.sweep_record.v2)"},
          {"a field missing", [](nlohmann::json& r) { r.erase("wall_s"); }, true, "lacks its 'wall_s' field"},
          {"a field of another type", [](nlohmann::json& r) { r["point"] = -1; }, true,
           "has a number as its 'point' where a whole number belongs"},
          {"no checksum", [](nlohmann::json& r) { r.erase("checksum"); }, false,
           "lacks its 'checksum' field"},
          {"a changed figure", [](nlohmann::json& r) { r["result"]["square"] = 1000; }, false,
           "fails its checksum: it was changed after tpusim wrote it"},
          {"an unknown status", [](nlohmann::json& r) { r["status"] = "fine"; }, true,
           "has status \"fine\", which is none of ok, failed, input_error and skipped"},
          {"a cell that is a list", [](nlohmann::json& r) { r["csv"][1] = nlohmann::json::array(); }, true,
           "has an array as a cell of its 'csv' row, where a string, number or null belongs"},
          {"another point", [](nlohmann::json& r) { r["point"] = 0; }, true,
           "holds point 0 (hash \"" + hash + "\"), not point 1 (hash " + hash + ") as its name says"},
      };
  for (const auto& [what, change, reseal, problem] : cases) {
    INFO(what);
    nlohmann::json changed = record;
    change(changed);
    if (reseal && changed.contains("checksum")) changed = with_checksum(changed);
    const RecordRead read = parse_record(changed.dump(), 1, hash);
    CHECK(read.problem == problem);
    CHECK(read.record.has_value() == problem.empty());
  }
  CHECK(parse_record("[]", 1, hash).problem == "is not a JSON object");
  CHECK(parse_record("{\"format\": ", 1, hash).problem == "is not JSON (cut short or damaged)");
  CHECK(parse_record(std::string(65, '[') + std::string(65, ']'), 1, hash).problem ==
        "nests deeper than 64 levels");
}

TEST_CASE("records: one edited by hand, cut short or of format v1 is named on stderr and runs again") {
  const TempFolder temp;
  FakeStudy study("fake", 5, temp.path("out"));
  run_checked(study);
  const auto before = csv_without_wall(temp.path("out/sweep.csv"));
  // Point 3's figure multiplied by 1000, in its result and its row, as a hand edit would.
  auto record = nlohmann::json::parse(read_text(checked_record_path(study, 3)));
  record["result"]["square"] = 9000;
  record["csv"][2] = 9000;
  write_text(checked_record_path(study, 3), record.dump() + "\n");
  // Point 1's record as tpusim 0.4 wrote it: format v1, no checksum.
  auto old = nlohmann::json::parse(read_text(checked_record_path(study, 1)));
  old["format"] = "tpusim.sweep_record.v1";
  old.erase("checksum");
  write_text(checked_record_path(study, 1), old.dump() + "\n");
  // Point 4's cut short, as by a full disk without the atomic rename.
  write_text(checked_record_path(study, 4), read_text(checked_record_path(study, 4)).substr(0, 40));
  const StderrCapture notes;
  const auto again = run_checked(study);
  CHECK(again.ran == 3);
  CHECK(again.done_before == 2);
  CHECK(csv_without_wall(temp.path("out/sweep.csv")) == before);
  std::vector<std::string> lines = notes.lines();
  std::sort(lines.begin(), lines.end());
  CHECK(lines ==
        std::vector<std::string>{
            "tpusim: note: record '" + checked_record_path(study, 1) +
                "' is of format tpusim.sweep_record.v1, written by an earlier tpusim without checksums; "
                "running point 1 again",
            "tpusim: note: record '" + checked_record_path(study, 3) +
                "' fails its checksum: it was changed after tpusim wrote it; running point 3 again",
            "tpusim: note: record '" + checked_record_path(study, 4) +
                "' is not JSON (cut short or damaged); running point 4 again"});
}

TEST_CASE("records: one that passes its checks but whose row has another length gets its row made anew") {
  const TempFolder temp;
  FakeStudy study("fake", 3, temp.path("out"));
  run_checked(study);
  const auto before = csv_without_wall(temp.path("out/sweep.csv"));
  // Only a writer that makes its checksum anew gets there: a row of no version of this study.
  auto record = nlohmann::json::parse(read_text(checked_record_path(study, 1)));
  record["csv"].erase(record["csv"].begin());
  write_text(checked_record_path(study, 1), with_checksum(record).dump() + "\n");
  const auto again = run_checked(study);
  CHECK(again.ran == 0);
  CHECK(csv_without_wall(temp.path("out/sweep.csv")) == before);
  CHECK(nlohmann::json::parse(read_text(checked_record_path(study, 1)))["csv"].size() == 5);
}

TEST_CASE("records: a merge refuses a record edited by hand or damaged, naming it") {
  const TempFolder temp;
  FakeStudy study("fake", 4, temp.path("out"));
  run_checked(study);
  auto record = nlohmann::json::parse(read_text(checked_record_path(study, 2)));
  record["result"]["square"] = 4000;
  write_text(checked_record_path(study, 2), record.dump() + "\n");
  CHECK(
      merge_error(temp.path("merged"), {temp.path("out")}) ==
      "sweep merge: record '" + checked_record_path(study, 2) +
          "' fails its checksum: it was changed after tpusim wrote it; nothing merged: remove it and run the "
          "whole sweep again to make it anew");
  write_text(checked_record_path(study, 2), "");
  CHECK(
      merge_error(temp.path("merged"), {temp.path("out")}) ==
      "sweep merge: record '" + checked_record_path(study, 2) +
          "' is not JSON (cut short or damaged); nothing merged: remove it and run the whole sweep again to "
          "make it anew");
  // Checked, but with a row of another length than the sweep's header (only a writer that made its checksum
  // anew gets there): refused too, as the merge has no sweep file to make the row anew from.
  record = nlohmann::json::parse(read_text(checked_record_path(study, 3)));
  record["csv"].push_back("extra");
  write_text(checked_record_path(study, 3), with_checksum(record).dump() + "\n");
  fs::remove(checked_record_path(study, 2));
  CHECK(merge_error(temp.path("merged"), {temp.path("out")}) ==
        "sweep merge: record '" + checked_record_path(study, 3) +
            "' has 6 cells in its row where the sweep's header has 5; nothing merged: remove it and run the "
            "whole sweep again to make it anew");
  fs::remove(checked_record_path(study, 3));
  // Removed, they are points in none of the folders, as before.
  CHECK_THAT(merge_error(temp.path("merged"), {temp.path("out")}),
             Catch::StartsWith("sweep merge: 2 of the 4 points of sweep fake are in none of the folders"));
  CHECK_FALSE(fs::exists(temp.path("merged")));
}

TEST_CASE("manifests: a key missing, of another type or changed is one line naming the file and the key") {
  const TempFolder temp;
  FakeStudy study("fake", 3, temp.path("out"));
  run_checked(study);
  const std::string path = temp.path("out/points/manifest.json");
  const auto manifest = nlohmann::json::parse(read_text(path));
  CHECK(manifest["format"] == "tpusim.sweep_manifest.v2");
  CHECK(checksum_matches(manifest));
  auto resealed = [](nlohmann::json document) { return with_checksum(std::move(document)).dump(); };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {[&] {
         auto m = manifest;
         m.erase("csv_header");
         return m.dump();
       }(),
       path + ": csv_header: missing"},
      {[&] {
         auto m = manifest;
         m["points"] = "3";
         return resealed(m);
       }(),
       path + ": points: not a whole number"},
      {[&] {
         auto m = manifest;
         m["point_hashes"].push_back(42);
         return m.dump();
       }(),
       path + ": point_hashes: not an array of strings"},
      {[&] {
         auto m = manifest;
         m["csv_header"] = nlohmann::json::array();
         return resealed(m);
       }(),
       path + ": csv_header: empty"},
      {[&] {
         auto m = manifest;
         m["point_hashes"].erase(m["point_hashes"].begin());
         return resealed(m);
       }(),
       path + ": point_hashes: 2 hashes for 3 points"},
      {[&] {
         auto m = manifest;
         m["shard"] = "3/2";
         return resealed(m);
       }(),
       path + ": shard: not K/N with 1 <= K <= N"},
      {[&] {
         auto m = manifest;
         m["description"]["name"] = "renamed";
         return m.dump();
       }(),
       path + ": checksum: fails: the manifest was changed after tpusim wrote it"},
      {[&] {
         auto m = manifest;
         m.erase("checksum");
         return m.dump();
       }(),
       path + ": checksum: missing"},
      {[&] {
         auto m = manifest;
         m["format"] = "tpusim.sweep_manifest.v1";
         return m.dump();
       }(),
       path +
           ": format: not a sweep manifest of this tpusim (format tpusim.sweep_manifest.v2); run the sweep "
           "again with this tpusim"},
      {"[1, 2]", path + ": the sweep manifest is not a JSON object"},
      {"{\"format\": ", path + ": the sweep manifest is not JSON (cut short or damaged)"},
      {std::string(100, '[') + std::string(100, ']'),
       path + ": the sweep manifest nests deeper than 64 levels"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text.substr(0, 200));
    write_text(path, text);
    CHECK(merge_error(temp.path("merged"), {temp.path("out")}) == message);
  }
  CHECK_FALSE(fs::exists(temp.path("merged")));
}

TEST_CASE("records: random byte edits are detected, or change nothing read, by resume and merge alike") {
  const TempFolder temp;
  FakeStudy study("fake", 4, temp.path("whole"));
  run_checked(study);
  const auto rows = csv_without_wall(temp.path("whole/sweep.csv"));
  std::mt19937 random(6);
  int detected = 0;
  for (int edit = 0; edit < 400; ++edit) {
    const std::size_t point = random() % study.size();
    const std::string original = read_text(checked_record_path(study, point));
    const std::string text = edited(original, random);
    INFO("edit " << edit << " of point " << point << ": " << text);
    const RecordRead read = parse_record(text, point, study.point_hash(point));
    CHECK(read.record.has_value() == read.problem.empty());
    if (read.record) {
      CHECK(*read.record == nlohmann::json::parse(original));  // only the layout changed
    } else {
      ++detected;
    }
    if (edit % 8 != 0) continue;
    // The same edit in a copy of the folder: a merge refuses it or merges what the whole run has ...
    const std::string copy = temp.path(fmt::format("copy-{}", edit));
    fs::copy(temp.path("whole"), copy, fs::copy_options::recursive);
    const std::string edited_path = copy + "/points/" + record_file_name(point, study.point_hash(point));
    write_text(edited_path, text);
    const std::string merged = temp.path(fmt::format("merged-{}", edit));
    const std::string error = merge_error(merged, {copy});
    if (read.record) {
      CHECK(error == "(merged)");
      CHECK(csv_without_wall(merged + "/sweep.csv") == rows);
    } else {
      CHECK_THAT(error, Catch::StartsWith("sweep merge: record '" + edited_path + "' "));
    }
    // ... and a resume runs the point again, or nothing, to the same rows.
    FakeStudy resumed = study;
    resumed.set_output_dir(copy);
    const StderrCapture notes;
    const auto totals = run_checked(resumed);
    CHECK(totals.ran == (read.record ? 0 : 1));
    CHECK(notes.lines().size() == (read.record ? 0 : 1));
    CHECK(csv_without_wall(copy + "/sweep.csv") == rows);
  }
  // Almost every edit changes what is read (a space between tokens does not).
  CHECK(detected > 350);
}

TEST_CASE("manifests: random byte edits are one line naming the manifest, or change nothing read") {
  const TempFolder temp;
  FakeStudy study("fake", 3, temp.path("out"));
  run_checked(study);
  const std::string path = temp.path("out/points/manifest.json");
  const std::string original = read_text(path);
  std::mt19937 random(7);
  int detected = 0;
  for (int edit = 0; edit < 300; ++edit) {
    const std::string text = edited(original, random);
    INFO("edit " << edit << ": " << text);
    std::optional<nlohmann::json> manifest;
    std::string message;
    try {
      manifest = parse_manifest(text, path);
    } catch (const tpusim::InputError& error) {
      message = error.what();
    }
    if (manifest) {
      CHECK(*manifest == nlohmann::json::parse(original));  // only the layout changed
      continue;
    }
    ++detected;
    CHECK_THAT(message, Catch::StartsWith(path + ": "));
    CHECK(message.find('\n') == std::string::npos);
  }
  CHECK(detected > 250);
}
