#pragma once
// Memory per core as XLA's buffer assignment sees it: a buffer lives from the op that defines it to the
// last op that reads it, so the step needs the largest set of buffers live at once, not every tensor it ever
// holds. Variables, optimizer slots and inputs live through the whole step; values kept past it (new values
// of variables, outputs) live from their definition to its end; a value that fusion keeps on chip (read only
// inside its fusion, or computed again in each reader: fusion.hpp) has no buffer. Steps are taken in program
// order, the order the core runs them.
#include <cstdint>
#include <vector>

namespace tpusim::mtf {

struct Program;  // program.hpp, internal to mesh_tf

struct LiveMemory {
  std::uint64_t peak_bytes = 0;    // per core
  std::uint64_t source_bytes = 0;  // of it: sources (inputs, variables, slots), live throughout
  int peak_step = -1;              // where the peak is reached (-1: no step)
};

// `kept` lists values that must outlive the step (outputs, new values of variables).
LiveMemory live_memory(const Program& program, const std::vector<int>& kept);

}  // namespace tpusim::mtf
