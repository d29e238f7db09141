#pragma once
// The keys every study file starts with, whatever its kind: name, description and output.
//   name: lm-scaling            # optional, default: the file name without .yaml
//   description: text           # optional
//   output: results/lm-scaling  # optional, default results/<name>
#include <string>

namespace tpusim::workloads {

class ConfigNode;

struct StudyHeader {
  std::string name;
  std::string description;
  std::string source;      // the file
  std::string output_dir;  // results/<name> unless given
};

// `root` is the study file, its keys checked already. InputError "file:line: name: problem".
StudyHeader read_study_header(const ConfigNode& root, const std::string& file);

}  // namespace tpusim::workloads
