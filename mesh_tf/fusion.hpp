#pragma once
// XLA's fusion, as it changes the time of a lowered program (config hardware.fusion):
//   xla   the default. Local steps are grouped into fusions, each of which reads its inputs from HBM once,
//         writes only the results that steps outside it (or the program's outputs) read, and runs as one
//         kernel: its time is the roofline of its members' matrix-unit work, their vector work and its
//         bytes, plus one per-op overhead, all charged to its last step. The groups:
//           - an elementwise step whose result only one step reads fuses into that step when it is
//             elementwise, a reduction, or a matmul or convolution on the matrix unit (its operand read);
//             a matmul or convolution whose result only one elementwise step reads takes that step into its
//             output; one matmul or convolution per fusion;
//           - a cheap elementwise step (no transcendental function) read by several steps, with one operand
//             as large as its result (the others broadcast, such as per-channel scales), is computed again
//             in each reader instead of being written: each reads its operand (a transcendental on fewer
//             elements fused into it, batch norm's rsqrt of the variance, is computed again with it);
//           - reductions that read the same tensor and do not depend on each other fuse into one pass over
//             it (multi-output fusion: batch norm's sums of x and of x squared).
//   loop  elementwise chains only, as earlier versions: an elementwise step whose result only one later
//         step (elementwise or a reduction) reads fuses into it, each step keeping its own roofline.
//   none  every step reads its inputs from HBM and writes its output there.
// Sources: XLA's instruction fusion (xla/service/instruction_fusion.cc: elementwise producers into their
// consumers; a producer may be duplicated into several consumers unless it is expensive, exp, log, rsqrt,
// tanh and the like being expensive, and unless that would multiply the elements read), its multi-output
// fusion of sibling reductions that share an operand (xla/service/multi_output_fusion.h, and the GPU pass's
// test of exactly batch norm's two sums), its fusion kinds kInput and kOutput (an op's inputs or its output
// fused into it), and the Cloud TPU TensorFlow performance notes: tf.matmul "supports fusing into its input
// and output", and convolutions into their result, activations and kernel. A fused intermediate still counts
// in the memory report.
#include "mesh_tf/device_model.hpp"
#include "mesh_tf/program.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

enum class FusionPolicy { xla, loop, none };
const NameTable<FusionPolicy>& fusion_policies();  // "xla", "loop", "none"

// Fuses the steps of `program` as `policy` says and retimes the fused ones on `device`. `kept` lists values
// that must reach HBM whoever reads them (the program's outputs and the new values of variables). The steps
// of fused attention kernels (attention_kernel.hpp) are kernels whatever the policy, hand-written rather
// than XLA's: each pass is fused and timed by fuse_attention_kernels, and the policy's passes leave them
// alone (nothing of theirs fuses into a kernel, nor a kernel's step into anything).
void fuse_steps(Program& program, const DeviceModel& device, const std::vector<int>& kept,
                FusionPolicy policy);

// Times the fusion of `members` as one kernel of matrix_s and vector_s work moving `bytes` of HBM, on the
// unit that bounds it: `root` carries the kernel's time, overhead and bytes, the others none and point at it.
void time_fusion(Program& program, const DeviceModel& device, const std::vector<int>& members, int root,
                 double matrix_s, double vector_s, double bytes);

// attention_fusion.cpp: each kernel's forward and backward pass one fusion, timed as the kernel's blocks run
// it (attention_kernel.hpp): the roofline of its matrix-unit and vector work, the skipped blocks' share
// taken off, and of its bytes, with k and v (and backward, q and the context's gradient) read once per block
// loop that reaches them; the forward values the backward pass reads, but for the row statistics, computed
// again inside it.
void fuse_attention_kernels(Program& program, const DeviceModel& device, const std::vector<int>& kept);

}  // namespace tpusim::mtf
