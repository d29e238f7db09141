#pragma once
// Result files are written whole or not at all: the text goes to "<path>.tmp" and is renamed over <path>, so
// a failed or interrupted run never leaves a partial summary.json, collectives.csv or trace.json behind.
#include <functional>
#include <ostream>
#include <string>

namespace tpusim::workloads {

// Creates the parent folders, streams the content into the temp file, then renames it. On any failure the
// temp file is removed and std::runtime_error names the path.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tpusim::workloads
