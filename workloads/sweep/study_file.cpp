#include "workloads/sweep/study_file.hpp"

#include <fmt/format.h>

#include "topologies/support/text.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/config/key_rows_reader.hpp"

namespace tpusim::workloads {
namespace {

StudyFileKey name_key() {
  return StudyFileKey("name", "study name: letters, digits, '-', '_' and '.'",
                      "Names the study in reports and its default results folder.")
      .computed("the file's name without .yaml",
                [](StudyFileReading& r) { r.file.header.name = config_file_stem(r.file.header.source); })
      .reads([](const ConfigNode& value, StudyFileReading& r) {
        const std::string name = value.scalar();
        if (const std::string problem = plain_name_problem(name, "sweep name"); !problem.empty())
          value.fail(problem);
        r.file.header.name = name;
      });
}

StudyFileKey description_key() {
  return StudyFileKey("description", "text", "Free text shown by tpusim sweep --list and in sweep.json.")
      .absent_means("empty")
      .reads(
          [](const ConfigNode& value, StudyFileReading& r) { r.file.header.description = value.scalar(); });
}

// Read after name, whose value it defaults to.
StudyFileKey output_key() {
  return StudyFileKey("output", "folder", "Where the records, sweep.csv, sweep.json and the plots go.")
      .computed("results/<name>",
                [](StudyFileReading& r) { r.file.header.output_dir = "results/" + r.file.header.name; })
      .reads([](const ConfigNode& value, StudyFileReading& r) {
        r.file.header.output_dir = value.scalar();
        if (r.file.header.output_dir.empty()) value.fail("must not be empty");
      });
}

// A section whose node the sections' reader takes (sweep_sections.hpp), where it is checked against the
// others.
StudyFileKey section_key(const std::string& key, const std::string& type, const std::string& doc,
                         const std::string& absent, std::optional<ConfigNode> StudyFile::*member) {
  return StudyFileKey(key, type, doc)
      .absent_means(absent)
      .reads([member](const ConfigNode& value, StudyFileReading& r) { (r.file.*member).emplace(value); });
}

// The sections, in file order: `keys` names the keys they give, `left_out` what a listed point leaves out
// gets.
std::vector<StudyFileKey> sections(const std::string& keys, const std::string& left_out) {
  return {
      section_key("set", "map from " + keys + " to values", "The value every point gets.", "nothing set",
                  &StudyFile::set),
      section_key("vary", "map from " + keys + " to non-empty lists of values",
                  "The points are the product of the lists, the first key varying slowest.", "no product",
                  &StudyFile::vary),
      section_key(
          "zip", "list of groups of vary's keys",
          "Each group's lists (as long as each other) advance together, as one factor of the product.",
          "every list its own factor", &StudyFile::zip),
      section_key(
          "points", "list of maps from " + keys + " to values",
          "Points listed one by one, after the product; a key a point leaves out has " + left_out + ".",
          "none", &StudyFile::points),
      section_key("exclude", "list of maps from varied keys to values",
                  "Partial points: every point with all of one's values (compared as written) is dropped.",
                  "none", &StudyFile::exclude),
  };
}

// `what` names a study of the kind in messages: "training sweep".
StudyFileKey kind_key(const char* kind, const char* what) {
  auto row = StudyFileKey("kind", fmt::format("{} or {}", kTrainingKind, kCollectivesKind),
                          "What each point is: a training step of a config, or one collective.")
                 .reads([kind, what](const ConfigNode& value, StudyFileReading& r) {
                   // The kind picked these rows (study.cpp); a file of another kind is read by its own.
                   if (value.scalar() != kind)
                     value.fail(fmt::format("a {} has kind '{}', not '{}'", what, kind, value.scalar()));
                   r.file.kind = kind;
                 });
  if (std::string(kind) == kTrainingKind) return row.defaults_to(kTrainingKind);
  return row.required();
}

}  // namespace

const std::vector<StudyFileKey>& training_sweep_keys() {
  static const std::vector<StudyFileKey> rows = [] {
    std::vector<StudyFileKey> all = {name_key(), description_key(),
                                     kind_key(kTrainingKind, "training sweep")};
    all.push_back(
        StudyFileKey("base", "preset name, or config file (a path relative to the sweep file)",
                     "The config every point starts from.")
            .required()
            .reads([](const ConfigNode& value, StudyFileReading& r) { r.file.base.emplace(value); }));
    for (auto& row : sections("config keys (tpusim run --schema)", "the base's value"))
      all.push_back(std::move(row));
    all.push_back(output_key());
    return all;
  }();
  return rows;
}

const std::vector<StudyFileKey>& collective_study_file_keys() {
  static const std::vector<StudyFileKey> rows = [] {
    std::vector<StudyFileKey> all = {name_key(), description_key(),
                                     kind_key(kCollectivesKind, "collective study")};
    for (auto& row : sections("collective study keys", "set's value, else its default"))
      all.push_back(std::move(row));
    all.push_back(output_key());
    return all;
  }();
  return rows;
}

StudyFile read_study_file(const ConfigNode& root, const std::string& source,
                          const std::vector<StudyFileKey>& rows) {
  StudyFile file;
  file.header.source = source;
  StudyFileReading reading{file};
  read_key_rows(std::optional<ConfigNode>(root), rows, reading);
  return file;
}

}  // namespace tpusim::workloads
