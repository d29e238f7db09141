#pragma once
// Result files are written whole or not at all: the content goes to a temporary file beside the target
// ("<path>.tmp.<pid>"), which is renamed over the target only once everything was written. A failed or
// interrupted run never leaves a partial CSV, JSON or trace behind.
#include <functional>
#include <ostream>
#include <string>

namespace tpusim {

// Creates missing parent folders. A path that cannot be written throws InputError naming it; an exception
// from `write` removes the temporary file and propagates.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tpusim
