#pragma once
// What a transfer carries and what it does on arrival, apart from when it runs (executor.cpp): the elements
// read from the source's buffer when it starts, and their copy or reduction into the destination's buffer
// when it ends. A transfer with a layout (sim/index_map.hpp) reads and writes the buffer pieces its range
// stands for, in order.
#include <vector>

#include "sim/collective.hpp"
#include "sim/schedule.hpp"

namespace tpusim::sim {

// The transfer's elements as `source` holds them now.
std::vector<float> read_payload(const Transfer& transfer, const float* source);

// Copies (Action::copy) or reduces with `op` the payload into `target` at the transfer's destination range.
void apply_payload(const Transfer& transfer, const std::vector<float>& payload, ReduceOp op, float* target);

}  // namespace tpusim::sim
