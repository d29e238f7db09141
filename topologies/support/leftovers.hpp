#pragma once
// What killed runs leave behind: the temporaries of files written atomically and the staging folders of
// results written as a unit, both named "<name>.tmp.<pid>" (or "<name>.tmp.<pid>.<suffix>") after the
// writer's pid. tpusim removes those of writers that are gone wherever it writes next to them, and says so:
//   tpusim: note: removed 2 leftovers of killed runs in 'results/x' (77 MiB): sweep.csv.tmp.1234,
//   plots.tmp.1234
//
// A writer is gone when no process has its pid, or when the process that has it now runs another program: a
// pid is reused once its process ended, and on a machine shared with others it soon is. The program is told
// by /proc/<pid>/comm against this process's own; where /proc cannot tell (not mounted, or hidden), a running
// pid counts as a writer still at work and its temporaries stay. So a temporary of another tpusim binary
// (a test program, a build named otherwise) that is still writing could be taken for a leftover; folders
// written as a unit are locked while written (folder_lock.hpp), so this concerns single files at most.
#include <cstdint>
#include <string>
#include <vector>

namespace tpusim {

struct Leftovers {
  std::vector<std::string> names;  // entries of the folder, sorted
  std::uintmax_t bytes = 0;        // their size, folders with everything in them
};

// The pid in a temporary's name "<name>.tmp.<pid>[.<suffix>]", or 0 for any other entry; with `name` empty,
// the temporary of any name.
long temporary_pid(const std::string& entry, const std::string& name);

// Whether the writer `pid` is gone (see above). Never this process.
bool writer_is_gone(long pid);

// Removes the temporaries of gone writers in `folder` (those of `name`, or of any name when it is empty).
// Best effort: one that cannot be removed stays, and is tried again next time.
Leftovers remove_leftovers(const std::string& folder, const std::string& name);

// The note for what remove_leftovers removed: one line, "" when nothing was.
std::string leftovers_note(const std::string& folder, const Leftovers& removed);

// Both, the note on stderr.
void clean_leftovers(const std::string& folder, const std::string& name);

}  // namespace tpusim
