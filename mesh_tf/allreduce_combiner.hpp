#pragma once
// XLA's all-reduce combiner (xla/service/all_reduce_combiner.cc): independent all-reduces of the same kind
// over the same devices are merged into one all-reduce of their concatenated buffers, up to a size
// threshold, so that many small gradient sums pay the collective's latency once. The threshold is a compiler
// setting (config hardware.allreduce_combine): XLA's GPU backend defaults to 30 MiB
// (xla_gpu_all_reduce_combine_threshold_bytes); the TPU backend's value is not public.
//
// Here: sums issued as one allreduce of the same mesh dims and element type are combined greedily, taken in
// the order their inputs become ready, while their bytes per core stay within the threshold and every
// member's input is produced before the earliest member (so that none depends on another). The earliest
// becomes the combined collective: it reads every member's input, its issued collective has their elements
// together, and it carries every member's data in full numerics; the others are marked combined_into it,
// take no time of their own, and end when it ends. A gradient's sum is lowered where the optimizer first
// reads it, after the whole backward pass, so gradients combine; the two sums of a batch norm do not (the
// variance's input is computed after the mean's sum is read).
#include <cstdint>

#include "mesh_tf/program.hpp"

namespace tpusim::mtf {

// threshold_bytes 0: nothing is combined.
void combine_allreduces(Program& program, std::uint64_t threshold_bytes);

// The signature of a collective step: identical signatures have identical simulated times.
std::string collective_signature(const Step& step);

}  // namespace tpusim::mtf
