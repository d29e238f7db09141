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

// What rematerialization.hpp computed again: to fit the device's memory, or layer by layer.
struct Rematerialization {
  int values = 0;            // values computed again
  double recompute_s = 0;    // the time that added to the step's kernels
  int offloaded_values = 0;  // values held in host memory between the forward and backward passes
};

struct LiveMemory {
  std::uint64_t peak_bytes = 0;    // per core
  std::uint64_t source_bytes = 0;  // of it: sources (inputs, variables, slots), live throughout
  int peak_step = -1;              // where the peak is reached (-1: no step)
  Rematerialization rematerialization;
};

// Whether a value has a buffer in HBM and the steps that read it from there, ascending (a value kept past
// the step is read at steps.size()). A value rematerialized at step r (rematerialization.hpp) lives from
// its definition to its last read before r, and again from r to its last read.
struct BufferReads {
  bool buffered = false;
  std::vector<int> reads;
};
// `kept` lists values that must outlive the step (outputs, new values of variables).
std::vector<BufferReads> buffer_reads(const Program& program, const std::vector<int>& kept);
// The fusion (its last step) a step runs in: its own index when it is a kernel of its own.
int fusion_of(const Program& program, int step);
// The values step `reader` reads from HBM: its inputs, a duplicated producer's standing for its own inputs.
std::vector<int> values_read(const Program& program, int reader);

LiveMemory live_memory(const Program& program, const std::vector<int>& kept);
LiveMemory live_memory(const Program& program, const std::vector<BufferReads>& buffers);

}  // namespace tpusim::mtf
