#pragma once
// The top-level keys of a study file (`tpusim sweep`), one row each (config/key_row.hpp): the header every
// kind shares (name, description, kind, output), a training sweep's base, and the sections that say what its
// points set (set, vary, zip, points, exclude; sweep_sections.hpp reads them against each other). The rows
// are the only place a key, its type and its default are written; `tpusim sweep --schema` lists them.
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/config_node.hpp"
#include "workloads/config/key_row.hpp"

namespace tpusim::workloads {

// A study's name and where it writes.
struct StudyHeader {
  std::string name;
  std::string description;
  std::string source;      // the file
  std::string output_dir;  // results/<name> unless given
};

// A study file as its rows read it: the header, and the nodes of the keys read further on.
struct StudyFile {
  StudyHeader header;
  std::string kind;
  std::optional<ConfigNode> base, set, vary, zip, points, exclude;
};

struct StudyFileReading {
  StudyFile& file;
};
using StudyFileKey = PlainKeyRow<StudyFileReading>;

// The kinds of study, as `kind` takes them.
inline constexpr const char* kTrainingKind = "training";
inline constexpr const char* kCollectivesKind = "collectives";

const std::vector<StudyFileKey>& training_sweep_keys();         // sweep_spec.hpp's format
const std::vector<StudyFileKey>& collective_study_file_keys();  // collective_study_spec.hpp's format

// `root` is the file `source`. InputError "file:line: key: problem" (an unknown key with a suggestion).
StudyFile read_study_file(const ConfigNode& root, const std::string& source,
                          const std::vector<StudyFileKey>& rows);

}  // namespace tpusim::workloads
