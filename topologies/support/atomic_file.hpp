#pragma once
// Result files are written whole or not at all: the content goes to a temporary file beside the target
// ("<path>.tmp.<pid>"), which is renamed over the target only once everything was written. A failed or
// interrupted run never leaves a partial CSV, JSON or trace behind, and the temporaries of a killed run
// (whose writer is gone, leftovers.hpp) are removed the next time the same file is written, with a note.
#include <functional>
#include <ostream>
#include <string>

namespace tpusim {

// Creates missing parent folders. A path that cannot be written (permission denied, disk full, read-only
// file system) throws EnvironmentError naming it and the reason; an exception from `write` removes the
// temporary file and propagates.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::string& path, const std::string& content);

// The name a process writing `path` gives its temporary: "<path>.tmp.<pid>".
std::string temporary_path(const std::string& path);

// Why a file of `bytes` bytes cannot be written in `folder` now (strerror's words: "No space left on
// device", "Permission denied", "File too large"), or "" when it can; the file is written, synced and
// removed. Tells a full disk from a program that failed by itself when the program's files came out short.
std::string write_problem(const std::string& folder, std::size_t bytes);

// Throws EnvironmentError unless this process may create `folder` (if missing) and files in it: a check made
// before a long simulation whose only output goes there. Creates nothing. A path whose nearest existing
// part is a file is the user's mistake, not the environment's: InputError.
void require_writable_folder(const std::string& folder);

// Throws InputError if the nearest existing part of `folder`'s path is not a folder (a file where a folder
// would be created): a path the user named, so bad input rather than the environment's failure.
void require_folder_path(const std::string& folder);

// As require_writable_folder for the file's folder; and a `path` that is a folder is an InputError ("give a
// file"), since it was named by the user.
void require_writable_file(const std::string& path);

}  // namespace tpusim
