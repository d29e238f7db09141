#pragma once
// Collective times kept between searches on the same pod: one file per simulator identity in a folder
// (results/collective-times by default), so that a search reuses every collective an earlier search on that
// pod simulated, whatever its model. The file's first line is the identity it holds times for: the tpusim
// version, a hash of the running executable's bytes (any rebuild starts afresh, so changed code never
// reads times of other code), the SimGrid version and sim::Simulator::identity(); then one line per request
// (its key in hex, then the result). A file of another identity, or one that does not read back whole, is
// ignored, never half used; the file is replaced atomically.
#include <string>

namespace tpusim::sim {
class Simulator;
}

namespace tpusim::workloads {

// The identity line of files `simulator`'s results may be kept in, and the file's path in `folder`.
std::string collective_time_identity(const sim::Simulator& simulator);
std::string collective_time_file(const std::string& folder, const sim::Simulator& simulator);

// Remembers the file's results in `simulator` (isolated collectives); returns how many, 0 when the file is
// missing, of another identity or unreadable.
int load_collective_times(const std::string& path, sim::Simulator& simulator);
// Writes every result the simulator remembers (those loaded included). EnvironmentError when it cannot.
void save_collective_times(const std::string& path, const sim::Simulator& simulator);

}  // namespace tpusim::workloads
